// Pictures, sample generators and the ISA list shared by the twin harness
// (tests/harness/) and the unit tests: one TestPlane with configurable row
// padding and guard bytes around it, so that a call that writes outside the
// samples it owns is caught (guards_intact()), and one that reads outside them
// gives a different result once the guards are repainted (repaint_guards()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/picture.h"

namespace vmafexact::test {

// A luma plane of 8-bit (bpc 8) or 16-bit samples: `padding` samples after each
// row (so stride != width), and `guard_rows` whole rows plus 64 bytes before
// the first row and after the last. Everything but the samples holds a pattern
// derived from a seed.
class TestPlane {
 public:
  TestPlane(unsigned w, unsigned h, unsigned bpc, unsigned padding = 3, unsigned guard_rows = 1,
            std::uint32_t guard_seed = 0xA5)
      : width_(w), height_(h), bpc_(bpc), bytes_(bpc > 8 ? 2 : 1),
        stride_(static_cast<std::ptrdiff_t>(w + padding) * bytes_),
        offset_(kGuardBytes + static_cast<std::size_t>(guard_rows) * stride_),
        data_(2 * offset_ + static_cast<std::size_t>(stride_) * h) {
    paint(guard_seed, true);
  }

  // A plane holding `samples` (row-major, w per row).
  TestPlane(const std::vector<std::uint16_t>& samples, unsigned w, unsigned h, unsigned bpc,
            unsigned padding = 3, unsigned guard_rows = 1)
      : TestPlane(w, h, bpc, padding, guard_rows) {
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) set(x, y, samples[std::size_t{y} * w + x]);
  }

  unsigned width() const { return width_; }
  unsigned height() const { return height_; }
  unsigned bpc() const { return bpc_; }
  std::ptrdiff_t stride() const { return stride_; }

  void set(unsigned x, unsigned y, std::uint32_t value) {
    std::uint8_t* p = sample(x, y);
    if (bytes_ == 1) {
      *p = static_cast<std::uint8_t>(value);
    } else {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(p, &v, 2);
    }
  }
  std::uint32_t get(unsigned x, unsigned y) const {
    const std::uint8_t* p = const_cast<TestPlane*>(this)->sample(x, y);
    if (bytes_ == 1) return *p;
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }

  PlaneView plane() const { return {data_.data() + offset_, stride_, width_, height_}; }
  // A luma-only (4:0:0) picture of the plane.
  PictureView view() const {
    PictureView picture;
    picture.bpc = bpc_;
    picture.chroma = ChromaFormat::k400;
    picture.width = width_;
    picture.height = height_;
    picture.planes[0] = plane();
    return picture;
  }

  // Whether every byte outside the samples still holds the guard pattern.
  bool guards_intact() const { return !first_changed_guard(); }
  // The offset from the first sample (negative before it) of the first
  // changed guard byte, if one changed.
  std::optional<std::ptrdiff_t> first_changed_guard() const {
    for (std::size_t i = 0; i < data_.size(); ++i)
      if (!is_sample(i) && data_[i] != pattern(guard_seed_, i))
        return static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(offset_);
    return std::nullopt;
  }
  // Paints the guards with another pattern (the samples stay).
  void repaint_guards(std::uint32_t guard_seed) { paint(guard_seed, false); }

 private:
  static constexpr std::size_t kGuardBytes = 64;
  static std::uint8_t pattern(std::uint32_t seed, std::size_t i) {
    std::uint32_t x = seed * 2654435761u + static_cast<std::uint32_t>(i) * 40503u;
    x ^= x >> 15;
    return static_cast<std::uint8_t>(x ^ (x >> 8));
  }
  bool is_sample(std::size_t i) const {
    if (i < offset_) return false;
    const std::size_t k = i - offset_;
    const std::size_t row = k / static_cast<std::size_t>(stride_);
    return row < height_ && k % static_cast<std::size_t>(stride_) < std::size_t{width_} * bytes_;
  }
  void paint(std::uint32_t guard_seed, bool samples_too) {
    guard_seed_ = guard_seed;
    for (std::size_t i = 0; i < data_.size(); ++i)
      if (samples_too || !is_sample(i)) data_[i] = pattern(guard_seed, i);
  }
  std::uint8_t* sample(unsigned x, unsigned y) {
    return data_.data() + offset_ + static_cast<std::ptrdiff_t>(y) * stride_ + x * bytes_;
  }

  unsigned width_, height_, bpc_, bytes_;
  std::ptrdiff_t stride_;
  std::size_t offset_;
  std::vector<std::uint8_t> data_;
  std::uint32_t guard_seed_ = 0;
};

// How samples are drawn: within bpc, zeros, the maximum, 0/max at random, the
// full container range (samples above 2^bpc - 1 are legal input).
enum class Fill { kRandom, kZero, kMax, kExtremes, kFullRange };
inline constexpr Fill kFills[] = {Fill::kRandom, Fill::kZero, Fill::kMax, Fill::kExtremes,
                                  Fill::kFullRange};

template <typename Sample>
std::vector<Sample> samples(std::mt19937_64& rng, std::size_t n, unsigned bpc, Fill fill) {
  const std::uint32_t max = (1u << bpc) - 1;
  const std::uint32_t container = sizeof(Sample) == 1 ? 255 : 65535;
  std::vector<Sample> v(n);
  for (auto& s : v) {
    const std::uint64_t r = rng();
    switch (fill) {
      case Fill::kRandom: s = static_cast<Sample>(r % (max + 1)); break;
      case Fill::kZero: s = 0; break;
      case Fill::kMax: s = static_cast<Sample>(max); break;
      case Fill::kExtremes: s = static_cast<Sample>((r & 1) ? max : 0); break;
      case Fill::kFullRange: s = static_cast<Sample>(r % (container + 1)); break;
    }
  }
  return v;
}

// One sample drawn as `fill` says; the extremes fill also makes whole runs of
// max against 0 (the largest blurred magnitudes of motion).
inline std::uint32_t sample_of(std::mt19937_64& rng, Fill fill, unsigned bpc, unsigned bytes) {
  const std::uint32_t max =
      fill == Fill::kFullRange ? (bytes == 1 ? 255u : 65535u) : (1u << bpc) - 1;
  switch (fill) {
    case Fill::kZero: return 0;
    case Fill::kMax: return max;
    case Fill::kExtremes: return (rng() % 8 == 0) ? 0 : max;
    default: return static_cast<std::uint32_t>(rng() % (std::uint64_t{max} + 1));
  }
}

// The SIMD twins of the CPU path (metrics/common/cpu.h), by flag and name.
struct Isa {
  unsigned flag;
  const char* name;
};
// How GoogleTest lists a parameter (else as its bytes, padding included, which
// valgrind reports as reads of uninitialised memory).
inline void PrintTo(const Isa& isa, std::ostream* os) { *os << isa.name; }
inline const std::vector<Isa>& simd_isas() {
  static const std::vector<Isa> isas = {{cpu::kAvx2, "avx2"}, {cpu::kAvx512, "avx512"}};
  return isas;
}

}  // namespace vmafexact::test
