#include "vif/vif_cuda_extractor.h"

#include <optional>

#include "common/error.h"
#include "vif/vif_cuda.h"
#include "vif/vif_extractor.h"

namespace vmafexact::cuda::vif {

namespace {

using vmafexact::vif::IntegerVifExtractor;

class CudaVifExtractor final : public FeatureExtractor {
 public:
  CudaVifExtractor(std::unique_ptr<IntegerVifExtractor> cpu, cudaStream_t stream)
      : cpu_(std::move(cpu)), stream_(stream) {}

  std::string_view name() const override { return cpu_->name(); }
  std::vector<std::string> provided_features() const override { return cpu_->provided_features(); }
  std::string score_key(std::string_view provided) const override { return cpu_->score_key(provided); }
  unsigned latency_frames() const override { return cpu_->latency_frames(); }
  bool sees_every_frame() const override { return cpu_->sees_every_frame(); }

  void init(const PictureFormat& format) override {
    cpu_->init(format);  // the same checks and keys
    kernel_.reset();
    kernel_.emplace(format.width, format.height, format.bpc, cpu_->params(), stream_);
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    if (!kernel_) throw Error("vif: extract() before init()");
    if (!kernel_->submitted(index)) kernel_->submit(ref.planes[0], dist.planes[0], index);
    // The device's accumulators, then the CPU's finishing function and keys.
    cpu_->append_scores(kernel_->collect(index), index, scores);
  }

  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    if (!kernel_) throw Error("vif: submit() before init()");
    kernel_->submit(ref.planes[0], dist.planes[0], index);
  }

 private:
  std::unique_ptr<IntegerVifExtractor> cpu_;  // names, options, checks, finishing
  cudaStream_t stream_;
  std::optional<VifCudaKernel> kernel_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_vif_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  // Validates the options exactly as the CPU factory does.
  std::unique_ptr<FeatureExtractor> cpu = vmafexact::vif::make_integer_vif_extractor(options);
  std::unique_ptr<IntegerVifExtractor> typed(static_cast<IntegerVifExtractor*>(cpu.release()));
  return std::make_unique<CudaVifExtractor>(std::move(typed), stream);
}

}  // namespace vmafexact::cuda::vif
