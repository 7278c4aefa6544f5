// Unit tests of metrics/adm/: the finishing function alone, the per-pixel
// stage, the extractor end to end, options, score names and errors.
//
// Expected scores were obtained from libvmaf 3.2.0's portable C build
// (/work/libvmaf-build/c, the API vmaf_read_pictures / vmaf_feature_score_at_index,
// printed with %.17g) on exactly the pictures fill_content() makes below.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "adm/adm.h"
#include "adm/adm_barten.h"
#include "adm/adm_dsp.h"
#include "adm/adm_extractor.h"
#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_collector.h"
#include "band_runners.h"
#include "common/thread_pool.h"
#include "registry.h"
#include "test_pictures.h"

using namespace vmafexact;

namespace {

// Deterministic synthetic content (xorshift64), shared by the tests and the
// program that obtained their expected values from libvmaf.
struct Xorshift {
  std::uint64_t state;
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<std::uint32_t>(state >> 32);
  }
};

enum class Content { kNoise, kEdges, kCheckerInverted, kGradientBlur, kFlat };

// Fills ref and dist (w x h, row-major, one sample per element) with content.
inline void fill_content(Content content, unsigned w, unsigned h, unsigned bpc, std::uint64_t seed,
                         std::vector<std::uint16_t>& ref, std::vector<std::uint16_t>& dist) {
  const int max = (1 << bpc) - 1;
  Xorshift rng{seed};
  ref.assign(std::size_t{w} * h, 0);
  dist.assign(std::size_t{w} * h, 0);
  const auto clamp = [max](int v) { return static_cast<std::uint16_t>(v < 0 ? 0 : v > max ? max : v); };
  for (unsigned y = 0; y < h; ++y) {
    for (unsigned x = 0; x < w; ++x) {
      const std::size_t i = std::size_t{y} * w + x;
      switch (content) {
        case Content::kNoise:
          ref[i] = static_cast<std::uint16_t>(rng.next() % (max + 1u));
          dist[i] = clamp(ref[i] + static_cast<int>(rng.next() % 33u) - 16);
          break;
        case Content::kEdges:
          ref[i] = ((x / 5 + y / 3) & 1) ? max : 0;
          dist[i] = (((x + 1) / 5 + y / 3) & 1) ? max : 0;
          if (i % 7 == 0) dist[i] = static_cast<std::uint16_t>(max - dist[i]);
          break;
        case Content::kCheckerInverted:
          ref[i] = ((x ^ y) & 1) ? max : 0;
          dist[i] = static_cast<std::uint16_t>(max - ref[i]);
          break;
        case Content::kGradientBlur:
          ref[i] = clamp(static_cast<int>((std::uint64_t{x} * max) / (w - 1) / 2 +
                                          (std::uint64_t{y} * y * max) / ((h - 1) * (h - 1)) / 2));
          break;
        case Content::kFlat:
          ref[i] = static_cast<std::uint16_t>(max / 3);
          dist[i] = ref[i];
          break;
      }
    }
  }
  if (content == Content::kGradientBlur) {
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        int sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int xx = std::min<int>(std::max<int>(static_cast<int>(x) + dx, 0), w - 1);
            const int yy = std::min<int>(std::max<int>(static_cast<int>(y) + dy, 0), h - 1);
            sum += ref[std::size_t{static_cast<unsigned>(yy)} * w + xx];
          }
        dist[std::size_t{y} * w + x] = clamp(sum / 9 + static_cast<int>(rng.next() % 9u) - 4);
      }
  }
}

// A luma-only picture of the samples, with padding after each row
// (tests/common/test_pictures.h).
using TestPicture = test::TestPlane;

struct Expected {
  const char* key;
  double value;
};

// Runs the extractor on one generated frame and returns its scores.
FeatureCollector run_extractor(Content content, unsigned w, unsigned h, unsigned bpc,
                               std::uint64_t seed, const FeatureOptions& options = {}) {
  std::vector<std::uint16_t> ref, dist;
  fill_content(content, w, h, bpc, seed, ref, dist);
  const TestPicture r(ref, w, h, bpc), d(dist, w, h, bpc, 11);
  auto extractor = make_feature_extractor("adm", options);
  extractor->init({w, h, bpc, ChromaFormat::k400});
  FeatureCollector scores;
  extractor->extract(r.view(), d.view(), 0, scores);
  return scores;
}

