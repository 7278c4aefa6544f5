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

// Live sources linked without a queue (a udpsrc beside a videotestsrc) report
// latencies that GstAggregator finds impossible (one input's minimum above
// another's maximum): it then works as if not live and waits for a frame on
// both pads, so an input that never sends blocks the other's streaming thread
// for ever, and with it an EOS sent to the pipeline (gst-launch-1.0 -e). The
// element's pads hold each input's frames for the latency themselves, so an
// input's maximum is no limit here: its answer, seen on the way back through
// the pad, is made unbounded.
GstPadProbeReturn unbounded_live_latency(GstPad* pad, GstPadProbeInfo* info, gpointer) {
  GstQuery* query = GST_PAD_PROBE_INFO_QUERY(info);
  if (!query || GST_QUERY_TYPE(query) != GST_QUERY_LATENCY || !gst_query_is_writable(query))
    return GST_PAD_PROBE_OK;
  gboolean live = FALSE;
  GstClockTime min = 0;
  GstClockTime max = GST_CLOCK_TIME_NONE;
  gst_query_parse_latency(query, &live, &min, &max);
  if (live && GST_CLOCK_TIME_IS_VALID(max)) {
    GST_DEBUG_OBJECT(pad, "upstream latency min %" GST_TIME_FORMAT " max %" GST_TIME_FORMAT
                     ": taken as unbounded", GST_TIME_ARGS(min), GST_TIME_ARGS(max));
    gst_query_set_latency(query, live, min, GST_CLOCK_TIME_NONE);
  }
  return GST_PAD_PROBE_OK;
}

}  // namespace

void Input::add_pad(GstElement* element, const char* template_name, const char* input_role) {
  role = input_role;
  GstPadTemplate* pad_template =
      gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(element), template_name);
  pad = GST_AGGREGATOR_PAD(g_object_new(GST_TYPE_AGGREGATOR_PAD, "name",
                                        GST_PAD_TEMPLATE_NAME_TEMPLATE(pad_template), "direction",
                                        GST_PAD_SINK, "template", pad_template, nullptr));
  gst_element_add_pad(element, GST_PAD(pad));  // takes the floating ref
  gst_pad_add_probe(GST_PAD(pad),
                    static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_UPSTREAM |
                                                 GST_PAD_PROBE_TYPE_PULL),
                    unbounded_live_latency, nullptr, nullptr);
}

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

LiveClock live_clock(GstAggregator* agg, bool timeout, bool backlog) {
  LiveClock clock{timeout, std::nullopt, 0, backlog};
  const GstClockTime latency = gst_aggregator_get_latency(agg);
  if (!GST_CLOCK_TIME_IS_VALID(latency)) return clock;
  clock.latency = latency;
  const GstClockTime now = gst_element_get_current_running_time(GST_ELEMENT(agg));
  if (GST_CLOCK_TIME_IS_VALID(now)) clock.now = now;
  return clock;
}

GstClockTime earliest_waiting(const std::array<Input, 2>& inputs) {
  GstClockTime earliest = GST_CLOCK_TIME_NONE;
  for (const Input& input : inputs) {
    BufferPtr buffer(gst_aggregator_pad_peek_buffer(input.pad));
    if (!buffer) continue;
    const GstClockTime time = input.time_of(buffer.get());
    if (GST_CLOCK_TIME_IS_VALID(time) && (!GST_CLOCK_TIME_IS_VALID(earliest) || time < earliest))
      earliest = time;
  }
  return earliest;
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
         "Insert vmafexactscale (FFmpeg's scale) and/or videoconvert with a capsfilter (e.g. "
         "'vmafexactscale ! videoconvert ! video/x-raw,width=%d,height=%d,format=%s') before "
         "the dist_sink pad.",
         GST_VIDEO_INFO_WIDTH(&ref_info), GST_VIDEO_INFO_HEIGHT(&ref_info),
         GST_VIDEO_INFO_NAME(&ref_info)));
    return std::nullopt;
  }
  return ref_format;
}

}  // namespace vmafexact::gst
