#include "motion/motion_dsp.h"

#include <initializer_list>

#include "common/cpu.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {

namespace {

template <typename Sample>
std::int32_t vertical_c(const Sample* const* prev, const Sample* const* cur, unsigned bpc,
                        unsigned w, std::int32_t* blurred) {
  return scalar::vertical(prev, cur, bpc, 0, w, blurred);
}

std::uint32_t horizontal_c(const std::int32_t* blurred, unsigned w) {
  return scalar::horizontal(blurred, 0, w, w);
}

}  // namespace

const MotionDsp& motion_dsp_scalar() {
  static const MotionDsp dsp{"scalar", vertical_c<std::uint8_t>, vertical_c<std::uint16_t>,
                             horizontal_c};
  return dsp;
}

const MotionDsp* motion_dsp_isa(unsigned cpu_flag) {
#if defined(VMAFEXACT_X86_64_SIMD)
  if (cpu_flag == cpu::kAvx2) return &motion_dsp_avx2();
  if (cpu_flag == cpu::kAvx512) return &motion_dsp_avx512();
#else
  (void)cpu_flag;
#endif
  return nullptr;
}

const MotionDsp& motion_dsp(unsigned cpu_flags) {
  for (unsigned flag : {cpu::kAvx512, cpu::kAvx2})
    if (cpu_flags & flag)
      if (const MotionDsp* dsp = motion_dsp_isa(flag)) return *dsp;
  return motion_dsp_scalar();
}

}  // namespace vmafexact::motion
