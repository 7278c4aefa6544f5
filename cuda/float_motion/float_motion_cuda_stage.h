// The CUDA stage of float_motion: per frame, each plane it reads (luma, and
// chroma with motion_add_uv) blurred on the device into one of two slots
// (this frame's and the previous frame's, by frame parity), the rows' sums of
// |previous - current| (and of both halved, with motion_add_scale1) read back,
// and the score finished on the host with the CPU's code
// (float_motion::mean_abs_difference()).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/cuda_util.h"
#include "common/frame_graphs.h"
#include "float_motion/float_motion_cuda.h"
#include "float_motion/float_motion_extractor.h"

namespace vmafexact::cuda::float_motion {

using vmafexact::float_motion::FloatMotionParams;
using vmafexact::float_motion::FloatMotionSums;

class FloatMotionCudaStage final : public FeatureStage<FloatMotionSums> {
 public:
  FloatMotionCudaStage(const PictureFormat& format, const FloatMotionParams& params,
                       cudaStream_t stream);
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override;
  FloatMotionSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  // Where a plane's data lies in the device buffers and the read-back.
  struct PlaneLayout {
    int width = 0, height = 0;
    int half_width = 0, half_height = 0;  // motion_add_scale1
    std::size_t blurred = 0;  // slot 0's plane in blurred_; slot 1's follows all of slot 0
    std::size_t rows = 0;     // its rows' sums in rows_, then its halves' rows
  };
  struct Layout {
    std::vector<PlaneLayout> planes;  // luma, and both chroma planes with motion_add_uv
    std::size_t slot_floats = 0;      // one frame's blurred planes
    std::size_t largest_plane = 0;    // floats of the largest plane (the column pass's scratch)
    std::size_t largest_half = 0;
    std::size_t row_sums = 0;  // floats read back per frame
  };
  static Layout layout_of(const PictureFormat& format, const FloatMotionParams& params);

  cudaStream_t stream_;
  unsigned bpc_;
  FloatMotionParams params_;
  tile::Filter filter_;
  Layout layout_;
  // Device memory is taken on the first submit(), so that the extractor can
  // be made (and its options checked) without a device.
  DeviceBuffer<float> vertical_, blurred_, halves_, rows_;
  FrameReadback<float> readback_;
  FrameGraphs graphs_;  // one frame's work, by input planes, slot and scoring
  unsigned submitted_ = 0;
  bool scored_[kFrameSlots] = {};  // by frame slot: whether the rows' sums were formed
};

}  // namespace vmafexact::cuda::float_motion
