// The AVX-512 twins of the motion DSP routines: motion_dsp_simd.h over the
// 512-bit vector layer (metrics/common/simd_avx512.h).
#include <cstdint>

#include "common/simd_avx512.h"
#include "motion/motion_dsp.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {
namespace avx512 {
namespace {

#include "motion/motion_dsp_simd.h"

}  // namespace
}  // namespace avx512

const MotionDsp& motion_dsp_avx512() {
  static constexpr MotionDsp dsp = avx512::make_dsp<simd::avx512::V>("avx512");
  return dsp;
}

}  // namespace vmafexact::motion
