// Float moments as libvmaf 3.2.0's "float_moment" extractor computes them
// (float_moment.c, moment.c at master f85a8536): luma only, each sample a
// float (sample / 1, 4, 16 or 256); the first moment sums the floats in
// double, the second their float squares, each then divided by w * h:
// float_moment_ref1st, float_moment_dis1st, float_moment_ref2nd,
// float_moment_dis2nd.
#pragma once

#include "common/feature_stage.h"

namespace vmafexact::float_moment {

// The per-pixel stage's result: moment.c's `cum` of each moment before its
// division by the size, in the order libvmaf writes them.
struct FloatMomentSums {
  double ref_first = 0;
  double dist_first = 0;
  double ref_second = 0;
  double dist_second = 0;
  bool operator==(const FloatMomentSums&) const = default;
};

// The finishing function: `cum /= (w * h)`, the size an int product as libvmaf's.
double moment_from_sum(double sum, unsigned width, unsigned height);

class FloatMomentCpuStage final : public FeatureStage<FloatMomentSums> {
 public:
  FloatMomentSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace vmafexact::float_moment
