// The CUDA twin of integer ADM: what is not parity of sums (that is the twin
// harness's, tests/harness/check_adm_cuda.cpp): without a device, the twin's
// options, names and init errors are the CPU extractor's.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "adm_option_sets.h"
#include "registry.h"

using namespace vmafexact;

namespace {

using test::NamedAdmOptions;
using test::option_sets;

// ---------------------------------------------------------------------------
// The twin's contract without a device: options, names, init errors.

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(AdmCudaTwin, OptionsNamesAndErrorsAreTheCpus) {
  for (const auto& set : option_sets()) {
    auto cpu = make_feature_extractor("adm", set.options);
    auto twin = make_feature_extractor("adm", set.options, Backend::kCuda, nullptr);
    EXPECT_EQ(cpu->name(), twin->name());
    EXPECT_EQ(cpu->provided_features(), twin->provided_features());
    for (const auto& provided : cpu->provided_features())
      EXPECT_EQ(cpu->score_key(provided), twin->score_key(provided)) << set.label;
    EXPECT_EQ(cpu->sees_every_frame(), twin->sees_every_frame());
    EXPECT_EQ(cpu->latency_frames(), twin->latency_frames());
  }
  // Refused options: the same error.
  for (const FeatureOptions& bad :
       {FeatureOptions{{"adm_csf_mode", "2"}, {"adm_ref_display_height", "1000"}, {"adm_norm_view_dist", "4"}},
        FeatureOptions{{"adm_csf_mode", "3"}, {"adm_norm_view_dist", "4"}},
        FeatureOptions{{"adm_csf_mode", "4"}}, FeatureOptions{{"adm_norm_view_dist", "1"}},
        FeatureOptions{{"adm_enhn_gain_limit", "0.5"}}, FeatureOptions{{"adm_unknown", "1"}}}) {
    const std::string cpu = error_of([&] { make_feature_extractor("adm", bad); });
    const std::string twin = error_of([&] { make_feature_extractor("adm", bad, Backend::kCuda, nullptr); });
    EXPECT_NE(cpu, "(no error)");
    EXPECT_EQ(cpu, twin);
  }
  // Formats init() refuses: the same error (before any device work).
  for (const PictureFormat& format :
       {PictureFormat{32, 33, 8, ChromaFormat::k420}, PictureFormat{33, 32, 10, ChromaFormat::k420},
        PictureFormat{16, 16, 8, ChromaFormat::k400}, PictureFormat{64, 64, 9, ChromaFormat::k420}}) {
    auto cpu = make_feature_extractor("adm", {});
    auto twin = make_feature_extractor("adm", {}, Backend::kCuda, nullptr);
    const std::string cpu_error = error_of([&] { cpu->init(format); });
    EXPECT_NE(cpu_error, "(no error)");
    EXPECT_EQ(cpu_error, error_of([&] { twin->init(format); }));
  }
}

}  // namespace
