// Unit tests of metrics/vif/: libvmaf 3.2.0's integer VIF ("vif").
//
// Expected scores marked "libvmaf C" were printed with %.17g by a private program
// that linked libvmaf 3.2.0's portable C build (/work/libvmaf-build/c, no x86
// assembly), fed it the frames make_frame() below builds (the same code, now in
// tests/common/vif_frames.h) through vmaf_read_pictures() with feature "vif" and
// the options shown, and read them back with vmaf_feature_score_at_index().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "band_runners.h"
#include "common/bands.h"
#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "common/thread_pool.h"
#include "fixtures.h"
#include "registry.h"
#include "scorer.h"
#include "test_pictures.h"
#include "vif/vif.h"
#include "vif/vif_dsp.h"
#include "vif/vif_extractor.h"
#include "vif/vif_tables.h"
#include "vif_frames.h"

using namespace vmafexact;
using vif::FrameSums;
using vif::ScaleSums;

namespace {

using Pattern = test::VifPattern;

// Luma samples of one synthetic frame, row-major, width * height: seed 0, the
// frames libvmaf scored.
std::vector<std::uint16_t> make_frame(Pattern pattern, unsigned width, unsigned height,
                                      unsigned bpc, bool distorted) {
  return test::vif_frame(pattern, width, height, bpc, distorted);
}

// A luma-only picture holding `samples` (8-bit or 16-bit storage), with
// unread padding at the end of every row (tests/common/test_pictures.h).
using TestPicture = test::TestPlane;

FeatureOptions parse_options(const std::string& text) {
  FeatureOptions options;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const std::size_t equals = item.find('=');
    options.emplace_back(item.substr(0, equals), item.substr(equals + 1));
    start = end + 1;
  }
  return options;
}

const char* const kKeys[15] = {
    "integer_vif_scale0",     "integer_vif_scale1",     "integer_vif_scale2",
    "integer_vif_scale3",     "integer_vif",            "integer_vif_num",
    "integer_vif_den",        "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1", "integer_vif_num_scale2",
    "integer_vif_den_scale2", "integer_vif_num_scale3", "integer_vif_den_scale3"};

struct LibvmafCase {
  unsigned width, height, bpc;
  Pattern pattern;
  const char* options;
  double expected[15];  // kKeys order (+ suffix), libvmaf C
};

