#include "float_ansnr/float_ansnr_cuda_stage.h"

#include <span>

#include "common/float_pictures.h"

namespace vmafexact::cuda::float_ansnr {

FloatAnsnrCudaStage::FloatAnsnrCudaStage(const PictureFormat& format, cudaStream_t stream)
    : stream_(stream),
      format_(format),
      plane_floats_(std::size_t{format.width} * format.height),
      readback_(2 * std::size_t{format.height}) {}

void FloatAnsnrCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  const std::size_t h = format_.height;
  if (rows_.size() != 2 * h) {
    converted_.resize(2 * plane_floats_);
    filtered_.resize(2 * plane_floats_);
    rows_.resize(2 * h);
  }
  const int w = static_cast<int>(format_.width), ih = static_cast<int>(format_.height);
  submit_luma_frame(graphs_, readback_, ref, dist, index, rows_.data(), stream_, [&] {
    float* converted_ref = converted_.data();
    float* converted_dist = converted_.data() + plane_floats_;
    float* ref_filtered = filtered_.data();
    float* dist_filtered = filtered_.data() + plane_floats_;
    enqueue_float_pictures(ref.planes[0], dist.planes[0], format_.bpc, tile::kSampleOffset,
                           converted_ref, converted_dist, stream_);
    enqueue_filter(converted_ref, converted_dist, w, ih, ref_filtered, dist_filtered, stream_);
    enqueue_row_sums(ref_filtered, dist_filtered, w, ih, rows_.data(), rows_.data() + h, stream_);
  });
}

FloatAnsnrSums FloatAnsnrCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                            unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const float* rows = readback_.collect(index);
  const std::size_t h = format_.height;
  return vmafexact::float_ansnr::add_rows(std::span<const float>(rows, h),
                                          std::span<const float>(rows + h, h));
}

}  // namespace vmafexact::cuda::float_ansnr
