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

double min_sse_psnr_max(double min_sse, std::uint32_t peak, ChromaFormat chroma, unsigned plane,
                        unsigned width, unsigned height) {
  // libvmaf tests its pix_fmt: every format but 4:4:4 halves the width
  // (gray has no chroma plane to ask about), 4:2:0 the height too.
  const bool ss_hor = chroma != ChromaFormat::k444;
  const bool ss_ver = chroma == ChromaFormat::k420;
  const unsigned w = (plane && ss_hor) ? width / 2 : width;
  const unsigned h = (plane && ss_ver) ? height / 2 : height;
  const unsigned pixels = w * h;  // unsigned 32-bit product, as libvmaf's
  const double mse = min_sse / static_cast<double>(pixels);
  const std::uint32_t peak_squared = peak * peak;  // below 2^32 at 16 bits
  return std::ceil(10. * std::log10(static_cast<double>(peak_squared) / mse));
}

double mse_from_sse(std::uint64_t sse, unsigned width, unsigned height) {
  // libvmaf multiplies the two unsigned sizes in 32 bits before converting.
  const unsigned pixel_count = width * height;
  return static_cast<double>(sse) / static_cast<double>(pixel_count);
}

double psnr_from_mse(double mse, std::uint32_t peak, double psnr_max) {
  const double peak_squared = static_cast<double>(peak * peak);  // exact: below 2^32
  const double floored_mse = mse > 1e-16 ? mse : 1e-16;
  const double psnr = 10. * std::log10(peak_squared / floored_mse);
  return psnr < psnr_max ? psnr : psnr_max;
}

double psnr_from_sse(std::uint64_t sse, unsigned width, unsigned height, unsigned bpc,
                     double psnr_max) {
  return psnr_from_mse(mse_from_sse(sse, width, height), peak_value(bpc), psnr_max);
}

double apsnr(std::uint64_t sse, std::uint64_t pixels, std::uint32_t peak) {
  const std::uint32_t peak_squared = peak * peak;
  // Each log10 of an integer converted to double, summed left to right.
  const double value =
      10 * (std::log10(static_cast<double>(peak_squared)) +
            std::log10(static_cast<double>(pixels)) - std::log10(static_cast<double>(sse)));
  const std::uint64_t bound = std::uint64_t{peak_squared} * pixels * 2;  // wraps as libvmaf's
  const double max_apsnr = std::ceil(10 * std::log10(static_cast<double>(bound)));
  return value < max_apsnr ? value : max_apsnr;
}

}  // namespace vmafexact::psnr
