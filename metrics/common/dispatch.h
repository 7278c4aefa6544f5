// The one dispatch of the DSP tables (dav1d's model, metrics/common/cpu.h):
// each feature has a scalar table, the ground truth, and one table per ISA
// twin; a kernel asks for the best table the CPU flags allow once, when it is
// built, and calls through it.
//
// A feature lists its getters in one IsaTables and answers its public
// <feature>_dsp_isa(flag) / <feature>_dsp(flags) with isa() / best(). Getters
// are null where the build has no twins (VMAFEXACT_X86_64_SIMD undefined), and
// every table is a constant, so best() is a few branches and no locking.
#pragma once

#include <initializer_list>

#include "common/cpu.h"

namespace vmafexact::simd {

template <class Dsp>
struct IsaTables {
  using Getter = const Dsp& (*)();

  Getter scalar;
  Getter avx2 = nullptr;
  Getter avx512 = nullptr;
  // A build of the AVX-512 twins with VNNI (vpdpwssd), if the feature has one:
  // it stands in for `avx512` where cpu::flags() keeps cpu::kAvx512Vnni, so a
  // mask without that bit checks and runs the plain build on the same CPU.
  Getter avx512vnni = nullptr;

  // The table of one ISA (cpu::kAvx2, cpu::kAvx512), or nullptr when this
  // build has none. It may only run where cpu::detected_flags() has the flag.
  constexpr const Dsp* isa(unsigned cpu_flag) const {
    const Getter getter = cpu_flag == cpu::kAvx512
                              ? (avx512vnni && (cpu::flags() & cpu::kAvx512Vnni) ? avx512vnni
                                                                                 : avx512)
                          : cpu_flag == cpu::kAvx2 ? avx2
                                                   : nullptr;
    return getter ? &getter() : nullptr;
  }

  // The best table allowed by `cpu_flags`: the widest ISA first.
  constexpr const Dsp& best(unsigned cpu_flags) const {
    for (const unsigned flag : {cpu::kAvx512, cpu::kAvx2})
      if (cpu_flags & flag)
        if (const Dsp* dsp = isa(flag)) return *dsp;
    return scalar();
  }
};

}  // namespace vmafexact::simd
