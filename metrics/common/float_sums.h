// The double sums that libvmaf's float luma extractors (float_psnr.c,
// float_moment.c; psnr.c and moment.c) form over a plane copied to floats by
// picture_copy() (sample / 1, 4, 16 or 256): `cum += v` and `cum += v * v`,
// the product in float, the sum in double, in raster order.
//
// Each value there is an integer scaled by a power of two, so the double sum
// is exact whenever the scaled integer total stays below 2^53 — always for
// the samples, and for the squares up to 12 bits (where v * v is exact in
// float). Here they are integer sums (exact in any order, cut into bands); a
// 16-bit plane whose rounded squares pass 2^53 in all (a huge, high-contrast
// one) is summed again in libvmaf's order. The per-sample terms are
// float_sums_pixel.h's, which the CUDA twins of float_psnr and float_moment
// sum on the device; the *_of_total() functions finish both backends' totals.
#pragma once

#include <cstdint>
#include <optional>

#include "common/bands.h"
#include "common/float_plane_pixel.h"
#include "common/picture.h"

namespace vmafexact {

// picture_copy()'s divisor of a sample: 1, 4, 16 or 256 for 8, 10, 12, 16 bits
// (the float planes' sample_scaler() above 8 bits).
inline float float_sample_divisor(unsigned bpc) {
  return bpc == 8 ? 1.0f : float_pixel::sample_scaler(bpc);
}

// libvmaf's `double cum = 0; cum += v` over the plane's samples as floats.
double float_sample_sum(const PlaneView& plane, unsigned bpc, BandRunner& runner);

// libvmaf's `double cum = 0; cum += v * v` (v * v a float) over the plane's
// samples as floats, or with `minus` over the differences of the two planes'
// floats (psnr.c's `diff = ref - dis; noise += diff * diff`).
double float_square_sum(const PlaneView& plane, const PlaneView* minus, unsigned bpc,
                        BandRunner& runner);

// The finishing steps, from the exact integer total of a plane's terms
// (float_sums_pixel.h: in units of 1 / divisor, or 1 / divisor^2 for squares).
double float_sample_sum_of_total(std::uint64_t total, unsigned bpc);
// nullopt where the total reaches 2^53 units: libvmaf's double sum rounds
// there, and float_square_sum_in_order() forms it in libvmaf's order.
std::optional<double> float_square_sum_of_total(std::uint64_t total, unsigned bpc);
double float_square_sum_in_order(const PlaneView& plane, const PlaneView* minus, unsigned bpc);

}  // namespace vmafexact
