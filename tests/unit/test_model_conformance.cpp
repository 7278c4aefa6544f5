// Prediction conformance of the built-in models, independent of the feature
// extractors: every frame of every shared %.17g reference log that has a
// "vmaf" score is predicted again from that log's own feature values (libvmaf's
// exact doubles, printed with %.17g) and must equal libvmaf's "vmaf" value
// bit for bit; likewise vmaf_v0.6.1neg's inputs (the *_egl_1 scores) against
// "vmaf_neg".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fixtures.h"
#include "common/feature_options.h"
#include "model/model.h"

using namespace vmafexact;

namespace {

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The log key of a model input: libvmaf's alias of the feature name, with its
// options' suffix (the gain limits are the only options these models set).
std::string log_key(const model::ModelFeature& feature) {
  std::vector<NamedOption> named;
  for (const auto& [option, value] : feature.options) {
    EXPECT_TRUE(option == "adm_enhn_gain_limit" || option == "vif_enhn_gain_limit") << option;
    named.push_back({option, "egl", value});
  }
  return feature_name_with_options(feature.name, named);
}

struct Tally {
  unsigned logs = 0, frames = 0, identical = 0;
};

// Predicts every frame of `log` with `version` and compares with `score_key`.
void check_log(const std::string& log_name, const test::ReferenceLog& log, const char* version,
               const char* score_key, Tally& tally) {
  const model::Model m = model::load_builtin_model(version);
  std::vector<std::string> keys;
  for (const auto& feature : m.features()) keys.push_back(log_key(feature));
  unsigned identical = 0;
  for (std::size_t f = 0; f < log.frames.size(); ++f) {
    const auto& frame = log.frames[f];
    std::vector<double> values;
    for (const auto& key : keys) {
      const auto it = frame.find(key);
      ASSERT_NE(it, frame.end()) << log_name << " frame " << f << " lacks " << key;
      values.push_back(it->second);
    }
    const double expected = frame.at(score_key);
    const double got = m.predict(values, {});
    if (same_bits(got, expected))
      ++identical;
    else
      ADD_FAILURE() << log_name << " frame " << f << " " << score_key << ": libvmaf "
                    << testing::PrintToString(expected) << ", vmafexact "
                    << testing::PrintToString(got);
  }
  std::printf("[model conformance] %s: %s %u of %zu identical\n", log_name.c_str(), score_key,
              identical, log.frames.size());
  ++tally.logs;
  tally.frames += static_cast<unsigned>(log.frames.size());
  tally.identical += identical;
}

}  // namespace

TEST(ModelConformance, PredictionsFromReferenceFeatures) {
  Tally vmaf, vmaf_neg;
  for (const auto& pair : test::max_precision_pairs()) {
    const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
    if (log.frames.empty() || !log.frames[0].count("vmaf")) continue;
    check_log(pair.log_name, log, "vmaf_v0.6.1", "vmaf", vmaf);
    if (log.frames[0].count("vmaf_neg")) check_log(pair.log_name, log, "vmaf_v0.6.1neg", "vmaf_neg", vmaf_neg);
  }
  std::printf("[model conformance] vmaf_v0.6.1: %u of %u frames identical in %u logs\n",
              vmaf.identical, vmaf.frames, vmaf.logs);
  std::printf("[model conformance] vmaf_v0.6.1neg: %u of %u frames identical in %u logs\n",
              vmaf_neg.identical, vmaf_neg.frames, vmaf_neg.logs);
  // The fixtures hold vmaf in many logs and vmaf_neg in one (pair a, crf23).
  EXPECT_GE(vmaf.logs, 10u);
  EXPECT_GE(vmaf_neg.logs, 1u);
  EXPECT_EQ(vmaf.identical, vmaf.frames);
  EXPECT_EQ(vmaf_neg.identical, vmaf_neg.frames);
}
