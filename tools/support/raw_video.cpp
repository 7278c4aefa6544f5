#include "raw_video.h"

#include <array>
#include <cctype>
#include <utility>

namespace vmafexact::tools {
namespace {

// The formats vmafexact scores (its pad template), with ffmpeg's names for
// the same layout where ffmpeg has one.
struct NamedFormat {
  GstVideoFormat format;
  const char* ffmpeg;  // nullptr: none
};
constexpr std::array<NamedFormat, 21> kFormats = {{
    {GST_VIDEO_FORMAT_I420, "yuv420p"},
    {GST_VIDEO_FORMAT_YV12, nullptr},
    {GST_VIDEO_FORMAT_Y42B, "yuv422p"},
    {GST_VIDEO_FORMAT_Y444, "yuv444p"},
    {GST_VIDEO_FORMAT_NV12, "nv12"},
    {GST_VIDEO_FORMAT_NV21, "nv21"},
    {GST_VIDEO_FORMAT_NV16, "nv16"},
    {GST_VIDEO_FORMAT_NV61, nullptr},
    {GST_VIDEO_FORMAT_NV24, "nv24"},
    {GST_VIDEO_FORMAT_GRAY8, "gray"},
    {GST_VIDEO_FORMAT_I420_10LE, "yuv420p10le"},
    {GST_VIDEO_FORMAT_I420_12LE, "yuv420p12le"},
    {GST_VIDEO_FORMAT_I422_10LE, "yuv422p10le"},
    {GST_VIDEO_FORMAT_I422_12LE, "yuv422p12le"},
    {GST_VIDEO_FORMAT_Y444_10LE, "yuv444p10le"},
    {GST_VIDEO_FORMAT_Y444_12LE, "yuv444p12le"},
    {GST_VIDEO_FORMAT_Y444_16LE, "yuv444p16le"},
    {GST_VIDEO_FORMAT_P010_10LE, "p010le"},
    {GST_VIDEO_FORMAT_P012_LE, "p012le"},
    {GST_VIDEO_FORMAT_P016_LE, "p016le"},
    {GST_VIDEO_FORMAT_GRAY16_LE, "gray16le"},
}};

// Lower case, '-' as '_': "I420-10LE" and "i420_10le" are one name.
std::string normalized(std::string_view name) {
  std::string text(name);
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '-') c = '_';
  }
  return text;
}

}  // namespace

GstVideoFormat raw_format_from_name(std::string_view name) {
  const std::string wanted = normalized(name);
  for (const auto& [format, ffmpeg] : kFormats) {
    if (normalized(gst_video_format_to_string(format)) == wanted) return format;
    if (ffmpeg && wanted == ffmpeg) return format;
  }
  // ffmpeg's full-range ("JPEG") variants hold the same samples.
  if (wanted == "yuvj420p") return GST_VIDEO_FORMAT_I420;
  if (wanted == "yuvj422p") return GST_VIDEO_FORMAT_Y42B;
  if (wanted == "yuvj444p") return GST_VIDEO_FORMAT_Y444;
  return GST_VIDEO_FORMAT_UNKNOWN;
}