// libvmaf C, one frame each (see the top of this file).
const LibvmafCase kLibvmafCases[] = {
    {16, 16, 8, Pattern::kNoise, "debug=true", {0.0006022437009960413, 0.0031490663532167673, 0.00017394204041920602, 0.078360997140407562, 0.0011615294721273465, 3.91748046875, 3372.69140625, 1.77001953125, 2939.0419921875, 1.1123046875, 353.21728515625, 0.01171875, 67.37158203125, 1.0234375, 13.060546875}},
    // 9x13: the fourth scale is 1x1; libvmaf's padding reads what its buffers kept.
    {9, 13, 8, Pattern::kNoisyCopy, "debug=true", {0.64068979024887085, 0.97713035345077515, 0.99465316534042358, 0.99706935882568359, 0.70278341228725127, 1077.29833984375, 1532.90234375, 802.86279296875, 1253.12255859375, 215.716796875, 220.765625, 50.41259765625, 50.68359375, 8.30615234375, 8.33056640625}},
    {37, 29, 10, Pattern::kEdges, "debug=true", {0.030755802989006042, 0.1329716295003891, 0.52961540222167969, 0.37413856387138367, 0.047851534007168635, 767.97831153869629, 16049.18896484375, 428.86865234375, 13944.31640625, 258.6279296875, 1944.98583984375, 70.382728576660156, 132.89404296875, 10.099000930786133, 26.99267578125}},
    {40, 24, 12, Pattern::kNoisyCopy, "debug=true", {0.8080412745475769, 0.98821341991424561, 0.99324095249176025, 0.99367529153823853, 0.84508367712848986, 11542.85888671875, 13658.83544921875, 8780.42578125, 10866.30859375, 2212.48095703125, 2238.86962890625, 465.02978515625, 468.1943359375, 84.92236328125, 85.462890625}},
    {33, 17, 16, Pattern::kExtremes, "debug=true", {0.028788549825549126, 0.032573554664850235, 0.055397506803274155, 0.00033745780820026994, 0.029323477983648507, 235.33837890625, 8025.595703125, 209.9130859375, 7291.5478515625, 19.7021484375, 604.85107421875, 5.71435546875, 103.15185546875, 0.0087890625, 26.044921875}},
    {20, 18, 16, Pattern::kEdges, "debug=true", {0.034772977232933044, 0.16352681815624237, 0.31814911961555481, 0.16742867231369019, 0.056577803231118502, 312.4055290222168, 5521.69775390625, 162.70068359375, 4678.9404296875, 121.6962890625, 744.19775390625, 24.289318084716797, 76.345703125, 3.71923828125, 22.2138671875}},
    {24, 24, 8, Pattern::kFlat, "debug=true", {1, 1, 1, 1, 1, 765, 765, 576, 576, 144, 144, 36, 36, 9, 9}},
    {24, 24, 16, Pattern::kFlat, "debug=true", {1, 1, 1, 1, 1, 765, 765, 576, 576, 144, 144, 36, 36, 9, 9}},
    {64, 40, 10, Pattern::kNoisyCopy, "debug=true:vif_enhn_gain_limit=1.0", {0.77360153198242188, 0.98797732591629028, 0.99409705400466919, 0.99364817142486572, 0.81735527963629351, 29771.55224609375, 36424.2490234375, 22458.41796875, 29030.990234375, 5873.82373046875, 5945.30224609375, 1220.69873046875, 1227.947265625, 218.61181640625, 220.00927734375}},
    {64, 40, 10, Pattern::kNoisyCopy, "debug=true:vif_skip_scale0=true", {0, 0.98818337917327881, 0.99435907602310181, 0.99538815021514893, 0.98942349693826082, 7315.06396484375, 7393.2587890625, 0, -1, 5875.048828125, 5945.30224609375, 1221.0205078125, 1227.947265625, 218.99462890625, 220.00927734375}},
    // The smallest size: scales of 8x8, 4x4, 2x2 and 1x1.
    {8, 8, 12, Pattern::kNoise, "debug=true", {0.0020293043926358223, 0, 4.748563515022397e-05, 0.00010602205293253064, 0.0017037412313155081, 1.49755859375, 878.982421875, 1.49609375, 737.24462890625, 0, 116.56689453125, 0.0009765625, 20.5654296875, 0.00048828125, 4.60546875}},
    {15, 8, 8, Pattern::kEdges, "debug=true", {0.043342605233192444, 0.14619787037372589, 0.26555609703063965, 0.3416963517665863, 0.063935050770308574, 119.556640625, 1869.97021484375, 67.52490234375, 1557.93359375, 38.365234375, 262.419921875, 11.46533203125, 43.1748046875, 2.201171875, 6.44189453125}},
};

std::string suffix_of(const std::string& options) {
  std::string suffix;
  if (options.find("vif_enhn_gain_limit=1.0") != std::string::npos) suffix += "_egl_1";
  if (options.find("vif_skip_scale0=true") != std::string::npos) suffix += "_ssclz";
  return suffix;
}

FeatureCollector run_extractor(const LibvmafCase& c, unsigned frames = 1,
                               BandRunner* runner = nullptr) {
  auto extractor = make_feature_extractor("vif", parse_options(c.options));
  extractor->init({c.width, c.height, c.bpc, ChromaFormat::k400});
  if (runner) extractor->set_band_runner(*runner);
  const TestPicture ref(make_frame(c.pattern, c.width, c.height, c.bpc, false), c.width, c.height, c.bpc);
  const TestPicture dist(make_frame(c.pattern, c.width, c.height, c.bpc, true), c.width, c.height, c.bpc);
  FeatureCollector scores;
  for (unsigned i = 0; i < frames; ++i) extractor->extract(ref.view(), dist.view(), i, scores);
  return scores;
}

// --- Band runners for tests (common/bands.h) ---

using test::ReverseBands;
using test::SmallBands;

// A pool of 3 workers and runners on it with max_bands 2, 3, 7 and 16, as they
// cut real frames and cut as far as allowed.
struct PoolRunners {
  PoolRunners() {
    for (unsigned bands : {2u, 3u, 7u, 16u}) {
      const std::string name = "pool max_bands " + std::to_string(bands);
      BandRunner& runner = plain_runners.emplace_back(pool, bands);
      plain.push_back({name, &runner});
      all.push_back({name, &runner});
      all.push_back({name + " small bands", &small_runners.emplace_back(runner)});
    }
  }
  struct Named {
    std::string name;
    BandRunner* runner;
  };
  ThreadPool pool{3};
  std::deque<PoolBandRunner> plain_runners;  // deque: runners never move
  std::deque<SmallBands> small_runners;
  std::vector<Named> all, plain;
};

