#include "motion/motion_dsp.h"

#include "common/dispatch.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {

namespace {

template <typename Sample>
std::int32_t vertical_c(const Sample* const* prev, const Sample* const* cur, unsigned bpc,
                        unsigned w, std::int16_t* hi, std::int16_t* lo) {
  return scalar::vertical(prev, cur, bpc, 0, w, hi, lo);
}

std::uint32_t horizontal_c(const std::int16_t* hi, const std::int16_t* lo, unsigned w) {
  return scalar::horizontal(hi, lo, 0, w, w);
}

}  // namespace

const MotionDsp& motion_dsp_scalar() {
  static constexpr MotionDsp dsp{"scalar", vertical_c<std::uint8_t>, vertical_c<std::uint16_t>,
                             horizontal_c};
  return dsp;
}

namespace {

constexpr simd::IsaTables<MotionDsp> kTables{
    motion_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    motion_dsp_avx2,
    motion_dsp_avx512,
#endif
};

}  // namespace

const MotionDsp* motion_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const MotionDsp& motion_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::motion
