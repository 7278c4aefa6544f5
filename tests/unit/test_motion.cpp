// Unit tests of metrics/motion/: libvmaf 3.2.0's integer motion ("motion").
//
// Expected values written as %.17g literals come from libvmaf's portable C build
// (/work/libvmaf-build/c, enable_asm=false, master f85a8536), read with
// vmaf_feature_score_at_index() from a private program that fed it the same
// frames as make_lcg_frames() below (luma only matters; chroma was constant).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <initializer_list>
#include <vector>

#include "common/error.h"
#include "common/feature_collector.h"
#include "band_runners.h"
#include "common/cpu.h"
#include "common/thread_pool.h"
#include "motion/motion.h"
#include "motion/motion_dsp.h"
#include "motion/motion_extractor.h"
#include "registry.h"

using namespace vmafexact;
using namespace vmafexact::motion;

namespace {

// A luma plane of 8-bit or 16-bit samples owned by the test, with row padding.
struct TestPlane {
  TestPlane(unsigned w, unsigned h, unsigned bpc_, unsigned fill = 0, unsigned padding = 3)
      : width(w), height(h), bpc(bpc_), stride_samples(w + padding),
        bytes(std::size_t{stride_samples} * h * (bpc_ == 8 ? 1 : 2), 0xA5) {
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) set(x, y, fill);
  }
  void set(unsigned x, unsigned y, unsigned value) {
    const std::size_t i = std::size_t{y} * stride_samples + x;
    if (bpc == 8) {
      bytes[i] = static_cast<std::uint8_t>(value);
    } else {
      const auto v = static_cast<std::uint16_t>(value);
      std::memcpy(&bytes[i * 2], &v, 2);
    }
  }
  unsigned get(unsigned x, unsigned y) const {
    const std::size_t i = std::size_t{y} * stride_samples + x;
    if (bpc == 8) return bytes[i];
    std::uint16_t v;
    std::memcpy(&v, &bytes[i * 2], 2);
    return v;
  }
  PlaneView view() const {
    return {bytes.data(), static_cast<std::ptrdiff_t>(stride_samples * (bpc == 8 ? 1 : 2)), width,
            height};
  }
  PictureView picture() const {
    PictureView p;
    p.bpc = bpc;
    p.chroma = ChromaFormat::k400;
    p.width = width;
    p.height = height;
    p.planes[0] = view();
    return p;
  }
  unsigned width, height, bpc, stride_samples;
  std::vector<std::uint8_t> bytes;
};

// The frames the libvmaf values below were computed on: one LCG over all
// frames in raster order, sample = (state >> 8) masked to bpc bits.
std::vector<TestPlane> make_lcg_frames(unsigned w, unsigned h, unsigned bpc, unsigned n,
                                       std::uint32_t seed) {
  std::vector<TestPlane> frames;
  std::uint32_t state = seed;
  const unsigned max_value = (1u << bpc) - 1;
  for (unsigned f = 0; f < n; ++f) {
    frames.emplace_back(w, h, bpc, 0, 1 + f);  // varying strides on purpose
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        state = state * 1103515245u + 12345u;
        frames.back().set(x, y, (state >> 8) & max_value);
      }
  }
  return frames;
}

// A plain restatement of the per-pixel stage (mirror every tap, no fast paths),
// to check the optimised borders of motion_sad() against.
std::uint64_t naive_sad(const TestPlane& prev, const TestPlane& cur) {
  const int w = static_cast<int>(cur.width), h = static_cast<int>(cur.height);
  const unsigned bpc = cur.bpc;
  auto mirror = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); };
  std::vector<std::int64_t> row(cur.width);
  std::uint64_t total = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      std::int64_t s = 0;
      for (int k = 0; k < 5; ++k) {
        const int yy = mirror(y - 2 + k, h);
        s += kFilter[k] * (std::int64_t{prev.get(x, yy)} - std::int64_t{cur.get(x, yy)});
      }
      row[x] = (s + (std::int64_t{1} << (bpc - 1))) >> bpc;
    }
    std::uint32_t row_sum = 0;
    for (int x = 0; x < w; ++x) {
      std::int64_t s = 0;
      for (int k = 0; k < 5; ++k) s += kFilter[k] * row[mirror(x - 2 + k, w)];
      const std::int64_t v = (s + 32768) >> 16;
      row_sum += static_cast<std::uint32_t>(v < 0 ? -v : v);
    }
    total += row_sum;
  }
  return total;
}

