// The AVX-512 twin of float VIF's row kernels: float_vif_lanes.h compiled for
// AVX-512, 16 columns side by side.
#include <cstdint>
#include <limits>

#include "float_vif/float_vif.h"
#include "float_vif/float_vif_pixel.h"

namespace vmafexact::float_vif {
namespace avx512 {
namespace {

constexpr int kLanes = 16;
#include "float_vif/float_vif_lanes.h"

}  // namespace
}  // namespace avx512

const FloatVifDsp& float_vif_dsp_avx512() {
  static constexpr FloatVifDsp dsp{"avx512", avx512::vertical, avx512::horizontal,
                                   avx512::statistic};
  return dsp;
}

}  // namespace vmafexact::float_vif