void expect_scores(const FeatureCollector& scores, const std::vector<Expected>& expected) {
  std::vector<std::string> keys;
  for (const auto& e : expected) keys.push_back(e.key);
  EXPECT_EQ(scores.names(), keys) << "keys or their order differ from libvmaf's";
  for (const auto& e : expected) {
    const auto value = scores.score(e.key, 0);
    ASSERT_TRUE(value.has_value()) << e.key;
    EXPECT_EQ(*value, e.value) << e.key;
  }
}

// Edges, 10 bits, 48x40, seed 2: the per-pixel stage's integer sums, and
// libvmaf's values for that frame (with debug=true for the per-scale floats).
const adm::FrameSums kEdges10Sums = {{{
    {{{61149236646795787, 2060319433650810, 2973772632}},
     {{224829392559642u, 118313747068482u, 22770531727488u}},
     {{56682465578419782, 176830984146684738, 45865524449682693}}},
    {{{4957353966552445, 616901067027385, 20178518568172}},
     {{77621084663917637u, 7299777921964396u, 19055474031623591u}},
     {{187030388053082, 115239263112366, 800348610857}}},
    {{{45553127257221, 45770954117133, 17414318739992}},
     {{799290642674145u, 387164460536901u, 1249269092619258u}},
     {{294126048566, 2291182265295, 31723622088}}},
    {{{0, 3214988707332, 0}},
     {{238181921611u, 2310921263188u, 17573566276u}},
     {{2446970407894, 47323059876803, 64250030366}}},
}}};

const std::vector<Expected> kEdges10Libvmaf = {
    {"integer_adm2", 0.61103309217983581},
    {"integer_aim", 0.40369927017891771},
    {"integer_adm3", 0.60366691100045911},
    {"integer_adm_scale0", 0.49696063230622822},
    {"integer_adm_scale1", 0.61240463547595647},
    {"integer_adm_scale2", 0.63432876301670027},
    {"integer_adm_scale3", 0.79036756865575131},
};
const std::array<double, 8> kEdges10NumDen = {
    19.577735900878906, 39.394943237304688, 59.472427368164062, 97.112960815429688,
    50.497200012207031, 79.6072998046875,   11.045292854309082, 13.974881172180176};

}  // namespace

// ---------------------------------------------------------------------------
// The finishing function alone.

TEST(AdmFinish, LibvmafSumsGiveLibvmafScores) {
  const adm::AdmOptions options;
  const auto scores = adm::finish_scores(kEdges10Sums, 48, 40, options, adm::csf_weights(options));
  for (int k = 0; k < 8; ++k) EXPECT_EQ(scores.num_den[k], kEdges10NumDen[k]) << k;
  EXPECT_EQ(scores.num, 140.59265613555908);  // libvmaf's integer_adm_num
  EXPECT_EQ(scores.den, 230.09008502960205);  // libvmaf's integer_adm_den
  EXPECT_EQ(scores.adm2, kEdges10Libvmaf[0].value);
  EXPECT_EQ(scores.aim, kEdges10Libvmaf[1].value);
  EXPECT_EQ(scores.adm3, kEdges10Libvmaf[2].value);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(scores.scale[s], kEdges10Libvmaf[3 + s].value) << s;
}

TEST(AdmFinish, ZeroSumsLeaveOnlyTheNoiseFloor) {
  // No detail at all: numerator and denominator are the same noise floor, so
  // every ratio is exactly 1 and AIM is 0 (libvmaf on a flat 33x33 frame agrees).
  const adm::AdmOptions options;
  const auto scores = adm::finish_scores({}, 48, 40, options, adm::csf_weights(options));
  EXPECT_EQ(scores.adm2, 1.0);
  EXPECT_EQ(scores.aim, 0.0);
  EXPECT_EQ(scores.adm3, 1.0);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(scores.scale[s], 1.0) << s;
    EXPECT_GT(scores.num_den[2 * s], 0.0);
  }
}

TEST(AdmFinish, ZeroDenominatorScoresOne) {
  adm::AdmOptions options;
  options.noise_weight = 0.0;  // no noise floor: a flat reference has den == 0
  const auto scores = adm::finish_scores({}, 48, 40, options, adm::csf_weights(options));
  EXPECT_EQ(scores.adm2, 1.0);
  EXPECT_EQ(scores.den, 0.0);
  EXPECT_EQ(scores.aim, 0.0);  // libvmaf leaves this undefined; vmafexact writes 0
}