struct Expected {
  std::vector<double> sad, motion2, motion3;
};

// Runs the extractor over frames and checks every written value with ==.
FeatureCollector run_extractor(const std::vector<TestPlane>& frames, const FeatureOptions& options) {
  auto extractor = make_feature_extractor("motion", options);
  extractor->init({frames[0].width, frames[0].height, frames[0].bpc, ChromaFormat::k400});
  FeatureCollector scores;
  for (unsigned i = 0; i < frames.size(); ++i) {
    const PictureView p = frames[i].picture();
    extractor->extract(p, p, i, scores);
  }
  extractor->flush(scores);
  return scores;
}

void expect_scores(const FeatureCollector& scores, const std::string& suffix, const Expected& e) {
  for (unsigned i = 0; i < e.sad.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(scores.score("VMAF_integer_feature_motion_sad_score" + suffix, i), e.sad[i]);
    EXPECT_EQ(scores.score("integer_motion2" + suffix, i), e.motion2[i]);
    EXPECT_EQ(scores.score("integer_motion3" + suffix, i), e.motion3[i]);
  }
}

}  // namespace

// ---------------------------------------------------------------- per-pixel stage

TEST(MotionSad, IdenticalFramesSumToZero) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const auto frames = make_lcg_frames(13, 7, bpc, 1, 99);
    std::vector<std::int16_t> scratch;
    EXPECT_EQ(motion_sad(frames[0].view(), frames[0].view(), bpc, scratch), 0u) << bpc;
  }
}

TEST(MotionSad, FlatDifferenceIsTheDifferenceAtEightBitScale) {
  // A flat difference passes both blurs unchanged (the taps add to 2^16), as
  // d * 2^(16 - bpc) per sample after the vertical rounding.
  struct Case { unsigned bpc, diff, per_sample; };
  const Case cases[] = {
      {8, 1, 256},     {8, 255, 65280},   // (65536 d + 128) >> 8
      {10, 4, 256},    {10, 1023, 65472},  // (65536 d + 512) >> 10
      {12, 16, 256},   {12, 4095, 65520},
      {16, 256, 256},  {16, 65535, 65535},  // (65536 * 65535 + 32768) >> 16
  };
  for (const auto& c : cases) {
    TestPlane prev(9, 6, c.bpc, c.diff), cur(9, 6, c.bpc, 0);
    std::vector<std::int16_t> scratch;
    const std::uint64_t sad = motion_sad(prev.view(), cur.view(), c.bpc, scratch);
    EXPECT_EQ(sad, std::uint64_t{c.per_sample} * 9 * 6) << c.bpc << " " << c.diff;
    // The sign of the difference does not matter.
    EXPECT_EQ(motion_sad(cur.view(), prev.view(), c.bpc, scratch), sad);
  }
}

TEST(MotionSad, SingleImpulseHandComputed) {
  // One sample differing by 1 in the middle of a 9x9 8-bit plane (far enough
  // from the borders that no mirrored tap reaches it). Vertical pass:
  // (tap + 128) >> 8 = 14, 63, 103, 63, 14 in the middle column; horizontal
  // pass of a lone v: (tap * v + 32768) >> 16 in the 5 columns around it.
  TestPlane prev(9, 9, 8, 10), cur(9, 9, 8, 10);
  prev.set(4, 4, 11);
  std::uint64_t expected = 0;
  for (int v : {14, 63, 103, 63, 14})
    for (int tap : kFilter) expected += static_cast<std::uint64_t>((std::int64_t{tap} * v + 32768) >> 16);
  std::vector<std::int16_t> scratch;
  EXPECT_EQ(motion_sad(prev.view(), cur.view(), 8, scratch), expected);
  EXPECT_EQ(expected, naive_sad(prev, cur));
}

