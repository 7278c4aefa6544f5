// The synthetic clips of the float_* extractors' golden values: a diagonal
// ramp that moves from frame to frame plus LCG noise, and a distorted copy
// with more noise. The golden values were printed with %.17g by a private
// program linked with libvmaf's portable C build (master f85a8536, cpumask
// 255) that filled libvmaf's pictures with exactly these samples.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/feature_extractor.h"
#include "common/picture.h"
#include "synthetic_clip.h"

namespace vmafexact::test {

// Frame f, plane p, sample (x, y), drawn in that order (reference, then
// distorted): base = (37x + 23y + 13f + 50p) mod 192; ref8 = base + n mod 64;
// dist8 = clamp(ref8 + n mod 41 - 20, 0, 255); above 8 bits both are shifted
// up and take a random low part. n: the top 16 bits of an LCG.
inline Clip make_float_clip(const PictureFormat& format, unsigned frames, std::uint32_t seed) {
  Clip clip;
  clip.format = format;
  std::uint32_t state = seed;
  const auto next = [&state] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  const unsigned planes = format.chroma == ChromaFormat::k400 ? 1 : 3;
  const unsigned sample = format.bpc > 8 ? 2 : 1;
  for (unsigned f = 0; f < frames; ++f)
    for (unsigned p = 0; p < 3; ++p) {
      const unsigned w = p ? chroma_plane_width(format.width, format.chroma) : format.width;
      const unsigned h = p ? chroma_plane_height(format.height, format.chroma) : format.height;
      std::vector<std::uint8_t> ref(std::size_t{w} * h * sample), dist(ref.size());
      if (p < planes)
        for (unsigned y = 0; y < h; ++y)
          for (unsigned x = 0; x < w; ++x) {
            const int base = static_cast<int>((x * 37 + y * 23 + f * 13 + p * 50) % 192);
            const int r8 = base + static_cast<int>(next() % 64);
            const int d8 = std::clamp(r8 + static_cast<int>(next() % 41) - 20, 0, 255);
            const std::size_t i = std::size_t{y} * w + x;
            if (sample == 1) {
              ref[i] = static_cast<std::uint8_t>(r8);
              dist[i] = static_cast<std::uint8_t>(d8);
            } else {
              const unsigned shift = format.bpc - 8, mask = (1u << shift) - 1;
              const auto r = static_cast<std::uint16_t>((static_cast<unsigned>(r8) << shift) |
                                                        (next() & mask));
              const auto d = static_cast<std::uint16_t>((static_cast<unsigned>(d8) << shift) |
                                                        (next() & mask));
              std::memcpy(&ref[i * 2], &r, 2);
              std::memcpy(&dist[i * 2], &d, 2);
            }
          }
      clip.ref_planes.push_back(std::move(ref));
      clip.dist_planes.push_back(std::move(dist));
    }
  return clip;
}

}  // namespace vmafexact::test
