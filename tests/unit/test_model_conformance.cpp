// Prediction conformance of the built-in models, independent of the feature
// extractors: every frame of every shared %.17g reference log that has a
// "vmaf" score is predicted again from that log's own feature values (libvmaf's
// exact doubles, printed with %.17g) and must equal libvmaf's "vmaf" value
// bit for bit; likewise vmaf_v0.6.1neg's inputs (the *_egl_1 scores) against
// "vmaf_neg", the VMAF v1 models against their scores in the .v1 and
// .v1all logs, and the other built-in models and bootstrap collections against
// the .models log and tests/fixtures/ref-float-models/.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "common/feature_options.h"
#include "fixtures.h"
#include "model/model.h"
#include "reference_setup.h"
#include "registry.h"
#include "scorer.h"

using vmafexact::test::kSourceRoot;

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

// The input values of `m` in one frame of a log; nullopt, with a failure
// naming it, where the frame lacks one.
std::optional<std::vector<double>> inputs_of(const model::Model& m,
                                             const std::map<std::string, double>& frame,
                                             const std::string& log_name, std::size_t f) {
  std::vector<double> values;
  for (const auto& feature : m.features()) {
    const std::string key = log_key(feature);
    const auto it = frame.find(key);
    if (it == frame.end()) {
      ADD_FAILURE() << log_name << " frame " << f << " lacks " << key;
      return std::nullopt;
    }
    values.push_back(it->second);
  }
  return values;
}

// Whether vmafexact's value of `key` in frame f is libvmaf's, bit for bit (a
// failure naming both where not).
bool identical_to_log(const std::string& log_name, std::size_t f,
                      const std::map<std::string, double>& frame, const std::string& key,
                      double got) {
  const double expected = frame.at(key);
  if (same_bits(got, expected)) return true;
  ADD_FAILURE() << log_name << " frame " << f << " " << key << ": libvmaf "
                << testing::PrintToString(expected) << ", vmafexact "
                << testing::PrintToString(got);
  return false;
}

// Predicts every frame of `log` with the model and compares with `score_key`.
void check_log(const std::string& log_name, const test::ReferenceLog& log, const model::Model& m,
               const std::string& score_key, Tally& tally) {
  unsigned identical = 0;
  for (std::size_t f = 0; f < log.frames.size(); ++f) {
    const auto values = inputs_of(m, log.frames[f], log_name, f);
    if (!values) return;
    if (identical_to_log(log_name, f, log.frames[f], score_key, m.predict(*values, {})))
      ++identical;
  }
  std::printf("[model conformance] %s: %s %u of %zu identical\n", log_name.c_str(),
              score_key.c_str(), identical, log.frames.size());
  ++tally.logs;
  tally.frames += static_cast<unsigned>(log.frames.size());
  tally.identical += identical;
}

void check_log(const std::string& log_name, const test::ReferenceLog& log, const char* version,
               const char* score_key, Tally& tally) {
  check_log(log_name, log, model::load_builtin_model(version), score_key, tally);
}

// Every model of a model list (kModelsRun, kFloatModelsRun) against its key;
// a bootstrap collection's models against KEY_0001, ... and its statistics
// (KEY_bagging, ...), formed as the scorer forms them, against libvmaf's.
void check_models(const std::string& log_name, const test::ReferenceLog& log, const char* models,
                  Tally& tally) {
  for (const auto& scored : load_models(parse_model_list(models))) {
    check_log(log_name, log, scored.model, scored.key, tally);
    if (scored.bootstrap.empty()) continue;
    char key[64];
    for (std::size_t b = 0; b < scored.bootstrap.size(); ++b) {
      std::snprintf(key, sizeof key, "%s_%04zu", scored.key.c_str(), b + 1);
      check_log(log_name, log, scored.bootstrap[b], key, tally);
    }
    unsigned identical = 0;
    for (std::size_t f = 0; f < log.frames.size(); ++f) {
      const auto& frame = log.frames[f];
      std::vector<double> unfinished;
      for (const auto& member : scored.bootstrap) {
        const auto values = inputs_of(member, frame, log_name, f);
        if (!values) return;
        unfinished.push_back(member.predict_unfinished(*values));
      }
      const auto stats =
          model::bootstrap_scores(std::move(unfinished), scored.bootstrap.front(), scored.predict);
      for (const auto& [suffix, value] : {std::pair{"bagging", stats.bagging},
                                          {"stddev", stats.stddev},
                                          {"ci_p95_lo", stats.ci_p95_lo},
                                          {"ci_p95_hi", stats.ci_p95_hi}})
        if (identical_to_log(log_name, f, frame, scored.key + "_" + suffix, value)) ++identical;
    }
    std::printf("[model conformance] %s: %s's statistics %u of %zu identical\n", log_name.c_str(),
                scored.key.c_str(), identical, 4 * log.frames.size());
    tally.frames += static_cast<unsigned>(4 * log.frames.size());
    tally.identical += identical;
  }
}

}  // namespace

TEST(ModelConformance, PredictionsFromReferenceFeatures) {
  Tally vmaf, vmaf_neg, v1, others;
  for (const auto& pair : test::max_precision_pairs()) {
    const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
    if (log.frames.empty()) continue;
    if (pair.log_name.find(".models.") != std::string::npos) {
      check_models(pair.log_name, log, test::kModelsRun, others);
      continue;
    }
    if (!log.frames[0].count("vmaf")) continue;
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
  // The float models' log (tests/fixtures/ref-float-models/README.md): its
  // features are libvmaf's on the processor that made it, its scores their
  // predictions.
  const auto float_models_dir =
      std::filesystem::path(kSourceRoot) / "tests" / "fixtures" / "ref-float-models";
  for (const auto& pair : test::max_precision_pairs(float_models_dir))
    check_models(pair.log_name, test::load_reference_log(float_models_dir / pair.log_name),
                 test::kFloatModelsRun, others);
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
  // The other built-in models and collections: the .models log of ref/ and the
  // float models' log, each model's score, a collection's models and statistics.
  std::printf("[model conformance] other built-in models: %u of %u values identical in %u model runs\n",
              others.identical, others.frames, others.logs);
  EXPECT_EQ(others.logs, 3u + 4u + 2u * 20u);  // the models, and two collections of 20
  EXPECT_EQ(others.identical, others.frames);
}