TEST(MotionSad, HalvesRoundUpSoTheSignOfTheDifferenceCanMatter) {
  // Rounding is (sum + half) >> shift, an arithmetic shift: exact halves round
  // toward +infinity for both signs. Row 2 of this 3x5 8-bit pair has the
  // vertical sum 3571*26 - 16004*2 - 26386*4 - 16004*3 + 3571*26 = 128, half of
  // 256: it blurs to (128 + 128) >> 8 = 1 per column, and the negated
  // difference to (-128 + 128) >> 8 = 0. The row is flat across, so the
  // horizontal pass keeps it: 3 against 0.
  TestPlane prev(3, 5, 8, 0), cur(3, 5, 8, 100);
  const unsigned rows[5] = {126, 98, 96, 97, 126};
  for (unsigned y = 0; y < 5; ++y)
    for (unsigned x = 0; x < 3; ++x) prev.set(x, y, rows[y]);
  std::vector<std::int16_t> scratch(2 * 3);
  EXPECT_EQ(motion_row_sad(prev.view(), cur.view(), 8, 2, scratch.data()), 3u);
  EXPECT_EQ(motion_row_sad(cur.view(), prev.view(), 8, 2, scratch.data()), 0u);
  EXPECT_EQ(motion_sad(prev.view(), cur.view(), 8, scratch), naive_sad(prev, cur));
  EXPECT_EQ(motion_sad(cur.view(), prev.view(), 8, scratch), naive_sad(cur, prev));
}

TEST(MotionSad, MatchesPlainMirroredConvolutionOnEverySmallSize) {
  // Widths and heights from 3 (the smallest the filter can mirror) upward,
  // where the border code differs from the interior loop.
  for (unsigned bpc : {8u, 10u, 12u, 16u})
    for (unsigned w = 3; w <= 12; ++w)
      for (unsigned h = 3; h <= 7; ++h) {
        const auto frames = make_lcg_frames(w, h, bpc, 2, w * 131 + h * 7 + bpc);
        std::vector<std::int16_t> scratch;
        ASSERT_EQ(motion_sad(frames[0].view(), frames[1].view(), bpc, scratch),
                  naive_sad(frames[0], frames[1]))
            << w << "x" << h << " " << bpc << " bit";
      }
}

TEST(MotionSad, RowSumWrapsAt32BitsLikeLibvmaf) {
  // libvmaf sums a row in a uint32. A flat maximal 8-bit difference gives 65280
  // per sample: 65794 of them exceed 2^32 by 65024. libvmaf's C build prints
  // 0.0038605343952336081 for this picture (3 rows of 65024 / 256 / (65794 * 3)).
  TestPlane prev(65794, 3, 8, 255, 0), cur(65794, 3, 8, 0, 0);
  std::vector<std::int16_t> scratch(2 * 65794);
  EXPECT_EQ(motion_row_sad(prev.view(), cur.view(), 8, 1, scratch.data()), 65024u);
  const std::uint64_t sad = motion_sad(prev.view(), cur.view(), 8, scratch);
  EXPECT_EQ(sad, 3u * 65024u);
  EXPECT_EQ(sad_to_score(sad, 65794, 3, MotionParams{}), 0.0038605343952336081);
}

// ---------------------------------------------------------------- finishing

TEST(MotionFinish, SadToScoreDividesInDouble) {
  const MotionParams defaults;
  // The 16x16 fixture's frame 1 (d_16x16_420p8_dis_blurnoise.features.max.json):
  // 3.4304046630859375 * 256 * 256 = 224815.
  EXPECT_EQ(sad_to_score(224815, 16, 16, defaults), 3.4304046630859375);
  // (double)sad / 256 / (w * h), each step rounded: for 3x3, 18.500868055555557.
  EXPECT_EQ(sad_to_score(42626, 3, 3, defaults), 18.500868055555557);
  EXPECT_EQ(sad_to_score(0, 7, 5, defaults), 0.0);
}

