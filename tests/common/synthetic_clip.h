// Synthetic clips for the CUDA parity checks (tests/cuda, tests/harness) and the
// unit tests: tightly packed planes, frame * 3 + plane.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/feature_extractor.h"
#include "common/picture.h"

namespace vmafexact::test {

// A synthetic clip: a smooth moving gradient plus noise and hard edges, so that
// every feature (and motion) sees structure; the distorted copy adds noise.
struct Clip {
  PictureFormat format;
  std::vector<std::vector<std::uint8_t>> ref_planes, dist_planes;  // frame * 3 + plane
  PictureView view(const std::vector<std::vector<std::uint8_t>>& planes, unsigned frame) const {
    PictureView view;
    view.bpc = format.bpc;
    view.chroma = format.chroma;
    view.width = format.width;
    view.height = format.height;
    const unsigned sample = format.bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < view.plane_count(); ++p) {
      const unsigned w = p ? chroma_plane_width(format.width, format.chroma) : format.width;
      const unsigned h = p ? chroma_plane_height(format.height, format.chroma) : format.height;
      view.planes[p] = {planes[frame * 3 + p].data(), static_cast<std::ptrdiff_t>(w * sample), w, h};
    }
    return view;
  }
  PictureView ref_view(unsigned frame) const { return view(ref_planes, frame); }
  PictureView dist_view(unsigned frame) const { return view(dist_planes, frame); }
  unsigned frames() const { return static_cast<unsigned>(ref_planes.size() / 3); }
};

inline Clip make_clip(const PictureFormat& format, unsigned frames, std::uint32_t seed) {
  Clip clip;
  clip.format = format;
  std::mt19937 random(seed);
  const int max_value = (1 << format.bpc) - 1;
  std::normal_distribution<double> noise(0.0, max_value / 40.0);
  for (unsigned f = 0; f < frames; ++f) {
    for (unsigned p = 0; p < 3; ++p) {
      const unsigned w = p ? chroma_plane_width(format.width, format.chroma) : format.width;
      const unsigned h = p ? chroma_plane_height(format.height, format.chroma) : format.height;
      const unsigned sample = format.bpc > 8 ? 2 : 1;
      std::vector<std::uint8_t> ref(std::size_t{w} * h * sample), dist(ref.size());
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          double value = (std::sin((x + 3.0 * f) * 0.07) * 0.4 + std::cos(y * 0.05) * 0.3 + 0.5) * max_value;
          if (((x + 2 * f) / 8 + y / 8) % 2 && x > w / 2) value = (y % 16 < 8) ? max_value : 0;
          const int r = std::clamp(static_cast<int>(value + noise(random) * 0.3), 0, max_value);
          const int d = std::clamp(static_cast<int>(r + noise(random)), 0, max_value);
          const std::size_t i = std::size_t{y} * w + x;
          if (sample == 1) {
            ref[i] = static_cast<std::uint8_t>(r);
            dist[i] = static_cast<std::uint8_t>(d);
          } else {
            const auto r16 = static_cast<std::uint16_t>(r), d16 = static_cast<std::uint16_t>(d);
            std::memcpy(&ref[i * 2], &r16, 2);
            std::memcpy(&dist[i * 2], &d16, 2);
          }
        }
      clip.ref_planes.push_back(std::move(ref));
      clip.dist_planes.push_back(std::move(dist));
    }
  }
  return clip;
}

// The clip of tests/fixtures/psnr-golden (its README): each plane's samples
// from a 32-bit LCG seeded per frame and plane, the distorted sample the
// reference's plus -3..3 (clamped), or equal to it when `identical`.
inline Clip make_lcg_clip(const PictureFormat& format, unsigned frames, bool identical) {
  Clip clip;
  clip.format = format;
  const std::uint32_t max_value = (1u << format.bpc) - 1;
  const unsigned sample = format.bpc > 8 ? 2 : 1;
  for (unsigned f = 0; f < frames; ++f) {
    for (unsigned p = 0; p < 3; ++p) {
      const bool present = p == 0 || format.chroma != ChromaFormat::k400;
      const unsigned w = !present ? 0 : p ? chroma_plane_width(format.width, format.chroma) : format.width;
      const unsigned h = !present ? 0 : p ? chroma_plane_height(format.height, format.chroma) : format.height;
      std::vector<std::uint8_t> ref(std::size_t{w} * h * sample), dist(ref.size());
      std::uint32_t state = 1 + f * 1000003u + p * 7919u;
      const auto next = [&] {
        state = state * 1103515245u + 12345u;
        return state >> 8;
      };
      for (std::size_t i = 0; i < std::size_t{w} * h; ++i) {
        const std::uint32_t r = next() & max_value;
        std::int32_t d = static_cast<std::int32_t>(r) + static_cast<std::int32_t>(next() % 7) - 3;
        if (identical) d = static_cast<std::int32_t>(r);
        d = std::clamp<std::int32_t>(d, 0, static_cast<std::int32_t>(max_value));
        if (sample == 1) {
          ref[i] = static_cast<std::uint8_t>(r);
          dist[i] = static_cast<std::uint8_t>(d);
        } else {
          const auto r16 = static_cast<std::uint16_t>(r), d16 = static_cast<std::uint16_t>(d);
          std::memcpy(&ref[i * 2], &r16, 2);
          std::memcpy(&dist[i * 2], &d16, 2);
        }
      }
      clip.ref_planes.push_back(std::move(ref));
      clip.dist_planes.push_back(std::move(dist));
    }
  }
  return clip;
}

}  // namespace vmafexact::test
