// libvmaf's "psnr" extractor (integer_psnr.c) over a stage of any backend.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "common/feature_stage.h"

namespace vmafexact::psnr {

struct PsnrDsp;  // psnr_dsp.h

// Name, provided features (psnr_y, psnr_cb, psnr_cr) and libvmaf's options:
// enable_chroma, enable_mse (mse_y, mse_cb, mse_cr after each psnr), enable_apsnr
// (the aggregates apsnr_y, apsnr_cb, apsnr_cr at flush), reduced_hbd_peak and
// min_sse. None is a feature parameter: they never change score names.
const FeatureDescriptor& descriptor();

// One frame's per-pixel sums: each plane's sum of squared errors (plane_sse()).
struct PsnrSums {
  std::array<std::uint64_t, 3> sse{};
  bool operator==(const PsnrSums&) const = default;
};

// The CPU stage: plane_sse() of every plane through the best DSP table (of
// luma only when `chroma` is false: enable_chroma=false leaves the rest 0).
class PsnrCpuStage final : public FeatureStage<PsnrSums> {
 public:
  explicit PsnrCpuStage(const PsnrDsp& dsp, bool chroma = true);
  PsnrSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  const PsnrDsp* dsp_;
  bool chroma_;
  BandRunner* runner_ = &serial_band_runner();
};

// The extractor over the stages `make_stage` makes (the CPU's or a twin's).
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<PsnrSums> make_stage);
// The extractor over the CPU stage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::psnr
