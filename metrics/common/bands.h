// Bands: a stage of one frame's per-pixel work cut into row ranges that run
// side by side, so that a large frame is scored by several threads at once
// (low per-frame latency) and not only several frames by one thread each.
//
// Every stage that is cut into bands produces exact integer partial sums per
// band (or writes disjoint rows of a buffer), so any cut and any order of the
// bands gives the bits of one pass over the whole picture. Kernels keep one
// set of scratch rows per band (at most max_bands() of them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace vmafexact {

// The smallest band worth handing to another thread, in samples of the stage
// (about a tenth of a millisecond of work): smaller stages are not cut.
inline constexpr std::size_t kMinBandSamples = 32 * 1024;

class BandRunner {
 public:
  virtual ~BandRunner() = default;
  // The most bands a stage may be cut into (>= 1).
  virtual unsigned max_bands() const = 0;
  // Calls body(band) for every band in [0, bands) (1 <= bands <= max_bands()),
  // possibly side by side, and returns when all have returned. An exception of
  // a band is rethrown here after the others are done.
  virtual void run(unsigned bands, const std::function<void(unsigned band)>& body) = 0;
  // The smallest band band_count() cuts; tests lower it to cut small pictures.
  virtual std::size_t min_band_samples() const { return kMinBandSamples; }
};

// Runs every band on the calling thread, in order; max_bands() is 1.
BandRunner& serial_band_runner();

// How many bands a stage of `rows` rows of `samples_per_row` samples is cut
// into: as many as the runner allows, but none below its min_band_samples()
// and none of fewer than 2 rows.
inline unsigned band_count(const BandRunner& runner, int rows, std::size_t samples_per_row) {
  if (rows <= 0) return 1;
  const std::size_t samples = static_cast<std::size_t>(rows) * std::max<std::size_t>(samples_per_row, 1);
  const std::size_t min_samples = std::max<std::size_t>(runner.min_band_samples(), 1);
  const std::size_t by_size = std::max<std::size_t>(samples / min_samples, 1);
  const std::size_t by_rows = std::max(static_cast<std::size_t>(rows) / 2, std::size_t{1});
  return static_cast<unsigned>(
      std::min<std::size_t>({runner.max_bands(), by_size, by_rows}));
}

// Band `band` of `bands` near-equal bands of rows [begin, end).
struct RowRange {
  int begin = 0;
  int end = 0;
};
inline RowRange row_band(int begin, int end, unsigned band, unsigned bands) {
  const long long rows = end - begin;
  return {begin + static_cast<int>(rows * band / bands),
          begin + static_cast<int>(rows * (band + 1) / bands)};
}

// Cuts rows [begin, end) into band_count() bands and calls
// body(band, first_row, end_row) for each through `runner`.
template <class Body>
void for_each_row_band(BandRunner& runner, int begin, int end, std::size_t samples_per_row,
                       Body&& body) {
  const unsigned bands = band_count(runner, end - begin, samples_per_row);
  if (bands <= 1) {
    body(0u, begin, end);
    return;
  }
  runner.run(bands, [&](unsigned band) {
    const RowRange range = row_band(begin, end, band, bands);
    body(band, range.begin, range.end);
  });
}

// Adds with +=, the default of sum_row_bands().
struct AddAssign {
  template <class Sum>
  Sum operator()(Sum total, const Sum& part) const {
    total += part;
    return total;
  }
};

// Cuts rows [begin, end) as for_each_row_band() does, where body(band,
// first_row, end_row) returns that band's partial sum, and returns the bands'
// sums added with `add` once every band is done. Each band sums into a local
// of its own and stores it once, so the bands share no cache line while they
// run. For exact sums (integers, or sums modulo 2^64) the total is that of one
// pass, whatever the cut and the order of the bands.
template <class Sum, class Body, class Add = AddAssign>
Sum sum_row_bands(BandRunner& runner, int begin, int end, std::size_t samples_per_row, Body&& body,
                  Add add = {}) {
  std::vector<Sum> parts(std::max(runner.max_bands(), 1u), Sum{});
  for_each_row_band(runner, begin, end, samples_per_row,
                    [&](unsigned band, int first_row, int end_row) {
                      parts[band] = body(band, first_row, end_row);
                    });
  Sum total{};
  for (const Sum& part : parts) total = add(total, part);
  return total;
}

}  // namespace vmafexact
