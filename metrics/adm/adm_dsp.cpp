#include "adm/adm_dsp.h"

#include "adm/adm_dsp_scalar.h"
#include "common/dispatch.h"

namespace vmafexact::adm {

namespace {

template <typename Sample>
void dwt0_vertical_c(const Sample* const* rows, unsigned bpc, int w, std::int16_t* lo,
                     std::int16_t* hi) {
  scalar::dwt0_vertical(rows, bpc, 0, w, lo, hi);
}

void dwt0_horizontal_c(const std::int16_t* lo, const std::int16_t* hi, int w, std::int16_t* a,
                       std::int16_t* v, std::int16_t* h, std::int16_t* d) {
  scalar::dwt0_horizontal(lo, hi, w, 0, (w + 1) / 2, a, v, h, d);
}

void dwtn_vertical_c(const std::int32_t* const* rows, int scale, int w, std::int32_t* lo,
                     std::int32_t* hi) {
  scalar::dwtn_vertical(rows, scale, 0, w, lo, hi);
}

void dwtn_horizontal_c(const std::int32_t* lo, const std::int32_t* hi, int scale, int w,
                       std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
  scalar::dwtn_horizontal(lo, hi, scale, w, 0, (w + 1) / 2, a, v, h, d);
}

}  // namespace

const AdmDsp& adm_dsp_scalar() {
  static constexpr AdmDsp dsp{
      "scalar",
      dwt0_vertical_c<std::uint8_t>,
      dwt0_vertical_c<std::uint16_t>,
      dwt0_horizontal_c,
      dwtn_vertical_c,
      dwtn_horizontal_c,
      scalar::decouple<pixel::Scale0Arith>,
      scalar::decouple<pixel::ScaleNArith>,
      scalar::csf<pixel::Scale0Arith>,
      scalar::csf<pixel::ScaleNArith>,
      scalar::masked_cubes<pixel::Scale0Arith>,
      scalar::masked_cubes<pixel::ScaleNArith>,
      scalar::reference_cubes<pixel::Scale0Arith>,
      scalar::reference_cubes<pixel::ScaleNArith>,
  };
  return dsp;
}

namespace {

constexpr simd::IsaTables<AdmDsp> kTables{
    adm_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    adm_dsp_avx2,
    adm_dsp_avx512,
    adm_dsp_avx512vnni,
#endif
};

}  // namespace

const AdmDsp* adm_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const AdmDsp& adm_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::adm
