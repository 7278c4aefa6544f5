// The AVX2 twins of the motion DSP routines: motion_dsp_simd.h over the
// 256-bit vector layer (metrics/common/simd_avx2.h).
#include <cstdint>

#include "common/simd_avx2.h"
#include "motion/motion_dsp.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {
namespace avx2 {
namespace {

#include "motion/motion_dsp_simd.h"

}  // namespace
}  // namespace avx2

const MotionDsp& motion_dsp_avx2() {
  static constexpr MotionDsp dsp = avx2::make_dsp<simd::avx2::V>("avx2");
  return dsp;
}

}  // namespace vmafexact::motion
