#include "support/y4m.h"

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

#include "support/raw_video.h"

namespace vmafexact::tools {

namespace {

struct ChromaType {
  const char* name;
  GstVideoFormat format;
  bool alpha = false;  // a fourth plane of luma's size follows (dropped)
};

// libvmaf's tool reads 420 (jpeg, mpeg2), 420p10, 420p12, 422p10, 422p12,
// 444, 444p10 and 444p12 as they are; its other types need a conversion it
// does not do, and it fails on them. vmafexact reads those as they are too
// (chroma siting is not a sample's value), and 16-bit 4:4:4 and monochrome,
// which GStreamer holds.
constexpr std::array<ChromaType, 18> kChromaTypes = {{
    {"420", GST_VIDEO_FORMAT_I420},
    {"420jpeg", GST_VIDEO_FORMAT_I420},
    {"420mpeg2", GST_VIDEO_FORMAT_I420},
    {"420paldv", GST_VIDEO_FORMAT_I420},
    {"420p10", GST_VIDEO_FORMAT_I420_10LE},
    {"420p12", GST_VIDEO_FORMAT_I420_12LE},
    {"422", GST_VIDEO_FORMAT_Y42B},
    {"422p10", GST_VIDEO_FORMAT_I422_10LE},
    {"422p12", GST_VIDEO_FORMAT_I422_12LE},
    {"444", GST_VIDEO_FORMAT_Y444},
    {"444p10", GST_VIDEO_FORMAT_Y444_10LE},
    {"444p12", GST_VIDEO_FORMAT_Y444_12LE},
    {"444p16", GST_VIDEO_FORMAT_Y444_16LE},
    {"444alpha", GST_VIDEO_FORMAT_Y444, true},
    {"411", GST_VIDEO_FORMAT_Y41B},
    {"mono", GST_VIDEO_FORMAT_GRAY8},
    {"mono16", GST_VIDEO_FORMAT_GRAY16_LE},
    {"400", GST_VIDEO_FORMAT_GRAY8},
}};

// Pictures up to this side: the element's limits are far beyond any video,
// but a header's numbers must not overflow the frame size.
constexpr int kMaxSide = 1 << 16;
// A header or frame line longer than this is not a y4m file's.
constexpr std::size_t kMaxLine = 4096;

int positive_int(std::string_view text, std::string_view what) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0)
    throw Y4mError("its header's " + std::string(what) + " is \"" + std::string(text) +
                   "\", not a positive whole number");
  return value;
}

// "N:D" into num and den, both positive (0:0 allowed where `allow_zero`).
void ratio(std::string_view text, std::string_view what, int& num, int& den, bool allow_zero) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw Y4mError("its header's " + std::string(what) + " is \"" + std::string(text) +
                   "\", not N:D");
  if (allow_zero && text == "0:0") {
    num = den = 0;
    return;
  }
  num = positive_int(text.substr(0, colon), what);
  den = positive_int(text.substr(colon + 1), what);
}

// A frame's line, "FRAME" and any parameters up to its newline, read from
// `file`: its length with the newline, or why it is not one.
struct FrameLine {
  enum Status { kOk, kNotFrame, kCut, kTooLong } status = kOk;
  std::uint64_t length = 0;
};
FrameLine read_frame_line(std::FILE* file) {
  char marker[5];
  if (std::fread(marker, 1, sizeof marker, file) != sizeof marker) return {FrameLine::kCut, 0};
  if (std::memcmp(marker, "FRAME", 5) != 0) return {FrameLine::kNotFrame, 0};
  std::uint64_t length = sizeof marker;
  int c = 0;
  while ((c = std::fgetc(file)) != EOF && c != '\n')
    if (++length > kMaxLine) return {FrameLine::kTooLong, length};
  if (c != '\n') return {FrameLine::kCut, length};
  return {FrameLine::kOk, length + 1};
}

}  // namespace

std::string y4m_chroma_names() {
  std::string names;
  for (const ChromaType& type : kChromaTypes) {
    if (!names.empty()) names += ", ";
    names += type.name;
  }
  return names;
}

bool starts_like_y4m(std::string_view first_bytes) {
  return first_bytes.substr(0, 9) == "YUV4MPEG2";
}

