#include "float_psnr/float_psnr_cuda_stage.h"

#include "common/float_row_totals.h"
#include "common/float_sums.h"

namespace vmafexact::cuda::float_psnr {

FloatPsnrCudaStage::FloatPsnrCudaStage(const PictureFormat& format, cudaStream_t stream)
    : stream_(stream), format_(format), readback_(format.height) {}

void FloatPsnrCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (rows_.size() != format_.height) rows_.resize(format_.height);
  submit_luma_frame(graphs_, readback_, ref, dist, index, rows_.data(), stream_, [&] {
    enqueue_difference_square_totals(ref.planes[0], dist.planes[0], format_.bpc, rows_.data(),
                                     stream_);
  });
}

FloatPsnrSums FloatPsnrCudaStage::sums_of_rows(std::span<const std::uint64_t> rows, unsigned bpc,
                                               const std::function<double()>& in_order) {
  std::uint64_t total = 0;
  for (const std::uint64_t row : rows) total += row;
  if (const auto noise = float_square_sum_of_total(total, bpc)) return {*noise};
  return {in_order()};
}

FloatPsnrSums FloatPsnrCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                          unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const std::uint64_t* rows = readback_.collect(index);
  return sums_of_rows({rows, format_.height}, format_.bpc, [&] {
    // Past 2^53 units libvmaf's double rounds pixel by pixel: the CPU's sum
    // in its order, over the frame's planes brought home.
    const PlaneView host_ref = host_copy_of_plane(ref.planes[0], format_.bpc, host_ref_, stream_);
    const PlaneView host_dist =
        host_copy_of_plane(dist.planes[0], format_.bpc, host_dist_, stream_);
    return float_square_sum_in_order(host_ref, &host_dist, format_.bpc);
  });
}

}  // namespace vmafexact::cuda::float_psnr
