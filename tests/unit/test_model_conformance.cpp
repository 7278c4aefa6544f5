// Prediction conformance of the built-in models, independent of the feature
// extractors: every frame of every shared %.17g reference log that has a
// "vmaf" score is predicted again from that log's own feature values (libvmaf's
// exact doubles, printed with %.17g) and must equal libvmaf's "vmaf" value
// bit for bit; likewise vmaf_v0.6.1neg's inputs (the *_egl_1 scores) against
// "vmaf_neg", and the VMAF v1 models against their scores in the .v1 and
// .v1all logs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fixtures.h"
#include "reference_setup.h"
#include "common/feature_options.h"
#include "model/model.h"
#include "registry.h"
#include "scorer.h"

using namespace vmafexact;

namespace {

bool same_bits(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// The log key of a model input: libvmaf's alias of the feature name, with its
// options' suffix, as the extractor that provides it names it.
std::string log_key(const model::ModelFeature& feature) {
  const FeatureEntry* entry = feature_entry_providing(feature.name);
  EXPECT_NE(entry, nullptr) << feature.name;
  if (!entry) return feature.name;
  return entry->descriptor.parse(feature.options).score_key(feature.name);
}

constexpr const char* kV1Inputs[] = {"Cambi_feature_cambi_score",
                                     "Speed_chroma_feature_speed_chroma_uv_score"};
constexpr const char* kOtherV1Models[] = {
    "vmaf_v1.0.16_5d0h",     "vmaf_v1.0.16_3d0h_2160",     "vmaf_v1.0.16_1d5h_2160",
    "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",      "vmaf_v1.0.16_hfr_3d0h_2160",
    "vmaf_v1.0.16_hfr_1d5h_2160"};

struct Tally {
  unsigned logs = 0, frames = 0, identical = 0;
};

// Predicts every frame of `log` with the model and compares with `score_key`.
void check_log(const std::string& log_name, const test::ReferenceLog& log, const model::Model& m,
               const char* score_key, Tally& tally) {
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

void check_log(const std::string& log_name, const test::ReferenceLog& log, const char* version,
               const char* score_key, Tally& tally) {
  check_log(log_name, log, model::load_builtin_model(version), score_key, tally);
}

}  // namespace

TEST(ModelConformance, PredictionsFromReferenceFeatures) {
  Tally vmaf, vmaf_neg, v1;
  for (const auto& pair : test::max_precision_pairs()) {
    const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
    if (log.frames.empty() || !log.frames[0].count("vmaf")) continue;
    // VMAF v1: the first model as "vmaf", the others under their versions
    // (tests/fixtures/README.md).
    const bool all_v1 = pair.log_name.find(".v1all.") != std::string::npos;
    if (all_v1 || pair.log_name.find(".v1.") != std::string::npos) {
      for (const char* input : kV1Inputs)
        ASSERT_NE(feature_entry_providing(input), nullptr) << "no extractor provides " << input;
      check_log(pair.log_name, log, "vmaf_v1.0.16_3d0h", "vmaf", v1);
      if (all_v1)
        for (const char* version : kOtherV1Models) check_log(pair.log_name, log, version, version, v1);
      continue;
    }
    // The options logs' model reads VIF with an overloaded option
    // (tests/fixtures/README.md), so its inputs are the _egl_1 scores.
    if (pair.log_name.find(".options.") != std::string::npos) {
      const auto models = load_models(parse_model_list(test::kOptionsModels));
      check_log(pair.log_name, log, models.at(0).model, "vmaf", vmaf);
      continue;
    }
    check_log(pair.log_name, log, "vmaf_v0.6.1", "vmaf", vmaf);
    if (log.frames[0].count("vmaf_neg")) check_log(pair.log_name, log, "vmaf_v0.6.1neg", "vmaf_neg", vmaf_neg);
  }
  std::printf("[model conformance] vmaf_v0.6.1: %u of %u frames identical in %u logs\n",
              vmaf.identical, vmaf.frames, vmaf.logs);
  std::printf("[model conformance] vmaf_v0.6.1neg: %u of %u frames identical in %u logs\n",
              vmaf_neg.identical, vmaf_neg.frames, vmaf_neg.logs);
  std::printf("[model conformance] vmaf_v1.0.16_*: %u of %u frames identical in %u model runs\n",
              v1.identical, v1.frames, v1.logs);
  // The fixtures hold vmaf in many logs and vmaf_neg in one (pair a, crf23).
  EXPECT_GE(vmaf.logs, 10u);
  EXPECT_GE(vmaf_neg.logs, 1u);
  EXPECT_EQ(vmaf.identical, vmaf.frames);
  EXPECT_EQ(vmaf_neg.identical, vmaf_neg.frames);
  // Every pair has a .v1 log; two have all eight models.
  EXPECT_GE(v1.logs, 10u + 2u * 8u);
  EXPECT_EQ(v1.identical, v1.frames);
}