TEST(MotionFinish, FpsWeightThenClip) {
  MotionParams p;
  p.fps_weight = 2.5;
  EXPECT_EQ(sad_to_score(1000, 3, 3, p), 1000.0 / 256.0 / 9.0 * 2.5);
  p.max_val = 1.0;
  EXPECT_EQ(sad_to_score(1000, 3, 3, p), 1.0);
  p.max_val = 0.0;
  EXPECT_EQ(sad_to_score(0, 3, 3, p), 0.0);
}

TEST(MotionFinish, PixelCountIsA32BitProductAsInLibvmaf) {
  // 65536 x 65537 wraps to 65536 pixels in libvmaf's unsigned product.
  const MotionParams p;
  EXPECT_EQ(sad_to_score(256u * 65536u, 65536, 65537, p), 1.0);
}

TEST(MotionFinish, Blend) {
  EXPECT_EQ(motion_blend(7.0, 1.0, 40.0), 7.0);
  EXPECT_EQ(motion_blend(50.0, 1.0, 40.0), 50.0);
  // Above the offset: score * f + (1 - f) * offset.
  EXPECT_EQ(motion_blend(50.0, 0.5, 40.0), 50.0 * 0.5 + (1.0 - 0.5) * 40.0);
  EXPECT_EQ(motion_blend(10.0, 0.25, 3.0), 10.0 * 0.25 + 0.75 * 3.0);
  // At or below the offset the blend returns the score (up to rounding).
  EXPECT_EQ(motion_blend(2.0, 0.25, 3.0), 2.0 * 0.25 + 0.75 * 2.0);
}

TEST(MotionSequenceTest, DefaultWindow) {
  MotionSequence s(MotionParams{});
  EXPECT_EQ(s.latency_frames(), 1u);
  s.add_sad(0.0);
  EXPECT_TRUE(s.take_ready().empty());  // frame 0 waits for frame 1
  s.add_sad(5.0);
  auto ready = s.take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].index, 0u);
  EXPECT_EQ(ready[0].motion2, 0.0);
  EXPECT_EQ(ready[0].motion3, 5.0);  // frame 0 takes frame 1's processed score
  s.add_sad(3.0);
  ready = s.take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].motion2, 3.0);  // min(5, 3)
  EXPECT_EQ(ready[0].motion3, 3.0);
  s.add_sad(4.0);
  ready = s.take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].motion2, 3.0);  // min(3, 4)
  s.end_of_stream();
  ready = s.take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].index, 3u);
  EXPECT_EQ(ready[0].motion2, 4.0);  // the last frame keeps its own
  EXPECT_EQ(ready[0].motion3, 4.0);
}

TEST(MotionSequenceTest, OneFrameIsAllZero) {
  MotionSequence s(MotionParams{});
  s.add_sad(0.0);
  s.end_of_stream();
  const auto ready = s.take_ready();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].motion2, 0.0);
  EXPECT_EQ(ready[0].motion3, 0.0);
}

TEST(MotionSequenceTest, MovingAverageAndClip) {
  MotionParams p;
  p.moving_average = true;
  p.max_val = 6.0;
  MotionSequence s(p);
  for (double v : {0.0, 4.0, 9.0, 8.0, 2.0}) s.add_sad(v);
  s.end_of_stream();
  const auto r = s.take_ready();
  ASSERT_EQ(r.size(), 5u);
  // motion2: 0, min(4,9)=4, min(9,8)=8, min(8,2)=2, 2; processed: clip to 6.
  EXPECT_EQ(r[0].motion3, 4.0);                // the stamp: processed(sad[1])
  EXPECT_EQ(r[1].motion3, (4.0 + 4.0) / 2.0);  // with the stamp as previous
  EXPECT_EQ(r[2].motion3, (6.0 + 4.0) / 2.0);
  EXPECT_EQ(r[3].motion3, (2.0 + 6.0) / 2.0);
  EXPECT_EQ(r[4].motion3, (2.0 + 2.0) / 2.0);
}

