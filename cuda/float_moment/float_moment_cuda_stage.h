// The CUDA stage of float_moment: per frame, each row's exact integer totals
// of both luma planes' samples and rounded squares (float_sums_pixel.h's
// terms, one block per row: cuda/common/float_row_totals.h) come home; the
// host adds the rows and finishes with the CPU's functions
// (float_sample_sum_of_total(), float_square_sum_of_total(), and
// float_square_sum_in_order() on a host copy of a plane whose squares reach
// 2^53 units, as the CPU does). Stateless from frame to frame: the backend
// may run two instances, on the even and the odd frames.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_moment/float_moment.h"

namespace vmafexact::cuda::float_moment {

using vmafexact::float_moment::FloatMomentSums;

class FloatMomentCudaStage final : public FeatureStage<FloatMomentSums> {
 public:
  FloatMomentCudaStage(const PictureFormat& format, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatMomentSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

  // The frame's sums from the rows' totals (four arrays of `height`, as
  // enqueue_moment_totals() lays them out), as the CPU finishes them;
  // `in_order(plane)` gives libvmaf's ordered sum of the squares of the
  // reference (plane 0) or distorted picture (1), asked for only where that
  // plane's total reaches 2^53 units.
  static FloatMomentSums sums_of_rows(std::span<const std::uint64_t> rows, unsigned height,
                                      unsigned bpc, const std::function<double(int)>& in_order);

 private:
  cudaStream_t stream_;
  PictureFormat format_;
  // Device memory is taken on the first submit(), so that the extractor can
  // be made (and its options checked) without a device.
  DeviceBuffer<std::uint64_t> rows_;  // 4 x height: ref, dist samples; ref, dist squares
  FrameReadback<std::uint64_t> readback_;
  FrameGraphs graphs_;  // one frame's kernel and read-back, by input planes and slot
  std::vector<std::uint8_t> host_plane_;  // a plane, for libvmaf's order
};

}  // namespace vmafexact::cuda::float_moment
