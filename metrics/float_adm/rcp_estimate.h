// libvmaf's float ADM divides with the x86 reciprocal estimate (RCPSS) refined
// by one Newton step (adm_tools.c, ADM_OPT_RECIP_DIVISION). RCPSS is an
// approximation whose bits differ between processor makers, so libvmaf's
// float_adm scores differ from one x86 CPU to another, and from its division
// on other architectures. vmafexact computes the estimate in software, with
// the table of the processor whose results are the reference logs' (an AMD
// Zen), so that it gives the reference's bits on every CPU.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::float_adm {

// RCPSS of x from the reference processor's table (rcp_estimate_table()): the
// one emulation of it, which the CPU (rcp_estimate()) and the CUDA twin (the
// table uploaded) run.
VMAFEXACT_HD inline float rcp_estimate_from(const std::uint32_t* table, float x) {
  const std::uint32_t bits = bits_of(x);
  const std::uint32_t sign = bits & 0x80000000u;
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  const std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0) return float_of(sign | 0x7F800000u);  // zero, subnormal: inf
  if (exponent == 0xFF)                                    // infinity: zero; NaN: quieted
    return float_of(mantissa != 0 ? bits | 0x400000u : sign);
  const std::uint32_t estimate = table[mantissa >> 11];  // of 1.mantissa, in [0.5, 1)
  const int result_exponent =
      static_cast<int>((estimate >> 23) & 0xFFu) - static_cast<int>(exponent) + 127;
  if (result_exponent <= 0) return float_of(sign);  // below the normals: zero
  return float_of(sign | (static_cast<std::uint32_t>(result_exponent) << 23) |
                  (estimate & 0x7FFFFFu));
}

// RCPSS of x as the reference processor computes it, for every float input:
// +-0 and subnormals give +-infinity, infinities +-0, NaN the quieted NaN,
// and results too small for a normal float +-0.
float rcp_estimate(float x);

// DIVS(n, d) from a reciprocal estimate xi of d: one Newton step.
VMAFEXACT_HD inline float refined_quotient(float n, float d, float xi) {
  return n * (xi + xi * (1.0f - d * xi));
}

// Its table: the reference processor's estimate of 1 + i / 4096 (i = 0..4095)
// as float bits, for the SIMD twins that look it up side by side.
const std::uint32_t* rcp_estimate_table();

// Where DIVS takes its reciprocal from.
enum class Divider {
  kReference,      // rcp_estimate(): the reference logs' bits on every CPU
  kThisProcessor,  // as libvmaf's build divides on this machine (below)
};

// libvmaf's DIVS(n, d) as its build on this machine computes it: this
// processor's RCPSS refined by one Newton step on x86, n / d elsewhere. Only
// for comparing with a libvmaf run on the same machine: its bits depend on
// the processor.
float divide_as_this_processor(float n, float d);

// kThisProcessor where the environment variable VMAFEXACT_FLOAT_ADM_DIVIDER
// is "this-cpu" (differential runs against libvmaf on a processor whose
// RCPSS is not the reference's), kReference otherwise; read once a process.
Divider divider_from_environment();

}  // namespace vmafexact::float_adm