TEST(MotionSequenceTest, FiveFrameWindow) {
  MotionParams p;
  p.five_frame_window = true;
  MotionSequence s(p);
  EXPECT_EQ(s.latency_frames(), 2u);
  s.add_sad(0.0);
  s.add_sad(0.0);
  EXPECT_TRUE(s.take_ready().empty());
  s.add_sad(7.0);
  auto r = s.take_ready();  // frames 0 and 1 need frame 2's sad only
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].motion2, 0.0);
  EXPECT_EQ(r[1].motion3, 7.0);
  s.add_sad(5.0);
  r = s.take_ready();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].index, 2u);
  EXPECT_EQ(r[0].motion2, 5.0);  // frame 1 has no score: the later one alone
  s.add_sad(6.0);
  r = s.take_ready();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].motion2, 6.0);  // min(sad[2], sad[4]) = min(7, 6)
  s.end_of_stream();
  r = s.take_ready();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].motion2, 6.0);  // last frame keeps its own
}

TEST(MotionSequenceTest, FiveFrameWindowShortStreams) {
  MotionParams p;
  p.five_frame_window = true;
  for (unsigned n : {1u, 2u, 3u}) {
    MotionSequence s(p);
    for (unsigned i = 0; i < n; ++i) s.add_sad(i == 2 ? 9.0 : 0.0);
    s.end_of_stream();
    const auto r = s.take_ready();
    ASSERT_EQ(r.size(), n);
    const double stamp = n > 2 ? 9.0 : 0.0;
    for (const auto& f : r) EXPECT_EQ(f.motion3, stamp) << n << " " << f.index;
    if (n == 3) {
      EXPECT_EQ(r[2].motion2, 9.0);
    }
  }
}

// A long run, handed out frame by frame, equals the formulas of motion.h over
// the whole sequence, and holds only the few sad scores it still needs.
TEST(MotionSequenceTest, LongRunHoldsFewScoresAndEqualsTheWholeSequence) {
  for (const bool five : {false, true})
    for (const bool average : {false, true}) {
      MotionParams p;
      p.five_frame_window = five;
      p.moving_average = average;
      p.blend_factor = 0.75;
      p.blend_offset = 3.0;
      p.max_val = 9.0;
      const unsigned first = p.first_scored_index(), d = p.frame_distance();
      std::vector<double> sads(50000);
      std::uint32_t state = 12345;
      for (unsigned i = 0; i < sads.size(); ++i) {
        state = state * 1664525u + 1013904223u;
        sads[i] = i < first ? 0.0 : static_cast<double>(state >> 8) / (1u << 21);
      }
      MotionSequence s(p);
      std::vector<FrameMotion> got;
      for (const double sad : sads) {
        s.add_sad(sad);
        for (const auto& f : s.take_ready()) got.push_back(f);
        ASSERT_LE(s.sads_held(), d + 1u) << five << average;
      }
      s.end_of_stream();
      for (const auto& f : s.take_ready()) got.push_back(f);
      ASSERT_EQ(got.size(), sads.size());
      const auto processed = [&](double m) {
        const double blended = motion_blend(m, p.blend_factor, p.blend_offset);
        return blended < p.max_val ? blended : p.max_val;
      };
      const double stamp = processed(sads[first]);
      double previous = stamp;
      for (std::size_t i = 0; i < sads.size(); ++i) {
        double motion2 = 0.0, motion3 = stamp;
        if (i >= first) {
          if (i + 1 == sads.size()) motion2 = sads[i];
          else if (i + 1 >= first + d) motion2 = std::min(sads[i + 1 - d], sads[i + 1]);
          else motion2 = sads[i + 1];
          const double now = processed(motion2);
          motion3 = average ? (now + previous) / 2.0 : now;
          previous = now;
        }
        ASSERT_EQ(got[i].index, i);
        ASSERT_EQ(got[i].motion2, motion2) << i << " five=" << five;
        ASSERT_EQ(got[i].motion3, motion3) << i << " five=" << five << " average=" << average;
      }
    }
}

