// Conformance: vmafexact's metrics against libvmaf 3.2.0's own %.17g output on
// every shared fixture pair. Every value is compared with ==; one difference fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "../common/build_paths.h"
#include "common/error.h"
#include "fixtures.h"
#include "model/model.h"
#include "pooling/pooling.h"
#include "reference_setup.h"
#include "scorer.h"

using vmafexact::test::kSourceRoot;

using namespace vmafexact;
using vmafexact::test::FixturePair;

namespace {

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

unsigned env_unsigned(const char* name, unsigned fallback) {
  const char* value = std::getenv(name);
  return value && *value ? static_cast<unsigned>(std::strtoul(value, nullptr, 10)) : fallback;
}

// Every value the scorer wrote against the log, frame by frame and pooled,
// with ==, and the keys and their order against `expected_keys`.
void compare_with_log(const Scorer& scorer, const vmafexact::test::ReferenceLog& log,
                      const std::string& log_name, const std::vector<std::string>& expected_keys) {
  const auto& scores = scorer.scores();
  const unsigned frames = scorer.frames_pushed();
  unsigned identical = 0, compared = 0;
  for (unsigned i = 0; i < frames; ++i) {
    for (const auto& [name, value] : scores.frame_scores(i)) {
      const auto expected = log.frames[i].find(name);
      ASSERT_NE(expected, log.frames[i].end()) << name << " is not in the reference, frame " << i;
      ++compared;
      if (same_bits(value, expected->second))
        ++identical;
      else
        ADD_FAILURE() << log_name << " frame " << i << " " << name << ": vmafexact "
                      << std::hexfloat << value << " libvmaf " << expected->second
                      << std::defaultfloat;
    }
  }
  // Every key of the reference that vmafexact claims must be there, in libvmaf's order.
  EXPECT_EQ(scores.names(), expected_keys) << "keys or their order differ from libvmaf's";

  for (const auto& name : scores.names()) {
    const auto pooled = pool_scores(*scores.column(name), 0, frames - 1);
    ASSERT_TRUE(pooled);
    const auto& expected = log.pooled.at(name);
    const std::pair<const char*, double> ours[] = {{"min", pooled->min},
                                                   {"max", pooled->max},
                                                   {"mean", pooled->mean},
                                                   {"harmonic_mean", pooled->harmonic_mean}};
    for (const auto& [method, value] : ours) {
      ++compared;
      if (same_bits(value, expected.at(method)))
        ++identical;
      else
        ADD_FAILURE() << log_name << " pooled " << name << " " << method;
    }
  }
  // libvmaf's aggregate metrics (psnr's apsnr_*): names, order and values.
  std::vector<std::string> aggregate_names, expected_aggregate_names;
  for (const auto& [name, value] : scores.aggregates()) aggregate_names.push_back(name);
  for (const auto& [name, value] : log.aggregates) expected_aggregate_names.push_back(name);
  EXPECT_EQ(aggregate_names, expected_aggregate_names) << log_name << ": aggregate_metrics differ";
  for (std::size_t k = 0; k < scores.aggregates().size() && k < log.aggregates.size(); ++k) {
    ++compared;
    const double value = scores.aggregates()[k].second;
    // The log holds null for any non-finite value.
    const double expected = log.aggregates[k].second;
    if (same_bits(std::isfinite(value) ? value : std::nan(""), expected))
      ++identical;
    else
      ADD_FAILURE() << log_name << " aggregate " << scores.aggregates()[k].first << ": vmafexact "
                    << std::hexfloat << value << " libvmaf " << expected << std::defaultfloat;
  }
  std::printf("[conformance] %s: %u of %u values identical to libvmaf (%zu keys, %u frames, "
              "%zu aggregates)\n",
              log_name.c_str(), identical, compared, scores.names().size(), frames,
              scores.aggregates().size());
  EXPECT_EQ(identical, compared);
  EXPECT_GT(compared, 0u);
}

class Conformance : public ::testing::TestWithParam<FixturePair> {};

TEST_P(Conformance, EveryValueEqualsLibvmaf) {
  const FixturePair& pair = GetParam();
  const auto yuv_dir = vmafexact::test::fixture_yuv_dir();
  const auto log =
      vmafexact::test::load_reference_log(vmafexact::test::reference_dir() / pair.log_name);
  const auto setup = vmafexact::test::reference_setup(log, pair.log_name);
  EXPECT_TRUE(setup.unknown.empty()) << "reference keys unknown to the test: " << setup.unknown[0];
  // No key of any reference log is left out: every extractor is built.
  EXPECT_TRUE(setup.not_yet.empty()) << pair.log_name << ": " << setup.not_yet.size()
                                     << " keys without an extractor, the first "
                                     << (setup.not_yet.empty() ? "" : setup.not_yet[0]);
  ASSERT_FALSE(setup.empty()) << "nothing to score in " << pair.log_name;

  // Odd sizes: the files keep GStreamer's rounded-up chroma; the views read
  // libvmaf's rounded-down region, which is what the .vmafcli references scored.
  const vmafexact::test::YuvFile ref(yuv_dir / pair.ref_yuv, pair.format);
  const vmafexact::test::YuvFile dist(yuv_dir / pair.dist_yuv, pair.format);
  ASSERT_EQ(ref.frame_count(), dist.frame_count());
  ASSERT_EQ(ref.frame_count(), log.frames.size()) << "frame count differs from the reference";

  // meson also runs this suite with frames in flight and row bands on threads
  // (VMAFEXACT_TEST_THREADS, VMAFEXACT_TEST_FRAMES_IN_FLIGHT): same bits.
  ScorerOptions options;
  options.threads = env_unsigned("VMAFEXACT_TEST_THREADS", 1);
  options.frames_in_flight = env_unsigned("VMAFEXACT_TEST_FRAMES_IN_FLIGHT", 0);
  Scorer scorer(load_models(parse_model_list(setup.models)), parse_feature_list(setup.features),
                pair.format, options);
  for (unsigned i = 0; i < ref.frame_count(); ++i) scorer.push(ref.frame(i), dist.frame(i));
  scorer.finish();

  compare_with_log(scorer, log, pair.log_name, setup.expected_keys);
}

std::string test_name(const ::testing::TestParamInfo<FixturePair>& info) {
  std::string name = info.param.log_name.substr(0, info.param.log_name.size() - std::string(".max.json").size());
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(SharedFixtures, Conformance,
                         ::testing::ValuesIn(vmafexact::test::max_precision_pairs()), test_name);

namespace {

// libvmaf's sharing rule (docs/element.md, "Features"): an extra feature whose
// identity equals a model input's runs once. The references are libvmaf 3.2.0's
// `vmaf --cpumask 255` on pair a crf23 with these --model/--feature arguments
// (tests/fixtures/README.md); before the registry, each of them failed here with
// "score ... written twice".
struct SharingCase {
  const char* log_name;
  const char* models;
  const char* features;
};

class Sharing : public ::testing::TestWithParam<SharingCase> {};

TEST_P(Sharing, ScoresAsLibvmafsToolScoresIt) {
  const SharingCase& c = GetParam();
  const auto log = vmafexact::test::load_reference_log(
      std::filesystem::path(kSourceRoot) / "tests" / "fixtures" / "ref-sharing" / c.log_name);
  const PictureFormat format{576, 324, 8, ChromaFormat::k420};
  const auto yuv_dir = vmafexact::test::fixture_yuv_dir();
  const vmafexact::test::YuvFile ref(yuv_dir / "a_576x324_420p8_ref.yuv", format);
  const vmafexact::test::YuvFile dist(yuv_dir / "a_576x324_420p8_dis_x264crf23.yuv", format);
  ASSERT_EQ(ref.frame_count(), log.frames.size());
  ScorerOptions options;
  options.threads = env_unsigned("VMAFEXACT_TEST_THREADS", 1);
  options.frames_in_flight = env_unsigned("VMAFEXACT_TEST_FRAMES_IN_FLIGHT", 0);
  Scorer scorer(load_models(parse_model_list(c.models)), parse_feature_list(c.features), format,
                options);
  for (unsigned i = 0; i < ref.frame_count(); ++i) scorer.push(ref.frame(i), dist.frame(i));
  scorer.finish();
  compare_with_log(scorer, log, c.log_name, log.frame_key_order);
}

INSTANTIATE_TEST_SUITE_P(
    LibvmafRule, Sharing,
    ::testing::Values(
        SharingCase{"a_576x324_420p8_dis_x264crf23.share-motion-force-zero-false.max.json",
                    "vmaf_v0.6.1", "motion=motion_force_zero=false"},
        SharingCase{"a_576x324_420p8_dis_x264crf23.share-vif-debug.max.json", "vmaf_v0.6.1",
                    "vif=debug=true"},
        SharingCase{"a_576x324_420p8_dis_x264crf23.share-adm-egl-100.max.json", "vmaf_v0.6.1",
                    "adm=adm_enhn_gain_limit=100"},
        SharingCase{"a_576x324_420p8_dis_x264crf23.share-neg-adm-egl-1.max.json",
                    "vmaf_v0.6.1neg", "adm=adm_enhn_gain_limit=1.0"}),
    [](const ::testing::TestParamInfo<SharingCase>& info) { return std::to_string(info.index); });

}  // namespace
