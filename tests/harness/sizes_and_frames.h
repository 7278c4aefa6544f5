// Sizes and frames of the harness checks (check_*.cpp): a picture's size, a
// size set with the large sizes of --full, and pairs of pictures painted in
// one pass, the random draws in the order the checks have always made them (a
// check's inputs depend on nothing but its seed).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <utility>
#include <vector>

#include "harness.h"
#include "test_pictures.h"

namespace vmafexact::harness {

struct Size {
  unsigned w, h;
};

// `quick`, and with --full `large` after them (the CI runs the quick set).
inline std::vector<Size> sizes_with_full(std::vector<Size> quick,
                                         std::initializer_list<Size> large) {
  if (full()) quick.insert(quick.end(), large);
  return quick;
}

// A reference and a distorted picture: one frame of a check's clip.
struct HostFrame {
  test::TestPlane ref, dist;
};

// Paints both pictures (of one size) sample by sample in row order:
// sample(x, y) returns {reference, distorted}.
template <class Sample>
void paint_pair(test::TestPlane& ref, test::TestPlane& dist, Sample&& sample) {
  for (unsigned y = 0; y < ref.height(); ++y)
    for (unsigned x = 0; x < ref.width(); ++x) {
      const auto [r, d] = sample(x, y);
      ref.set(x, y, r);
      dist.set(x, y, d);
    }
}

// Hard edges over a gradient, noise, and (`fill`) runs of extreme or
// out-of-range samples: the pictures of the float sums' twin checks
// (float_psnr, float_moment, float_ansnr).
inline void paint_edges_and_noise(test::TestPlane& plane, unsigned seed, test::Fill fill,
                                  std::mt19937_64& rng) {
  const unsigned max = (1u << plane.bpc()) - 1;
  const unsigned container = plane.bpc() == 8 ? 255u : 65535u;
  for (unsigned y = 0; y < plane.height(); ++y)
    for (unsigned x = 0; x < plane.width(); ++x) {
      unsigned value = (x * 31u + y * 17u + seed * 53u) % (max + 1);
      if ((x / 3 + y / 5 + seed) % 4 == 0) value = (x + y + seed) % 2 ? max : 0;
      if ((x * 5 + y) % 7 == seed % 7) value = static_cast<unsigned>(rng() % (max + 1));
      if (fill == test::Fill::kExtremes && (x + 2 * y) % 3 == 0) value = rng() % 2 ? max : 0;
      if (fill == test::Fill::kFullRange && (x * y) % 5 == 2)
        value = static_cast<unsigned>(rng() % (container + 1));
      plane.set(x, y, value);
    }
}

// The pictures of the CPU stages' end-to-end checks (adm, vif): content
// base(x, y, max) (random or extreme samples instead, as `fill` says), and a
// copy of it with noise, and with `inversions` some samples inverted. Full
// range goes up to the container's maximum, past the bit depth's.
template <class Base>
void paint_noisy_copy(test::TestPlane& ref, test::TestPlane& dist, test::Fill fill, bool inversions,
                      std::mt19937_64& rng, Base&& base) {
  const unsigned bpc = ref.bpc();
  const std::uint32_t max =
      fill == test::Fill::kFullRange ? (bpc > 8 ? 65535 : 255) : (1u << bpc) - 1;
  paint_pair(ref, dist, [&](unsigned x, unsigned y) {
    std::uint32_t v = base(x, y, max);
    if (fill != test::Fill::kRandom || rng() % 3 == 0)
      v = static_cast<std::uint32_t>(rng() % (max + 1));
    if (fill == test::Fill::kExtremes) v = (rng() & 1) ? max : 0;
    std::uint32_t d = v;
    if (rng() % 4 == 0) d = static_cast<std::uint32_t>(rng() % (max + 1));
    if (inversions && rng() % 8 == 0) d = max - v;
    return std::pair{v, d};
  });
}

// The one frame of a clip painted with another fill than kRandom.
struct OddFrame {
  unsigned index;
  test::Fill fill;
  bool distorted;  // the distorted picture gets the fill, else the reference
};

// A clip of `count` frames of w x h at `bpc`: frame f's reference painted
// paint(plane, f, fill, rng), its distorted paint(plane, f + dist_seed, fill,
// rng), the reference first.
template <class Paint>
std::vector<HostFrame> painted_clip(unsigned w, unsigned h, unsigned bpc, unsigned count,
                                    unsigned dist_seed, OddFrame odd, Paint&& paint,
                                    std::mt19937_64& rng) {
  const auto fill_of = [&](unsigned f, bool distorted) {
    return f == odd.index && distorted == odd.distorted ? odd.fill : test::Fill::kRandom;
  };
  std::vector<HostFrame> frames;
  for (unsigned f = 0; f < count; ++f) {
    HostFrame frame{test::TestPlane(w, h, bpc), test::TestPlane(w, h, bpc)};
    paint(frame.ref, f, fill_of(f, false), rng);
    paint(frame.dist, f + dist_seed, fill_of(f, true), rng);
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace vmafexact::harness