// ---------------------------------------------------------------- the extractor vs libvmaf

TEST(MotionExtractor, MatchesLibvmafAtEveryBitDepth) {
  struct Case {
    unsigned w, h, bpc;
    std::uint32_t seed;
    Expected e;
  };
  const Case cases[] = {
      {3, 3, 8, 1,
       {{0, 18.500868055555557, 7.286458333333333, 74.83984375},
        {0, 7.286458333333333, 7.286458333333333, 74.83984375},
        {18.500868055555557, 7.286458333333333, 7.286458333333333, 74.83984375}}},
      {17, 17, 10, 2,
       {{0, 28.85518490484429, 25.712329692906575, 24.809039792387544},
        {0, 25.712329692906575, 24.809039792387544, 24.809039792387544},
        {28.85518490484429, 25.712329692906575, 24.809039792387544, 24.809039792387544}}},
      {9, 5, 12, 3,
       {{0, 28.742274305555554, 32.039583333333333, 23.889583333333334},
        {0, 28.742274305555554, 23.889583333333334, 23.889583333333334},
        {28.742274305555554, 28.742274305555554, 23.889583333333334, 23.889583333333334}}},
      {5, 9, 16, 4,
       {{0, 18.376736111111111, 27.121788194444445, 19.752604166666668},
        {0, 18.376736111111111, 19.752604166666668, 19.752604166666668},
        {18.376736111111111, 18.376736111111111, 19.752604166666668, 19.752604166666668}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bpc));
    const auto scores = run_extractor(make_lcg_frames(c.w, c.h, c.bpc, 4, c.seed), {});
    expect_scores(scores, "", c.e);
  }
}

TEST(MotionExtractor, MatchesLibvmafWithFiveFrameWindowMovingAverageAndBlend) {
  const FeatureOptions options = {{"motion_five_frame_window", "true"},
                                  {"motion_moving_average", "true"},
                                  {"motion_blend_factor", "0.5"},
                                  {"motion_blend_offset", "10"},
                                  {"debug", "true"}};
  const auto scores = run_extractor(make_lcg_frames(16, 16, 8, 6, 5), options);
  const std::string suffix = "_mbf_0.5_mbo_10_mffw_mma";
  const Expected e = {
      {0, 0, 31.097396850585938, 23.349380493164062, 27.698974609375, 23.198272705078125},
      {0, 0, 23.349380493164062, 27.698974609375, 23.198272705078125, 23.198272705078125},
      {20.548698425292969, 20.548698425292969, 18.6116943359375, 17.762088775634766,
       17.724311828613281, 16.599136352539062}};
  expect_scores(scores, suffix, e);
  for (unsigned i = 0; i < 6; ++i)
    EXPECT_EQ(scores.score("integer_motion" + suffix, i), e.sad[i]);  // debug
}

TEST(MotionExtractor, MatchesLibvmafWithFpsWeightAndMaxVal) {
  const auto scores = run_extractor(make_lcg_frames(11, 7, 10, 5, 6),
                                    {{"motion_fps_weight", "2.5"}, {"motion_max_val", "300"}});
  expect_scores(scores, "_mfw_2.5_mmxv_300",
                {{0, 46.234527191558442, 66.214108157467535, 72.459669237012989, 66.136744115259745},
                 {0, 46.234527191558442, 66.214108157467535, 66.136744115259745, 66.136744115259745},
                 {46.234527191558442, 46.234527191558442, 66.214108157467535, 66.136744115259745,
                  66.136744115259745}});
}

