#include "float_psnr/float_psnr.h"

#include <algorithm>
#include <cmath>

#include "common/float_sums.h"

namespace vmafexact::float_psnr {

FloatPeak float_peak(unsigned bpc) {
  switch (bpc) {
    case 8:
      return {255.0, 60.0};
    case 10:
      return {255.75, 72.0};
    case 12:
      return {255.9375, 84.0};
    default:
      return {255.99609375, 108.0};  // 16 (the only other depth let through)
  }
}

double float_psnr_from_noise(double noise, unsigned width, unsigned height, unsigned bpc) {
  // `noise_ /= (w * h)`: an int product, as libvmaf's.
  noise /= static_cast<int>(width * height);
  const FloatPeak p = float_peak(bpc);
  const double eps = 1e-10;
  // MIN(10 * log10(peak * peak / MAX(noise_, eps)), psnr_max), its macros' order.
  const double bounded = noise > eps ? noise : eps;
  const double score = 10 * std::log10(p.peak * p.peak / bounded);
  return score < p.psnr_max ? score : p.psnr_max;
}

FloatPsnrSums FloatPsnrCpuStage::compute(const PictureView& ref, const PictureView& dist,
                                         unsigned) {
  return {float_square_sum(ref.planes[0], &dist.planes[0], ref.bpc, *runner_)};
}

}  // namespace vmafexact::float_psnr