// The scalar table and the best SIMD twin of this CPU (once if there is none).
std::vector<const vif::VifDsp*> scalar_and_best_dsp() {
  std::vector<const vif::VifDsp*> tables{&vif::vif_dsp_scalar()};
  const vif::VifDsp& best = vif::vif_dsp(cpu::detected_flags());
  if (&best != tables.front()) tables.push_back(&best);
  return tables;
}

struct FramePair {
  TestPicture ref, dist;
};

// One frame of `first` content, then, when `second` is given, one of other
// content: a kernel must carry nothing from one frame to the next.
std::vector<FramePair> test_frames(unsigned w, unsigned h, unsigned bpc, Pattern first,
                                   std::optional<Pattern> second) {
  std::vector<FramePair> frames;
  for (const auto& pattern : {std::optional<Pattern>(first), second})
    if (pattern)
      frames.push_back({TestPicture(make_frame(*pattern, w, h, bpc, false), w, h, bpc),
                        TestPicture(make_frame(*pattern, w, h, bpc, true), w, h, bpc)});
  return frames;
}

std::vector<FrameSums> compute_frames(vif::VifCpuStage& kernel, const std::vector<FramePair>& frames,
                                      BandRunner& runner) {
  std::vector<FrameSums> sums;
  for (const FramePair& frame : frames)
    sums.push_back(kernel.compute(frame.ref.view().planes[0], frame.dist.view().planes[0], runner));
  return sums;
}

std::string describe(unsigned w, unsigned h, unsigned bpc, const vif::VifParams& params,
                     const vif::VifDsp& dsp) {
  return std::to_string(w) + "x" + std::to_string(h) + " bpc " + std::to_string(bpc) + " egl " +
         std::to_string(params.enhn_gain_limit) + (params.skip_scale0 ? " skip_scale0 " : " ") +
         dsp.isa;
}

// A new kernel per runner scores `frames`; every frame's sums must equal those
// of a kernel on the serial runner. Returns false after the first difference.
bool expect_bands_equal_serial(unsigned w, unsigned h, unsigned bpc, const vif::VifParams& params,
                               const vif::VifDsp& dsp, const std::vector<FramePair>& frames,
                               const std::vector<PoolRunners::Named>& runners) {
  vif::VifCpuStage serial(w, h, bpc, params, dsp);
  const auto expected = compute_frames(serial, frames, serial_band_runner());
  for (const auto& [name, runner] : runners) {
    vif::VifCpuStage kernel(w, h, bpc, params, dsp);
    const auto sums = compute_frames(kernel, frames, *runner);
    for (std::size_t frame = 0; frame < frames.size(); ++frame)
      for (unsigned s = 0; s < vif::kScaleCount; ++s)
        if (sums[frame][s] != expected[frame][s]) {
          ADD_FAILURE() << describe(w, h, bpc, params, dsp) << ", " << name << ": frame " << frame
                        << " scale " << s << " differs from the serial runner's";
          return false;
        }
  }
  return true;
}

const vif::VifParams kParamVariants[] = {
    {},
    {vif::kMinEnhnGainLimit, false},
    {vif::kDefaultEnhnGainLimit, true},
};

}  // namespace

// --- Tables ----------------------------------------------------------------

TEST(VifTables, FiltersAreUnitSumSymmetricGaussians) {
  const unsigned widths[4] = {17, 9, 5, 3};
  for (unsigned scale = 0; scale < vif::kScaleCount; ++scale) {
    const auto& filter = vif::vif_filter(scale);
    ASSERT_EQ(filter.width, widths[scale]);
    unsigned sum = 0;
    for (unsigned k = 0; k < filter.width; ++k) {
      sum += filter.taps[k];
      EXPECT_EQ(filter.taps[k], filter.taps[filter.width - 1 - k]);
      if (k > 0 && k <= filter.half()) {
        EXPECT_LT(filter.taps[k - 1], filter.taps[k]);
      }
    }
    EXPECT_EQ(sum, 65536u) << "scale " << scale;
  }
}

