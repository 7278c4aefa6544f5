#include "common/float_sums.h"

#include <cstdint>

#include "common/float_sums_pixel.h"

namespace vmafexact {

namespace {

template <class Sample>
std::uint64_t sample_sum_rows(const PlaneView& plane, int first, int end) {
  std::uint64_t total = 0;
  for (int y = first; y < end; ++y)
    total += float_sums::row_sample_total(plane.row<Sample>(static_cast<unsigned>(y)), plane.width);
  return total;
}

template <class Sample>
std::uint64_t square_sum_rows(const PlaneView& plane, const PlaneView* minus, int first, int end) {
  std::uint64_t total = 0;
  for (int y = first; y < end; ++y)
    total += float_sums::row_square_total(
        plane.row<Sample>(static_cast<unsigned>(y)),
        minus ? minus->row<Sample>(static_cast<unsigned>(y)) : nullptr, plane.width);
  return total;
}

// The sum as libvmaf forms it: float products added to a double, in raster order.
template <class Sample>
double square_sum_in_order(const PlaneView& plane, const PlaneView* minus, float divisor) {
  double cum = 0;
  for (unsigned y = 0; y < plane.height; ++y) {
    const Sample* row = plane.row<Sample>(y);
    const Sample* other = minus ? minus->row<Sample>(y) : nullptr;
    for (unsigned x = 0; x < plane.width; ++x) {
      const float v = static_cast<float>(row[x]) / divisor;
      const float d = other ? v - static_cast<float>(other[x]) / divisor : v;
      cum += d * d;
    }
  }
  return cum;
}

constexpr std::uint64_t kExactBelow = std::uint64_t{1} << 53;

}  // namespace

double float_sample_sum_of_total(std::uint64_t total, unsigned bpc) {
  // At most 2^16 * 2^32 samples: exact as an integer, and as a double.
  return static_cast<double>(total) / static_cast<double>(float_sample_divisor(bpc));
}

std::optional<double> float_square_sum_of_total(std::uint64_t total, unsigned bpc) {
  // Only 16-bit squares (up to 2^32 each) reach 2^53: libvmaf's double then rounds.
  if (total >= kExactBelow) return std::nullopt;
  const double divisor = float_sample_divisor(bpc);
  return static_cast<double>(total) / (divisor * divisor);
}

double float_square_sum_in_order(const PlaneView& plane, const PlaneView* minus, unsigned bpc) {
  return bpc == 8 ? square_sum_in_order<std::uint8_t>(plane, minus, 1.0f)
                  : square_sum_in_order<std::uint16_t>(plane, minus, float_sample_divisor(bpc));
}

double float_sample_sum(const PlaneView& plane, unsigned bpc, BandRunner& runner) {
  const std::uint64_t total = sum_row_bands<std::uint64_t>(
      runner, 0, static_cast<int>(plane.height), plane.width, [&](unsigned, int first, int end) {
        return bpc == 8 ? sample_sum_rows<std::uint8_t>(plane, first, end)
                        : sample_sum_rows<std::uint16_t>(plane, first, end);
      });
  return float_sample_sum_of_total(total, bpc);
}

double float_square_sum(const PlaneView& plane, const PlaneView* minus, unsigned bpc,
                        BandRunner& runner) {
  const std::uint64_t total = sum_row_bands<std::uint64_t>(
      runner, 0, static_cast<int>(plane.height), plane.width, [&](unsigned, int first, int end) {
        return bpc == 8 ? square_sum_rows<std::uint8_t>(plane, minus, first, end)
                        : square_sum_rows<std::uint16_t>(plane, minus, first, end);
      });
  if (const auto sum = float_square_sum_of_total(total, bpc)) return *sum;
  return float_square_sum_in_order(plane, minus, bpc);
}

}  // namespace vmafexact
