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

// libvmaf's peak: 2^bpc - 1, or 255 << (bpc - 8) with reduced_hbd_peak (its
// 8-bit path always uses 255, which both give at 8 bits).
constexpr std::uint32_t peak_value(unsigned bpc, bool reduced_hbd_peak = false) {
  return reduced_hbd_peak ? 255u << (bpc - 8) : (1u << bpc) - 1u;
}

// libvmaf's psnr_max of plane `plane` with min_sse > 0 (its init()):
// ceil(10 * log10(peak^2 / (min_sse / pixels))), where pixels is the plane's
// size as libvmaf's pix_fmt test gives it (chroma w / 2 unless 4:4:4, h / 2 for
// 4:2:0) multiplied in 32 bits, and peak^2 too. A chroma plane of 0 pixels
// gives min_sse / 0 = inf and a psnr_max of -inf, as in libvmaf.
double min_sse_psnr_max(double min_sse, std::uint32_t peak, ChromaFormat chroma, unsigned plane,
                        unsigned width, unsigned height);

// libvmaf's mse: (double) sse / (width * height), the size an unsigned 32-bit
// product (0/0 is NaN for an empty plane).
double mse_from_sse(std::uint64_t sse, unsigned width, unsigned height);

// min(10 * log10(peak^2 / max(mse, 1e-16)), psnr_max), in libvmaf's order
// (MAX and MIN as its macros: a NaN mse gives 1e-16, a NaN psnr_max wins).
double psnr_from_mse(double mse, std::uint32_t peak, double psnr_max);

// The finishing function with the default options: psnr_from_mse() of
// mse_from_sse() with peak 2^bpc - 1.
double psnr_from_sse(std::uint64_t sse, unsigned width, unsigned height, unsigned bpc,
                     double psnr_max);

// libvmaf's apsnr at flush, from the stream's sums of one plane (sse and
// pixels summed in uint64 over every frame the extractor saw):
// min(10 * (log10(peak^2) + log10(pixels) - log10(sse)),
//     ceil(10 * log10(peak^2 * pixels * 2))), the last product in uint64
// (wrapping). With no error it is the second term; a plane never summed
// (gray, enable_chroma=false: 0 pixels, 0 sse) gives -inf, as in libvmaf.
double apsnr(std::uint64_t sse, std::uint64_t pixels, std::uint32_t peak);

}  // namespace vmafexact::psnr
