#include "float_moment/float_moment.h"

#include "common/float_sums.h"

namespace vmafexact::float_moment {

double moment_from_sum(double sum, unsigned width, unsigned height) {
  return sum / static_cast<int>(width * height);
}

FloatMomentSums FloatMomentCpuStage::compute(const PictureView& ref, const PictureView& dist,
                                             unsigned) {
  const unsigned bpc = ref.bpc;
  return {float_sample_sum(ref.planes[0], bpc, *runner_),
          float_sample_sum(dist.planes[0], bpc, *runner_),
          float_square_sum(ref.planes[0], nullptr, bpc, *runner_),
          float_square_sum(dist.planes[0], nullptr, bpc, *runner_)};
}

}  // namespace vmafexact::float_moment