TEST(VifTables, FiltersEqualLibvmafsTaps) {
  // Taps from libvmaf's integer_vif.h (centre outwards). Plain rounding of the
  // Gaussian gives 7454 and 12591/14691 at the centre of the first two, whose
  // sums would then be 65534 and 65537.
  const auto& s0 = vif::vif_filter(0).taps;
  EXPECT_EQ(s0[8], 7784);
  EXPECT_EQ(s0[7], 7455);
  EXPECT_EQ(s0[6], 6547);
  EXPECT_EQ(s0[0], 489);
  const auto& s1 = vif::vif_filter(1).taps;
  EXPECT_EQ(s1[4], 14692);
  EXPECT_EQ(s1[3], 12590);
  EXPECT_EQ(s1[0], 1244);
  const auto& s2 = vif::vif_filter(2).taps;
  EXPECT_EQ(s2[2], 26386);
  EXPECT_EQ(s2[1], 16004);
  EXPECT_EQ(s2[0], 3571);
  const auto& s3 = vif::vif_filter(3).taps;
  EXPECT_EQ(s3[1], 43728);
  EXPECT_EQ(s3[0], 10904);
}

TEST(VifTables, Log2TableEqualsLibvmafsFormulaOnEveryEntry) {
  // libvmaf fills its table with (uint16_t)round(log2f((float)i) * 2048).
  const auto& table = vif::log2_table();
  for (unsigned i = vif::Log2Table::kFirst; i <= vif::Log2Table::kLast; ++i) {
    const auto expected =
        static_cast<std::uint16_t>(std::round(std::log2(static_cast<float>(i)) * 2048.0f));
    ASSERT_EQ(table[i], expected) << "entry " << i;
  }
}

TEST(VifTables, Log2TableValuesFromLibvmaf) {
  // round(log2f((float)i) * 2048) printed by a C program with glibc, as libvmaf
  // computes it. The last three are where float matters: 2048 * log2(i) is
  // 30750.4993, 31205.499994 and 31601.4999 exactly, rounded up after log2 is
  // rounded to float (38 entries are like these).
  const auto& table = vif::log2_table();
  EXPECT_EQ(table[32767], 30720);
  EXPECT_EQ(table[32768], 30720);
  EXPECT_EQ(table[40000], 31309);
  EXPECT_EQ(table[46341], 31744);
  EXPECT_EQ(table[65535], 32768);
  EXPECT_EQ(table[33108], 30751);
  EXPECT_EQ(table[38620], 31206);
  EXPECT_EQ(table[44159], 31602);
}

TEST(VifTables, Log2OfWideValuesUsesTheTop16Bits) {
  const auto& table = vif::log2_table();
  EXPECT_EQ(table.log2_32(1u << 17), 2048 * 17);
  EXPECT_EQ(table.log2_32(0xFFFFFFFFu), 32768 + 2048 * 16);
  EXPECT_EQ(table.log2_32((40000u << 3) | 7u), 31309 + 2048 * 3);
  EXPECT_EQ(table.log2_64(std::uint64_t{1} << 17), 2048 * 17);
  EXPECT_EQ(table.log2_64(std::uint64_t{40000} << 20), 31309 + 2048 * 20);
}

// --- Finishing function ----------------------------------------------------

TEST(VifFinish, ScaleRatioInLibvmafsOrder) {
  // num = 3 + (2 - (16384 * 65025 / 16384) / 65025) = 4, den = 5 + 2 = 7.
  const ScaleSums sums{2048 * 3, 2048 * 5, std::int64_t{16384} * 65025, 2};
  const auto ratio = vif::finish_scale(sums);
  EXPECT_EQ(ratio.num, 4.0f);
  EXPECT_EQ(ratio.den, 7.0f);
}

TEST(VifFinish, NumAndDenAreRoundedToFloatBeforeTheFloatDivision) {
  // den = 1000001 + 3/2048 rounds to the float 1000001; the quotient is a float.
  const ScaleSums sums{1, std::int64_t{2048} * 1000001 + 3, 0, 0};
  FrameSums frame{};
  frame[2] = sums;
  frame[0] = frame[1] = frame[3] = ScaleSums{2048, 2048, 0, 0};
  const auto scores = vif::finish_frame(frame, false);
  EXPECT_EQ(scores.num_scale[2], 0.00048828125);
  EXPECT_EQ(scores.den_scale[2], 1000001.0);
  EXPECT_EQ(scores.scale[2], 4.8828074916684727e-10);  // (1/2048)/1000001.00146 in double is 4.8828076100398402e-10
}

