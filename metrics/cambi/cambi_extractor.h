// libvmaf's "cambi" extractor (feature/cambi.c) over a stage of any backend.
#pragma once

#include <memory>

#include "cambi/cambi.h"
#include "common/feature_stage.h"

namespace vmafexact::cambi {

// Name, provided feature (Cambi_feature_cambi_score, alias "cambi") and
// libvmaf's whole option table.
const FeatureDescriptor& descriptor();

// The parameters from parsed options; throws vmafexact::Error for
// heatmaps_path, which only writes debug files (not supported).
CambiParams params_of(const OptionValues& options);

// One frame's pooled scale scores: the distorted picture's, and in
// full-reference mode the reference picture's.
struct CambiSums {
  ScaleScores dist{};
  ScaleScores src{};
  bool has_src = false;
  bool operator==(const CambiSums&) const = default;
};

// The CPU stage: CambiPicture over the distorted luma (and the reference's
// in full-reference mode), through the best DSP table cpu::flags() allows or
// a given one.
class CambiCpuStage final : public FeatureStage<CambiSums> {
 public:
  explicit CambiCpuStage(const CambiSetup& setup);
  CambiCpuStage(const CambiSetup& setup, const CambiDsp& dsp);
  CambiCpuStage(const CambiCpuStage&) = delete;  // picture_ points at setup_
  CambiCpuStage& operator=(const CambiCpuStage&) = delete;
  CambiSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  CambiSetup setup_;
  CambiPicture picture_;
};

// The extractor over the stages `make_stage` makes from the resolved setup.
// It writes the distorted score under "cambi" (with option suffixes), and in
// full-reference mode "cambi_source" and "cambi_full_reference" (libvmaf
// writes those two without suffixes).
using CambiStageFactory = std::function<std::unique_ptr<FeatureStage<CambiSums>>(const CambiSetup&)>;
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 CambiStageFactory make_stage);
// The extractor over CambiCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::cambi
