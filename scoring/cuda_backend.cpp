#include "cuda_backend.h"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <utility>

namespace vmafexact::cuda {

namespace {

// A feature's twins, each on a stream of its own, which joins the backend's
// stream (the frames' producer) before each frame's work: an event recorded
// there, waited on here. A twin without state from frame to frame has one
// instance per frame in flight (at least two), frame i going to instance
// i % count, so that the frames in flight (the Scorer's overlap) run side by
// side too and each instance has one frame in flight; a twin with state
// (motion) has one, its frames in flight in its read-back slots. Results are
// read back on the twin's stream, so a frame's scores are final when its
// read-back is: by then every kernel of that frame has run, and the frame's
// pictures may be reused.
class StreamedExtractor final : public FeatureExtractor {
 public:
  StreamedExtractor(std::string_view name, const FeatureOptions& options, cudaStream_t frames,
                    BandRunner& host_runner, unsigned frames_in_flight)
      : frames_(frames) {
    lanes_.push_back(std::make_unique<Lane>(name, options));
    if (!lanes_.front()->twin->keeps_state())
      while (lanes_.size() < std::max(frames_in_flight, 2u))
        lanes_.push_back(std::make_unique<Lane>(name, options));
    for (auto& lane : lanes_) lane->twin->set_band_runner(host_runner);
  }

  std::string_view name() const override { return twin().name(); }
  std::vector<std::string> provided_features() const override { return twin().provided_features(); }
  std::string score_key(std::string_view provided_name) const override {
    return twin().score_key(provided_name);
  }
  void init(const PictureFormat& format) override {
    for (auto& lane : lanes_) {
      lane->joined.reset();
      lane->twin->init(format);
    }
  }
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    Lane& lane = join(index);
    lane.twin->submit(ref, dist, index);
  }
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    Lane& lane = join(index);
    lane.twin->extract(ref, dist, index, scores);
  }
  void flush(FeatureCollector& scores) override {
    for (auto& lane : lanes_) lane->twin->flush(scores);
  }
  // The Scorer's runner is its one thread (a device's frames overlap instead);
  // the twins keep the backend's.
  void set_band_runner(BandRunner&) override {}
  unsigned latency_frames() const override { return twin().latency_frames(); }
  bool keeps_state() const override { return twin().keeps_state(); }
  bool sees_every_frame() const override { return twin().sees_every_frame(); }
  bool reads_chroma() const override { return twin().reads_chroma(); }

 private:
  struct Lane {
    Lane(std::string_view name, const FeatureOptions& options)
        : twin(make_feature_extractor(name, options, Backend::kCuda, stream.get())) {}
    ~Lane() {
      // The twin's buffers are freed with the work on its stream finished.
      cudaStreamSynchronize(stream.get());
    }
    Stream stream;  // declared first: outlives the twin, which enqueues on it
    std::unique_ptr<FeatureExtractor> twin;
    Event ready;
    std::optional<unsigned> joined;  // the frame the stream last joined
  };

  const FeatureExtractor& twin() const { return *lanes_.front()->twin; }

  // Frame `index`'s lane, its stream made to wait (once per frame) for what
  // the frames' stream holds now.
  Lane& join(unsigned index) {
    Lane& lane = *lanes_[index % lanes_.size()];
    if (lane.joined != index) {
      lane.ready.record(frames_);
      check(cudaStreamWaitEvent(lane.stream.get(), lane.ready.get(), 0), "cudaStreamWaitEvent");
      lane.joined = index;
    }
    return lane;
  }

  cudaStream_t frames_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace

namespace {

// A few host threads for the twins' host work: the calling thread takes bands
// too, so 3 workers give 4 bands side by side.
unsigned host_bands() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

}  // namespace

CudaBackend::CudaBackend(unsigned frames_in_flight)
    : frames_in_flight_(frames_in_flight),
      host_pool_(std::max(host_bands() - 1, 1u)),
      host_runner_(host_pool_, host_bands()) {
  if (frames_in_flight < 1 || frames_in_flight > kFrameSlots)
    throw Error("CUDA backend: " + std::to_string(frames_in_flight) +
                " frames in flight; it takes 1 to " + std::to_string(kFrameSlots));
  std::string reason;
  if (!device_available(&reason)) throw DeviceError("no usable CUDA device: " + reason);
  stream_ = std::make_unique<Stream>();
}

std::unique_ptr<FeatureExtractor> CudaBackend::make_extractor(std::string_view name,
                                                              const FeatureOptions& options) {
  return std::make_unique<StreamedExtractor>(name, options, stream(), host_runner_,
                                             frames_in_flight_);
}

}  // namespace vmafexact::cuda
