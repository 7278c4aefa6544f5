#include "conform.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

namespace vmafexact::tools {

GstVideoFormat scoring_format(GstVideoFormat ref_decoded) {
  if (ref_decoded == GST_VIDEO_FORMAT_UNKNOWN) return GST_VIDEO_FORMAT_I420;
  const GstVideoFormatInfo* info = gst_video_format_get_info(ref_decoded);
  if (!info) return GST_VIDEO_FORMAT_I420;
  const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH(info, 0);
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY(info))
    return depth <= 8 ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_GRAY16_LE;
  // RGB and YUV without subsampling: 4:4:4; 4:1:1 and 4:1:0 (YUV9): 4:2:0.
  const guint w_sub = GST_VIDEO_FORMAT_INFO_IS_RGB(info) ? 0 : GST_VIDEO_FORMAT_INFO_W_SUB(info, 1);
  const guint h_sub = GST_VIDEO_FORMAT_INFO_IS_RGB(info) ? 0 : GST_VIDEO_FORMAT_INFO_H_SUB(info, 1);
  if (w_sub == 0 && h_sub == 0) {
    if (depth <= 8) return GST_VIDEO_FORMAT_Y444;
    if (depth <= 10) return GST_VIDEO_FORMAT_Y444_10LE;
    if (depth <= 12) return GST_VIDEO_FORMAT_Y444_12LE;
    return GST_VIDEO_FORMAT_Y444_16LE;
  }
  if (w_sub == 1 && h_sub == 0) {
    if (depth <= 8) return GST_VIDEO_FORMAT_Y42B;
    if (depth <= 10) return GST_VIDEO_FORMAT_I422_10LE;
    if (depth <= 12) return GST_VIDEO_FORMAT_I422_12LE;
    return GST_VIDEO_FORMAT_Y444_16LE;  // no 16-bit 4:2:2 is scored; keep every bit
  }
  if (depth <= 8) return GST_VIDEO_FORMAT_I420;
  if (depth <= 10) return GST_VIDEO_FORMAT_I420_10LE;
  if (depth <= 12) return GST_VIDEO_FORMAT_I420_12LE;
  return GST_VIDEO_FORMAT_P016_LE;
}

std::vector<GstVideoFormat> dist_scoring_formats(GstVideoFormat ref_format,
                                                 GstVideoFormat dist_decoded,
                                                 const std::string& dist_name) {
  const GstVideoFormatInfo* info = gst_video_format_get_info(ref_format);
  const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH(info, 0);
  // The planar formats scoring_format() gives at 8 and 16 bits.
  const std::vector<GstVideoFormat> gray_at_8 = {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420,
                                                 GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444};
  const std::vector<GstVideoFormat> gray_at_16 = {
      GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_Y444_16LE};
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY(info)) return depth <= 8 ? gray_at_8 : gray_at_16;
  if (depth <= 8) return {ref_format, GST_VIDEO_FORMAT_GRAY8};
  if (depth > 12) return {ref_format, GST_VIDEO_FORMAT_GRAY16_LE};
  if (dist_decoded != GST_VIDEO_FORMAT_UNKNOWN &&
      GST_VIDEO_FORMAT_INFO_IS_GRAY(gst_video_format_get_info(dist_decoded)))
    throw ConformError(
        "the reference is " + std::to_string(depth) + "-bit YUV (" +
            gst_video_format_to_string(ref_format) + ") and the distorted video " + dist_name +
            " gray (" + gst_video_format_to_string(dist_decoded) +
            "): a gray video is scored against the luma of a YUV one of its own bit depth (8 or "
            "16 bits), and GStreamer has no " +
            std::to_string(depth) + "-bit gray format",
        "Give both videos at one bit depth, e.g. an 8-bit reference for an 8-bit gray video.");
  return {ref_format};
}

void set_formats(GstCaps* caps, const std::vector<GstVideoFormat>& formats) {
  GValue list = G_VALUE_INIT;
  g_value_init(&list, GST_TYPE_LIST);
  for (const GstVideoFormat format : formats) {
    GValue name = G_VALUE_INIT;
    g_value_init(&name, G_TYPE_STRING);
    g_value_set_static_string(&name, gst_video_format_to_string(format));
    gst_value_list_append_and_take_value(&list, &name);
  }
  GstStructure* structure = gst_caps_get_structure(caps, 0);
  gst_structure_set_value(structure, "format",
                          formats.size() == 1 ? gst_value_list_get_value(&list, 0) : &list);
  g_value_unset(&list);
}