TEST(AdmFinish, SkippedScaleZeroHasLibvmafsPlaceholder) {
  adm::AdmOptions options;
  options.skip_scale0 = true;
  const auto scores = adm::finish_scores(kEdges10Sums, 48, 40, options, adm::csf_weights(options));
  EXPECT_EQ(scores.num_den[0], 0.0);
  EXPECT_EQ(scores.num_den[1], static_cast<double>(1e-10f));
  EXPECT_EQ(scores.scale[0], 0.0);
  EXPECT_EQ(scores.num_den[2], kEdges10NumDen[2]);  // other scales unchanged
}

TEST(AdmFinish, Adm3WeightsAndClips) {
  adm::AdmOptions options;
  options.dlm_weight = 0.25;
  const auto w = adm::csf_weights(options);
  const auto scores = adm::finish_scores(kEdges10Sums, 48, 40, options, w);
  EXPECT_EQ(scores.adm3, scores.adm2 * 0.25 + (1 - scores.aim) * (1 - 0.25));
  options.min_val = 0.9;
  EXPECT_EQ(adm::finish_scores(kEdges10Sums, 48, 40, options, w).adm3, 0.9);
}

TEST(AdmFinish, CsfWeightsOfTheDefaultViewingCondition) {
  const auto w = adm::csf_weights({});
  // libvmaf's fixed scale-0 constants at 3 heights of 1080 lines.
  EXPECT_EQ(w.scale0_fixed, (std::array<std::uint16_t, 3>{36453, 36453, 49417}));
  EXPECT_EQ(w.rfactor[0][0], w.rfactor[0][1]);
  for (int s = 1; s < 4; ++s) EXPECT_GT(w.fixed[s][0], w.fixed[s][2]);
}

// ---------------------------------------------------------------------------
// The per-pixel stage.

TEST(AdmSums, EdgesTenBitGiveTheSumsThatFinishToLibvmaf) {
  std::vector<std::uint16_t> ref, dist;
  fill_content(Content::kEdges, 48, 40, 10, 2, ref, dist);
  const TestPicture r(ref, 48, 40, 10), d(dist, 48, 40, 10, 0);
  adm::AdmCpuStage computer(48, 40, {});
  const auto sums = computer.compute(r.plane(), d.plane(), 10);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(sums.scales[s].num, kEdges10Sums.scales[s].num) << s;
    EXPECT_EQ(sums.scales[s].den, kEdges10Sums.scales[s].den) << s;
    EXPECT_EQ(sums.scales[s].aim, kEdges10Sums.scales[s].aim) << s;
  }
  // The same computer gives the same sums again (no state between frames).
  EXPECT_EQ(computer.compute(r.plane(), d.plane(), 10).scales[3].aim,
            kEdges10Sums.scales[3].aim);
}

TEST(AdmSums, FlatPicturesHaveNoDetail) {
  for (const unsigned bpc : {8u, 10u, 12u, 16u}) {
    std::vector<std::uint16_t> ref, dist;
    fill_content(Content::kFlat, 37, 35, bpc, 0, ref, dist);
    const TestPicture r(ref, 37, 35, bpc), d(dist, 37, 35, bpc);
    adm::AdmCpuStage computer(37, 35, {});
    const auto sums = computer.compute(r.plane(), d.plane(), bpc);
    for (const auto& scale : sums.scales) {
      EXPECT_EQ(scale.num, (std::array<std::int64_t, 3>{})) << bpc;
      EXPECT_EQ(scale.den, (std::array<std::uint64_t, 3>{})) << bpc;
      EXPECT_EQ(scale.aim, (std::array<std::int64_t, 3>{})) << bpc;
    }
  }
}

// ---------------------------------------------------------------------------
// The per-pixel stage cut into row bands (common/bands.h): any runner, any
// number of bands and any order of them give the sums of one pass.

namespace vmafexact::adm {
// gtest prints the sums of a failed comparison.
void PrintTo(const FrameSums& sums, std::ostream* os) {
  for (const auto& scale : sums.scales)
    for (int theta = 0; theta < 3; ++theta)
      *os << scale.num[theta] << "/" << scale.den[theta] << "/" << scale.aim[theta] << " ";
}
}  // namespace vmafexact::adm

