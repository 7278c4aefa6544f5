// YUV4MPEG2 (.y4m) files, read the way libvmaf's `vmaf` tool reads them, at
// every bit depth. GStreamer 1.22's y4mdec reads 8-bit files only ("Failed to
// parse YUV4MPEG frame" for C420p10), while 10- and 12-bit y4m is what HDR
// content is scored from; the vmafexact tool reads y4m itself and hands the
// frames to an appsrc (docs/tool.md, "Y4M files").
//
// The format: one header line "YUV4MPEG2 W<width> H<height> F<num>:<den>
// [I<interlacing>] [A<par>] [C<chroma>] [X<anything>]...", then per frame a
// line "FRAME[ params]" and the planes, Y then Cb then Cr, tightly packed,
// chroma sizes rounded up, samples of more than 8 bits in two little-endian
// bytes.
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vmafexact::tools {

// What is wrong with a y4m file, in words for its user.
class Y4mError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Y4mHeader {
  int width = 0;
  int height = 0;
  int fps_num = 0;
  int fps_den = 0;
  int par_num = 0;  // 0:0 when not given
  int par_den = 0;
  std::string chroma = "420";  // the C tag (420 when absent, as libvmaf)
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  std::size_t frame_bytes = 0;  // the planes scored, per frame
  std::size_t extra_bytes = 0;  // read and dropped after them (444alpha's alpha plane)
};

// Parses the header line (without its '\n'). Throws Y4mError naming the
// problem: not a YUV4MPEG2 header, a missing or malformed W, H or F tag, a
// size or rate of 0 or out of range, interlaced video (I t, b or m: libvmaf's
// tool refuses it too), an unknown chroma type (the error lists the known).
Y4mHeader parse_y4m_header(std::string_view line);

// The chroma types parse_y4m_header() takes: "420jpeg, 420mpeg2, ...".
std::string y4m_chroma_names();

// Whether the first bytes of a file are a y4m header's.
bool starts_like_y4m(std::string_view first_bytes);

// One y4m file, read frame by frame.
class Y4mReader {
 public:
  // Opens `path`, reads its header and walks its frame lines; throws
  // Y4mError, also for a frame line that is not one (wrong size or chroma).
  explicit Y4mReader(const std::string& path);

  const Y4mHeader& header() const { return header_; }
  // Whole frames in the file, counted when it was opened.
  std::uint64_t frame_count() const { return frame_count_; }
  // The bytes after the last whole frame (a truncated frame).
  std::uint64_t trailing_bytes() const { return trailing_bytes_; }

  // Reads the next frame's planes into `out` (header().frame_bytes). False
  // after the last whole frame (a truncated last frame is dropped, as raw
  // files' are); throws Y4mError when the file changed since it was opened.
  bool read_frame(std::uint8_t* out);
  // Moves past the next `count` frames without reading their planes (a
  // frame range's start); false where fewer are left. Throws as read_frame().
  bool skip_frames(std::uint64_t count);
  // Frames read (or skipped) so far.
  std::uint64_t frames_read() const { return frames_read_; }

 private:
  void count_frames();
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::unique_ptr<std::FILE, FileCloser> file_;
  Y4mHeader header_;
  std::uint64_t frame_count_ = 0;
  std::uint64_t trailing_bytes_ = 0;
  std::uint64_t frames_read_ = 0;
};

}  // namespace vmafexact::tools