TEST(VifFinish, FrameScoresAndDebugSums) {
  // Values computed by a C program with libvmaf's expressions (gcc, -ffp-contract=off).
  FrameSums frame{};
  frame[0] = {2048 * 3, 2048 * 5, std::int64_t{16384} * 65025, 2};              // 4 / 7
  frame[1] = {123456789, 987654321, 5000000000000, 77777};                        // large terms
  frame[2] = {1, std::int64_t{2048} * 1000001 + 3, 0, 0};
  frame[3] = {2048, 3 * 2048, 0, 0};                                               // 1 / 3
  const auto scores = vif::finish_frame(frame, false);
  EXPECT_EQ(scores.scale[0], 0.57142859697341919);
  EXPECT_EQ(scores.num_scale[1], 133365.421875);
  EXPECT_EQ(scores.den_scale[1], 560030.0625);
  EXPECT_EQ(scores.scale[1], 0.23813974857330322);
  EXPECT_EQ(scores.scale[3], static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(scores.num, 133370.42236328125);
  EXPECT_EQ(scores.den, 1560041.0625);
  EXPECT_EQ(scores.vif, 0.085491610169255564);

  const auto skipped = vif::finish_frame(frame, true);
  EXPECT_EQ(skipped.scale[0], 0.0);
  EXPECT_EQ(skipped.num_scale[0], 0.0);
  EXPECT_EQ(skipped.den_scale[0], -1.0);
  EXPECT_EQ(skipped.scale[1], scores.scale[1]);
  EXPECT_EQ(skipped.num, 133366.42236328125);
  EXPECT_EQ(skipped.den, 1560034.0625);
  EXPECT_EQ(skipped.vif, 0.08548942973050068);
}

TEST(VifFinish, EmptySumsGiveNanScoresAndAVifOfOne) {
  const auto scores = vif::finish_frame(FrameSums{}, false);
  EXPECT_TRUE(std::isnan(scores.scale[0]));  // 0.0f / 0.0f, as libvmaf would
  EXPECT_EQ(scores.den, 0.0);
  EXPECT_EQ(scores.vif, 1.0);
}

// --- Per-pixel stage ---------------------------------------------------------

TEST(VifCpuStage, FlatPicturesCountEveryPixelAsNonLog) {
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const unsigned w = 37, h = 21;
    vif::VifCpuStage kernel(w, h, bpc, {});
    const TestPicture ref(std::vector<std::uint16_t>(w * h, 0), w, h, bpc);
    const TestPicture dist(std::vector<std::uint16_t>(w * h, (1u << bpc) - 1), w, h, bpc);
    const FrameSums sums = kernel.compute(ref.view().planes[0], dist.view().planes[0]);
    unsigned sw = w, sh = h;
    for (unsigned s = 0; s < vif::kScaleCount; ++s) {
      EXPECT_EQ(sums[s], (ScaleSums{0, 0, 0, std::int64_t{sw} * sh})) << "bpc " << bpc << " scale " << s;
      sw /= 2;
      sh /= 2;
    }
  }
}

TEST(VifCpuStage, IdenticalNoiseGivesEqualLogSums) {
  // With dist == ref, sigma12 = sigma2_sq = sigma1_sq, so sv_sq is 0 and g just
  // below 1 wherever the log terms apply; on this noise the numerator's log
  // terms then add up to exactly the denominator's.
  const unsigned w = 48, h = 40;
  for (unsigned bpc : {8u, 16u}) {
    vif::VifCpuStage kernel(w, h, bpc, {});
    const TestPicture ref(make_frame(Pattern::kNoise, w, h, bpc, false), w, h, bpc);
    const FrameSums sums = kernel.compute(ref.view().planes[0], ref.view().planes[0]);
    EXPECT_GT(sums[0].den_log, 0);
    EXPECT_EQ(sums[0].num_log, sums[0].den_log) << "bpc " << bpc;
  }
}

TEST(VifCpuStage, SkipScale0LeavesItsSumsEmpty) {
  const unsigned w = 32, h = 32;
  const TestPicture ref(make_frame(Pattern::kNoise, w, h, 10, false), w, h, 10);
  const TestPicture dist(make_frame(Pattern::kNoise, w, h, 10, true), w, h, 10);
  vif::VifCpuStage all(w, h, 10, {});
  vif::VifCpuStage skip(w, h, 10, {vif::kDefaultEnhnGainLimit, true});
  const auto a = all.compute(ref.view().planes[0], dist.view().planes[0]);
  const auto b = skip.compute(ref.view().planes[0], dist.view().planes[0]);
  EXPECT_EQ(b[0], ScaleSums{});
  for (unsigned s = 1; s < vif::kScaleCount; ++s) EXPECT_EQ(a[s], b[s]);
}

