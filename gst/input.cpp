#include "input.h"

#include <algorithm>
#include <string>

#include "cuda_context.h"
#include "element_debug.h"
#include "video_picture.h"

namespace vmafexact::gst {
namespace {

std::optional<Nanoseconds> valid(GstClockTime time) {
  if (!GST_CLOCK_TIME_IS_VALID(time)) return std::nullopt;
  return time;
}

}  // namespace

GstClockTime Input::time_of(GstBuffer* buffer, bool running) const {
  const GstClockTime time =
      GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
  if (!GST_CLOCK_TIME_IS_VALID(time)) return GST_CLOCK_TIME_NONE;
  GstClockTime result = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    result = running ? gst_segment_to_running_time(&pad->segment, GST_FORMAT_TIME, time)
                     : gst_segment_to_stream_time(&pad->segment, GST_FORMAT_TIME, time);
  GST_OBJECT_UNLOCK(pad);
  return result;
}

GstClockTime Input::duration_of(GstBuffer* buffer) const {
  if (GST_BUFFER_DURATION_IS_VALID(buffer)) return GST_BUFFER_DURATION(buffer);
  if (info && GST_VIDEO_INFO_FPS_N(&*info) > 0 && GST_VIDEO_INFO_FPS_D(&*info) > 0)
    return gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(&*info),
                                     GST_VIDEO_INFO_FPS_N(&*info));
  return GST_CLOCK_TIME_NONE;
}

InputHead Input::head(GstBuffer* buffer) {
  InputHead state;
  state.eos = gst_aggregator_pad_is_eos(pad);
  if (buffer) {
    state.frame = WaitingFrame{valid(time_of(buffer)), valid(duration_of(buffer))};
    if (state.frame->running_time) {
      const Nanoseconds end = *state.frame->running_time + state.frame->duration.value_or(0);
      last_end = std::max(last_end.value_or(0), end);
    }
  }
  if (state.eos) state.ended_at = ended_at;
  return state;
}

void Input::end(GstClockTime now) {
  const std::optional<Nanoseconds> seen = valid(now);
  ended_at = last_end && seen ? std::max(*last_end, *seen) : last_end ? last_end : seen;
}

bool Input::is_cuda_memory() const { return CudaContextHandler::is_cuda_memory_caps(caps.get()); }

bool pairs_gray_with_yuv(const PictureFormat& ref, const PictureFormat& dist) {
  const bool ref_gray = ref.chroma == ChromaFormat::k400;
  const bool dist_gray = dist.chroma == ChromaFormat::k400;
  return ref_gray != dist_gray && ref.width == dist.width && ref.height == dist.height &&
         ref.bpc == dist.bpc;
}

std::optional<Nanoseconds> end_wait_from(const Input& ended, const Input& other) {
  if (ended.ended_at && other.last_seen) return std::max(*ended.ended_at, *other.last_seen);
  return ended.ended_at ? ended.ended_at : other.last_seen;
}

std::optional<PictureFormat> common_format(GstElement* element, const Input& ref,
                                           const Input& dist) {
  if (!ref.info || !dist.info) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("Received a frame before its caps."),
                      (nullptr));
    return std::nullopt;
  }
  const GstVideoInfo& ref_info = *ref.info;
  const std::string ref_text = describe_video_info(ref_info);
  const std::string dist_text = describe_video_info(*dist.info);
  const auto ref_format = picture_format_from_info(ref_info);
  const auto dist_format = picture_format_from_info(*dist.info);
  if (!ref_format || !dist_format) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("Unsupported video format: reference %s, distorted %s.", ref_text.c_str(),
                       dist_text.c_str()),
                      ("vmafexact scores progressive planar or semi-planar YUV and gray video "
                       "at 8, 10, 12 or 16 bits; insert videoconvert before the pad."));
    return std::nullopt;
  }
  // A gray input holds the luma alone, as it is: it pairs by luma with a YUV
  // input of the same size and depth, the pair scored as gray (VMAF reads
  // only the luma; chroma scores need chroma on both sides).
  if (pairs_gray_with_yuv(*ref_format, *dist_format)) {
    PictureFormat luma = *ref_format;
    luma.chroma = ChromaFormat::k400;
    return luma;
  }
  if (*ref_format != *dist_format) {
    GST_ELEMENT_ERROR(
        element, STREAM, FORMAT,
        ("The reference and distorted videos differ: reference is %s, distorted is %s.",
         ref_text.c_str(), dist_text.c_str()),
        ("Both inputs must have the same width, height, bit depth and chroma subsampling. "
         "Insert videoscale and/or videoconvert with a capsfilter (e.g. "
         "'videoscale ! videoconvert ! video/x-raw,width=%d,height=%d,format=%s') before the "
         "dist_sink pad.",
         GST_VIDEO_INFO_WIDTH(&ref_info), GST_VIDEO_INFO_HEIGHT(&ref_info),
         GST_VIDEO_INFO_NAME(&ref_info)));
    return std::nullopt;
  }
  return ref_format;
}

}  // namespace vmafexact::gst