Y4mHeader parse_y4m_header(std::string_view line) {
  if (!starts_like_y4m(line)) throw Y4mError("it does not start with \"YUV4MPEG2\"");
  Y4mHeader header;
  bool got_width = false, got_height = false, got_rate = false;
  std::string_view rest = line.substr(9);
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view tag = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (tag.empty()) continue;
    const std::string_view value = tag.substr(1);
    switch (tag[0]) {
      case 'W':
        header.width = positive_int(value, "width (W)");
        got_width = true;
        break;
      case 'H':
        header.height = positive_int(value, "height (H)");
        got_height = true;
        break;
      case 'F':
        ratio(value, "frame rate (F)", header.fps_num, header.fps_den, false);
        got_rate = true;
        break;
      case 'A':
        ratio(value, "pixel aspect ratio (A)", header.par_num, header.par_den, true);
        break;
      case 'I':
        // p progressive, ? unknown (read as progressive, as libvmaf does);
        // t, b and m are interlaced, which VMAF does not score.
        if (value != "p" && value != "?")
          throw Y4mError("it is interlaced (I" + std::string(value) +
                         "); VMAF scores progressive video, and libvmaf's tool refuses it too");
        break;
      case 'C':
        header.chroma = std::string(value);
        break;
      default:
        break;  // X (comments and extensions) and tags of later versions
    }
  }
  if (!got_width || !got_height || !got_rate)
    throw Y4mError(std::string("its header has no ") + (!got_width    ? "width (W)"
                                                        : !got_height ? "height (H)"
                                                                      : "frame rate (F)"));
  if (header.width > kMaxSide || header.height > kMaxSide)
    throw Y4mError("its header's size " + std::to_string(header.width) + "x" +
                   std::to_string(header.height) + " is larger than " + std::to_string(kMaxSide) +
                   " on a side");
  const ChromaType* type = nullptr;
  for (const ChromaType& known : kChromaTypes)
    if (header.chroma == known.name) type = &known;
  if (!type)
    throw Y4mError("its chroma type C" + header.chroma + " is not one vmafexact reads (" +
                   y4m_chroma_names() + ")");
  header.format = type->format;
  header.frame_bytes = packed_layout(type->format, header.width, header.height).frame_size;
  if (type->alpha) header.extra_bytes = static_cast<std::size_t>(header.width) * header.height;
  return header;
}

Y4mReader::Y4mReader(const std::string& path) : file_(std::fopen(path.c_str(), "rb")) {
  if (!file_) throw Y4mError(std::string("it cannot be opened: ") + std::strerror(errno));
  std::string line;
  int c = 0;
  while ((c = std::fgetc(file_.get())) != EOF && c != '\n') {
    if (line.size() == kMaxLine) throw Y4mError("its header line is longer than 4096 bytes");
    line.push_back(static_cast<char>(c));
  }
  if (c != '\n') throw Y4mError("it ends inside its header line");
  header_ = parse_y4m_header(line);
  count_frames();
}

// Walks the frame lines (seeking over the planes) to count the whole frames
// and find lost framing before anything is scored, then returns to the first.
void Y4mReader::count_frames() {
  std::FILE* file = file_.get();
  const long start = std::ftell(file);
  struct stat status {};
  if (start < 0 || fstat(fileno(file), &status) != 0) throw Y4mError("it cannot be measured");
  const auto size = static_cast<std::uint64_t>(status.st_size);
  const std::uint64_t planes = header_.frame_bytes + header_.extra_bytes;
  std::uint64_t at = static_cast<std::uint64_t>(start);
  while (at < size) {
    if (size - at < 6 + planes) {   // "FRAME\n" and the planes
      trailing_bytes_ = size - at;  // a truncated last frame
      break;
    }
    const std::string frame = "frame " + std::to_string(frame_count_ + 1);
    const FrameLine line = read_frame_line(file);
    if (line.status == FrameLine::kNotFrame)
      throw Y4mError(frame + " does not start with \"FRAME\" (the file's frames are not " +
                     std::to_string(planes) +
                     " bytes each: are its header's size and chroma type right?)");
    if (line.status == FrameLine::kTooLong)
      throw Y4mError(frame + "'s line is longer than 4096 bytes");
    if (line.status == FrameLine::kCut || size - at - line.length < planes) {
      trailing_bytes_ = size - at;
      break;
    }
    at += line.length + planes;
    if (std::fseek(file, static_cast<long>(at), SEEK_SET) != 0) throw Y4mError("it cannot be read");
    ++frame_count_;
  }
  if (std::fseek(file, start, SEEK_SET) != 0) throw Y4mError("it cannot be read");
}

bool Y4mReader::skip_frames(std::uint64_t count) {
  std::FILE* file = file_.get();
  for (; count > 0; --count) {
    if (frames_read_ == frame_count_) return false;
    if (read_frame_line(file).status != FrameLine::kOk ||
        std::fseek(file, static_cast<long>(header_.frame_bytes + header_.extra_bytes), SEEK_CUR) !=
            0)
      throw Y4mError("frame " + std::to_string(frames_read_ + 1) +
                     " is no longer what it was when the file was opened (was it changed?)");
    ++frames_read_;
  }
  return true;
}

bool Y4mReader::read_frame(std::uint8_t* out) {
  if (frames_read_ == frame_count_) return false;  // the end, or a truncated last frame
  // The frames were walked when the file was opened: a failure now means the
  // file changed since.
  const auto changed = [this] {
    return Y4mError("frame " + std::to_string(frames_read_ + 1) +
                    " is no longer what it was when the file was opened (was it changed?)");
  };
  std::FILE* file = file_.get();
  if (read_frame_line(file).status != FrameLine::kOk) throw changed();
  if (std::fread(out, 1, header_.frame_bytes, file) != header_.frame_bytes) throw changed();
  if (header_.extra_bytes &&
      std::fseek(file, static_cast<long>(header_.extra_bytes), SEEK_CUR) != 0)
    throw changed();
  ++frames_read_;
  return true;
}

}  // namespace vmafexact::tools
