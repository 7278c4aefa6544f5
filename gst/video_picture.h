// From GStreamer's video frames to the metrics' PictureView: planar frames are
// viewed in place; semi-planar (NV12, P010, ...) or bit-shifted samples are
// rewritten into planar scratch planes first.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/feature_extractor.h"
#include "common/picture.h"

namespace vmafexact::gst {

// The picture format libvmaf would see for these caps, or nullopt if the
// format is not one vmafexact scores.
std::optional<PictureFormat> picture_format_from_info(const GstVideoInfo& info);

// "1920x1080 8-bit 4:2:0 (I420)", for messages.
std::string describe_video_info(const GstVideoInfo& info);

// Where one component of a mapped frame lies (pointers are device pointers for
// a frame mapped with GST_MAP_CUDA). in_place: planar samples that need no
// repacking (pixel stride = sample size, no bit shift).
struct ComponentLayout {
  const std::uint8_t* data = nullptr;
  std::ptrdiff_t stride = 0;
  unsigned pixel_stride = 0;
  unsigned shift = 0;
  unsigned sample_bytes = 0;  // of the samples the metrics read: 1 or 2
  bool in_place = false;
};
ComponentLayout component_layout(const GstVideoFrame& frame, unsigned component,
                                 unsigned sample_bytes);

// Planes owned for formats that cannot be viewed in place; reused frame to frame.
struct ScratchPlanes {
  std::array<std::vector<std::uint8_t>, 3> planes;
};

// Why a mapped frame's planes do not all lie inside the memory they were mapped
// from, in words ("" when they do). gst_video_frame_map checks a buffer
// without video meta against its caps' size, but of a video meta only that
// each plane starts inside the buffer: a meta whose strides or offsets run
// past the memory (an upstream bug, or a hostile one) would have the planes
// read beyond it. Negative strides and strides shorter than a row are refused
// too.
std::string planes_outside_memory(const GstVideoFrame& frame);

// A view of `format`'s planes as libvmaf sizes them (chroma rounded down), with
// no samples yet: the frame sources fill in each plane's data and stride.
PictureView sized_picture_view(const PictureFormat& format);

// The plane-layout loop of both frame sources (host frames here, CUDA frames
// in cuda_frame_source.cpp): the view of `format`'s planes in a mapped frame,
// luma only without `chroma` (the chroma planes' data null, their sizes set).
// A plane whose layout is in place is viewed where it lies, unless
// `view_in_place` is off; any other is given by the back end,
// `repack(component, layout, plane)`, which sets plane.data and plane.stride
// (plane.width and plane.height are set).
template <typename Repack>
PictureView view_planes(const GstVideoFrame& frame, const PictureFormat& format, bool chroma,
                        bool view_in_place, Repack&& repack) {
  PictureView view = sized_picture_view(format);
  const unsigned sample_bytes = format.bpc > 8 ? 2 : 1;
  for (unsigned c = 0; c < (chroma ? view.plane_count() : 1); ++c) {
    PlaneView& plane = view.planes[c];
    const ComponentLayout layout = component_layout(frame, c, sample_bytes);
    if (view_in_place && layout.in_place) {
      plane.data = layout.data;
      plane.stride = layout.stride;
    } else {
      repack(c, layout, plane);
    }
  }
  return view;
}

// Builds the view of a mapped frame. Valid while `frame` stays mapped and
// `scratch` is untouched.
// With `copy`, every plane is copied into `scratch` (the view then outlives
// the frame's map: frames scored on other threads need not hold the buffer).
// Without `chroma`, the chroma planes are left out: their data is null (no
// repack, no copy), their sizes are set.
PictureView picture_view_of(const GstVideoFrame& frame, const PictureFormat& format,
                            ScratchPlanes& scratch, bool copy = false, bool chroma = true);

}  // namespace vmafexact::gst
