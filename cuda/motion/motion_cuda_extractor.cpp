#include "motion/motion_cuda_extractor.h"

#include <algorithm>

#include "common/cuda_util.h"
#include "motion/motion_cuda.h"
#include "motion/motion_extractor.h"

namespace vmafexact::cuda::motion {

namespace {

// The earlier reference luma planes, kept in device memory: a ring of `depth`
// planes (1, or 2 with the five-frame window). Per frame it zeroes the sum,
// runs the kernel against the oldest plane, copies the frame's luma over that
// plane (device to device, after the kernel in stream order), reads back the
// one uint64 and synchronizes, so the caller's luma may be released on return.
class CudaMotionHistory final : public vmafexact::motion::MotionHistory {
 public:
  explicit CudaMotionHistory(cudaStream_t stream) : stream_(stream) {}

  void reset(const PictureFormat& format, unsigned depth) override {
    format_ = format;
    depth_ = depth;
    kept_ = 0;
    oldest_ = 0;
    // Device memory is taken on first use (never with motion_force_zero).
    pitch_ = (std::size_t{format.width} * (format.bpc > 8 ? 2 : 1) + 255) / 256 * 256;
  }

  unsigned size() const override { return kept_; }

  std::uint64_t sad_then_keep(const PlaneView& luma, bool score) override {
    if (planes_.size() != pitch_ * format_.height * depth_) {
      planes_.resize(pitch_ * format_.height * depth_);
      device_sad_.resize(1);
      if (!host_sad_.data()) host_sad_ = PinnedBuffer<unsigned long long>(1);
    }
    std::uint8_t* slot = planes_.data() + pitch_ * format_.height * oldest_;
    if (score) {
      const PlaneView earlier{slot, static_cast<std::ptrdiff_t>(pitch_), luma.width, luma.height};
      check(cudaMemsetAsync(device_sad_.data(), 0, sizeof(unsigned long long), stream_),
            "cudaMemsetAsync (motion sum)");
      enqueue_motion_sad(earlier, luma, format_.bpc, device_sad_.data(), stream_);
    }
    check(cudaMemcpy2DAsync(slot, pitch_, luma.data, static_cast<std::size_t>(luma.stride),
                            std::size_t{luma.width} * (format_.bpc > 8 ? 2 : 1), luma.height,
                            cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpy2DAsync (motion luma)");
    oldest_ = (oldest_ + 1) % depth_;
    kept_ = std::min(kept_ + 1, depth_);
    if (score)
      check(cudaMemcpyAsync(host_sad_.data(), device_sad_.data(), sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync (motion sum)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return score ? host_sad_[0] : 0;
  }

 private:
  cudaStream_t stream_;
  PictureFormat format_{};
  unsigned depth_ = 1;
  unsigned kept_ = 0;    // planes held (at most depth_)
  unsigned oldest_ = 0;  // the slot of the oldest plane, written next
  std::size_t pitch_ = 0;
  DeviceBuffer<std::uint8_t> planes_;  // depth_ planes of pitch_ * height bytes
  DeviceBuffer<unsigned long long> device_sad_;
  PinnedBuffer<unsigned long long> host_sad_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_motion_extractor(const FeatureOptions& options,
                                                             cudaStream_t stream) {
  // The CPU extractor itself (options, checks, names, keys, MotionSequence and
  // its latency), with its plane history and sums on the device.
  return vmafexact::motion::make_integer_motion_extractor(
      options, std::make_unique<CudaMotionHistory>(stream));
}

}  // namespace vmafexact::cuda::motion
