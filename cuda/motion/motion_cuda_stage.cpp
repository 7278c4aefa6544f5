#include "motion/motion_cuda_stage.h"

#include <algorithm>

#include "motion/motion_cuda.h"

namespace vmafexact::cuda::motion {

MotionCudaStage::MotionCudaStage(const PictureFormat& format, unsigned depth, cudaStream_t stream)
    : stream_(stream), format_(format), depth_(depth),
      pitch_((std::size_t{format.width} * (format.bpc > 8 ? 2 : 1) + 255) / 256 * 256) {}

void MotionCudaStage::submit(const PictureView& ref, const PictureView&, unsigned index) {
  if (index != submitted_)
    throw Error("motion (CUDA): frame " + std::to_string(index) + " submitted out of order");
  ++submitted_;
  const PlaneView& luma = ref.planes[0];
  // Device memory is taken on first use (never with motion_force_zero).
  if (planes_.size() != pitch_ * format_.height * depth_) {
    planes_.resize(pitch_ * format_.height * depth_);
    device_sad_.resize(kFrameSlots);
    row_totals_.resize(format_.height);
  }
  const bool score = kept_ >= depth_;
  unsigned long long* sum = device_sad_.data() + frame_slot(index);
  std::uint8_t* slot = planes_.data() + pitch_ * format_.height * oldest_;
  readback_.reserve();
  graphs_.run(graph_key(luma.data, luma.stride, slot, score, frame_slot(index)), stream_, [&] {
    if (score) {
      const PlaneView earlier{slot, static_cast<std::ptrdiff_t>(pitch_), luma.width, luma.height};
      enqueue_motion_sad(earlier, luma, format_.bpc, row_totals_.data(), sum, stream_);
    }
    check(cudaMemcpy2DAsync(slot, pitch_, luma.data, static_cast<std::size_t>(luma.stride),
                            std::size_t{luma.width} * (format_.bpc > 8 ? 2 : 1), luma.height,
                            cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpy2DAsync (motion luma)");
    readback_.copy(sum, index, stream_);
  });
  readback_.mark(index, stream_);  // also marks the luma copy as done
  oldest_ = (oldest_ + 1) % depth_;
  kept_ = std::min(kept_ + 1, depth_);
  scored_[frame_slot(index)] = score;
}

MotionSums MotionCudaStage::compute(const PictureView& ref, const PictureView& dist,
                                    unsigned index) {
  if (!readback_.submitted(index)) submit(ref, dist, index);
  const unsigned long long sad = readback_.collect(index)[0];
  if (!scored_[frame_slot(index)]) return std::nullopt;
  return sad;
}

}  // namespace vmafexact::cuda::motion
