#include "vif/vif_tables.h"

#include <cmath>
#include <limits>
#include <vector>

namespace vmafexact::vif {

Filter make_gaussian_filter(unsigned width) {
  Filter filter;
  filter.width = width;
  const int half = static_cast<int>(width / 2);
  const double sigma = width / 5.0;

  std::vector<double> exact(width);
  double sum = 0.0;
  for (int k = -half; k <= half; ++k) {
    exact[k + half] = std::exp(-(k * k) / (2.0 * sigma * sigma));
    sum += exact[k + half];
  }
  std::vector<long> rounded(width);
  for (unsigned i = 0; i < width; ++i) {
    exact[i] = 65536.0 * exact[i] / sum;
    rounded[i] = std::lround(exact[i]);
  }

  // Search the symmetric corrections of -1, 0 or +1 per tap (the centre and
  // each mirrored pair move together) for the one that makes the taps sum to
  // 65536 with the least squared distance from the exact values.
  const unsigned free_taps = static_cast<unsigned>(half) + 1;  // taps 0..half of one side
  unsigned combinations = 1;
  for (unsigned i = 0; i < free_taps; ++i) combinations *= 3;
  double best_error = std::numeric_limits<double>::infinity();
  std::vector<long> best;
  std::vector<long> taps(width);
  for (unsigned code = 0; code < combinations; ++code) {
    unsigned digits = code;
    long total = 0;
    for (int k = 0; k <= half; ++k) {
      const long step = static_cast<long>(digits % 3) - 1;
      digits /= 3;
      taps[half - k] = rounded[half - k] + step;
      taps[half + k] = rounded[half + k] + step;
      total += taps[half + k] * (k == 0 ? 1 : 2);
    }
    if (total != 65536) continue;
    double error = 0.0;
    for (unsigned i = 0; i < width; ++i) {
      const double d = static_cast<double>(taps[i]) - exact[i];
      error += d * d;
    }
    if (error < best_error) {
      best_error = error;
      best = taps;
    }
  }
  for (unsigned i = 0; i < width; ++i) filter.taps[i] = static_cast<std::uint16_t>(best[i]);
  return filter;
}

const Filter& vif_filter(unsigned scale) {
  static const std::array<Filter, kScaleCount> filters = {
      make_gaussian_filter(17), make_gaussian_filter(9), make_gaussian_filter(5),
      make_gaussian_filter(3)};
  return filters[scale];
}

std::uint16_t log2_entry(unsigned i) {
  const float log2_of_i = static_cast<float>(std::log2(static_cast<double>(i)));
  const float scaled = log2_of_i * 2048.0f;  // exact: a power of two
  return static_cast<std::uint16_t>(std::round(static_cast<double>(scaled)));
}

Log2Table::Log2Table() {
  for (unsigned i = kFirst; i <= kLast; ++i) table_[i] = log2_entry(i);
}

const Log2Table& log2_table() {
  static const Log2Table table;
  return table;
}

}  // namespace vmafexact::vif
