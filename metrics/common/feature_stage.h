// The contract every feature is built on: a per-pixel STAGE turns a frame pair
// into exact partial sums (integer sums, exact in any order, or values formed
// in the CPU's order), and the feature's EXTRACTOR owns everything else — its
// options, score keys, format checks, and the one finishing function that
// turns the sums into libvmaf's doubles. The CPU and every twin backend (CUDA)
// supply only a stage; the extractor, and so every name and every floating-
// point step after the sums, is the same object on every backend.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/bands.h"
#include "common/error.h"
#include "common/feature_extractor.h"
#include "common/feature_options.h"
#include "common/picture.h"

namespace vmafexact {

// What a feature is, as libvmaf declares an extractor: its name, the features
// it provides (in the order it writes them) and its options.
struct FeatureDescriptor {
  std::string_view name;                      // e.g. "vif"
  std::string_view summary;                   // one line for users
  std::span<const std::string_view> provided;  // libvmaf's provided_features
  std::span<const OptionSpec> options;
  OptionValues parse(const FeatureOptions& given) const { return {name, options, given}; }
};

// The per-pixel stage of a feature for one picture format. A stage may keep
// state from frame to frame (motion keeps earlier planes).
template <class Sums>
class FeatureStage {
 public:
  virtual ~FeatureStage() = default;
  // Starts frame `index` without waiting for it (an asynchronous backend
  // enqueues its kernels here). The Scorer runs at most one frame ahead of
  // compute(). Default: nothing; compute() does all the work.
  virtual void submit(const PictureView& ref, const PictureView& dist, unsigned index) {
    (void)ref, (void)dist, (void)index;
  }
  // Frame `index`'s sums (after submit() of the same frame, only collects them).
  virtual Sums compute(const PictureView& ref, const PictureView& dist, unsigned index) = 0;
  // Where the stage cuts its row loops into bands (CPU stages; ignored elsewhere).
  virtual void set_band_runner(BandRunner& runner) { (void)runner; }
};

template <class Sums>
using StageFactory = std::function<std::unique_ptr<FeatureStage<Sums>>(const PictureFormat&)>;

// The extractor of a feature over a stage of any backend: names and keys from
// the descriptor and the options, the stage made for the format at init(),
// and the feature's finishing function on the stage's sums.
template <class Sums>
class StagedExtractor : public FeatureExtractor {
 public:
  StagedExtractor(const FeatureDescriptor& descriptor, OptionValues options,
                  StageFactory<Sums> make_stage)
      : descriptor_(descriptor), options_(std::move(options)), make_stage_(std::move(make_stage)) {
    for (const auto& provided : descriptor_.provided) keys_.push_back(options_.score_key(provided));
  }

  std::string_view name() const final { return descriptor_.name; }
  std::vector<std::string> provided_features() const final {
    return {descriptor_.provided.begin(), descriptor_.provided.end()};
  }
  std::string score_key(std::string_view provided_name) const final {
    return options_.score_key(provided_name);
  }

  void init(const PictureFormat& format) final {
    stage_.reset();
    check_format(format);
    format_ = format;
    stage_ = make_stage_(format);
    stage_->set_band_runner(*runner_);
    start(format);
  }
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    stage().submit(ref, dist, index);
  }
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    finish(stage().compute(ref, dist, index), index, scores);
  }
  void set_band_runner(BandRunner& runner) final {
    runner_ = &runner;
    if (stage_) stage_->set_band_runner(runner);
  }

 protected:
  // Throws vmafexact::Error for a format the feature cannot score, naming the limit.
  virtual void check_format(const PictureFormat& format) = 0;
  // After the stage is made: resets per-stream state. Default: nothing.
  virtual void start(const PictureFormat& format) { (void)format; }
  // The finishing function: the frame's scores from its sums, in libvmaf's order.
  virtual void finish(const Sums& sums, unsigned index, FeatureCollector& scores) = 0;

  FeatureStage<Sums>& stage() {
    if (!stage_) throw Error(std::string(descriptor_.name) + ": frame before init()");
    return *stage_;
  }
  const OptionValues& options() const { return options_; }
  const PictureFormat& format() const { return format_; }
  // The score keys of the provided features, in the descriptor's order.
  const std::string& key(std::size_t provided_index) const { return keys_[provided_index]; }

 private:
  const FeatureDescriptor& descriptor_;
  OptionValues options_;
  StageFactory<Sums> make_stage_;
  std::vector<std::string> keys_;
  PictureFormat format_{};
  std::unique_ptr<FeatureStage<Sums>> stage_;
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace vmafexact
