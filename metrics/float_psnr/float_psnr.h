// Float PSNR as libvmaf 3.2.0's "float_psnr" extractor computes it
// (float_psnr.c, psnr.c's compute_psnr() at master f85a8536): luma only, each
// sample a float (sample / 1, 4, 16 or 256), the squared float differences
// summed in double, then min(10 log10(peak^2 / max(noise / (w h), 1e-10)),
// psnr_max) with libvmaf's float extractors' peak (255, 255.75, 255.9375,
// 255.99609375) and psnr_max (60, 72, 84, 108) per bit depth.
#pragma once

#include "common/feature_stage.h"

namespace vmafexact::float_psnr {

// libvmaf's float extractors' peak and psnr_max for a bit depth (float_psnr.c
// and float_ansnr.c's init()).
struct FloatPeak {
  double peak;
  double psnr_max;
};
FloatPeak float_peak(unsigned bpc);

// The per-pixel stage's result: psnr.c's `noise_` before its division by the
// size, the double sum of the squared float differences in raster order.
struct FloatPsnrSums {
  double noise = 0;
  bool operator==(const FloatPsnrSums&) const = default;
};

// The finishing function: compute_psnr()'s score from the summed noise.
double float_psnr_from_noise(double noise, unsigned width, unsigned height, unsigned bpc);

class FloatPsnrCpuStage final : public FeatureStage<FloatPsnrSums> {
 public:
  FloatPsnrSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace vmafexact::float_psnr
