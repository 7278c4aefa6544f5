#include "float_moment/float_moment_cuda_stage.h"

#include "common/float_row_totals.h"
#include "common/float_sums.h"

namespace vmafexact::cuda::float_moment {

namespace {

std::uint64_t total_of(std::span<const std::uint64_t> rows) {
  std::uint64_t total = 0;
  for (const std::uint64_t row : rows) total += row;
  return total;
}

}  // namespace

FloatMomentCudaStage::FloatMomentCudaStage(const PictureFormat& format, cudaStream_t stream)
    : stream_(stream), format_(format), readback_(4 * std::size_t{format.height}) {}

void FloatMomentCudaStage::submit(const PictureView& ref, const PictureView& dist, unsigned index) {
  if (rows_.size() != 4 * std::size_t{format_.height})
    rows_.resize(4 * std::size_t{format_.height});
  submit_luma_frame(graphs_, readback_, ref, dist, index, rows_.data(), stream_, [&] {
    enqueue_moment_totals(ref.planes[0], dist.planes[0], format_.bpc, rows_.data(), stream_);
  });
}

FloatMomentSums FloatMomentCudaStage::sums_of_rows(std::span<const std::uint64_t> rows,
                                                   unsigned height, unsigned bpc,
                                                   const std::function<double(int)>& in_order) {
  const auto totals = [&](int k) {
    return rows.subspan(std::size_t{height} * static_cast<std::size_t>(k), height);
  };
  const auto square_sum = [&](int plane) {
    if (const auto sum = float_square_sum_of_total(total_of(totals(2 + plane)), bpc)) return *sum;
    return in_order(plane);
  };
  // FloatMomentCpuStage::compute()'s sums, finished by the same functions.
  return {float_sample_sum_of_total(total_of(totals(0)), bpc),
          float_sample_sum_of_total(total_of(totals(1)), bpc), square_sum(0), square_sum(1)};
}

FloatMomentSums FloatMomentCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                              unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const std::uint64_t* rows = readback_.collect(index);
  return sums_of_rows({rows, 4 * std::size_t{format_.height}}, format_.height, format_.bpc,
                      [&](int plane) {
                        // Past 2^53 units libvmaf's double rounds pixel by
                        // pixel: the CPU's sum in its order, over the plane
                        // brought home.
                        const PlaneView host = host_copy_of_plane(
                            (plane == 0 ? ref : dist).planes[0], format_.bpc, host_plane_, stream_);
                        return float_square_sum_in_order(host, nullptr, format_.bpc);
                      });
}

}  // namespace vmafexact::cuda::float_moment
