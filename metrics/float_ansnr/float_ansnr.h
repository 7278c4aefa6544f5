// Float ANSNR as libvmaf 3.2.0's "float_ansnr" extractor computes it
// (float_ansnr.c, ansnr.c, ansnr_tools.c at master f85a8536): luma only, each
// sample a float less 128 (sample / 1, 4, 16 or 256 first); the reference
// filtered with a 3x3 kernel and the distorted picture with a 5x5 one (2-D
// float sums, each kernel row summed on its own, mirrored at the borders);
// then the signal (filtered reference squared) and the noise (difference
// squared) summed in float, each row on its own and the rows in order.
// float_ansnr = 10 log10(sig / noise) (psnr_max for no noise), float_anpsnr =
// min(10 log10(peak^2 w h / max(noise, 1e-10)), psnr_max).
#pragma once

#include <span>
#include <vector>

#include "common/feature_stage.h"
#include "common/float_plane.h"
#include "float_ansnr/float_ansnr_pixel.h"

namespace vmafexact::float_ansnr {

// The smallest side libvmaf's mirror stays inside (the 5x5 kernel's radius + 1).
inline constexpr unsigned kMinSide = 3;

// ansnr_filter2d_s(): `src` filtered by `kernel` (pixel::kRefKernel or
// kDistKernel) into `dst` (of src's size), rows [first_row, end_row) only.
void filter_2d(const pixel::Kernel& kernel, const FloatPlane& src, FloatPlane& dst, int first_row,
               int end_row);

// The per-pixel stage's result: ansnr_mse_s()'s float sums.
struct FloatAnsnrSums {
  float sig = 0;
  float noise = 0;
  bool operator==(const FloatAnsnrSums&) const = default;
};

// ansnr_mse_s()'s float sums from its rows' sums (pixel::row_sums()), added
// in row order: the finishing step of both backends' stages.
FloatAnsnrSums add_rows(std::span<const float> row_sig, std::span<const float> row_noise);

// The finishing function: compute_ansnr()'s two scores, in libvmaf's order.
struct AnsnrScores {
  double ansnr;
  double anpsnr;
};
AnsnrScores ansnr_scores(const FloatAnsnrSums& sums, unsigned width, unsigned height, unsigned bpc);

class FloatAnsnrCpuStage final : public FeatureStage<FloatAnsnrSums> {
 public:
  FloatAnsnrSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  BandRunner* runner_ = &serial_band_runner();
  FloatPlane ref_, dist_, ref_filtered_, dist_filtered_;
  std::vector<float> row_sig_, row_noise_;
};

}  // namespace vmafexact::float_ansnr
