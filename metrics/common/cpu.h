// Run-time CPU detection and the ISA mask of the SIMD twins (dav1d's model).
//
// Every DSP routine has a scalar C++ reference, the ground truth, and may have
// twins for x86-64 ISAs that give identical results. Which twin runs is chosen
// when a kernel is built, from flags(): the ISAs this CPU supports, cut by a mask.
// The mask starts as the environment variable VMAFEXACT_CPU_MASK (a number,
// decimal or 0x hex, of the CpuFlag bits allowed; 0 = scalar only) and can be
// changed with set_cpu_mask() — for tests and benchmarks, like libvmaf's
// --cpumask (which disables the bits it names, where this one keeps them).
#pragma once

namespace vmafexact::cpu {

enum CpuFlag : unsigned {
  kAvx2 = 1u << 0,    // AVX2 (and what it implies: AVX, SSE4.2, ...)
  kAvx512 = 1u << 1,  // AVX-512 F, CD, BW, DQ, VL (Skylake-X, Ice Lake, Zen 4 ...)
  // AVX-512 VNNI beside kAvx512 (Cascade Lake, Ice Lake, Sapphire Rapids, Zen 4):
  // not a tier of its own but a variant of some AVX-512 twins (VIF's filters
  // fuse their int16 multiply-adds with the sum, vpdpwssd), same bits.
  kAvx512Vnni = 1u << 2,
  kAllFlags = kAvx2 | kAvx512 | kAvx512Vnni,
};

// The ISAs the CPU (and operating system) supports; 0 on other architectures.
unsigned detected_flags();

// The ISAs twins may use now: detected_flags() & mask.
unsigned flags();

// Replaces the mask (bits of CpuFlag allowed); returns the previous mask.
// Takes effect for kernels built afterwards.
unsigned set_cpu_mask(unsigned mask);
unsigned cpu_mask();

// "avx512" / "avx2" / "scalar": the best ISA of a set of flags.
const char* best_isa_name(unsigned flags);

}  // namespace vmafexact::cpu
