#include "negotiation.h"

#include "element_debug.h"
#include "gst_handles.h"
#include "video_picture.h"

namespace vmafexact::gst {
namespace {

// What to do when downstream refuses the distorted format (a warning at the
// caps query, an error when such caps arrive).
constexpr const char* kRefusedCapsAdvice =
    "vmafexact passes the distorted video through its src pad unchanged; convert it after "
    "vmafexact (e.g. '! videoconvert ! ...'), or give the distorted input a format downstream "
    "takes.";

}  // namespace

std::optional<GstVideoInfo> scorable_video_info(GstElement* element, GstPad* pad, GstCaps* caps) {
  GstVideoInfo info;
  if (gst_video_info_from_caps(&info, caps) && picture_format_from_info(info)) return info;
  GCharPtr caps_text(gst_caps_to_string(caps));
  GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                    ("Unsupported caps on %s: %s.", GST_PAD_NAME(pad), caps_text.get()),
                    ("vmafexact scores progressive planar or semi-planar YUV and gray video "
                     "at 8, 10, 12 or 16 bits; insert videoconvert before the pad."));
  return std::nullopt;
}

void answer_distorted_caps_query(GstElement* element, GstPad* dist_pad, GstPad* src_pad,
                                 GstQuery* query, std::atomic<bool>& warned) {
  GstCaps* filter = nullptr;
  gst_query_parse_caps(query, &filter);
  CapsPtr template_caps(gst_pad_get_pad_template_caps(dist_pad));
  CapsPtr downstream(gst_pad_peer_query_caps(src_pad, template_caps.get()));
  CapsPtr allowed(gst_caps_intersect(downstream.get(), template_caps.get()));
  if (filter)
    allowed.reset(gst_caps_intersect_full(filter, allowed.get(), GST_CAPS_INTERSECT_FIRST));
  // Upstream offers what vmafexact takes, but downstream takes none of it:
  // upstream's negotiation is about to fail with a generic "not-negotiated",
  // so say here which caps are refused. What upstream offers: the query's
  // filter, or (a capsfilter asks without one) upstream's own caps.
  CapsPtr offered_caps;
  if (!warned)
    offered_caps.reset(filter ? gst_caps_ref(filter) : gst_pad_peer_query_caps(dist_pad, nullptr));
  if (offered_caps && !gst_caps_is_any(offered_caps.get()) &&
      gst_caps_can_intersect(offered_caps.get(), template_caps.get()) &&
      !gst_caps_can_intersect(offered_caps.get(), allowed.get()) && !warned.exchange(true)) {
    GCharPtr offered(gst_caps_to_string(offered_caps.get()));
    GCharPtr taken(gst_caps_to_string(downstream.get()));
    GST_ELEMENT_WARNING(element, CORE, NEGOTIATION,
                        ("Downstream of vmafexact refuses the distorted video: the distorted "
                         "input offers %s, downstream takes only %s.",
                         offered.get(), taken.get()),
                        ("%s", kRefusedCapsAdvice));
  }
  gst_query_set_caps_result(query, allowed.get());
}

GstFlowReturn output_caps(GstElement* element, GstCaps* dist_caps, GstCaps* downstream_caps,
                          GstCaps** result) {
  if (downstream_caps && !gst_caps_can_intersect(dist_caps, downstream_caps)) {
    GCharPtr offered(gst_caps_to_string(dist_caps));
    GCharPtr taken(gst_caps_to_string(downstream_caps));
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("Downstream of vmafexact refuses the distorted video's caps %s; it takes "
                       "only %s.",
                       offered.get(), taken.get()),
                      ("%s", kRefusedCapsAdvice));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *result = gst_caps_copy(dist_caps);
  return GST_FLOW_OK;
}

}  // namespace vmafexact::gst