namespace {

// Last band first on the calling thread, cut as the Scorer cuts.
struct ReverseBandRunner : test::ReverseBands {
  explicit ReverseBandRunner(unsigned max_bands) : ReverseBands(max_bands, kMinBandSamples) {}
};

enum class OptionSet { kDefaults, kGainLimitOne, kSkipScale0, kSkipAim };

adm::AdmOptions adm_options(OptionSet set) {
  adm::AdmOptions options;
  if (set == OptionSet::kGainLimitOne) options.enhn_gain_limit = 1.0;
  if (set == OptionSet::kSkipScale0) options.skip_scale0 = true;
  if (set == OptionSet::kSkipAim) options.skip_aim = true;
  return options;
}

struct BandCase {
  unsigned w, h, bpc;
  Content content;
  OptionSet options;
};

std::vector<BandCase> band_cases() {
  std::vector<BandCase> cases;
  const OptionSet all[] = {OptionSet::kDefaults, OptionSet::kGainLimitOne, OptionSet::kSkipScale0,
                           OptionSet::kSkipAim};
  // Small pictures (too small to be cut: the runners' one-band path) at
  // every bit depth, and a cut one at 8 and 10 bits with every option set
  // (and once at 12 and 16 bits).
  for (const auto& [w, h] : {std::pair{33u, 33u}, {35u, 37u}})
    for (unsigned bpc : {8u, 10u, 12u, 16u})
      for (Content content : {Content::kNoise, Content::kEdges})
        for (OptionSet options : all) cases.push_back({w, h, bpc, content, options});
  for (unsigned bpc : {8u, 10u})
    for (Content content : {Content::kNoise, Content::kGradientBlur})
      for (OptionSet options : all) cases.push_back({576, 324, bpc, content, options});
  cases.push_back({576, 324, 12, Content::kEdges, OptionSet::kDefaults});
  cases.push_back({576, 324, 16, Content::kNoise, OptionSet::kGainLimitOne});
  // One frame of each large case: every option set once at 1080p, and 4K.
  cases.push_back({1920, 1080, 8, Content::kNoise, OptionSet::kDefaults});
  cases.push_back({1920, 1080, 10, Content::kEdges, OptionSet::kGainLimitOne});
  cases.push_back({1920, 1080, 8, Content::kGradientBlur, OptionSet::kSkipScale0});
  cases.push_back({1920, 1080, 10, Content::kNoise, OptionSet::kSkipAim});
  cases.push_back({3840, 2160, 8, Content::kGradientBlur, OptionSet::kDefaults});
  cases.push_back({3840, 2160, 10, Content::kEdges, OptionSet::kSkipAim});
  return cases;
}

// The scalar table and the best one of this CPU (the same where it has none).
std::vector<const adm::AdmDsp*> band_test_dsps() {
  std::vector<const adm::AdmDsp*> dsps = {&adm::adm_dsp_scalar()};
  const adm::AdmDsp& best = adm::adm_dsp(cpu::detected_flags());
  if (&best != dsps.front()) dsps.push_back(&best);
  return dsps;
}

}  // namespace

TEST(AdmBands, PoolRunnersGiveTheSerialSums) {
  ThreadPool pool(3);
  for (const BandCase& c : band_cases()) {
    std::vector<std::uint16_t> ref, dist;
    fill_content(c.content, c.w, c.h, c.bpc, c.w + c.bpc, ref, dist);
    const TestPicture r(ref, c.w, c.h, c.bpc), d(dist, c.w, c.h, c.bpc, 11);
    for (const adm::AdmDsp* dsp : band_test_dsps()) {
      adm::AdmCpuStage computer(c.w, c.h, adm_options(c.options), *dsp);
      const adm::FrameSums serial = computer.compute(r.plane(), d.plane(), c.bpc);
      for (unsigned max_bands : {2u, 3u, 7u, 16u}) {
        PoolBandRunner runner(pool, max_bands);
        EXPECT_EQ(computer.compute(r.plane(), d.plane(), c.bpc, runner), serial)
            << dsp->isa << " " << c.w << "x" << c.h << " bpc " << c.bpc << " content "
            << static_cast<int>(c.content) << " options " << static_cast<int>(c.options)
            << " max_bands " << max_bands;
      }
    }
  }
}

TEST(AdmBands, ReverseOrderOnOneThreadGivesTheSerialSums) {
  for (const auto& [w, h] : {std::pair{576u, 324u}, {1920u, 1080u}})
    for (const adm::AdmDsp* dsp : band_test_dsps()) {
      std::vector<std::uint16_t> ref, dist;
      fill_content(Content::kNoise, w, h, 10, 7, ref, dist);
      const TestPicture r(ref, w, h, 10), d(dist, w, h, 10);
      adm::AdmCpuStage computer(w, h, {}, *dsp);
      const adm::FrameSums serial = computer.compute(r.plane(), d.plane(), 10);
      ReverseBandRunner reverse(5);
      EXPECT_EQ(computer.compute(r.plane(), d.plane(), 10, reverse), serial)
          << dsp->isa << " " << w << "x" << h;
      EXPECT_EQ(reverse.most_bands, 5u) << "the passes were not cut";
    }
}

