// Golden values of the float_* extractors (tests/unit/golden/*.inc): libvmaf's
// scores of float_clip.h's clips, printed with %.17g, and a runner that
// compares every one with ==.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/feature_collector.h"
#include "common/feature_options.h"
#include "error_of.h"
#include "float_clip.h"
#include "registry.h"

namespace vmafexact::test {

struct GoldenKey {
  std::string key;                            // vmafexact's collector key
  std::vector<std::optional<double>> values;  // per frame; nullopt: libvmaf wrote none
};

struct GoldenCase {
  const char* name;
  PictureFormat format;
  unsigned frames;
  std::uint32_t seed;
  FeatureOptions options;
  std::vector<GoldenKey> keys;  // every key libvmaf wrote
};

// Scores the case's clip with `feature` (one extractor, in frame order, then
// flush) and expects libvmaf's keys, frames and values exactly; returns how
// many values were compared.
inline unsigned expect_golden(const char* feature, const GoldenCase& c) {
  SCOPED_TRACE(std::string(feature) + ", " + c.name);
  const Clip clip = make_float_clip(c.format, c.frames, c.seed);
  auto extractor = make_feature_extractor(feature, c.options);
  extractor->init(c.format);
  FeatureCollector scores;
  for (unsigned i = 0; i < c.frames; ++i)
    extractor->extract(clip.ref_view(i), clip.dist_view(i), i, scores);
  extractor->flush(scores);
  unsigned compared = 0;
  std::vector<std::string> expected_names;
  for (const auto& golden : c.keys) {
    expected_names.push_back(golden.key);
    for (unsigned i = 0; i < c.frames; ++i) {
      SCOPED_TRACE(golden.key + " frame " + std::to_string(i));
      EXPECT_EQ(scores.score(golden.key, i), golden.values[i]);
      ++compared;
    }
  }
  std::vector<std::string> names = scores.names();
  std::sort(names.begin(), names.end());
  std::sort(expected_names.begin(), expected_names.end());
  EXPECT_EQ(names, expected_names);
  return compared;
}

// What init() of `feature` with `options` throws for `format`; "" if it takes it.
// Every case of `feature` against libvmaf's values (expect_golden()); there
// must be `clips` of them. Prints the tally.
inline void expect_every_golden(const char* feature, const std::vector<GoldenCase>& cases,
                                std::size_t clips) {
  unsigned compared = 0;
  for (const auto& c : cases) compared += expect_golden(feature, c);
  EXPECT_EQ(cases.size(), clips);
  std::printf("[%s] %u of %u values compared with libvmaf's (%zu clips)\n", feature, compared,
              compared, cases.size());
}

inline std::string init_error(const char* feature, const PictureFormat& format,
                              const FeatureOptions& options = {}) {
  return error_of([&] { make_feature_extractor(feature, options)->init(format); });
}

}  // namespace vmafexact::test