TEST(MotionExtractor, WritesMotion2OneFrameLateInLibvmafsKeyOrder) {
  auto extractor = make_feature_extractor("motion", {});
  EXPECT_EQ(extractor->latency_frames(), 1u);
  const auto frames = make_lcg_frames(8, 8, 8, 3, 7);
  extractor->init({8, 8, 8, ChromaFormat::k420});
  FeatureCollector scores;
  extractor->extract(frames[0].picture(), frames[0].picture(), 0, scores);
  EXPECT_EQ(scores.names(), std::vector<std::string>{"VMAF_integer_feature_motion_sad_score"});
  EXPECT_EQ(scores.score("VMAF_integer_feature_motion_sad_score", 0), 0.0);
  extractor->extract(frames[1].picture(), frames[1].picture(), 1, scores);
  EXPECT_EQ(scores.names(), (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score",
                                                      "integer_motion2", "integer_motion3"}));
  EXPECT_EQ(scores.score("integer_motion2", 0), 0.0);
  EXPECT_FALSE(scores.score("integer_motion2", 1));
  extractor->extract(frames[2].picture(), frames[2].picture(), 2, scores);
  EXPECT_TRUE(scores.score("integer_motion2", 1));
  EXPECT_FALSE(scores.score("integer_motion2", 2));
  extractor->flush(scores);
  EXPECT_EQ(scores.score("integer_motion2", 2),
            scores.score("VMAF_integer_feature_motion_sad_score", 2));
}

TEST(MotionExtractor, ReadsOnlyTheReferenceLuma) {
  const auto frames = make_lcg_frames(6, 5, 10, 3, 8);
  const auto noise = make_lcg_frames(6, 5, 10, 3, 9);
  auto a = make_feature_extractor("motion", {});
  auto b = make_feature_extractor("motion", {});
  a->init({6, 5, 10, ChromaFormat::k400});
  b->init({6, 5, 10, ChromaFormat::k400});
  FeatureCollector sa, sb;
  for (unsigned i = 0; i < 3; ++i) {
    a->extract(frames[i].picture(), frames[i].picture(), i, sa);
    b->extract(frames[i].picture(), noise[i].picture(), i, sb);
  }
  a->flush(sa);
  b->flush(sb);
  for (unsigned i = 0; i < 3; ++i)
    for (const auto& name : sa.names()) EXPECT_EQ(sa.score(name, i), sb.score(name, i));
}

TEST(MotionExtractor, ForceZero) {
  const auto scores = run_extractor(make_lcg_frames(5, 5, 8, 4, 3), {{"motion_force_zero", "true"}});
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(scores.score("VMAF_integer_feature_motion_sad_score_force_0", i), 0.0);
    EXPECT_EQ(scores.score("integer_motion2_force_0", i), 0.0);
    EXPECT_EQ(scores.score("integer_motion3_force_0", i), 0.0);
  }
  // Nothing is read, so any size is accepted, as in libvmaf.
  auto tiny = make_feature_extractor("motion", {{"motion_force_zero", "true"}});
  EXPECT_NO_THROW(tiny->init({1, 1, 8, ChromaFormat::k420}));
}

// ---------------------------------------------------------------- options, names, errors

TEST(MotionOptions, NamesFollowLibvmaf) {
  auto plain = make_feature_extractor("motion", {});
  EXPECT_EQ(plain->name(), "motion");
  EXPECT_EQ(plain->provided_features(),
            (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score",
                                      "VMAF_integer_feature_motion_score",
                                      "VMAF_integer_feature_motion2_score",
                                      "VMAF_integer_feature_motion3_score"}));
  EXPECT_EQ(plain->score_key("VMAF_integer_feature_motion2_score"), "integer_motion2");
  EXPECT_EQ(plain->score_key("VMAF_integer_feature_motion3_score"), "integer_motion3");
  EXPECT_EQ(plain->score_key("VMAF_integer_feature_motion_score"), "integer_motion");
  EXPECT_EQ(plain->score_key("VMAF_integer_feature_motion_sad_score"),
            "VMAF_integer_feature_motion_sad_score");

  // Alphabetical by option name; doubles as %g, booleans as their alias alone;
  // debug is not a feature parameter; default values add nothing.
  auto all = make_feature_extractor("motion", {{"motion_moving_average", "true"},
                                            {"motion_max_val", "123.5"},
                                            {"motion_fps_weight", "0.5"},
                                            {"motion_force_zero", "true"},
                                            {"motion_five_frame_window", "true"},
                                            {"motion_blend_offset", "20"},
                                            {"motion_blend_factor", "0.1"},
                                            {"debug", "true"}});
  EXPECT_EQ(all->score_key("VMAF_integer_feature_motion2_score"),
            "integer_motion2_mbf_0.1_mbo_20_mffw_force_0_mfw_0.5_mmxv_123.5_mma");
  auto defaults = make_feature_extractor("motion", 
      {{"motion_blend_factor", "1.0"}, {"motion_blend_offset", "40"}, {"motion_force_zero", "false"}});
  EXPECT_EQ(defaults->score_key("VMAF_integer_feature_motion3_score"), "integer_motion3");
}

