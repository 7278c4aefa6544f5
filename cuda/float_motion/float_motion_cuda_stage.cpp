#include "float_motion/float_motion_cuda_stage.h"

#include <algorithm>
#include <span>
#include <string>

namespace vmafexact::cuda::float_motion {

namespace pixel = vmafexact::float_motion::pixel;

FloatMotionCudaStage::Layout FloatMotionCudaStage::layout_of(const PictureFormat& format,
                                                             const FloatMotionParams& params) {
  Layout layout;
  const unsigned planes = params.add_uv ? 3u : 1u;
  for (unsigned p = 0; p < planes; ++p) {
    PlaneLayout plane;
    plane.width =
        static_cast<int>(p == 0 ? format.width : chroma_plane_width(format.width, format.chroma));
    plane.height = static_cast<int>(p == 0 ? format.height
                                           : chroma_plane_height(format.height, format.chroma));
    plane.half_width = pixel::half_side(plane.width);
    plane.half_height = pixel::half_side(plane.height);
    const std::size_t floats =
        static_cast<std::size_t>(plane.width) * static_cast<std::size_t>(plane.height);
    plane.blurred = layout.slot_floats;
    layout.slot_floats += floats;
    layout.largest_plane = std::max(layout.largest_plane, floats);
    layout.largest_half =
        std::max(layout.largest_half, static_cast<std::size_t>(plane.half_width) *
                                          static_cast<std::size_t>(plane.half_height));
    plane.rows = layout.row_sums;
    layout.row_sums += static_cast<std::size_t>(plane.height) +
                       (params.add_scale1 ? static_cast<std::size_t>(plane.half_height) : 0);
    layout.planes.push_back(plane);
  }
  return layout;
}

FloatMotionCudaStage::FloatMotionCudaStage(const PictureFormat& format,
                                           const FloatMotionParams& params, cudaStream_t stream)
    : stream_(stream),
      bpc_(format.bpc),
      params_(params),
      layout_(layout_of(format, params)),
      readback_(layout_.row_sums) {
  const auto taps = vmafexact::float_motion::motion_filter(params.filter_size);
  filter_.count = static_cast<int>(taps.size());
  std::copy(taps.begin(), taps.end(), filter_.taps);
}

void FloatMotionCudaStage::submit(const PictureView& ref, const PictureView&, unsigned index) {
  if (index != submitted_)
    throw Error("float_motion (CUDA): frame " + std::to_string(index) + " submitted out of order");
  ++submitted_;
  if (blurred_.size() != 2 * layout_.slot_floats) {
    vertical_.resize(layout_.largest_plane);
    blurred_.resize(2 * layout_.slot_floats);
    if (params_.add_scale1) halves_.resize(2 * layout_.largest_half);
    rows_.resize(layout_.row_sums);
  }
  // The blurred planes alternate between two halves of blurred_ (this frame's
  // and the previous one's, in stream order); the read-back has the frame's
  // slot, which also gives the parity (kFrameSlots is even).
  static_assert(kFrameSlots % 2 == 0);
  const unsigned slot = index % 2;
  const bool score = index > 0;
  float* current = blurred_.data() + slot * layout_.slot_floats;
  const float* previous = blurred_.data() + (1 - slot) * layout_.slot_floats;
  readback_.reserve();
  const auto key = graph_key(ref.planes[0].data, ref.planes[0].stride,
                             layout_.planes.size() > 1 ? ref.planes[1].data : nullptr,
                             layout_.planes.size() > 1 ? ref.planes[1].stride : 0,
                             layout_.planes.size() > 2 ? ref.planes[2].data : nullptr,
                             layout_.planes.size() > 2 ? ref.planes[2].stride : 0,
                             frame_slot(index), score);
  graphs_.run(key, stream_, [&] {
    for (std::size_t p = 0; p < layout_.planes.size(); ++p) {
      const PlaneLayout& plane = layout_.planes[p];
      enqueue_blur(ref.planes[p], bpc_, filter_, vertical_.data(), current + plane.blurred,
                   stream_);
      if (!score) continue;
      // vmaf_image_sad_c(previous, current), as compute_motion() calls it.
      float* rows = rows_.data() + plane.rows;
      enqueue_row_sums(previous + plane.blurred, current + plane.blurred, plane.width, plane.height,
                       rows, stream_);
      if (params_.add_scale1) {
        float* previous_half = halves_.data();
        float* current_half = halves_.data() + layout_.largest_half;
        enqueue_half(previous + plane.blurred, plane.width, plane.height, previous_half,
                     plane.half_width, plane.half_height, stream_);
        enqueue_half(current + plane.blurred, plane.width, plane.height, current_half,
                     plane.half_width, plane.half_height, stream_);
        enqueue_row_sums(previous_half, current_half, plane.half_width, plane.half_height,
                         rows + plane.height, stream_);
      }
    }
    if (score) readback_.copy(rows_.data(), index, stream_);
  });
  readback_.mark(index, stream_);
  scored_[frame_slot(index)] = score;
}

FloatMotionSums FloatMotionCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                              unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const float* rows = readback_.collect(index);
  if (!scored_[frame_slot(index)]) return std::nullopt;
  // FloatMotionCpuStage::compute()'s finish: each plane's image_sad(), added
  // in double from luma on.
  double sum = 0;
  for (std::size_t p = 0; p < layout_.planes.size(); ++p) {
    const PlaneLayout& plane = layout_.planes[p];
    const std::span<const float> sums(rows + plane.rows, static_cast<std::size_t>(plane.height));
    float sad = vmafexact::float_motion::mean_abs_difference(sums, plane.width, plane.height);
    if (params_.add_scale1)
      sad =
          sad + vmafexact::float_motion::mean_abs_difference(
                    {rows + plane.rows + plane.height, static_cast<std::size_t>(plane.half_height)},
                    plane.half_width, plane.half_height);
    sum = p == 0 ? static_cast<double>(sad) : sum + sad;
  }
  return sum;
}

}  // namespace vmafexact::cuda::float_motion