CapsPtr dist_target_caps(int width, int height, const std::vector<GstVideoFormat>& formats) {
  CapsPtr caps(gst_caps_new_simple("video/x-raw", "width", G_TYPE_INT, width, "height", G_TYPE_INT,
                                   height, nullptr));
  set_formats(caps.get(), formats);
  return caps;
}

CapsPtr pin_colour(const GstCaps* target, const GstCaps* decoded) {
  // What the caps say, verbatim (a round trip through GstVideoInfo would name
  // an unknown colorimetry or a siting differently, and videoconvert would
  // convert to that); where they are silent (a y4m or raw input), what
  // GStreamer assumes for this size: the input's samples mean that.
  GstVideoInfo video;
  if (!gst_video_info_from_caps(&video, decoded) || !GST_VIDEO_INFO_IS_YUV(&video)) return {};
  const GstStructure* input = gst_caps_get_structure(decoded, 0);
  CapsPtr caps(gst_caps_copy(target));
  GstStructure* output = gst_caps_get_structure(caps.get(), 0);
  GCharPtr assumed_colorimetry(gst_video_colorimetry_to_string(&video.colorimetry));
  GCharPtr assumed_site(gst_video_chroma_site_to_string(video.chroma_site));
  for (const auto& [field, assumed] : {std::pair{"colorimetry", assumed_colorimetry.get()},
                                       std::pair{"chroma-site", assumed_site.get()}}) {
    const gchar* value = gst_structure_get_string(input, field);
    if (!value) value = assumed;
    if (value) gst_structure_set(output, field, G_TYPE_STRING, value, nullptr);
  }
  return caps;
}

void repack_exactly(GstElement* videoconvert) {
  gst_util_set_object_arg(G_OBJECT(videoconvert), "dither", "none");
}

std::string sws_flags_problem(const std::string& flags) {
  static constexpr std::string_view kNames[] = {
      "fast_bilinear", "bilinear",        "bicubic",
      "experimental",  "neighbor",        "area",
      "bicublin",      "gauss",           "sinc",
      "lanczos",       "spline",          "print_info",
      "accurate_rnd",  "full_chroma_int", "full_chroma_inp",
      "bitexact",      "error_diffusion", "unstable"};
  std::string known;
  for (std::string_view name : kNames) {
    if (!known.empty()) known += ", ";
    known += name;
  }
  std::size_t at = 0;
  bool any = false;
  while (at < flags.size()) {
    if (flags[at] == '+' || flags[at] == '-') ++at;
    const std::size_t end = std::min(flags.find_first_of("+-", at), flags.size());
    const std::string_view name(flags.data() + at, end - at);
    if (std::find(std::begin(kNames), std::end(kNames), name) == std::end(kNames)) {
      std::string problem(1, '\'');
      problem.append(name);
      problem.append("' is not a libswscale flag (flags: ").append(known).append("; joined by +)");
      return problem;
    }
    any = true;
    at = end;
  }
  if (!any) return "give a flag, e.g. bicubic or lanczos+accurate_rnd";
  return {};
}

bool ffmpeg_scaler_available() {
  GstElementFactory* factory = gst_element_factory_find("vmafexactscale");
  if (!factory) return false;
  gst_object_unref(factory);
  return true;
}

bool uses_ffmpeg_scaler(const ScalerChoice& choice) {
  return choice.method == "ffmpeg" && ffmpeg_scaler_available();
}

std::string videoscale_method(const ScalerChoice& choice) {
  return choice.method == "ffmpeg" ? "catrom" : choice.method;
}

GstObjectPtr<GstElement> make_scaler(const ScalerChoice& choice, const char* name) {
  if (uses_ffmpeg_scaler(choice)) {
    auto scaler = make_element("vmafexactscale", name);
    if (scaler) g_object_set(scaler.get(), "flags", choice.flags.c_str(), nullptr);
    return scaler;
  }
  auto scaler = make_element("videoscale", name);
  if (scaler) {
    gst_util_set_object_arg(G_OBJECT(scaler.get()), "method", videoscale_method(choice).c_str());
    // Stretched to the reference's size, as ffmpeg's scale filter does,
    // rather than letterboxed to keep the aspect ratio.
    g_object_set(scaler.get(), "add-borders", FALSE, nullptr);
  }
  return scaler;
}

}  // namespace vmafexact::tools
