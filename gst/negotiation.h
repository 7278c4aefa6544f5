// The element's caps: the formats its pads take, an input's caps checked as
// they arrive, the distorted input's caps query answered with what downstream
// takes (the distorted video goes out unchanged), and the output caps. Each
// posts its own error or warning, naming the caps refused.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <optional>

namespace vmafexact::gst {

// Formats whose samples libvmaf can read: planar or semi-planar YUV and gray,
// 8 bits in bytes or 10..16 bits in little-endian 16-bit words.
inline constexpr const char* kFormats =
    "{ I420, YV12, Y42B, Y444, NV12, NV21, NV16, NV61, NV24, GRAY8, "
    "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, "
    "P010_10LE, P012_LE, P016_LE, GRAY16_LE }";

// The video info of caps arriving on `pad`; nullopt after posting the error
// when the element cannot score them.
std::optional<GstVideoInfo> scorable_video_info(GstElement* element, GstPad* pad, GstCaps* caps);

// Answers a caps query on the distorted input `dist_pad`: what the pad takes
// that downstream of `src_pad` takes too (the distorted caps become the
// output caps). Warns once (`warned`, cleared at start) when upstream offers
// only caps that downstream refuses.
void answer_distorted_caps_query(GstElement* element, GstPad* dist_pad, GstPad* src_pad,
                                 GstQuery* query, std::atomic<bool>& warned);

// The output caps (the distorted input's, `dist_caps`) into `result`; the
// error, when downstream takes none of them.
GstFlowReturn output_caps(GstElement* element, GstCaps* dist_caps, GstCaps* downstream_caps,
                          GstCaps** result);

}  // namespace vmafexact::gst
