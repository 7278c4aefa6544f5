// Raw (headerless) video files as ffmpeg and libvmaf's tools write them:
// tightly packed planes, no row padding. rawvideoparse assumes GStreamer's
// default layout, whose rows are padded (the luma stride is rounded up to 4
// bytes), so for widths where that padding is not zero it reads the wrong
// bytes and the scores are silently wrong. Every program of the project that
// builds a pipeline for raw files gives rawvideoparse the layout from here.
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact::tools {

// A raw sample format vmafexact scores, by GStreamer's name (I420, i420_10le,
// i420-10le, any case) or ffmpeg's pix_fmt name (yuv420p, yuv422p10le, nv12,
// p010le, gray, ...); GST_VIDEO_FORMAT_UNKNOWN for any other name.
GstVideoFormat raw_format_from_name(std::string_view name);

// The names raw_format_from_name() takes, for help texts and errors:
// "I420 (yuv420p), YV12, ...".
std::string raw_format_names();

// For a raw format name that libvmaf's tool or ffmpeg knows but that no
// GStreamer 1.22 format carries (16-bit planar 4:2:0 and 4:2:2, big-endian
// samples): what to do instead, in words; empty for any other name.
std::string raw_format_advice(std::string_view name);

// The layout of one tightly packed frame: each plane's stride and offset in
// bytes, and the frame's size. Chroma sizes round up for odd sizes (639x360
// for 1277x719), as in ffmpeg.
struct RawLayout {
  std::vector<std::size_t> strides;
  std::vector<std::size_t> offsets;
  std::size_t frame_size = 0;
};
RawLayout packed_layout(GstVideoFormat format, int width, int height);

// rawvideoparse's properties for such a file, as text gst-launch-1.0 and
// gst_util_set_object_arg() read: width, height, format (its enum's nick,
// i420-10le), framerate (N/D), plane-strides and plane-offsets ("<a,b,c>")
// and frame-size.
std::vector<std::pair<std::string, std::string>> rawvideoparse_properties(GstVideoFormat format,
                                                                          int width, int height,
                                                                          int framerate_num,
                                                                          int framerate_den);

// The same as a gst-launch description: "rawvideoparse width=W height=H
// format=NICK framerate=N/D plane-strides="<...>" plane-offsets="<...>"
// frame-size=BYTES".
std::string rawvideoparse_description(GstVideoFormat format, int width, int height,
                                      int framerate_num, int framerate_den);

}  // namespace vmafexact::tools
