// PSNR as libvmaf 3.2.0's "psnr" extractor computes it (integer_psnr.c).
//
// Split in two stages so that every backend shares the arithmetic that is not
// integer: plane_sse() is the per-pixel stage (an exact integer sum), and
// psnr_from_sse() is the finishing function that turns it into libvmaf's double.
#pragma once

#include <cstdint>

#include "common/bands.h"
#include "common/picture.h"

namespace vmafexact::psnr {

// Sum of squared sample differences over width x height of one plane, accumulated
// as libvmaf does: at 8 bits each row is summed in a uint32 (wrapping as libvmaf's
// does past 66051 maximal errors in one row) before it joins the uint64 total;
// above 8 bits every square joins the uint64 total directly.
// Runs the row routines of psnr_dsp(cpu::flags()) (psnr_dsp.h), or of `dsp`.
std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc);
struct PsnrDsp;
std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                        const PsnrDsp& dsp);
// The same sum with the rows cut into bands run by `runner` (bands.h): each
// band's rows are summed as above, and the bands' uint64 sums added (exact in
// any order, wrapping as one pass would).
std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                        const PsnrDsp& dsp, BandRunner& runner);

// libvmaf's default upper bound on a plane's PSNR: 6 dB per bit plus 12.
constexpr double default_psnr_max(unsigned bpc) { return 6.0 * bpc + 12.0; }

// libvmaf's peak: 255 at 8 bits, 2^bpc - 1 above (reduced_hbd_peak off).
constexpr std::uint32_t peak_value(unsigned bpc) { return (1u << bpc) - 1u; }

// The finishing function: mse = sse / (w * h) in double, then
// min(10 * log10(peak^2 / max(mse, 1e-16)), psnr_max), in libvmaf's order.
double psnr_from_sse(std::uint64_t sse, unsigned width, unsigned height, unsigned bpc,
                     double psnr_max);

}  // namespace vmafexact::psnr
