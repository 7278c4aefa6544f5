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
    visible_kept_ = 0;
    oldest_ = 0;
    next_index_ = 0;
    submitted_ = 0;
    // Device memory is taken on first use (never with motion_force_zero).
    pitch_ = (std::size_t{format.width} * (format.bpc > 8 ? 2 : 1) + 255) / 256 * 256;
  }

  unsigned size() const override { return visible_kept_; }

  // Enqueues frame `index`: the SAD against the oldest plane kept (when an
  // earlier frame is there), the copy of `luma` over that plane, and the
  // read-back of the sum. Stream order keeps the copy after the kernel.
  void submit(const PlaneView& luma, unsigned index) {
    if (index != submitted_)
      throw Error("motion (CUDA): frame " + std::to_string(index) + " submitted out of order");
    ++submitted_;
    if (planes_.size() != pitch_ * format_.height * depth_) {
      planes_.resize(pitch_ * format_.height * depth_);
      device_sad_.resize(2);
    }
    const bool score = kept_ >= depth_;
    unsigned long long* sum = device_sad_.data() + index % 2;
    std::uint8_t* slot = planes_.data() + pitch_ * format_.height * oldest_;
    if (score) {
      const PlaneView earlier{slot, static_cast<std::ptrdiff_t>(pitch_), luma.width, luma.height};
      check(cudaMemsetAsync(sum, 0, sizeof(unsigned long long), stream_),
            "cudaMemsetAsync (motion sum)");
      enqueue_motion_sad(earlier, luma, format_.bpc, sum, stream_);
    }
    check(cudaMemcpy2DAsync(slot, pitch_, luma.data, static_cast<std::size_t>(luma.stride),
                            std::size_t{luma.width} * (format_.bpc > 8 ? 2 : 1), luma.height,
                            cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpy2DAsync (motion luma)");
    oldest_ = (oldest_ + 1) % depth_;
    kept_ = std::min(kept_ + 1, depth_);
    readback_.submit(sum, index, stream_);  // also marks the luma copy as done
    scored_[index % 2] = score;
  }

  std::uint64_t sad_then_keep(const PlaneView& luma, bool score) override {
    const unsigned index = next_index_++;
    if (!readback_.submitted(index)) submit(luma, index);
    // Waits for the read-back, which follows the luma copy in stream order, so
    // the caller's luma may be released on return.
    const unsigned long long sad = readback_.collect(index)[0];
    if (scored_[index % 2] != score)
      throw Error("motion (CUDA): frame " + std::to_string(index) + " was submitted " +
                  (score ? "without" : "with") + " an earlier frame");
    visible_kept_ = std::min(visible_kept_ + 1, depth_);
    return score ? sad : 0;
  }

 private:
  cudaStream_t stream_;
  PictureFormat format_{};
  unsigned depth_ = 1;
  unsigned kept_ = 0;          // planes held on the device, submissions included (at most depth_)
  unsigned visible_kept_ = 0;  // planes held as the extractor has seen them
  unsigned oldest_ = 0;        // the slot of the oldest plane, written next
  unsigned next_index_ = 0;    // frames through sad_then_keep()
  unsigned submitted_ = 0;     // frames through submit()
  std::size_t pitch_ = 0;
  bool scored_[2] = {false, false};
  DeviceBuffer<std::uint8_t> planes_;           // depth_ planes of pitch_ * height bytes
  DeviceBuffer<unsigned long long> device_sad_;  // one sum per frame slot
  FrameReadback<unsigned long long> readback_{1};
};

// The CPU extractor with the device history, plus submit(): frame i + 1's SAD
// can be enqueued before frame i is extracted.
class CudaMotionExtractor final : public FeatureExtractor {
 public:
  CudaMotionExtractor(std::unique_ptr<FeatureExtractor> cpu, CudaMotionHistory* history,
                      bool force_zero)
      : cpu_(std::move(cpu)), history_(history), force_zero_(force_zero) {}

  std::string_view name() const override { return cpu_->name(); }
  std::vector<std::string> provided_features() const override { return cpu_->provided_features(); }
  std::string score_key(std::string_view provided) const override { return cpu_->score_key(provided); }
  unsigned latency_frames() const override { return cpu_->latency_frames(); }
  bool sees_every_frame() const override { return cpu_->sees_every_frame(); }
  void init(const PictureFormat& format) override { cpu_->init(format); }
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    (void)dist;
    // With motion_force_zero nothing is read (as on the CPU).
    if (!force_zero_) history_->submit(ref.planes[0], index);
  }
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    cpu_->extract(ref, dist, index, scores);
  }
  void flush(FeatureCollector& scores) override { cpu_->flush(scores); }

 private:
  std::unique_ptr<FeatureExtractor> cpu_;
  CudaMotionHistory* history_;  // owned by cpu_
  bool force_zero_;
};

bool force_zero_option(const FeatureOptions& options) {
  bool force_zero = false;
  for (const auto& [name, value] : options)  // the factory has validated the values
    if (name == "motion_force_zero") force_zero = value == "true" || value == "1";
  return force_zero;
}

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_motion_extractor(const FeatureOptions& options,
                                                             cudaStream_t stream) {
  // The CPU extractor itself (options, checks, names, keys, MotionSequence and
  // its latency), with its plane history and sums on the device.
  auto history = std::make_unique<CudaMotionHistory>(stream);
  CudaMotionHistory* history_view = history.get();
  auto cpu = vmafexact::motion::make_integer_motion_extractor(options, std::move(history));
  return std::make_unique<CudaMotionExtractor>(std::move(cpu), history_view, force_zero_option(options));
}

}  // namespace vmafexact::cuda::motion
