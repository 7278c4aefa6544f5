// The CUDA stage of motion: the last `depth` reference luma planes kept in
// device memory and motion_sad() against the oldest (enqueue_motion_sad),
// read back as one 64-bit value per frame.
#pragma once

#include <cuda_runtime.h>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "motion/motion_extractor.h"

namespace vmafexact::cuda::motion {

using vmafexact::motion::MotionSums;

// A ring of `depth` device planes (1, or 2 with the five-frame window). Per
// frame it zeroes the sum, runs the kernel against the oldest plane (when
// `depth` earlier planes are kept), copies the frame's luma over that plane
// (device to device, after the kernel in stream order) and reads back the sum.
// compute() waits for the read-back, which follows the copy in stream order,
// so the caller's luma may be released when it returns.
class MotionCudaStage final : public FeatureStage<MotionSums> {
 public:
  MotionCudaStage(const PictureFormat& format, unsigned depth, cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  MotionSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  cudaStream_t stream_;
  PictureFormat format_;
  unsigned depth_;
  unsigned kept_ = 0;       // planes held on the device, submissions included (at most depth_)
  unsigned oldest_ = 0;     // the slot of the oldest plane, written next
  unsigned submitted_ = 0;  // frames through submit()
  std::size_t pitch_ = 0;
  bool scored_[kFrameSlots] = {};  // by frame slot: whether a sum was computed
  DeviceBuffer<std::uint8_t> planes_;           // depth_ planes of pitch_ * height bytes
  DeviceBuffer<unsigned long long> device_sad_;  // one sum per frame slot
  DeviceBuffer<std::uint32_t> row_totals_;       // the rows' sums of the frame being scored
  FrameReadback<unsigned long long> readback_{1};
  FrameGraphs graphs_;  // one frame's work, by input luma, ring slot, scoring and read-back slot
};

}  // namespace vmafexact::cuda::motion