TEST(AdmBands, ExtractorRunsItsStagesOnTheBandRunner) {
  std::vector<std::uint16_t> ref, dist;
  fill_content(Content::kEdges, 576, 324, 8, 3, ref, dist);
  const TestPicture r(ref, 576, 324, 8), d(dist, 576, 324, 8);
  FeatureCollector serial, banded;
  auto extractor = make_feature_extractor("adm", {{"debug", "true"}});
  extractor->init({576, 324, 8, ChromaFormat::k400});
  extractor->extract(r.view(), d.view(), 0, serial);
  ReverseBandRunner reverse(4);
  extractor->set_band_runner(reverse);
  extractor->extract(r.view(), d.view(), 0, banded);
  EXPECT_EQ(reverse.most_bands, 4u);
  ASSERT_EQ(banded.names(), serial.names());
  for (const auto& name : serial.names()) EXPECT_EQ(banded.score(name, 0), serial.score(name, 0)) << name;
}

// ---------------------------------------------------------------------------
// The extractor against libvmaf.

TEST(AdmExtractor, NoiseEightBitWithDebugValues) {
  expect_scores(run_extractor(Content::kNoise, 67, 45, 8, 1, {{"debug", "true"}}),
                {{"integer_adm2", 0.94899451598623219},
                 {"integer_aim", 0},
                 {"integer_adm3", 0.97449725799311615},
                 {"integer_adm_scale0", 0.9541729543298928},
                 {"integer_adm_scale1", 0.95309051803038625},
                 {"integer_adm_scale2", 0.94616899176231106},
                 {"integer_adm_scale3", 0.9384611292756242},
                 {"integer_adm", 0.94899451598623219},
                 {"integer_adm_num", 132.53268051147461},
                 {"integer_adm_den", 139.65589714050293},
                 {"integer_adm_num_scale0", 35.647716522216797},
                 {"integer_adm_den_scale0", 37.359806060791016},
                 {"integer_adm_num_scale1", 39.724224090576172},
                 {"integer_adm_den_scale1", 41.67938232421875},
                 {"integer_adm_num_scale2", 33.673187255859375},
                 {"integer_adm_den_scale2", 35.588977813720703},
                 {"integer_adm_num_scale3", 23.487552642822266},
                 {"integer_adm_den_scale3", 25.027730941772461}});
}

TEST(AdmExtractor, EdgesTenBit) {
  expect_scores(run_extractor(Content::kEdges, 48, 40, 10, 2), kEdges10Libvmaf);
}

TEST(AdmExtractor, MaximalValuesSixteenBit) {
  // A 0/65535 checkerboard against its inverse: the hardest edges there are.
  expect_scores(run_extractor(Content::kCheckerInverted, 40, 36, 16, 3),
                {{"integer_adm2", 0.60307736121440059},
                 {"integer_aim", 0.3964144796810764},
                 {"integer_adm3", 0.60333144076666212},
                 {"integer_adm_scale0", 0.38521076281336081},
                 {"integer_adm_scale1", 0.99209361912813754},
                 {"integer_adm_scale2", 0.99828699611597949},
                 {"integer_adm_scale3", 0.99567004386417546}});
}

TEST(AdmExtractor, EdgesSixteenBitTallOddSize) {
  expect_scores(run_extractor(Content::kEdges, 35, 97, 16, 7),
                {{"integer_adm2", 0.60799250336866006},
                 {"integer_aim", 0.29658390463798578},
                 {"integer_adm3", 0.65570429936533714},
                 {"integer_adm_scale0", 0.62825415273944873},
                 {"integer_adm_scale1", 0.75982307611123212},
                 {"integer_adm_scale2", 0.51505798541311709},
                 {"integer_adm_scale3", 0.32198737463076094}});
}

TEST(AdmExtractor, GradientBlurTwelveBit) {
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 12, 4),
                {{"integer_adm2", 0.99328481429825455},
                 {"integer_aim", 0.0014300906917777015},
                 {"integer_adm3", 0.99592736180323849},
                 {"integer_adm_scale0", 0.9990118838288955},
                 {"integer_adm_scale1", 0.97083576506217173},
                 {"integer_adm_scale2", 0.98291277074036865},
                 {"integer_adm_scale3", 1.0009471181981826}});
}