std::string raw_format_advice(std::string_view name) {
  const std::string wanted = normalized(name);
  if (wanted == "yuv420p16le" || wanted == "yuv420p16" || wanted == "i420_16le")
    return "GStreamer 1.22 has no planar 16-bit 4:2:0 format; vmafexact reads 16-bit 4:2:0 as "
           "p016le (the same samples, chroma interleaved): ffmpeg -f rawvideo -pix_fmt "
           "yuv420p16le -s WxH -i IN.yuv -f rawvideo -pix_fmt p016le OUT.yuv, then --format "
           "p016le";
  if (wanted == "yuv422p16le" || wanted == "yuv422p16" || wanted == "i422_16le")
    return "GStreamer 1.22 has no 16-bit 4:2:2 format, so vmafexact cannot read one; the "
           "vmaf_v0.6.1 models and the luma features read the luma only: score the luma plane "
           "as gray16le (ffmpeg -f rawvideo -pix_fmt yuv422p16le -s WxH -i IN.yuv -vf "
           "extractplanes=y -f rawvideo -pix_fmt gray16le OUT.yuv), the same scores for them";
  // A big-endian twin of a format read here (yuv420p10be, I420_10BE): the
  // command in ffmpeg's names, whichever names were given.
  if (wanted.size() > 2 && wanted.compare(wanted.size() - 2, 2, "be") == 0) {
    const GstVideoFormat little = raw_format_from_name(wanted.substr(0, wanted.size() - 2) + "le");
    for (const auto& [format, ffmpeg] : kFormats)
      if (format == little && ffmpeg) {
        const std::string le = ffmpeg;
        const std::string be = le.substr(0, le.size() - 2) + "be";
        return "big-endian samples are not read (libvmaf reads little-endian ones); convert with "
               "ffmpeg -f rawvideo -pix_fmt " +
               be + " -s WxH -i IN.yuv -f rawvideo -pix_fmt " + le + " OUT.yuv";
      }
  }
  return {};
}

std::string raw_format_names() {
  std::string names;
  for (const auto& [format, ffmpeg] : kFormats) {
    if (!names.empty()) names += ", ";
    names += gst_video_format_to_string(format);
    if (ffmpeg) names += std::string(" (") + ffmpeg + ")";
  }
  return names;
}

RawLayout packed_layout(GstVideoFormat format, int width, int height) {
  const GstVideoFormatInfo* info = gst_video_format_get_info(format);
  RawLayout layout;
  for (guint plane = 0; plane < GST_VIDEO_FORMAT_INFO_N_PLANES(info); ++plane) {
    // The first component stored in this plane gives its size and pixel stride
    // (for NV12's chroma plane, U: half width, 2 bytes a pixel for U and V).
    guint component = 0;
    while (GST_VIDEO_FORMAT_INFO_PLANE(info, component) != plane) ++component;
    const std::size_t stride =
        static_cast<std::size_t>(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(info, component, width)) *
        GST_VIDEO_FORMAT_INFO_PSTRIDE(info, component);
    const std::size_t rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(info, component, height);
    layout.strides.push_back(stride);
    layout.offsets.push_back(layout.frame_size);
    layout.frame_size += stride * rows;
  }
  return layout;
}

std::vector<std::pair<std::string, std::string>> rawvideoparse_properties(GstVideoFormat format,
                                                                          int width, int height,
                                                                          int framerate_num,
                                                                          int framerate_den) {
  const RawLayout layout = packed_layout(format, width, height);
  auto list = [](const std::vector<std::size_t>& values) {
    std::string text = "<";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i) text += ',';
      text += std::to_string(values[i]);
    }
    return text + ">";
  };
  // rawvideoparse's format enum spells I420_10LE "i420-10le".
  std::string nick = normalized(gst_video_format_to_string(format));
  for (char& c : nick)
    if (c == '_') c = '-';
  return {{"width", std::to_string(width)},
          {"height", std::to_string(height)},
          {"format", nick},
          {"framerate", std::to_string(framerate_num) + "/" + std::to_string(framerate_den)},
          {"plane-strides", list(layout.strides)},
          {"plane-offsets", list(layout.offsets)},
          {"frame-size", std::to_string(layout.frame_size)}};
}

std::string rawvideoparse_description(GstVideoFormat format, int width, int height,
                                      int framerate_num, int framerate_den) {
  std::string description = "rawvideoparse";
  for (const auto& [name, value] :
       rawvideoparse_properties(format, width, height, framerate_num, framerate_den)) {
    const bool quoted = value.front() == '<';  // a shell-safe array for gst-launch
    description += " " + name + "=" + (quoted ? "\"" + value + "\"" : value);
  }
  return description;
}

}  // namespace vmafexact::tools
