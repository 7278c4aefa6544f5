// Band runners for tests (common/bands.h): ones that cut small pictures too,
// and one that runs the bands last first on the calling thread, so that the
// tests show a stage's result depends neither on the cut nor on the order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "common/bands.h"

namespace vmafexact::test {

// Cuts stages as far as band_count() allows (bands of one sample), so that
// small pictures are cut too; the bands run on `inner`.
class SmallBands final : public BandRunner {
 public:
  explicit SmallBands(BandRunner& inner) : inner_(&inner) {}
  unsigned max_bands() const override { return inner_->max_bands(); }
  void run(unsigned bands, const std::function<void(unsigned)>& body) override {
    inner_->run(bands, body);
  }
  std::size_t min_band_samples() const override { return 1; }

 private:
  BandRunner* inner_;
};

// Runs the bands on the calling thread, last band first, cut down to bands of
// `min_samples` samples; counts the most bands a stage was cut into.
class ReverseBands : public BandRunner {
 public:
  explicit ReverseBands(unsigned max_bands, std::size_t min_samples = 1)
      : max_bands_(max_bands), min_samples_(min_samples) {}
  unsigned max_bands() const override { return max_bands_; }
  void run(unsigned bands, const std::function<void(unsigned)>& body) override {
    most_bands = std::max(most_bands, bands);
    for (unsigned band = bands; band-- > 0;) body(band);
  }
  std::size_t min_band_samples() const override { return min_samples_; }
  unsigned most_bands = 0;

 private:
  unsigned max_bands_;
  std::size_t min_samples_;
};

}  // namespace vmafexact::test
