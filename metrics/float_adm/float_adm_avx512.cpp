// The AVX-512 twin of float ADM's row kernels: float_adm_lanes.h compiled for
// AVX-512, 16 columns side by side.
#include <cstdint>

#include "float_adm/float_adm.h"
#include "float_adm/float_adm_pixel.h"

namespace vmafexact::float_adm {
namespace avx512 {
namespace {

constexpr int kLanes = 16;
#include "float_adm/float_adm_lanes.h"

}  // namespace
}  // namespace avx512

const FloatAdmDsp& float_adm_dsp_avx512() {
  static constexpr FloatAdmDsp dsp{"avx512",    avx512::decouple,     avx512::cm,
                                   avx512::csf, avx512::dwt_vertical, avx512::dwt_horizontal};
  return dsp;
}

}  // namespace vmafexact::float_adm
