// The CUDA stage of float_ansnr: per frame, both luma planes converted
// (picture_copy(), less 128), filtered (3x3 reference, 5x5 distorted) and
// each row's signal and noise summed in column order on the device
// (float_ansnr_cuda.h). Only the rows' sums come home; the host adds them in
// row order with the CPU's finishing function (float_ansnr::add_rows()).
// Stateless from frame to frame: the backend may run two instances, on the
// even and the odd frames.
#pragma once

#include <cuda_runtime.h>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_ansnr/float_ansnr.h"
#include "float_ansnr/float_ansnr_cuda.h"

namespace vmafexact::cuda::float_ansnr {

using vmafexact::float_ansnr::FloatAnsnrSums;

class FloatAnsnrCudaStage final : public FeatureStage<FloatAnsnrSums> {
 public:
  FloatAnsnrCudaStage(const PictureFormat& format, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatAnsnrSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  cudaStream_t stream_;
  PictureFormat format_;
  std::size_t plane_floats_;
  // Device memory is taken on the first submit(), so that the extractor can
  // be made (and its options checked) without a device.
  DeviceBuffer<float> converted_, filtered_;  // ref then dist, w x h floats each
  DeviceBuffer<float> rows_;                  // the rows' signal sums, then their noise sums
  FrameReadback<float> readback_;
  FrameGraphs graphs_;  // one frame's passes and read-back, by input planes and slot
};

}  // namespace vmafexact::cuda::float_ansnr
