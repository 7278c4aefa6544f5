// The CUDA stage of PSNR: each plane's sum of squared errors on the device
// (enqueue_plane_sse), read back as three 64-bit values per frame.
#pragma once

#include <cuda_runtime.h>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "psnr/psnr_extractor.h"

namespace vmafexact::cuda::psnr {

class PsnrCudaStage final : public FeatureStage<vmafexact::psnr::PsnrSums> {
 public:
  // As PsnrCpuStage: luma only when `chroma` is false (enable_chroma=false
  // leaves the rest 0, and the chroma planes may then be left out, null).
  explicit PsnrCudaStage(cudaStream_t stream, bool chroma = true);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  vmafexact::psnr::PsnrSums compute(const PictureView& ref, const PictureView& dist,
                                    unsigned index) override;
  const FrameGraphs& graphs() const { return graphs_; }

 private:
  cudaStream_t stream_;
  bool chroma_;
  DeviceBuffer<unsigned long long> device_sse_;  // kFrameSlots frames' sums
  FrameReadback<unsigned long long> readback_;
  FrameGraphs graphs_;  // one frame's work, by input planes and read-back slot
};

}  // namespace vmafexact::cuda::psnr
