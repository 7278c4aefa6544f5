// libvmaf's "float_ssim" and "float_ms_ssim" extractors (feature/float_ssim.c,
// float_ms_ssim.c) over a stage of any backend.
#pragma once

#include <array>
#include <memory>

#include "common/feature_stage.h"
#include "ssim/ssim.h"

namespace vmafexact::ssim {

// Names, provided features (float_ssim and, with enable_lcs, float_ssim_l/_c/_s;
// float_ms_ssim and float_ms_ssim_{l,c,s}_scale0..4) and libvmaf's option tables.
const FeatureDescriptor& ssim_descriptor();
const FeatureDescriptor& ms_ssim_descriptor();

// The downscaling float_ssim applies to a w x h picture with option `scale`
// (0: libvmaf's automatic choice).
int ssim_scale(int scale_option, unsigned w, unsigned h);

// float_ssim's stage: the luma planes as floats, downscaled by `scale`, and
// their SSIM means.
class SsimCpuStage final : public FeatureStage<SsimMeans> {
 public:
  SsimCpuStage(int scale, const SsimDsp& dsp);
  SsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  const SsimDsp* dsp_;
  int scale_;
  std::vector<float> kernel_;
  FloatImage ref_, dist_, ref_scaled_, dist_scaled_;
  std::vector<float> scratch_;
  SsimWorkspace workspace_;
};

// float_ms_ssim's stage: the SSIM means of the five scales.
using MsSsimMeans = std::array<SsimMeans, kScales>;
class MsSsimCpuStage final : public FeatureStage<MsSsimMeans> {
 public:
  explicit MsSsimCpuStage(const SsimDsp& dsp);
  MsSsimMeans compute(const PictureView& ref, const PictureView& dist, unsigned index) override;

 private:
  const SsimDsp* dsp_;
  std::array<FloatImage, kScales> ref_, dist_;
  std::vector<float> scratch_;
  SsimWorkspace workspace_;
};

// The extractors over the stages the factories make (the CPU's or a twin's).
std::unique_ptr<FeatureExtractor> make_ssim_extractor(const OptionValues& options,
                                                      StageFactory<SsimMeans> make_stage);
std::unique_ptr<FeatureExtractor> make_ms_ssim_extractor(const OptionValues& options,
                                                         StageFactory<MsSsimMeans> make_stage);
// The registry's CPU factories.
std::unique_ptr<FeatureExtractor> make_ssim_cpu_extractor(const OptionValues& options);
std::unique_ptr<FeatureExtractor> make_ms_ssim_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::ssim
