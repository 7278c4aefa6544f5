// Conformance: vmafexact's metrics against libvmaf 3.2.0's own %.17g output on
// every shared fixture pair. Every value is compared with ==; one difference fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>

#include "fixtures.h"
#include "common/error.h"
#include "model/model.h"
#include "pooling/pooling.h"
#include "scorer.h"

using namespace vmafexact;
using vmafexact::test::FixturePair;

namespace {

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Scores libvmaf wrote in the fixtures that vmafexact does not claim yet: the
// float extractors (float_adm, float_vif, float_motion, float_ssim,
// float_ms_ssim) and cambi.
bool is_unclaimed_key(const std::string& key) {
  static const std::vector<std::string> unclaimed = {
      "float_ssim", "float_ms_ssim", "cambi", "adm2", "aim", "adm3", "adm_scale0",
      "adm_scale1", "adm_scale2", "adm_scale3", "vif_scale0", "vif_scale1", "vif_scale2",
      "vif_scale3", "motion", "motion2", "motion3"};
  return std::find(unclaimed.begin(), unclaimed.end(), key) != unclaimed.end();
}

bool feature_available(const std::string& name) {
  try {
    make_feature_extractor(name);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// What vmafexact must run to produce the keys of a reference log: the models
// (vmaf = vmaf_v0.6.1, vmaf_neg = vmaf_v0.6.1neg) and the extra features.
struct Setup {
  std::vector<ScoredModel> models;
  std::vector<FeatureRequest> features;
  std::vector<std::string> not_yet;  // keys skipped because their feature is not built yet
};

// A built-in model whose every input has an extractor in this build, renamed.
std::optional<ScoredModel> usable_model(const char* version, const std::string& key) {
  try {
    auto model = model::load_builtin_model(version);
    for (const auto& feature : model.features()) extractor_for_feature(feature.name);
    return ScoredModel{std::move(model), key, {}};
  } catch (const Error&) {
    return std::nullopt;
  }
}

Setup setup_for(const vmafexact::test::ReferenceLog& log) {
  Setup setup;
  const auto has_key = [&](const char* key) {
    return std::find(log.frame_key_order.begin(), log.frame_key_order.end(), key) !=
           log.frame_key_order.end();
  };
  std::optional<ScoredModel> vmaf, vmaf_neg;
  if (has_key("vmaf")) vmaf = usable_model("vmaf_v0.6.1", "vmaf");
  if (has_key("vmaf_neg")) vmaf_neg = usable_model("vmaf_v0.6.1neg", "vmaf_neg");
  std::vector<std::string> wanted;
  for (const auto& key : log.frame_key_order) {
    if (is_unclaimed_key(key)) continue;
    if (key == "vmaf" || key == "vmaf_neg") {
      if (!(key == "vmaf" ? vmaf : vmaf_neg)) setup.not_yet.push_back(key);
      continue;
    }
    if (key.find("_egl_") != std::string::npos) {  // inputs of vmaf_v0.6.1neg only
      if (!vmaf_neg) setup.not_yet.push_back(key);
      continue;
    }
    std::string feature;
    if (starts_with(key, "psnr_")) feature = "psnr";
    else if (starts_with(key, "integer_vif")) feature = "vif";
    else if (starts_with(key, "integer_adm") || starts_with(key, "integer_aim")) feature = "adm";
    else if (starts_with(key, "integer_motion") || key == "VMAF_integer_feature_motion_sad_score")
      feature = "motion";
    else
      ADD_FAILURE() << "reference key " << key << " is not known to the conformance test";
    if (feature.empty()) continue;
    if (!feature_available(feature)) {
      setup.not_yet.push_back(key);
      continue;
    }
    if (std::find(wanted.begin(), wanted.end(), feature) == wanted.end()) wanted.push_back(feature);
  }
  if (vmaf) setup.models.push_back(std::move(*vmaf));
  if (vmaf_neg) setup.models.push_back(std::move(*vmaf_neg));
  for (const auto& feature : wanted) setup.features.push_back({feature, {}});
  return setup;
}

class Conformance : public ::testing::TestWithParam<FixturePair> {};

TEST_P(Conformance, EveryValueEqualsLibvmaf) {
  const FixturePair& pair = GetParam();
  const auto yuv_dir = vmafexact::test::fixture_yuv_dir();
  const auto log = vmafexact::test::load_reference_log(vmafexact::test::shared_dir() / "fixtures" /
                                                       "ref" / pair.log_name);
  auto setup = setup_for(log);
  for (const auto& key : setup.not_yet)
    std::printf("[conformance] %s: %s not compared, its feature is not built yet\n",
                pair.log_name.c_str(), key.c_str());
  if (setup.models.empty() && setup.features.empty())
    GTEST_SKIP() << "nothing in " << pair.log_name << " that this build computes";

  // Odd sizes: the files keep GStreamer's rounded-up chroma; the views read
  // libvmaf's rounded-down region, which is what the .vmafcli references scored.
  const vmafexact::test::YuvFile ref(yuv_dir / pair.ref_yuv, pair.format);
  const vmafexact::test::YuvFile dist(yuv_dir / pair.dist_yuv, pair.format);
  ASSERT_EQ(ref.frame_count(), dist.frame_count());
  ASSERT_EQ(ref.frame_count(), log.frames.size()) << "frame count differs from the reference";

  Scorer scorer(std::move(setup.models), setup.features, pair.format);
  for (unsigned i = 0; i < ref.frame_count(); ++i) scorer.push(ref.frame(i), dist.frame(i));
  scorer.finish();
  const auto& scores = scorer.scores();

  unsigned identical = 0, compared = 0;
  for (unsigned i = 0; i < ref.frame_count(); ++i) {
    for (const auto& [name, value] : scores.frame_scores(i)) {
      const auto expected = log.frames[i].find(name);
      ASSERT_NE(expected, log.frames[i].end()) << name << " is not in the reference, frame " << i;
      ++compared;
      if (same_bits(value, expected->second))
        ++identical;
      else
        ADD_FAILURE() << pair.log_name << " frame " << i << " " << name << ": vmafexact "
                      << std::hexfloat << value << " libvmaf " << expected->second
                      << std::defaultfloat;
    }
  }
  // Every key of the reference that vmafexact claims must be there, in libvmaf's order.
  std::vector<std::string> expected_order;
  for (const auto& key : log.frame_key_order)
    if (!is_unclaimed_key(key) &&
        std::find(setup.not_yet.begin(), setup.not_yet.end(), key) == setup.not_yet.end())
      expected_order.push_back(key);
  EXPECT_EQ(scores.names(), expected_order) << "keys or their order differ from libvmaf's";

  for (const auto& name : scores.names()) {
    const auto pooled = pool_scores(*scores.column(name), 0, scorer.frames_pushed() - 1);
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
        ADD_FAILURE() << pair.log_name << " pooled " << name << " " << method;
    }
  }
  std::printf("[conformance] %s: %u of %u values identical to libvmaf (%zu keys, %u frames)\n",
              pair.log_name.c_str(), identical, compared, scores.names().size(),
              scorer.frames_pushed());
  EXPECT_EQ(identical, compared);
  EXPECT_GT(compared, 0u);
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
