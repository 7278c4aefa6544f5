// CUDA kernels of the VIF twin: one launch per scale (the statistic of the
// scale and the decimation into the next), see vif_cuda_tile.h.
#pragma once

#include <cuda_runtime.h>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "common/picture.h"
#include "vif/vif.h"
#include "vif/vif_cuda_plan.h"
#include "vif/vif_cuda_tile.h"

namespace vmafexact::cuda::vif {

// Enqueues scale s's kernel over the plan's grid. `bpc` selects 8- or 16-bit
// samples at scale 0. The scale's sums are added to params.sums (int64 bits).
void enqueue_scale(const ScaleParams& params, const ScalePlan& scale, unsigned s, unsigned bpc,
                   cudaStream_t stream);

// The device counterpart of vmafexact::vif::VifCpuStage: the per-pixel stage for
// pictures of one size and bit depth, on `stream`. The constructor builds the
// plan and uploads its tables and the CPU's log2 table once; compute() takes
// device planes, enqueues the four scales, reads back the 16 sums and
// synchronizes. Throws vmafexact::Error where VifCpuStage would, or on CUDA errors.
class VifCudaStage final : public FeatureStage<vmafexact::vif::FrameSums> {
 public:
  VifCudaStage(unsigned width, unsigned height, unsigned bpc,
                const vmafexact::vif::VifParams& params, cudaStream_t stream);

  // submit() enqueues frame `index`'s kernels and the read-back of its sums;
  // collect() waits for them. compute() is both, for one frame.
  void submit(const PlaneView& ref, const PlaneView& dist, unsigned index);
  bool submitted(unsigned index) const { return readback_.submitted(index); }
  vmafexact::vif::FrameSums collect(unsigned index);
  vmafexact::vif::FrameSums compute(const PlaneView& ref, const PlaneView& dist);

  // The stage's contract, on the luma planes (device pointers).
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    submit(ref.planes[0], dist.planes[0], index);
  }
  vmafexact::vif::FrameSums compute(const PictureView& ref, const PictureView& dist,
                                    unsigned index) override {
    if (!submitted(index)) submit(ref, dist, index);
    return collect(index);
  }

  const VifPlan& plan() const { return plan_; }

 private:
  unsigned width_, height_, bpc_;
  vmafexact::vif::VifParams params_;
  cudaStream_t stream_;
  VifPlan plan_;
  DeviceBuffer<std::int32_t> tables_;
  DeviceBuffer<std::uint16_t> log2_;
  DeviceBuffer<std::uint16_t> pyramid_ref_, pyramid_dis_;
  DeviceBuffer<unsigned long long> sums_;
  FrameReadback<unsigned long long> readback_;
  FrameGraphs graphs_;  // one frame's work, by input pictures and read-back slot
  unsigned computed_ = 0;  // frames run through compute()
  DeviceBuffer<std::uint32_t> saved_;
};

}  // namespace vmafexact::cuda::vif
