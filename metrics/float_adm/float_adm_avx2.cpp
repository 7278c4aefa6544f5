// The AVX2 twin of float ADM's row kernels: float_adm_lanes.h compiled for
// AVX2, 8 columns side by side.
#include <cstdint>

#include "float_adm/float_adm.h"
#include "float_adm/float_adm_pixel.h"

namespace vmafexact::float_adm {
namespace avx2 {
namespace {

constexpr int kLanes = 8;
#include "float_adm/float_adm_lanes.h"

}  // namespace
}  // namespace avx2

const FloatAdmDsp& float_adm_dsp_avx2() {
  static constexpr FloatAdmDsp dsp{"avx2",    avx2::decouple,     avx2::cm,
                                   avx2::csf, avx2::dwt_vertical, avx2::dwt_horizontal};
  return dsp;
}

}  // namespace vmafexact::float_adm
