#include "cuda_backend.h"

#include <optional>
#include <string>
#include <vector>
#include <utility>

namespace vmafexact::cuda {

namespace {

// A twin on its own stream, which joins the backend's stream (the frame's
// producer) before each frame's work: an event recorded there, waited on here.
// Results are read back on the twin's stream, so a frame's scores are final
// when its read-back is: by then every kernel of that frame on that stream
// has run, and the frame's pictures may be reused.
class StreamedExtractor final : public FeatureExtractor {
 public:
  StreamedExtractor(std::string_view name, const FeatureOptions& options, cudaStream_t frames)
      : frames_(frames),
        own_(std::make_unique<Stream>()),
        twin_(make_feature_extractor(name, options, Backend::kCuda, own_->get())) {}
  ~StreamedExtractor() override {
    // The twin's buffers are freed with the work on its stream finished.
    cudaStreamSynchronize(own_->get());
    twin_.reset();
  }

  std::string_view name() const override { return twin_->name(); }
  std::vector<std::string> provided_features() const override { return twin_->provided_features(); }
  std::string score_key(std::string_view provided_name) const override {
    return twin_->score_key(provided_name);
  }
  void init(const PictureFormat& format) override {
    joined_.reset();
    twin_->init(format);
  }
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    join(index);
    twin_->submit(ref, dist, index);
  }
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    join(index);
    twin_->extract(ref, dist, index, scores);
  }
  void flush(FeatureCollector& scores) override { twin_->flush(scores); }
  unsigned latency_frames() const override { return twin_->latency_frames(); }
  bool keeps_state() const override { return twin_->keeps_state(); }
  bool sees_every_frame() const override { return twin_->sees_every_frame(); }

 private:
  // Once per frame: the twin's stream waits for what the frames' stream holds now.
  void join(unsigned index) {
    if (joined_ == index) return;
    ready_.record(frames_);
    check(cudaStreamWaitEvent(own_->get(), ready_.get(), 0), "cudaStreamWaitEvent");
    joined_ = index;
  }

  cudaStream_t frames_;
  std::unique_ptr<Stream> own_;  // outlives the twin, which enqueues on it
  std::unique_ptr<FeatureExtractor> twin_;
  Event ready_;
  std::optional<unsigned> joined_;
};

}  // namespace

CudaBackend::CudaBackend() {
  std::string reason;
  if (!device_available(&reason)) throw Error("no usable CUDA device: " + reason);
  stream_ = std::make_unique<Stream>();
}

std::unique_ptr<FeatureExtractor> CudaBackend::make_extractor(std::string_view name,
                                                              const FeatureOptions& options) {
  return std::make_unique<StreamedExtractor>(name, options, stream());
}

}  // namespace vmafexact::cuda
