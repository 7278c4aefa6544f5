#include "psnr/psnr.h"

#include "common/cpu.h"
#include "psnr/psnr_dsp.h"

#include <cmath>
#include <cstdlib>

namespace vmafexact::psnr {

namespace {

std::uint64_t rows_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                       const PsnrDsp& dsp, unsigned first_row, unsigned end_row) {
  std::uint64_t sse = 0;
  if (bpc == 8) {
    for (unsigned y = first_row; y < end_row; ++y)
      sse += dsp.sse_row_8(ref.row<std::uint8_t>(y), dist.row<std::uint8_t>(y), ref.width);
  } else {
    for (unsigned y = first_row; y < end_row; ++y)
      sse += dsp.sse_row_16(ref.row<std::uint16_t>(y), dist.row<std::uint16_t>(y), ref.width);
  }
  return sse;
}

}  // namespace

std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                        const PsnrDsp& dsp) {
  return rows_sse(ref, dist, bpc, dsp, 0, ref.height);
}

std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                        const PsnrDsp& dsp, BandRunner& runner) {
  return sum_row_bands<std::uint64_t>(
      runner, 0, static_cast<int>(ref.height), ref.width, [&](unsigned, int first_row, int end_row) {
        return rows_sse(ref, dist, bpc, dsp, static_cast<unsigned>(first_row),
                        static_cast<unsigned>(end_row));
      });
}

std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc) {
  return plane_sse(ref, dist, bpc, psnr_dsp(cpu::flags()));
}

double psnr_from_sse(std::uint64_t sse, unsigned width, unsigned height, unsigned bpc,
                     double psnr_max) {
  // libvmaf multiplies the two unsigned sizes in 32 bits before converting.
  const unsigned pixel_count = width * height;
  const double mse = static_cast<double>(sse) / static_cast<double>(pixel_count);
  const std::uint32_t peak = peak_value(bpc);
  const double peak_squared = static_cast<double>(peak * peak);  // exact: below 2^32
  const double floored_mse = mse > 1e-16 ? mse : 1e-16;
  const double psnr = 10. * std::log10(peak_squared / floored_mse);
  return psnr < psnr_max ? psnr : psnr_max;
}

}  // namespace vmafexact::psnr
