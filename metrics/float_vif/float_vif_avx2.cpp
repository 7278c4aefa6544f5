// The AVX2 twin of float VIF's row kernels: float_vif_lanes.h compiled for
// AVX2, 8 columns side by side.
#include <cstdint>
#include <limits>

#include "float_vif/float_vif.h"
#include "float_vif/float_vif_pixel.h"

namespace vmafexact::float_vif {
namespace avx2 {
namespace {

constexpr int kLanes = 8;
#include "float_vif/float_vif_lanes.h"

}  // namespace
}  // namespace avx2

const FloatVifDsp& float_vif_dsp_avx2() {
  static constexpr FloatVifDsp dsp{"avx2", avx2::vertical, avx2::horizontal, avx2::statistic};
  return dsp;
}

}  // namespace vmafexact::float_vif