TEST(MotionOptions, RejectsUnknownAndOutOfRange) {
  EXPECT_THROW(make_feature_extractor("motion", {{"force_0", "true"}}), Error);  // aliases name scores only
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_blend_factor", "1.5"}}), Error);
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_blend_offset", "-1"}}), Error);
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_fps_weight", "5.1"}}), Error);
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_max_val", "10001"}}), Error);
  EXPECT_THROW(make_feature_extractor("motion", {{"motion_moving_average", "yes"}}), Error);
  EXPECT_NO_THROW(make_feature_extractor("motion", {{"motion_fps_weight", "5"}}));
}

TEST(MotionErrors, PicturesBelowThreeByThree) {
  // libvmaf reads outside the picture below 3 samples across (and crashes at 1x1).
  for (auto [w, h] : {std::pair{2u, 5u}, {5u, 2u}, {1u, 1u}, {2u, 2u}}) {
    auto extractor = make_feature_extractor("motion", {});
    try {
      extractor->init({w, h, 8, ChromaFormat::k420});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("at least 3x3"), std::string::npos) << e.what();
    }
  }
  auto smallest = make_feature_extractor("motion", {});
  EXPECT_NO_THROW(smallest->init({3, 3, 16, ChromaFormat::k420}));
  auto bad_depth = make_feature_extractor("motion", {});
  EXPECT_THROW(bad_depth->init({16, 16, 9, ChromaFormat::k420}), Error);
}

TEST(MotionErrors, FramesOutOfOrder) {
  auto extractor = make_feature_extractor("motion", {});
  extractor->init({4, 4, 8, ChromaFormat::k400});
  const auto frames = make_lcg_frames(4, 4, 8, 1, 1);
  FeatureCollector scores;
  EXPECT_THROW(extractor->extract(frames[0].picture(), frames[0].picture(), 1, scores), Error);
}

TEST(MotionSad, BandsOfAnyCutAndOrderGiveTheSameSum) {
  // The frame's sum cut into bands (pool workers, cut down to one-row bands,
  // and last band first on one thread) equals one pass, including where a
  // row's uint32 sum wraps, at every depth and on sizes from 3x3 up.
  ThreadPool pool(3);
  PoolBandRunner pool_runner(pool, 7);
  test::SmallBands small(pool_runner);
  test::ReverseBands reverse(5);
  std::uint32_t seed = 99;
  for (const unsigned bpc : {8u, 10u, 16u})
    for (const auto& [w, h] : {std::pair{3u, 3u}, {5u, 17u}, {64u, 9u}, {640u, 360u}, {70000u, 6u}}) {
      TestPlane prev(w, h, bpc), cur(w, h, bpc);
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          seed = seed * 1664525u + 1013904223u;
          prev.set(x, y, (seed >> 8) & ((1u << bpc) - 1));
          cur.set(x, y, (x * 7 + y * 3) % 2 ? (1u << bpc) - 1 : 0);
        }
      const MotionDsp& dsp = motion_dsp(cpu::flags());
      std::vector<std::int16_t> scratch;
      const std::uint64_t serial = motion_sad(prev.view(), cur.view(), bpc, scratch, dsp);
      for (BandRunner* runner : std::initializer_list<BandRunner*>{&pool_runner, &small, &reverse})
        EXPECT_EQ(motion_sad(prev.view(), cur.view(), bpc, scratch, dsp, *runner), serial)
            << w << "x" << h << " " << bpc << " bits";
    }
}
