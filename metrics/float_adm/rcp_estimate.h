// libvmaf's float ADM divides with the x86 reciprocal estimate (RCPSS) refined
// by one Newton step (adm_tools.c, ADM_OPT_RECIP_DIVISION). RCPSS is an
// approximation whose bits differ between processor makers, so libvmaf's
// float_adm scores differ from one x86 CPU to another, and from its division
// on other architectures. vmafexact computes the estimate in software, with
// the table of the processor whose results are the reference logs' (an AMD
// Zen), so that it gives the reference's bits on every CPU.
#pragma once

#include <cstdint>

namespace vmafexact::float_adm {

// RCPSS of x as the reference processor computes it, for every float input:
// +-0 and subnormals give +-infinity, infinities +-0, NaN the quieted NaN,
// and results too small for a normal float +-0.
float rcp_estimate(float x);

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
