#include "psnr/psnr.h"

#include <cmath>
#include <cstdlib>

namespace vmafexact::psnr {

namespace {

std::uint64_t plane_sse_8bit(const PlaneView& ref, const PlaneView& dist) {
  std::uint64_t sse = 0;
  for (unsigned y = 0; y < ref.height; ++y) {
    const std::uint8_t* r = ref.row<std::uint8_t>(y);
    const std::uint8_t* d = dist.row<std::uint8_t>(y);
    std::uint32_t row_sse = 0;  // libvmaf's row accumulator is 32 bits wide
    for (unsigned x = 0; x < ref.width; ++x) {
      const int e = int{r[x]} - int{d[x]};
      row_sse += static_cast<std::uint32_t>(e * e);
    }
    sse += row_sse;
  }
  return sse;
}

std::uint64_t plane_sse_16bit(const PlaneView& ref, const PlaneView& dist) {
  std::uint64_t sse = 0;
  for (unsigned y = 0; y < ref.height; ++y) {
    const std::uint16_t* r = ref.row<std::uint16_t>(y);
    const std::uint16_t* d = dist.row<std::uint16_t>(y);
    for (unsigned x = 0; x < ref.width; ++x) {
      const auto e = static_cast<std::uint32_t>(std::abs(int{r[x]} - int{d[x]}));
      sse += e * e;  // below 2^32 even at 16 bits
    }
  }
  return sse;
}

}  // namespace

std::uint64_t plane_sse(const PlaneView& ref, const PlaneView& dist, unsigned bpc) {
  return bpc == 8 ? plane_sse_8bit(ref, dist) : plane_sse_16bit(ref, dist);
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