TEST(VifExtractor, EqualsLibvmafOnSyntheticFrames) {
  for (const auto& c : kLibvmafCases) {
    const std::string label = std::to_string(c.width) + "x" + std::to_string(c.height) + " " +
                              std::to_string(c.bpc) + "-bit " + c.options;
    // Two frames: libvmaf's buffers are reused, so must ours be.
    const auto scores = run_extractor(c, 2);
    const std::string suffix = suffix_of(c.options);
    for (unsigned frame = 0; frame < 2; ++frame)
      for (unsigned k = 0; k < 15; ++k) {
        const auto value = scores.score(kKeys[k] + suffix, frame);
        ASSERT_TRUE(value) << label << ": " << kKeys[k] + suffix << " missing";
        EXPECT_EQ(*value, c.expected[k]) << label << ": " << kKeys[k] + suffix << " frame " << frame;
      }
  }
}

TEST(VifExtractor, WritesKeysInLibvmafsOrder) {
  const auto scores = run_extractor(kLibvmafCases[0]);
  ASSERT_EQ(scores.names().size(), 15u);
  for (unsigned k = 0; k < 15; ++k) EXPECT_EQ(scores.names()[k], kKeys[k]);

  LibvmafCase plain = kLibvmafCases[0];
  plain.options = "";
  const auto plain_scores = run_extractor(plain);
  ASSERT_EQ(plain_scores.names().size(), 4u);
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(plain_scores.names()[k], kKeys[k]);
    EXPECT_EQ(*plain_scores.score(kKeys[k], 0), kLibvmafCases[0].expected[k]);
  }
}

TEST(VifExtractor, PaddingBeyondTheWidthIsNotRead) {
  const LibvmafCase& c = kLibvmafCases[3];
  auto extractor = make_feature_extractor("vif", parse_options(c.options));
  extractor->init({c.width, c.height, c.bpc, ChromaFormat::k400});
  const auto r = make_frame(c.pattern, c.width, c.height, c.bpc, false);
  const auto d = make_frame(c.pattern, c.width, c.height, c.bpc, true);
  const TestPicture ref(r, c.width, c.height, c.bpc, 0), dist(d, c.width, c.height, c.bpc, 64);
  FeatureCollector scores;
  extractor->extract(ref.view(), dist.view(), 0, scores);
  for (unsigned k = 0; k < 15; ++k) EXPECT_EQ(*scores.score(kKeys[k], 0), c.expected[k]);
}

// --- Options, names and limits ---------------------------------------------

TEST(VifOptions, ScoreNamesFollowLibvmaf) {
  auto plain = make_feature_extractor("vif", {});
  EXPECT_EQ(plain->name(), "vif");
  EXPECT_EQ(plain->score_key("VMAF_integer_feature_vif_scale0_score"), "integer_vif_scale0");
  EXPECT_EQ(plain->score_key("integer_vif_num_scale2"), "integer_vif_num_scale2");

  auto egl = make_feature_extractor("vif", {{"vif_enhn_gain_limit", "1.0"}});
  EXPECT_EQ(egl->score_key("VMAF_integer_feature_vif_scale3_score"), "integer_vif_scale3_egl_1");
  EXPECT_EQ(egl->score_key("integer_vif_den"), "integer_vif_den_egl_1");

  auto fraction = make_feature_extractor("vif", {{"vif_enhn_gain_limit", "1.25"}});
  EXPECT_EQ(fraction->score_key("VMAF_integer_feature_vif_scale1_score"),
            "integer_vif_scale1_egl_1.25");

  // The default value given explicitly is not a suffix; debug never is.
  auto explicit_default = make_feature_extractor("vif", 
      {{"vif_enhn_gain_limit", "100"}, {"debug", "true"}, {"vif_skip_scale0", "false"}});
  EXPECT_EQ(explicit_default->score_key("VMAF_integer_feature_vif_scale0_score"),
            "integer_vif_scale0");

  auto both = make_feature_extractor("vif", 
      {{"vif_skip_scale0", "true"}, {"vif_enhn_gain_limit", "1"}});
  EXPECT_EQ(both->score_key("VMAF_integer_feature_vif_scale0_score"),
            "integer_vif_scale0_egl_1_ssclz");
}

TEST(VifOptions, ProvidesLibvmafsFeatureNames) {
  const auto provided = make_feature_extractor("vif", {})->provided_features();
  ASSERT_EQ(provided.size(), 15u);
  EXPECT_EQ(provided[0], "VMAF_integer_feature_vif_scale0_score");
  EXPECT_EQ(provided[3], "VMAF_integer_feature_vif_scale3_score");
  EXPECT_EQ(provided[14], "integer_vif_den_scale3");
  EXPECT_EQ(feature_entry_providing("VMAF_integer_feature_vif_scale2_score")->name(), "vif");
}