TEST(AdmExtractor, FlatSmallestPicture) {
  expect_scores(run_extractor(Content::kFlat, 33, 33, 8, 5),
                {{"integer_adm2", 1},
                 {"integer_aim", 0},
                 {"integer_adm3", 1},
                 {"integer_adm_scale0", 1},
                 {"integer_adm_scale1", 1},
                 {"integer_adm_scale2", 1},
                 {"integer_adm_scale3", 1}});
}

TEST(AdmExtractor, EnhancementGainLimitOne) {
  // vmaf_v0.6.1neg's setting; the keys carry libvmaf's suffix.
  expect_scores(run_extractor(Content::kEdges, 67, 45, 8, 6, {{"adm_enhn_gain_limit", "1"}}),
                {{"integer_adm2_egl_1", 0.55150804244617846},
                 {"integer_aim_egl_1", 0.33562918944737158},
                 {"integer_adm3_egl_1", 0.60793942649940347},
                 {"integer_adm_scale0_egl_1", 0.45949696679555679},
                 {"integer_adm_scale1_egl_1", 0.56866669015402627},
                 {"integer_adm_scale2_egl_1", 0.63275005512190419},
                 {"integer_adm_scale3_egl_1", 0.2981518014792362}});
}

TEST(AdmExtractor, OtherViewingCondition) {
  // Not the default condition: scale 0 uses the computed Q21/Q23 weights.
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 8, 8,
                              {{"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "5"}}),
                {{"integer_adm2_nvd_5_rdh_2160", 0.99308680655999471},
                 {"integer_aim_nvd_5_rdh_2160", 0.010351991305792773},
                 {"integer_adm3_nvd_5_rdh_2160", 0.99136740762710096},
                 {"integer_adm_scale0_nvd_5_rdh_2160", 1.0001915840982918},
                 {"integer_adm_scale1_nvd_5_rdh_2160", 0.98964679922138399},
                 {"integer_adm_scale2_nvd_5_rdh_2160", 0.98203914663822534},
                 {"integer_adm_scale3_nvd_5_rdh_2160", 0.99481061674678706}});
}

// libvmaf's C path (--cpumask 255) on the same pictures, written as 4:2:0
// with neutral chroma, one frame; the Barten CSF modes.
TEST(AdmExtractor, BartenCsf) {
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 8, 8, {{"adm_csf_mode", "1"}}),
                {{"integer_adm2_csf_1", 0.036973238750666111},
                 {"integer_aim_csf_1", 0.00057180545745874785},
                 {"integer_adm3_csf_1", 0.51820071664660372},
                 {"integer_adm_scale0_csf_1", 0.47975468056062248},
                 {"integer_adm_scale1_csf_1", 0.02777525783153104},
                 {"integer_adm_scale2_csf_1", 0.040973936833958419},
                 {"integer_adm_scale3_csf_1", 0.036037028522554304}});
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 8, 8,
                              {{"adm_csf_mode", "1"}, {"adm_csf_scale", "0.5"},
                               {"adm_csf_diag_scale", "2"}}),
                {{"integer_adm2_scfd_2_csf_1_scf_0.5", 0.039999018170762318},
                 {"integer_aim_scfd_2_csf_1_scf_0.5", 0.0023434791905506619},
                 {"integer_adm3_scfd_2_csf_1_scf_0.5", 0.51882776949010578},
                 {"integer_adm_scale0_scfd_2_csf_1_scf_0.5", 0.6452432578841456},
                 {"integer_adm_scale1_scfd_2_csf_1_scf_0.5", 0.18491460350053668},
                 {"integer_adm_scale2_scfd_2_csf_1_scf_0.5", 0.042616303278479838},
                 {"integer_adm_scale3_scfd_2_csf_1_scf_0.5", 0.03610305773857065}});
}

