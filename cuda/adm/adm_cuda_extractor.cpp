#include "adm/adm_cuda_extractor.h"

#include <optional>

#include "adm/adm.h"
#include "adm/adm_cuda.h"
#include "adm/adm_extractor.h"
#include "common/error.h"

namespace vmafexact::cuda::adm {

namespace {

class CudaAdmExtractor final : public FeatureExtractor {
 public:
  CudaAdmExtractor(const FeatureOptions& options, cudaStream_t stream)
      : cpu_(vmafexact::adm::make_integer_adm_extractor(options)),  // names, keys, option checks
        options_(vmafexact::adm::read_adm_options(options, nullptr)),
        stream_(stream) {}

  std::string_view name() const override { return cpu_->name(); }
  std::vector<std::string> provided_features() const override { return cpu_->provided_features(); }
  std::string score_key(std::string_view provided) const override { return cpu_->score_key(provided); }
  bool sees_every_frame() const override { return cpu_->sees_every_frame(); }
  unsigned latency_frames() const override { return cpu_->latency_frames(); }

  void init(const PictureFormat& format) override {
    pipeline_.reset();
    vmafexact::adm::check_adm_format(format);  // the CPU's checks and messages
    pipeline_.emplace(format.width, format.height, options_);
    format_ = format;
    keys_.clear();
    for (const auto& provided : cpu_->provided_features()) keys_.push_back(cpu_->score_key(provided));
  }

  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    if (!pipeline_) throw Error("adm: submit() before init()");
    pipeline_->enqueue(ref.planes[0], dist.planes[0], ref.bpc, stream_, index);
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    if (!pipeline_) throw Error("adm: extract() before init()");
    if (!pipeline_->enqueued(index)) submit(ref, dist, index);
    const vmafexact::adm::AdmScores s = vmafexact::adm::finish_scores(
        pipeline_->sums(index), format_.width, format_.height, options_, pipeline_->weights());
    vmafexact::adm::append_adm_scores(s, keys_, options_.debug, index, scores);
  }

 private:
  std::unique_ptr<FeatureExtractor> cpu_;
  vmafexact::adm::AdmOptions options_;
  cudaStream_t stream_;
  PictureFormat format_{};
  std::vector<std::string> keys_;
  std::optional<AdmCudaPipeline> pipeline_;
};

}  // namespace

std::unique_ptr<FeatureExtractor> make_cuda_adm_extractor(const FeatureOptions& options,
                                                           cudaStream_t stream) {
  return std::make_unique<CudaAdmExtractor>(options, stream);
}

}  // namespace vmafexact::cuda::adm