TEST(VifOptions, BadOptionsAreRejected) {
  const auto message = [](const FeatureOptions& options) {
    try {
      make_feature_extractor("vif", options);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"vif_enhn_gain_limit", "0.5"}}).find("vif_enhn_gain_limit"), std::string::npos);
  EXPECT_NE(message({{"vif_enhn_gain_limit", "100.5"}}).find("[1, 100]"), std::string::npos);
  EXPECT_NE(message({{"vif_enhn_gain_limit", "x"}}).find("vif_enhn_gain_limit"), std::string::npos);
  EXPECT_NE(message({{"debug", "maybe"}}).find("debug"), std::string::npos);
  EXPECT_NE(message({{"vif_kernelscale", "0.5"}}).find("unknown option 'vif_kernelscale'"),
            std::string::npos);
  // libvmaf ignores the short names as options; vmafexact says so.
  EXPECT_NE(message({{"egl", "1"}}).find("vif_enhn_gain_limit"), std::string::npos);
  EXPECT_NE(message({{"ssclz", "true"}}).find("vif_skip_scale0"), std::string::npos);
}

TEST(VifLimits, SmallestSizeIs8x8) {
  const auto init_message = [](unsigned w, unsigned h, unsigned bpc) {
    auto extractor = make_feature_extractor("vif", {});
    try {
      extractor->init({w, h, bpc, ChromaFormat::k420});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(init_message(8, 8, 8), "no error");
  EXPECT_EQ(init_message(8, 4000, 16), "no error");
  // libvmaf: a width of 4..7 gives scale 3 a score of 0/0 (NaN); a height
  // below 8 crashes it (checked with its C build).
  for (const auto& [w, h] : {std::pair{7u, 64u}, std::pair{64u, 7u}, std::pair{1u, 1u}, std::pair{0u, 0u}}) {
    const std::string m = init_message(w, h, 8);
    EXPECT_NE(m.find("at least 8x8"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(w) + "x" + std::to_string(h)), std::string::npos) << m;
  }
  EXPECT_NE(init_message(64, 64, 9).find("bit depth"), std::string::npos);
}

// --- A shared fixture with a non-default option ------------------------------

TEST(VifFixture, GainLimitOneEqualsLibvmafsNegScores) {
  // vmaf_v0.6.1neg's VIF inputs (vif_enhn_gain_limit=1.0) in libvmaf's log of
  // pair a crf23; the conformance test compares them only once the whole neg
  // model can run.
  const auto log =
      test::load_reference_log(test::reference_dir() / "a_576x324_420p8_dis_x264crf23.neg.max.json");
  const PictureFormat format{576, 324, 8, ChromaFormat::k420};
  const auto dir = test::fixture_yuv_dir();
  const test::YuvFile ref(dir / "a_576x324_420p8_ref.yuv", format);
  const test::YuvFile dist(dir / "a_576x324_420p8_dis_x264crf23.yuv", format);
  ASSERT_EQ(ref.frame_count(), log.frames.size());
  auto extractor = make_feature_extractor("vif", {{"vif_enhn_gain_limit", "1.0"}});
  extractor->init(format);
  FeatureCollector scores;
  unsigned compared = 0;
  for (unsigned i = 0; i < ref.frame_count(); ++i) {
    extractor->extract(ref.frame(i), dist.frame(i), i, scores);
    for (unsigned s = 0; s < 4; ++s) {
      const std::string key = std::string(kKeys[s]) + "_egl_1";
      ASSERT_TRUE(log.frames[i].count(key)) << key;
      EXPECT_EQ(*scores.score(key, i), log.frames[i].at(key)) << key << " frame " << i;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4u * 48u);
}

// --- Bands: the per-pixel stage cut into row bands (common/bands.h) -------

// From 8 to 15 columns the fourth scale is one sample wide and reads what the
// buffers kept from the last row of the third scale, which another band may
// have run: every band must read what the serial pass reads.
TEST(VifBands, EverySmallSizeEqualsSerial) {
  PoolRunners pools;
  for (const vif::VifDsp* dsp : scalar_and_best_dsp())
    for (unsigned bpc : {8u, 10u})
      for (unsigned w = 8; w <= 17; ++w)
        for (unsigned h = 8; h <= 17; ++h) {
          const auto frames = test_frames(w, h, bpc, Pattern::kNoisyCopy, Pattern::kEdges);
          ASSERT_TRUE(expect_bands_equal_serial(w, h, bpc, {}, *dsp, frames, pools.all));
        }
}

TEST(VifBands, EveryDepthAndOptionEqualsSerial) {
  PoolRunners pools;
  for (const auto& [w, h] : {std::pair{33u, 35u}, std::pair{576u, 324u}})
    for (const vif::VifDsp* dsp : scalar_and_best_dsp())
      for (unsigned bpc : {8u, 10u, 12u, 16u})
        for (const vif::VifParams& params : kParamVariants) {
          // Random-ish, then structured; and the other way round.
          for (const auto& [first, second] : {std::pair{Pattern::kNoise, Pattern::kEdges},
                                              std::pair{Pattern::kExtremes, Pattern::kNoisyCopy}}) {
            const auto frames = test_frames(w, h, bpc, first, second);
            ASSERT_TRUE(expect_bands_equal_serial(w, h, bpc, params, *dsp, frames, pools.all));
          }
        }
}

// Cut as the Scorer's runners would cut them (kMinBandSamples).
TEST(VifBands, LargeFramesEqualSerial) {
  PoolRunners pools;
  for (const auto& [w, h] : {std::pair{1920u, 1080u}, std::pair{3840u, 2160u}})
    for (const vif::VifDsp* dsp : scalar_and_best_dsp())
      for (unsigned bpc : {8u, 10u}) {
        if (w > 1920 && bpc != 8) continue;  // one frame, one depth is enough at 4K
        const auto frames = test_frames(w, h, bpc, Pattern::kNoisyCopy, std::nullopt);
        ASSERT_TRUE(expect_bands_equal_serial(w, h, bpc, {}, *dsp, frames, pools.plain));
      }
}

TEST(VifBands, ReverseOrderOnOneThreadEqualsSerial) {
  ReverseBands reverse(5);
  const std::vector<PoolRunners::Named> runners{{"reverse max_bands 5", &reverse}};
  for (const vif::VifDsp* dsp : scalar_and_best_dsp()) {
    for (unsigned w = 8; w <= 17; ++w)
      for (unsigned h = 8; h <= 17; ++h) {
        const auto frames = test_frames(w, h, 12, Pattern::kNoise, Pattern::kNoisyCopy);
        ASSERT_TRUE(expect_bands_equal_serial(w, h, 12, {}, *dsp, frames, runners));
      }
    for (const auto& [w, h] : {std::pair{9u, 200u}, std::pair{33u, 35u}, std::pair{576u, 324u}})
      for (const vif::VifParams& params : kParamVariants) {
        const auto frames = test_frames(w, h, 8, Pattern::kNoisyCopy, Pattern::kExtremes);
        ASSERT_TRUE(expect_bands_equal_serial(w, h, 8, params, *dsp, frames, runners));
      }
  }
}

// One kernel whose runner changes from frame to frame (more, then fewer bands).
TEST(VifBands, RunnerMayChangeBetweenFrames) {
  PoolRunners pools;
  ReverseBands reverse(5);
  SmallBands pool16(pools.plain_runners.back());
  BandRunner* const sequence[] = {&serial_band_runner(), &reverse, &pool16, &reverse,
                                  &serial_band_runner()};
  for (const auto& [w, h] : {std::pair{9u, 131u}, std::pair{15u, 16u}, std::pair{64u, 40u}}) {
    const auto frames = test_frames(w, h, 8, Pattern::kNoise, Pattern::kEdges);
    vif::VifCpuStage serial(w, h, 8, {}), banded(w, h, 8, {});
    for (unsigned i = 0; i < std::size(sequence); ++i) {
      const FramePair& frame = frames[i % 2];
      const PlaneView ref = frame.ref.view().planes[0], dist = frame.dist.view().planes[0];
      EXPECT_EQ(banded.compute(ref, dist, *sequence[i]), serial.compute(ref, dist))
          << w << "x" << h << " frame " << i;
    }
  }
}

TEST(VifBands, ExtractorOnBandsEqualsLibvmaf) {
  PoolRunners pools;
  ReverseBands reverse(5);
  SmallBands pool7(pools.plain_runners[2]);
  for (BandRunner* runner : {static_cast<BandRunner*>(&reverse), static_cast<BandRunner*>(&pool7)})
    for (const auto& c : kLibvmafCases) {
      const auto scores = run_extractor(c, 2, runner);
      const std::string suffix = suffix_of(c.options);
      for (unsigned frame = 0; frame < 2; ++frame)
        for (unsigned k = 0; k < 15; ++k)
          EXPECT_EQ(*scores.score(kKeys[k] + suffix, frame), c.expected[k])
              << c.width << "x" << c.height << " " << c.options << ": " << kKeys[k] + suffix;
    }
}