TEST(AdmExtractor, BartenWatsonBlends) {
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 8, 8, {{"adm_csf_mode", "2"}}),
                {{"integer_adm2_csf_2", 0.98209083423566323},
                 {"integer_aim_csf_2", 0.032127435090896189},
                 {"integer_adm3_csf_2", 0.97498169957238345},
                 {"integer_adm_scale0_csf_2", 1.0009885171158841},
                 {"integer_adm_scale1_csf_2", 0.94663310993466032},
                 {"integer_adm_scale2_csf_2", 0.95204658677174647},
                 {"integer_adm_scale3_csf_2", 0.993121022607516}});
  expect_scores(run_extractor(Content::kGradientBlur, 71, 53, 8, 8, {{"adm_csf_mode", "3"}}),
                {{"integer_adm2_csf_3", 0.98226552219461172},
                 {"integer_aim_csf_3", 0.034157195961799759},
                 {"integer_adm3_csf_3", 0.97405416311640591},
                 {"integer_adm_scale0_csf_3", 1.0009394331235395},
                 {"integer_adm_scale1_csf_3", 0.95086804787026558},
                 {"integer_adm_scale2_csf_3", 0.95489280912463181},
                 {"integer_adm_scale3_csf_3", 0.99310825547200365}});
  // VMAF v1.0.16's options (vmaf_v1.0.16_3d0h), 10 bits.
  expect_scores(
      run_extractor(Content::kEdges, 48, 40, 10, 2,
                    {{"adm_dlm_weight", "0.7"}, {"adm_enhn_gain_limit", "1.0"},
                     {"adm_noise_weight", "0.02"}, {"adm_norm_view_dist", "3.0"},
                     {"adm_ref_display_height", "1080"}, {"adm_min_val", "0.5"},
                     {"adm_csf_mode", "2"}}),
      {{"integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.5615453160306112},
       {"integer_aim_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.48490161426412826},
       {"integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.54761123694218938},
       {"integer_adm_scale0_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.50493891015998671},
       {"integer_adm_scale1_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.61199405148952635},
       {"integer_adm_scale2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.63245048415332039},
       {"integer_adm_scale3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", 0.099819081546609997}});
}

TEST(AdmExtractor, SkipScaleZero) {
  expect_scores(run_extractor(Content::kNoise, 67, 45, 10, 9, {{"adm_skip_scale0", "true"}}),
                {{"integer_adm2_ssz", 0.98642425323887739},
                 {"integer_aim_ssz", 0},
                 {"integer_adm3_ssz", 0.9932121266194387},
                 {"integer_adm_scale0_ssz", 0},
                 {"integer_adm_scale1_ssz", 0.99210404396671215},
                 {"integer_adm_scale2_ssz", 0.98419649275582999},
                 {"integer_adm_scale3_ssz", 0.97940198984314075}});
}

// ---------------------------------------------------------------------------
// Options, names and errors.

TEST(AdmOptions, ScoreNamesFollowLibvmaf) {
  const auto key = [](const FeatureOptions& options) {
    return make_feature_extractor("adm", options)->score_key("VMAF_integer_feature_adm2_score");
  };
  EXPECT_EQ(key({}), "integer_adm2");
  EXPECT_EQ(key({{"adm_enhn_gain_limit", "1.0"}}), "integer_adm2_egl_1");
  EXPECT_EQ(key({{"adm_enhn_gain_limit", "1.2"}}), "integer_adm2_egl_1.2");
  EXPECT_EQ(key({{"adm_enhn_gain_limit", "100"}}), "integer_adm2");  // the default
  EXPECT_EQ(key({{"debug", "true"}, {"adm_skip_aim", "true"}}), "integer_adm2");  // not parameters
  EXPECT_EQ(key({{"adm_skip_scale0", "true"}}), "integer_adm2_ssz");
  EXPECT_EQ(key({{"adm_csf_scale", "2"}, {"adm_noise_weight", "0.5"}, {"adm_min_val", "0.1"}}),
            "integer_adm2_scf_2_min_0.1_nw_0.5");  // alphabetical by option name
  EXPECT_EQ(key({{"adm_dlm_weight", "0.7"}, {"adm_csf_diag_scale", "3"}}),
            "integer_adm2_scfd_3_dlmw_0.7");
  EXPECT_EQ(make_feature_extractor("adm", {{"adm_enhn_gain_limit", "1"}})
                ->score_key("integer_adm_scale2"),
            "integer_adm_scale2_egl_1");
}

TEST(AdmOptions, ProvidesLibvmafsFeatureNames) {
  const auto provided = make_feature_extractor("adm", {})->provided_features();
  ASSERT_GE(provided.size(), 7u);
  EXPECT_EQ(provided[0], "VMAF_integer_feature_adm2_score");
  EXPECT_EQ(provided[1], "VMAF_integer_feature_aim_score");
  EXPECT_EQ(provided[2], "VMAF_integer_feature_adm3_score");
  EXPECT_EQ(provided[3], "integer_adm_scale0");
  EXPECT_EQ(provided[6], "integer_adm_scale3");
}

TEST(AdmOptions, RejectsWhatLibvmafRejects) {
  const auto make = [](const FeatureOptions& options) { make_feature_extractor("adm", options); };
  EXPECT_THROW(make({{"adm_enhn_gain_limit", "0.5"}}), Error);   // below 1
  EXPECT_THROW(make({{"adm_enhn_gain_limit", "101"}}), Error);   // above 100
  EXPECT_THROW(make({{"adm_enhn_gain_limit", "x"}}), Error);
  // libvmaf knows options by name only (it would silently ignore an alias);
  // vmafexact refuses unknown names.
  EXPECT_THROW(make({{"egl", "1"}}), Error);
  EXPECT_THROW(make({{"adm_ref_display_height", "4321"}}), Error);
  EXPECT_THROW(make({{"no_such_option", "1"}}), Error);
  // libvmaf accepts these at init but fails every frame: refused up front.
  EXPECT_THROW(make({{"adm_norm_view_dist", "1.5"}}), Error);
  EXPECT_THROW(make({{"adm_ref_display_height", "720"}}), Error);
  EXPECT_NO_THROW(make({{"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}}));
}

TEST(AdmOptions, BlendedCsfModesNeedATabulatedViewingCondition) {
  for (const char* mode : {"2", "3"}) {
    try {
      make_feature_extractor("adm", {{"adm_csf_mode", mode}, {"adm_ref_display_height", "1000"},
                                     {"adm_norm_view_dist", "4"}});
      FAIL() << "no error for mode " << mode;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("adm_norm_view_dist=4"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("2160 with 1.5"), std::string::npos) << e.what();
    }
    // The tables of 480 lines and of 720 at 3 heights are below libvmaf's
    // 3 x 1080 limit, which refuses them first.
    for (const auto& [height, distance] : {std::pair{"1080", "3"}, {"1080", "5.0"}, {"2160", "1.5"},
                                           {"2160", "3"}, {"2160", "5"}, {"720", "5"}})
      EXPECT_NO_THROW(make_feature_extractor("adm", {{"adm_csf_mode", mode},
                                                     {"adm_ref_display_height", height},
                                                     {"adm_norm_view_dist", distance}}));
  }
  // Barten's own CSF (mode 1) is a formula: any condition libvmaf takes.
  EXPECT_NO_THROW(make_feature_extractor(
      "adm", {{"adm_csf_mode", "1"}, {"adm_ref_display_height", "1000"}, {"adm_norm_view_dist", "4"}}));
}

TEST(AdmFinish, BartenWeightsAreLibvmafs) {
  // barten_csf() of libvmaf's barten_csf_tools.h at 3 heights of 1080 lines,
  // levels 0..3 (printed with %a by a program calling libvmaf's header).
  adm::AdmOptions barten;
  barten.csf_mode = adm::kCsfBarten;
  const auto w = adm::csf_weights(barten);
  const float expected[4] = {0x1.35e31ap+0f, 0x1.42b3c6p+2f, 0x1.d410eap+3f, 0x1.af9d36p+4f};
  for (int s = 0; s < 4; ++s)
    for (int theta = 0; theta < 3; ++theta) EXPECT_EQ(w.rfactor[s][theta], expected[s]) << s;
  // Weights above 1 wrap in libvmaf's fixed point as x86-64 code truncates them.
  EXPECT_EQ(w.scale0_fixed, (std::array<std::uint16_t, 3>{48227, 48227, 61837}));
  EXPECT_EQ(w.fixed[1][0], 181344256u);
  EXPECT_EQ(w.fixed[3][0], 4191379456u);
  // Mode 2: the table of 1080 lines at 3 heights, h/v then d.
  adm::AdmOptions blend;
  blend.csf_mode = adm::kCsfBartenWatsonBlend;
  const auto b = adm::csf_weights(blend);
  EXPECT_EQ(b.rfactor[0][0], 0.01183f);
  EXPECT_EQ(b.rfactor[0][2], 0.004302f);
  EXPECT_EQ(b.rfactor[3][1], 0.058621f);
  EXPECT_EQ(b.scale0_fixed[0], static_cast<std::uint16_t>(0.01183f * 2097152.0));
}

TEST(AdmErrors, PicturesBelow33x33AreRefusedWithTheLimit) {
  auto extractor = make_feature_extractor("adm", {});
  for (const auto& [w, h] : {std::pair{32u, 100u}, {100u, 32u}, {16u, 16u}, {1u, 1u}}) {
    try {
      extractor->init({w, h, 8, ChromaFormat::k420});
      FAIL() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("33x33"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(extractor->init({33, 33, 8, ChromaFormat::k420}));
  EXPECT_THROW(extractor->init({64, 64, 9, ChromaFormat::k420}), Error);
}
