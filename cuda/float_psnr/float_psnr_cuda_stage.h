// The CUDA stage of float_psnr: per frame, each row's exact integer total of
// the rounded squared differences (float_sums_pixel.h's terms, one block per
// row: cuda/common/float_row_totals.h) comes home; the host adds the rows
// and finishes with the CPU's functions (float_square_sum_of_total(), and
// float_square_sum_in_order() on host copies of the planes where the total
// reaches 2^53 units, as the CPU does). Stateless from frame to frame: the
// backend may run two instances, on the even and the odd frames.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_psnr/float_psnr.h"

namespace vmafexact::cuda::float_psnr {

using vmafexact::float_psnr::FloatPsnrSums;

class FloatPsnrCudaStage final : public FeatureStage<FloatPsnrSums> {
 public:
  FloatPsnrCudaStage(const PictureFormat& format, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatPsnrSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

  // The frame's sums from the rows' totals (kernel order: row 0 first), as
  // the CPU finishes them; `in_order` gives libvmaf's ordered sum of the
  // frame's planes, asked for only where the total reaches 2^53 units.
  static FloatPsnrSums sums_of_rows(std::span<const std::uint64_t> rows, unsigned bpc,
                                    const std::function<double()>& in_order);

 private:
  cudaStream_t stream_;
  PictureFormat format_;
  // Device memory is taken on the first submit(), so that the extractor can
  // be made (and its options checked) without a device.
  DeviceBuffer<std::uint64_t> rows_;
  FrameReadback<std::uint64_t> readback_;
  FrameGraphs graphs_;  // one frame's kernel and read-back, by input planes and slot
  std::vector<std::uint8_t> host_ref_, host_dist_;  // the planes, for libvmaf's order
};

}  // namespace vmafexact::cuda::float_psnr
