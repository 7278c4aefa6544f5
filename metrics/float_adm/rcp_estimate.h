// libvmaf's float ADM divides with the x86 reciprocal estimate (RCPSS) refined
// by one Newton step (adm_tools.c, ADM_OPT_RECIP_DIVISION). RCPSS is an
// approximation whose bits differ between processor makers, so libvmaf's
// float_adm scores differ from one x86 CPU to another, and from its division
// on other architectures. vmafexact computes the estimate in software, with
// the table of the processor whose results are the reference logs' (an AMD
// Zen), so that it gives the reference's bits on every CPU.
#pragma once

namespace vmafexact::float_adm {

// RCPSS of x as the reference processor computes it, for every float input:
// +-0 and subnormals give +-infinity, infinities +-0, NaN the quieted NaN,
// and results too small for a normal float +-0.
float rcp_estimate(float x);

}  // namespace vmafexact::float_adm
