// Unit tests of metrics/model/: the JSON loader on good and broken files, the
// built-in models, hand-computable predictions, clipping and the score
// transform, and predictions checked against libvmaf 3.2.0's C build.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "model/model.h"
#include "model/model_data.h"

using namespace vmafexact;
using namespace vmafexact::model;
using ojson = nlohmann::ordered_json;

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const char* kAdm2 = "VMAF_integer_feature_adm2_score";
const char* kMotion2 = "VMAF_integer_feature_motion2_score";
const char* kVif0 = "VMAF_integer_feature_vif_scale0_score";

// A small valid model: two features, no normalisation, linear kernel, so its
// predictions are exact in binary: p(a, b) = 2 * (0.25a + b) - 1 * (0.5b) - 0.25
// = 0.5a + 1.5b - 0.25.
ojson linear_model() {
  return ojson::parse(R"({
    "param_dict": {"C": 4.0},
    "model_dict": {
      "model_type": "LIBSVMNUSVR",
      "norm_type": "none",
      "feature_names": ["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"],
      "score_clip": [0.0, 100.0],
      "model": "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\nSV\n2 1:0.25 2:1 \n-1 2:0.5 \n"
    }
  })");
}

Model load(const ojson& json) { return load_model_json(json.dump(), "test.json"); }

// Expects loading to fail with a message that names the file and contains `what`.
void expect_rejected(const std::string& text, const std::string& what) {
  SCOPED_TRACE(text.substr(0, 300));
  try {
    load_model_json(text, "broken.json");
    ADD_FAILURE() << "accepted; expected an error containing: " << what;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("broken.json"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

void expect_rejected(const ojson& json, const std::string& what) {
  expect_rejected(json.dump(), what);
}

std::string libsvm_text(const std::string& header, const std::string& svs) {
  return header + "SV\n" + svs;
}

ojson with_libsvm(const std::string& text) {
  ojson j = linear_model();
  j["model_dict"]["model"] = text;
  return j;
}

const std::string kHeader = "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\n";
const std::string kSvs = "2 1:0.25 2:1 \n-1 2:0.5 \n";

}  // namespace

// --- Hand-computable predictions --------------------------------------------

TEST(Model, LinearKernelPredictionByHand) {
  const Model m = load(linear_model());
  const PredictOptions plain;
  // 2 * (0.25 * 0.5 + 1 * 2) - 1 * (0.5 * 2) - 0.25 = 4.25 - 1 - 0.25.
  EXPECT_EQ(m.predict(std::vector<double>{0.5, 2.0}, plain), 3.0);
  EXPECT_EQ(m.predict(std::vector<double>{0.0, 0.0}, {.disable_clip = true}), -0.25);
  EXPECT_EQ(m.predict(std::vector<double>{8.5, 0.0}, plain), 4.0);
}

TEST(Model, LinearRescaleByHand) {
  ojson j = linear_model();
  j["model_dict"]["norm_type"] = "linear_rescale";
  j["model_dict"]["slopes"] = {0.5, 2.0, 0.25};
  j["model_dict"]["intercepts"] = {1.0, -0.5, 0.5};
  const Model m = load(j);
  // Inputs: 2 * 0.5 - 0.5 = 0.5 and 0.25 * 2 + 0.5 = 1; SVM: 2 * (0.125 + 1) -
  // 0.5 - 0.25 = 1.5; output (1.5 - 1) / 0.5 = 1.
  EXPECT_EQ(m.predict(std::vector<double>{0.5, 2.0}, {}), 1.0);
}

TEST(Model, RbfKernelByHand) {
  ojson j = linear_model();
  j["model_dict"]["model"] = libsvm_text(
      "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho -1\n",
      "3 1:0.5 2:2 \n-1 2:1 \n");
  const Model m = load(j);
  // SV 1 equals the input: exp(0) = 1. SV 2 lacks index 1: 0.5^2 + (2 - 1)^2.
  const double expected = 3.0 * 1.0 + -1.0 * std::exp(-0.5 * (0.5 * 0.5 + 1.0)) - -1.0;
  EXPECT_TRUE(same_bits(m.predict(std::vector<double>{0.5, 2.0}, {}), expected));
}

TEST(Model, PredictRejectsWrongFeatureCount) {
  const Model m = load(linear_model());
  EXPECT_THROW(m.predict(std::vector<double>{1.0}, {}), Error);
}

// --- Clipping and the score transform -----------------------------------------

TEST(Model, ClipAndDisableClip) {
  const Model m = load(linear_model());
  // p = 0.5a + 1.5b - 0.25
  EXPECT_EQ(m.predict(std::vector<double>{0.0, 100.0}, {}), 100.0);
  EXPECT_EQ(m.predict(std::vector<double>{0.0, 100.0}, {.disable_clip = true}), 149.75);
  EXPECT_EQ(m.predict(std::vector<double>{0.0, -10.0}, {}), 0.0);
  EXPECT_EQ(m.predict(std::vector<double>{0.0, -10.0}, {.disable_clip = true}), -15.25);
  ojson no_clip = linear_model();
  no_clip["model_dict"].erase("score_clip");
  EXPECT_EQ(load(no_clip).predict(std::vector<double>{0.0, 100.0}, {}), 149.75);
}

TEST(Model, NanPassesThroughClip) {
  const Model m = load(linear_model());
  EXPECT_TRUE(std::isnan(m.predict(std::vector<double>{NAN, 1.0}, {})));
}

namespace {
// The linear model's input a that predicts t (b = 0): a = 2 (t + 0.25).
std::vector<double> predicting(double t) { return {2.0 * (t + 0.25), 0.0}; }
}  // namespace

TEST(Model, PolynomialTransformOnlyWhenEnabled) {
  ojson j = linear_model();
  j["model_dict"]["score_transform"] = {{"p0", 1.0}, {"p1", 0.5}, {"p2", 0.25}};
  const Model m = load(j);
  // 1 + 0.5 * 4 + 0.25 * 4 * 4 = 7
  EXPECT_EQ(m.predict(predicting(4.0), {}), 4.0);
  EXPECT_EQ(m.predict(predicting(4.0), {.enable_transform = true}), 7.0);
  j["model_dict"]["score_transform"]["enabled"] = true;
  EXPECT_EQ(load(j).predict(predicting(4.0), {}), 7.0);
  j["model_dict"]["score_transform"]["enabled"] = false;
  EXPECT_EQ(load(j).predict(predicting(4.0), {}), 4.0);
  EXPECT_EQ(load(j).predict(predicting(4.0), {.enable_transform = true}), 7.0);
}

TEST(Model, TransformThenClip) {
  ojson j = linear_model();
  j["model_dict"]["score_transform"] = {{"enabled", true}, {"p1", 2.0}};
  const Model m = load(j);
  EXPECT_EQ(m.predict(predicting(60.0), {}), 100.0);
  EXPECT_EQ(m.predict(predicting(60.0), {.disable_clip = true}), 120.0);
  EXPECT_EQ(m.predict(predicting(-1.0), {.disable_clip = true}), -2.0);
  EXPECT_EQ(m.predict(predicting(-1.0), {}), 0.0);
}

TEST(Model, Rectification) {
  ojson j = linear_model();
  j["model_dict"]["score_transform"] = {
      {"enabled", true}, {"p0", 1.0}, {"p1", 0.5}, {"p2", 0.25}, {"out_lte_in", "true"}};
  EXPECT_EQ(load(j).predict(predicting(4.0), {}), 4.0);  // 7 > 4: keeps 4
  EXPECT_EQ(load(j).predict(predicting(0.5), {}), 0.5);  // 1.3125 > 0.5: keeps 0.5
  j["model_dict"]["score_transform"]["out_lte_in"] = "false";  // only "true" sets it
  EXPECT_EQ(load(j).predict(predicting(4.0), {}), 7.0);
  j["model_dict"]["score_transform"]["p1"] = -1.0;
  j["model_dict"]["score_transform"]["p2"] = 0.0;
  j["model_dict"]["score_transform"]["out_gte_in"] = "true";
  EXPECT_EQ(load(j).predict(predicting(4.0), {}), 4.0);    // 1 - 4 = -3 < 4: keeps 4
  EXPECT_EQ(load(j).predict(predicting(0.25), {}), 0.75);  // 1 - 0.25 = 0.75 >= 0.25
}

TEST(Model, KnotsPiecewiseLinear) {
  ojson j = linear_model();
  j["model_dict"]["score_transform"] = {
      {"enabled", true}, {"knots", {{0.0, 0.0}, {10.0, 20.0}, {20.0, 20.0}, {40.0, 60.0}}}};
  j["model_dict"].erase("score_clip");
  const Model m = load(j);
  EXPECT_EQ(m.predict(predicting(-2.0), {}), -4.0);   // below: first segment extended
  EXPECT_EQ(m.predict(predicting(5.0), {}), 10.0);
  EXPECT_EQ(m.predict(predicting(10.0), {}), 20.0);   // shared knot
  EXPECT_EQ(m.predict(predicting(15.0), {}), 20.0);   // horizontal segment
  EXPECT_EQ(m.predict(predicting(30.0), {}), 40.0);   // 2x - 20
  EXPECT_EQ(m.predict(predicting(50.0), {}), 80.0);   // above: last segment extended
  // One knot (or none) leaves the score as it is, as in libvmaf.
  j["model_dict"]["score_transform"]["knots"] = {{5.0, 7.0}};
  EXPECT_EQ(load(j).predict(predicting(30.0), {}), 30.0);
}

// --- Against libvmaf's C build -------------------------------------------------
// Expected values: libvmaf 3.2.0 (portable C build, /work/libvmaf-build/c) given
// these feature values through vmaf_import_feature_score() and asked for
// vmaf_score_at_index(); printed with %.17g. Flags: VMAF_MODEL_FLAG_DISABLE_CLIP
// = 1, VMAF_MODEL_FLAG_ENABLE_TRANSFORM = 2, set in VmafModelConfig at load.

namespace {

const std::vector<std::vector<double>> kInputs = {
    {0.93, 3.5, 0.45, 0.8, 0.87, 0.91},
    {0.2, 20, 0.05, 0.1, 0.15, 0.2},
    {1, 0, 1, 1, 1, 1},
    {1.05, 0.25, 1.02, 1.01, 1.0, 1.0},
};

void expect_libvmaf(const Model& m, const PredictOptions& options,
                    const std::vector<double>& expected) {
  for (std::size_t i = 0; i < kInputs.size(); ++i) {
    const double got = m.predict(kInputs[i], options);
    EXPECT_TRUE(same_bits(got, expected[i]))
        << m.name() << " input " << i << ": " << testing::PrintToString(got) << " vs libvmaf "
        << testing::PrintToString(expected[i]);
  }
}

}  // namespace

TEST(Model, Vmaf4kMatchesLibvmaf) {
  const Model m = load_builtin_model("vmaf_4k_v0.6.1");
  const std::vector<double> clipped = {82.765734031774727, 25.579597572587705, 100, 100};
  const std::vector<double> unclipped = {82.765734031774727, 25.579597572587705, 100.8937736628905,
                                         110.0309725255503};
  expect_libvmaf(m, {}, clipped);
  expect_libvmaf(m, {.disable_clip = true}, unclipped);
  expect_libvmaf(m, {.enable_transform = true}, clipped);  // the 4k model has no transform
  expect_libvmaf(m, {.disable_clip = true, .enable_transform = true}, unclipped);
}

TEST(Model, VmafV061MatchesLibvmafWithFlags) {
  const Model m = load_builtin_model("vmaf_v0.6.1");
  expect_libvmaf(m, {}, {74.688137933415092, 0, 97.428042642610308, 100});
  expect_libvmaf(m, {.disable_clip = true},
                 {74.688137933415092, -2.388431521956162, 97.428042642610308, 108.78660551830343});
  expect_libvmaf(m, {.enable_transform = true}, {91.307063857404785, 0, 100, 100});
  expect_libvmaf(m, {.disable_clip = true, .enable_transform = true},
                 {91.307063857404785, -2.388431521956162, 102.96113796365687, 108.78660551830343});
}

namespace {
// Three-feature models with sparse, unordered support vectors (the order of
// the kernel's additions follows libsvm's index merge).
std::string kernel_model(const std::string& header, bool rescale) {
  ojson j;
  j["model_dict"]["model_type"] = "LIBSVMNUSVR";
  j["model_dict"]["norm_type"] = rescale ? "linear_rescale" : "none";
  j["model_dict"]["feature_names"] = {kAdm2, kMotion2, kVif0};
  j["model_dict"]["model"] =
      header + "SV\n2 3:0.5 1:-0.25 \n-1.5 2:0.75 1:0.5 3:0.1\n3 \n0.5 1:0.3 3:0.2 \n";
  if (rescale) {
    j["model_dict"]["slopes"] = {0.02, 1.1, 0.05, 1.3};
    j["model_dict"]["intercepts"] = {-0.3, -0.9, 0.01, -0.2};
  }
  return j.dump();
}
const std::vector<std::vector<double>> kThree = {{0.1, 0.2, 0.3}, {0.9, 12.5, 0.4}, {-1, 0, 2}};
void expect_three(const std::string& json, const std::vector<double>& expected) {
  const Model m = load_model_json(json, "kernel.json");
  for (std::size_t i = 0; i < kThree.size(); ++i)
    EXPECT_TRUE(same_bits(m.predict(kThree[i], {}), expected[i]))
        << json << " input " << i << ": " << testing::PrintToString(m.predict(kThree[i], {}));
}
}  // namespace

TEST(Model, KernelsMatchLibvmaf) {
  expect_three(kernel_model("svm_type epsilon_svr\nkernel_type rbf\ngamma 0.7\nnr_class 2\n"
                            "total_sv 4\nrho 0.3\n",
                            false),
               {3.7030721229909398, -0.29999999999999999, -0.030456962577888103});
  expect_three(kernel_model("svm_type nu_svr\nkernel_type polynomial\ndegree 3\ngamma 0.3\n"
                            "coef0 0.7\nnr_class 2\ntotal_sv 4\nrho -0.5\n",
                            true),
               {109.80919184257498, 96.455920735074599, 183.06040288945312});
  expect_three(kernel_model("svm_type nu_svr\nkernel_type sigmoid\ngamma 0.5\ncoef0 -0.1\n"
                            "nr_class 2\ntotal_sv 4\nrho 0.125\n",
                            false),
               {-0.48646637413630339, -1.8862755628865207, 0.3109147531566423});
}

// --- Built-in models -------------------------------------------------------------

TEST(Model, BuiltinNamesAndFeatures) {
  // libvmaf's built-in models with its float extractors compiled in.
  EXPECT_EQ(builtin_model_names(),
            (std::vector<std::string>{
                "vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1neg",
                "vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg", "vmaf_float_4k_v0.6.1",
                "vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_3d0h_2160",
                "vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",
                "vmaf_v1.0.16_hfr_3d0h_2160", "vmaf_v1.0.16_hfr_1d5h_2160"}));
  for (const auto& version : builtin_model_names()) {
    const Model m = load_builtin_model(version);
    EXPECT_EQ(m.name(), version);
    if (version.starts_with("vmaf_v1.")) continue;  // BuiltinVmafV1Models
    // The float models read the float extractors' keys, the others the integer ones.
    const std::string prefix =
        version.starts_with("vmaf_float_") ? "VMAF_feature_" : "VMAF_integer_feature_";
    const std::vector<std::string> inputs = {prefix + "adm2_score",       prefix + "motion2_score",
                                             prefix + "vif_scale0_score", prefix + "vif_scale1_score",
                                             prefix + "vif_scale2_score", prefix + "vif_scale3_score"};
    ASSERT_EQ(m.features().size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(m.features()[i].name, inputs[i]);
      // The neg models limit ADM's and VIF's enhancement gains to 1.
      const FeatureOptions expected =
          !version.ends_with("neg") || i == 1
              ? FeatureOptions{}
              : FeatureOptions{{i == 0 ? "adm_enhn_gain_limit" : "vif_enhn_gain_limit", "1"}};
      EXPECT_EQ(m.features()[i].options, expected) << version << " feature " << i;
    }
  }
  EXPECT_EQ(load_builtin_model("vmaf_v0.6.1").data().svm.support_vector_count(), 211u);
  EXPECT_EQ(load_builtin_model("vmaf_4k_v0.6.1").data().svm.support_vector_count(), 262u);
  EXPECT_EQ(load_builtin_model("vmaf_4k_v0.6.1neg").data().svm.support_vector_count(), 262u);
  EXPECT_EQ(load_builtin_model("vmaf_float_v0.6.1").data().svm.support_vector_count(), 211u);
  EXPECT_EQ(load_builtin_model("vmaf_float_4k_v0.6.1").data().svm.support_vector_count(), 262u);
  // The float 1080p models carry libvmaf's score transform, not enabled by the file.
  for (const char* version : {"vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg"}) {
    const Model m = load_builtin_model(version);
    const auto& d = m.data();
    EXPECT_TRUE(d.transform.present) << version;
    EXPECT_FALSE(d.transform.enabled) << version;
    EXPECT_EQ(d.transform.p0.value, 1.70674692) << version;
  }
  EXPECT_FALSE(load_builtin_model("vmaf_float_4k_v0.6.1").data().transform.present);
}

TEST(Model, BuiltinVmafV1Models) {
  // libvmaf's model/vmaf_v1.0.16*/: CAMBI, SpEED chroma, ADM's adm3 with the
  // Barten-Watson CSF, and motion3, each with its options as libvmaf
  // normalises them; the quadratic transform enabled in the file, the 2160
  // models clipped to 110, chroma-from-luma correction 120.
  const FeatureOptions cambi = {{"cambi_high_res_speedup", "1080"},
                                {"cambi_vis_lum_threshold", "0.06"},
                                {"cambi_max_val", "17"}};
  const Model m = load_builtin_model("vmaf_v1.0.16_3d0h");
  ASSERT_EQ(m.features().size(), 4u);
  EXPECT_EQ(m.features()[0].name, "Cambi_feature_cambi_score");
  EXPECT_EQ(m.features()[0].options, cambi);
  EXPECT_EQ(m.features()[1].name, "Speed_chroma_feature_speed_chroma_uv_score");
  EXPECT_EQ(m.features()[1].options,
            (FeatureOptions{{"speed_kernelscale", "1"}, {"speed_nn_floor", "0.1"},
                            {"speed_sigma_nn", "0.19"}, {"speed_weight_var_mode", "5"},
                            {"speed_max_val", "45"}}));
  EXPECT_EQ(m.features()[2].name, "VMAF_integer_feature_adm3_score");
  EXPECT_EQ(m.features()[2].options,
            (FeatureOptions{{"adm_dlm_weight", "0.7"}, {"adm_enhn_gain_limit", "1"},
                            {"adm_noise_weight", "0.02"}, {"adm_norm_view_dist", "3"},
                            {"adm_ref_display_height", "1080"}, {"adm_min_val", "0.5"},
                            {"adm_csf_mode", "2"}}));
  EXPECT_EQ(m.features()[3].name, "VMAF_integer_feature_motion3_score");
  EXPECT_EQ(m.features()[3].options, (FeatureOptions{{"motion_max_val", "18"}}));
  const auto& d = m.data();
  EXPECT_TRUE(d.transform.present);
  EXPECT_TRUE(d.transform.enabled);
  EXPECT_EQ(d.transform.p2.value, -0.000490758318);
  EXPECT_TRUE(d.chroma_correction.enabled);
  EXPECT_EQ(d.chroma_correction.value, 120.0);
  EXPECT_EQ(d.clip_max, 100.0);
  EXPECT_EQ(d.svm.support_vector_count(), 215u);

  const Model phone = load_builtin_model("vmaf_v1.0.16_5d0h");
  EXPECT_EQ(phone.features()[1].options,
            (FeatureOptions{{"speed_nn_floor", "0.1"}, {"speed_sigma_nn", "0.19"},
                            {"speed_weight_var_mode", "5"}, {"speed_prescale", "0.6"},
                            {"speed_prescale_method", "bilinear"}, {"speed_max_val", "45"}}));
  EXPECT_EQ(load_builtin_model("vmaf_v1.0.16_3d0h_2160").data().clip_max, 110.0);
  EXPECT_EQ(load_builtin_model("vmaf_v1.0.16_1d5h_2160").data().clip_max, 100.0);
  EXPECT_EQ(load_builtin_model("vmaf_v1.0.16_hfr_3d0h").features()[3].options,
            (FeatureOptions{{"motion_max_val", "18"}, {"motion_five_frame_window", "true"},
                            {"motion_moving_average", "true"}}));
  for (const auto& version : builtin_model_names()) {
    if (version.starts_with("vmaf_v1.")) {
      EXPECT_EQ(load_builtin_model(version).features()[0].options, cambi) << version;
    }
  }
}

TEST(Model, ChromaFromLumaCorrectionAsLibvmaf) {
  // libvmaf's C path (--cpumask 255) with vmaf_v1.0.16_3d0h on the first frames
  // of pair a crf37 with both chroma planes set to 128 (SpEED chroma 0: the
  // correction replaces it from adm3) and with the reference's chroma in both
  // (SpEED chroma 7.5e-6, not 0: no correction). Inputs: cambi, speed_chroma_uv,
  // adm3, motion3.
  const Model m = load_builtin_model("vmaf_v1.0.16_3d0h");
  EXPECT_EQ(m.predict(std::vector<double>{1.2713080047094958, 0, 0.86752156300617012,
                                          9.215856565205975},
                      {}),
            55.676195353595283);
  EXPECT_EQ(m.predict(std::vector<double>{1.1841940761804584, 0, 0.82158651771889346,
                                          9.215856565205975},
                      {}),
            39.950702066514154);
  EXPECT_EQ(m.predict(std::vector<double>{1.2713080047094958, 7.5002508310717531e-06,
                                          0.86752156300617012, 9.215856565205975},
                      {}),
            69.267193359576765);
}

TEST(Model, UnknownBuiltinNamesTheKnownOnes) {
  try {
    load_builtin_model("vmaf_v9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vmaf_v9"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("vmaf_4k_v0.6.1"), std::string::npos);
  }
}

TEST(Model, Names) {
  Model m = load(linear_model());
  EXPECT_EQ(m.name(), "vmaf");  // libvmaf's name for a model not given one
  m.set_name("my_model");
  EXPECT_EQ(m.name(), "my_model");
}

// The built-in constants equal what the loader reads from Netflix's published
// files, when they are at hand: set VMAFEXACT_LIBVMAF_MODEL_DIR to libvmaf's
// model/ folder (vmaf_v0.6.1.json, ...).
TEST(Model, BuiltinsEqualTheirJsonFiles) {
  const char* dir = std::getenv("VMAFEXACT_LIBVMAF_MODEL_DIR");
  if (!dir) GTEST_SKIP() << "VMAFEXACT_LIBVMAF_MODEL_DIR not set";
  // Each built-in model and each model of a built-in bootstrap collection
  // against the file's.
  std::vector<std::pair<Model, Model>> pairs;
  for (const auto& version : builtin_model_names()) {
    // libvmaf keeps the v1 models in folders of their own.
    std::filesystem::path path = std::filesystem::path(dir) / (version + ".json");
    for (const char* folder : {"vmaf_v1.0.16", "vmaf_v1.0.16_hfr"})
      if (!std::filesystem::exists(path))
        path = std::filesystem::path(dir) / folder / (version + ".json");
    pairs.emplace_back(load_builtin_model(version), load_model_file(path));
  }
  for (const auto& version : builtin_collection_names()) {
    ModelFile built_in = load_builtin_model_or_collection(version);
    ModelFile file =
        load_model_file_or_collection(std::filesystem::path(dir) / (version + ".json"));
    ASSERT_EQ(built_in.bootstrap.size(), file.bootstrap.size()) << version;
    ASSERT_EQ(built_in.bootstrap.size(), 20u) << version;
    pairs.emplace_back(std::move(built_in.model), std::move(file.model));
    for (std::size_t i = 0; i < file.bootstrap.size(); ++i)
      pairs.emplace_back(std::move(built_in.bootstrap[i]), std::move(file.bootstrap[i]));
  }
  for (const auto& [built_in, file] : pairs) {
    SCOPED_TRACE(built_in.name());
    const Model::Data& a = built_in.data();
    const Model::Data& b = file.data();
    ASSERT_EQ(a.features.size(), b.features.size());
    for (std::size_t i = 0; i < a.features.size(); ++i) {
      EXPECT_EQ(a.features[i].name, b.features[i].name);
      EXPECT_EQ(a.features[i].options, b.features[i].options);
    }
    EXPECT_EQ(a.normalization, b.normalization);
    EXPECT_EQ(a.slopes, b.slopes);
    EXPECT_EQ(a.intercepts, b.intercepts);
    EXPECT_EQ(a.clip, b.clip);
    EXPECT_EQ(a.clip_min, b.clip_min);
    EXPECT_EQ(a.clip_max, b.clip_max);
    EXPECT_EQ(a.transform.present, b.transform.present);
    EXPECT_EQ(a.transform.enabled, b.transform.enabled);
    for (auto p : {&ScoreTransform::p0, &ScoreTransform::p1, &ScoreTransform::p2}) {
      EXPECT_EQ((a.transform.*p).enabled, (b.transform.*p).enabled);
      EXPECT_TRUE(same_bits((a.transform.*p).value, (b.transform.*p).value));
    }
    EXPECT_EQ(a.transform.out_gte_in, b.transform.out_gte_in);
    EXPECT_EQ(a.chroma_correction.enabled, b.chroma_correction.enabled);
    EXPECT_TRUE(same_bits(a.chroma_correction.value, b.chroma_correction.value));
    EXPECT_EQ(a.transform.out_lte_in, b.transform.out_lte_in);
    EXPECT_EQ(a.transform.knots_enabled, b.transform.knots_enabled);
    EXPECT_EQ(a.svm.kernel, b.svm.kernel);
    EXPECT_TRUE(same_bits(a.svm.gamma, b.svm.gamma));
    EXPECT_TRUE(same_bits(a.svm.rho, b.svm.rho));
    EXPECT_EQ(a.svm.coefficients, b.svm.coefficients);
    EXPECT_EQ(a.svm.sv_begin, b.svm.sv_begin);
    ASSERT_EQ(a.svm.nodes.size(), b.svm.nodes.size());
    for (std::size_t i = 0; i < a.svm.nodes.size(); ++i) {
      EXPECT_EQ(a.svm.nodes[i].index, b.svm.nodes[i].index);
      EXPECT_TRUE(same_bits(a.svm.nodes[i].value, b.svm.nodes[i].value));
    }
  }
}

// --- Numbers are read as libvmaf reads them -----------------------------------------

TEST(Model, JsonNumbersAreStrtodDoubles) {
  ojson j = linear_model();
  const std::vector<std::string> texts = {"0.012020766332648465", "-0.3092981927591963",
                                          "2.8098077502505414", "1e-5", "-1.7993968597186747",
                                          "123456789012345678901234567890", "0.1"};
  j["model_dict"]["norm_type"] = "linear_rescale";
  std::string text = j.dump();
  // Put the numbers' texts into the JSON literally (slopes[0..2]).
  text.insert(text.find("\"model_dict\":{") + 14, "\"slopes\":[" + texts[0] + "," + texts[1] +
                                                      "," + texts[2] + "],\"intercepts\":[" +
                                                      texts[3] + "," + texts[4] + "," +
                                                      texts[5] + "],");
  const Model m = load_model_json(text, "numbers.json");
  const auto& d = m.data();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(same_bits(d.slopes[i], std::strtod(texts[i].c_str(), nullptr))) << texts[i];
    EXPECT_TRUE(same_bits(d.intercepts[i], std::strtod(texts[i + 3].c_str(), nullptr)))
        << texts[i + 3];
  }
}

TEST(Model, LibsvmNumbersAreStrtodDoubles) {
  const Model m = load(with_libsvm(libsvm_text(
      "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 2\nrho -1.33133\n",
      "-4 1:0.65734273 2:0.34681232 \n3.9999999999999996 1:-1.110223e-16 2:2.220446e-16 \n")));
  const auto& svm = m.data().svm;
  EXPECT_TRUE(same_bits(svm.gamma, std::strtod("0.04", nullptr)));
  EXPECT_TRUE(same_bits(svm.rho, std::strtod("-1.33133", nullptr)));
  EXPECT_TRUE(same_bits(svm.coefficients[1], std::strtod("3.9999999999999996", nullptr)));
  EXPECT_TRUE(same_bits(svm.nodes[0].value, std::strtod("0.65734273", nullptr)));
  EXPECT_TRUE(same_bits(svm.nodes[2].value, std::strtod("-1.110223e-16", nullptr)));
  EXPECT_TRUE(same_bits(svm.nodes[3].value, std::strtod("2.220446e-16", nullptr)));
}

// --- Feature options (feature_opts_dicts) --------------------------------------------

TEST(Model, FeatureOptionsAsLibvmafNormalisesThem) {
  ojson j = linear_model();
  j["model_dict"]["feature_opts_dicts"] = ojson::parse(
      R"([{"adm_enhn_gain_limit": 1.0, "adm_csf_mode": 3, "b": true, "s": "1.50"},
          {"vif_enhn_gain_limit": 1.23456789}])");
  const Model m = load(j);
  EXPECT_EQ(m.features()[0].options,
            (FeatureOptions{{"adm_enhn_gain_limit", "1"}, {"adm_csf_mode", "3"}, {"b", "true"},
                            {"s", "1.50"}}));
  // strtof then "%g": six significant digits, as libvmaf hands it to the extractor.
  EXPECT_EQ(m.features()[1].options, (FeatureOptions{{"vif_enhn_gain_limit", "1.23457"}}));
  // Fewer dictionaries than features: the rest have no options.
  j["model_dict"]["feature_opts_dicts"] = ojson::parse(R"([{"x": 1e2}])");
  EXPECT_EQ(load(j).features()[0].options, (FeatureOptions{{"x", "100"}}));
  EXPECT_TRUE(load(j).features()[1].options.empty());
}

TEST(Model, NormalizedOptionNumberRoundsThroughFloat) {
  EXPECT_EQ(normalized_option_number("1.0"), "1");
  EXPECT_EQ(normalized_option_number("100"), "100");
  EXPECT_EQ(normalized_option_number("0.1"), "0.1");
  EXPECT_EQ(normalized_option_number("1234567"), "1.23457e+06");
  EXPECT_EQ(normalized_option_number("-2.5e-3"), "-0.0025");
  // 16777217 is not a float: strtof rounds it to 16777216.
  EXPECT_EQ(normalized_option_number("16777217"), "1.67772e+07");
}

// --- Broken files ---------------------------------------------------------------------

TEST(Model, RejectsBrokenJson) {
  expect_rejected(std::string("this is not JSON"), "not valid JSON");
  expect_rejected(std::string("{\"model_dict\": {"), "not valid JSON");
  expect_rejected(std::string("[1, 2]"), "top level");
  expect_rejected(ojson::parse(R"({"param_dict": {}})"), "no \"model_dict\"");
  expect_rejected(ojson::parse(R"({"0": {"model_dict": {}}, "1": {}})"), "model \"0\"");
  expect_rejected(ojson::parse(R"({"model_dict": []})"), "model_dict");
}

TEST(Model, RejectsBrokenModelDict) {
  const auto broken = [](const char* key, ojson value, const std::string& what) {
    ojson j = linear_model();
    if (value.is_discarded())
      j["model_dict"].erase(key);
    else
      j["model_dict"][key] = value;
    expect_rejected(j, what);
  };
  const ojson remove = ojson(ojson::value_t::discarded);
  broken("model_type", remove, "no \"model_type\"");
  broken("model_type", "XGBOOST", "model_dict.model_type: unknown model type");
  broken("model_type", 3, "model_dict.model_type: must be a string");
  broken("feature_names", remove, "no \"feature_names\"");
  broken("feature_names", ojson::array(), "model_dict.feature_names: is empty");
  broken("feature_names", {kAdm2, 7}, "model_dict.feature_names[1]: must be a string");
  broken("norm_type", remove, "no \"norm_type\"");
  broken("norm_type", "clip_0to1", "model_dict.norm_type: unknown normalization");
  broken("model", remove, "no \"model\"");
  broken("model", 1, "model_dict.model: must be a string");
  broken("score_clip", {0.0}, "model_dict.score_clip: must hold two numbers");
  broken("score_clip", {0.0, "100"}, "model_dict.score_clip[1]: must be a number");
  broken("chroma_correction_parameter", 0.5,
         "chroma_correction_parameter: needs exactly one feature whose name contains \"adm3\"");
  broken("chroma_correction_parameter", "120", "chroma_correction_parameter: must be a number");
  broken("chroma_correction_parameter", 0, "chroma_correction_parameter: is 0");
  broken("feature_opts_dicts", ojson::parse("[{}, {}, {}]"), "3 entries for 2 features");
  broken("feature_opts_dicts", ojson::parse("[[]]"), "feature_opts_dicts[0]: must be an object");
  broken("feature_opts_dicts", ojson::parse(R"([{"a": [1]}])"), "feature_opts_dicts[0].a");
  broken("feature_opts_dicts", ojson::parse(R"([{"a": null}])"), "feature_opts_dicts[0].a");
  broken("score_transform", 1, "model_dict.score_transform: must be an object");
  broken("score_transform", ojson::parse(R"({"p0": null})"), "score_transform.p0: null");
  broken("score_transform", ojson::parse(R"({"p1": "1"})"), "score_transform.p1: must be a number");
  broken("score_transform", ojson::parse(R"({"knots": null})"), "score_transform.knots: null");
  broken("score_transform", ojson::parse(R"({"enabled": "true"})"),
         "score_transform.enabled: must be a boolean");
  broken("score_transform", ojson::parse(R"({"out_gte_in": true})"),
         "score_transform.out_gte_in: must be a string");
  broken("score_transform", ojson::parse(R"({"knots": [[0, 0], [1, 2, 3]]})"),
         "score_transform.knots[1]: must hold two numbers");
  broken("score_transform", ojson::parse(R"({"knots": [[0, 0], [0, 1]]})"),
         "x must increase");
  broken("score_transform", ojson::parse(R"({"knots": [[0, 1], [1, 0]]})"),
         "y must not decrease");
  broken("score_transform",
         ojson::parse(R"({"knots": [[0,0],[1,1],[2,2],[3,3],[4,4],[5,5],[6,6],[7,7],[8,8],[9,9],[10,10]]})"),
         "at most 10");
}

TEST(Model, RejectsBadSlopesAndIntercepts) {
  ojson j = linear_model();
  j["model_dict"]["norm_type"] = "linear_rescale";
  j["model_dict"]["slopes"] = {1.0, 2.0};  // two features need three
  j["model_dict"]["intercepts"] = {0.0, 0.0, 0.0};
  expect_rejected(j, "model_dict.slopes: has 2 numbers; 2 features need 3");
  j["model_dict"]["slopes"] = {1.0, 2.0, 3.0};
  j["model_dict"].erase("intercepts");
  expect_rejected(j, "model_dict.intercepts: has 0 numbers");
  j["model_dict"]["intercepts"] = ojson::array();
  expect_rejected(j, "model_dict.intercepts: is empty");
  j["model_dict"]["intercepts"] = {0.0, "0", 0.0};
  expect_rejected(j, "model_dict.intercepts[1]: must be a number");
  j["model_dict"]["intercepts"] = {0.0, 0.0, 0.0, 0.0};
  expect_rejected(j, "model_dict.intercepts: has 4 numbers");
  j["model_dict"]["intercepts"] = {0.0, 0.0, 0.0};
  EXPECT_NO_THROW(load(j));
}

TEST(Model, RejectsRepeatedKeys) {
  std::string text = linear_model().dump();
  text.insert(text.find("\"model_dict\":{") + 14, "\"norm_type\":\"none\",");
  expect_rejected(text, "\"norm_type\" appears twice");
  ojson j = linear_model();
  j["model_dict"]["feature_opts_dicts"] = ojson::parse(R"([{}])");
  std::string opts = j.dump();
  const auto at = opts.find("\"feature_opts_dicts\":[{") + 23;
  EXPECT_NO_THROW(load_model_json(std::string(opts).insert(at, "\"a\":1.0,\"a\":1"), "x"));
  expect_rejected(std::string(opts).insert(at, "\"a\":1.0,\"a\":2"), "different values");
}

TEST(Model, RejectsBrokenLibsvmText) {
  const auto bad = [](const std::string& text, const std::string& what) {
    expect_rejected(with_libsvm(text), what);
  };
  bad("", "does not end with a line 'SV'");
  bad("svm_type nu_svr\nkernel_type linear\n", "does not end with a line 'SV'");
  bad(libsvm_text("svm_type foo\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\n", kSvs),
      "unknown svm_type 'foo'");
  bad(libsvm_text("svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\n", kSvs),
      "svm_type c_svc is not supported");
  bad(libsvm_text("kernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\n", kSvs),
      "svm_type is missing");
  bad(libsvm_text("svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0\n", kSvs),
      "precomputed is not supported");
  bad(libsvm_text("svm_type nu_svr\nkernel_type gauss\nnr_class 2\ntotal_sv 2\nrho 0.25\n", kSvs),
      "unknown kernel_type 'gauss'");
  bad(libsvm_text("svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 2\nrho 0.25\n", kSvs),
      "gamma is missing");
  bad(libsvm_text("svm_type nu_svr\nkernel_type rbf\ngamma x\nnr_class 2\ntotal_sv 2\nrho 0\n", kSvs),
      "cannot read the value of 'gamma'");
  bad(libsvm_text("svm_type nu_svr\nkernel_type linear\nnr_class 3\ntotal_sv 2\nrho 1 2 3\n", kSvs),
      "nr_class is 3");
  bad(libsvm_text("svm_type nu_svr\nkernel_type linear\nnr_class 2\nrho 0.25\n", kSvs),
      "total_sv is missing");
  bad(libsvm_text("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\n", kSvs),
      "rho is missing");
  bad(libsvm_text("svm_type nu_svr\nkernel_type linear\nrho 0.25\nnr_class 2\ntotal_sv 2\n", kSvs),
      "unknown text '0.25'");  // rho before nr_class: libvmaf reads no value either
  bad(libsvm_text("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\ncolor red\n", kSvs),
      "unknown text 'color'");
  bad(libsvm_text(kHeader, "2 1:0.25 2:1 \n"), "support vector 2 of 2 is missing");
  bad(libsvm_text(kHeader, kSvs + "1 1:1 \n"), "more support vector lines than total_sv");
  bad(libsvm_text(kHeader, "2 1:0.25 2;1 \n-1 2:0.5 \n"), "support vector 1 of 2: malformed");
  bad(libsvm_text(kHeader, "2 1:0.25 2:x \n-1 2:0.5 \n"), "support vector 1 of 2: malformed");
  bad(libsvm_text(kHeader, "2 1:0.25 x:1 \n-1 2:0.5 \n"), "support vector 1 of 2: malformed");
  bad(libsvm_text(kHeader, "2 0:0.25 \n-1 2:0.5 \n"), "feature index 0");
  bad(libsvm_text(kHeader, "x 1:0.25 \n-1 2:0.5 \n"), "cannot read its coefficient");
  // Windows line ends: libvmaf's reader takes "nu_svr\r" for the type too.
  bad("svm_type nu_svr\r\nkernel_type linear\r\nnr_class 2\r\ntotal_sv 2\r\nrho 0.25\r\nSV\r\n" + kSvs,
      "unknown svm_type");
  // A blank line ends libvmaf's header early.
  bad("svm_type nu_svr\n\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\nSV\n" + kSvs,
      "does not end with a line 'SV'");
}

TEST(Model, AcceptsLibsvmHeaderExtras) {
  // label, probA, probB and nr_sv are read and not used by a regression model.
  const Model m = load(with_libsvm(libsvm_text(
      "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\nlabel 1 2\n"
      "probA 0.5\nprobB 0.25\nnr_sv 1 1\n",
      kSvs)));
  EXPECT_EQ(m.predict(std::vector<double>{0.5, 2.0}, {}), 3.0);
}

TEST(Model, HostileSizesAndNestingAreErrorsNotCrashes) {
  // Counts far beyond what the text holds used to reach std::length_error or
  // std::bad_alloc (an abort of the host process); deep nesting overflowed
  // the stack in the tree's destructor.
  const auto with_svm = [](const std::string& svm) {
    ojson json = linear_model();
    json["model_dict"]["model"] = svm;
    return json.dump();
  };
  expect_rejected(with_svm("svm_type nu_svr\nkernel_type linear\nnr_class 2147483647\nlabel 1 2\n"),
                  "label counts 2147483647 values, more than the text can hold");
  expect_rejected(with_svm("svm_type nu_svr\nkernel_type linear\nnr_class 100000\nrho 1\n"),
                  "rho counts 4999950000 values, more than the text can hold");
  expect_rejected(with_svm("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2000000000\n"
                           "rho 0.25\nSV\n2 1:0.25\n"),
                  "total_sv counts 2000000000 values, more than the text can hold");
  std::string nested = R"({"model_dict": {"extra": )";
  nested += std::string(300000, '[');
  nested += std::string(300000, ']') + "}}";
  expect_rejected(nested, "nesting deeper than 64 levels");
}

TEST(Model, OnlyRegularModelFilesOfASaneSizeAreRead) {
  // /dev/zero used to be read for gigabytes, and a FIFO blocked forever.
  const auto message = [](const std::filesystem::path& path) {
    try {
      load_model_file(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("/dev/zero").find("is not a regular file"), std::string::npos);
  const auto dir = std::filesystem::temp_directory_path();
  EXPECT_NE(message(dir).find("is not a regular file"), std::string::npos);
  const auto fifo = dir / "vmafexact_test_model.fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message(fifo).find("is not a regular file"), std::string::npos);
  std::filesystem::remove(fifo);
  const auto big = dir / "vmafexact_test_model_big.json";
  {
    std::ofstream out(big);
    out << "{";
  }
  std::filesystem::resize_file(big, kMaxModelFileBytes + 1);  // sparse
  EXPECT_NE(message(big).find("model files are at most"), std::string::npos) << message(big);
  std::filesystem::remove(big);
}

TEST(Model, ModelFileErrors) {
  EXPECT_THROW(load_model_file("/nonexistent/model.json"), Error);
  const auto dir = std::filesystem::temp_directory_path();
  const auto pkl = dir / "vmafexact_test_model.pkl";
  std::ofstream(pkl) << "(dp0\n";
  try {
    load_model_file(pkl);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pkl"), std::string::npos);
  }
  const auto json = dir / "vmafexact_test_model.json";
  std::ofstream(json) << linear_model().dump();
  EXPECT_EQ(load_model_file(json).predict(std::vector<double>{0.5, 2.0}, {}), 3.0);
  std::ofstream(json) << "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\"}}";
  try {
    load_model_file(json);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(json.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(pkl);
  std::filesystem::remove(json);
}

// --- Many inputs against libvmaf: a digest of the predictions' bits ---------------
// 3000 pseudo-random feature vectors (splitmix64; realistic ranges, every
// seventh near a perfect score); the FNV-1a hash of the 3000 predictions' bit
// patterns must equal the hash of libvmaf 3.2.0's C build given the same
// vectors through vmaf_import_feature_score() / vmaf_score_at_index() (private
// program linked to /work/libvmaf-build/c). A change in the order of any double
// operation changes some of these predictions (e.g. adding the squares of the
// input's entries a support vector leaves out at the end of the RBF sum instead
// of in merge order changes about 1% of vmaf_v0.6.1's and 8% of vmaf_4k's).

namespace {

struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

std::uint64_t prediction_digest(const Model& m, const PredictOptions& options, double* first) {
  SplitMix rng{20240607};
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned i = 0; i < 3000; ++i) {
    std::vector<double> x(6);
    const bool near_perfect = i % 7 == 0;
    for (unsigned k = 0; k < 6; ++k) {
      const double u = rng.uniform();
      if (k == 1)
        x[k] = near_perfect ? u * 0.01 : u * 40.0;
      else
        x[k] = near_perfect ? 1.0 - u * 1e-6 : u * 1.2;
    }
    const double score = m.predict(x, options);
    if (i == 0) *first = score;
    std::uint64_t bits;
    std::memcpy(&bits, &score, sizeof bits);
    for (int b = 0; b < 8; ++b) {
      hash ^= (bits >> (8 * b)) & 0xff;
      hash *= 0x100000001b3ull;
    }
  }
  return hash;
}

}  // namespace

TEST(Model, ManyPredictionsMatchLibvmaf) {
  struct Run {
    const char* version;
    PredictOptions options;
    double first;
    std::uint64_t digest;
  };
  const Run runs[] = {
      {"vmaf_v0.6.1", {}, 97.428386555952244, 0xc9768fcc71b4182eull},
      {"vmaf_v0.6.1", {.disable_clip = true, .enable_transform = true}, 102.96125905771194,
       0xf9afa2b9cb724b5full},
      {"vmaf_v0.6.1neg", {}, 97.428386555952244, 0xc9768fcc71b4182eull},
      {"vmaf_4k_v0.6.1", {}, 100, 0x7a84fd816b6f6f64ull},
      {"vmaf_4k_v0.6.1", {.disable_clip = true}, 100.89380273860596, 0x7649a2ca106cd456ull},
  };
  for (const Run& run : runs) {
    double first = 0;
    const std::uint64_t digest = prediction_digest(load_builtin_model(run.version), run.options, &first);
    EXPECT_TRUE(same_bits(first, run.first)) << run.version << ": " << testing::PrintToString(first);
    EXPECT_EQ(digest, run.digest) << run.version;
  }
}

TEST(Model, NegativeZeroAsLibvmafReadsIt) {
  // strtod("-0") is -0.0; nlohmann alone would give the integer 0.
  std::string text = linear_model().dump();
  text.replace(text.find("\"score_clip\":[0.0,100.0]"), 24, "\"score_clip\":[-0,100]");
  text.insert(text.find("\"model_dict\":{") + 14,
              "\"n\":[1,-0,2,-0.0,-0e1],\"feature_opts_dicts\":[{\"z\":-0,\"y\":0}],");
  const Model m = load_model_json(text, "zero.json");
  EXPECT_TRUE(std::signbit(m.data().clip_min));
  EXPECT_EQ(m.data().clip_max, 100.0);
  EXPECT_EQ(m.features()[0].options, (FeatureOptions{{"z", "-0"}, {"y", "0"}}));
  // A score below the clip minimum becomes -0.0, as in libvmaf.
  EXPECT_TRUE(std::signbit(m.predict(std::vector<double>{0.0, -10.0}, {})));
}

// --- Bootstrap model collections ------------------------------------------------

namespace {

// A collection of `count` linear models, model i's rho 0.25 + i: its
// prediction 0.5a + 1.5b - 0.25 - i. Keys that are not the next index are
// skipped, as libvmaf skips them.
ojson linear_collection(int count) {
  ojson collection = ojson::object();
  collection["note"] = "skipped";
  for (int i = 0; i < count; ++i) {
    ojson model = linear_model();
    model["model_dict"]["model_type"] = i == 0 ? "LIBSVMNUSVR" : "BOOTSTRAP_LIBSVMNUSVR";
    model["model_dict"]["model"] =
        "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho " +
        std::to_string(0.25 + i) + "\nSV\n2 1:0.25 2:1 \n-1 2:0.5 \n";
    collection[std::to_string(i)] = model;
  }
  return collection;
}

}  // namespace

TEST(ModelCollection, ModelZeroAndTheBootstrapModelsInTheFilesOrder) {
  ojson json = linear_collection(4);
  json["7"] = linear_model();  // not the next index: skipped
  const ModelFile file = load_model_json_or_collection(json.dump(), "collection.json");
  ASSERT_EQ(file.bootstrap.size(), 3u);
  const std::vector<double> x = {0.5, 2.0};  // 0.25 + 3 - 0.25 = 3 before rho's offset
  EXPECT_EQ(file.model.predict(x, {}), 3.0);
  for (std::size_t i = 0; i < file.bootstrap.size(); ++i)
    EXPECT_EQ(file.bootstrap[i].predict(x, {}), 3.0 - static_cast<double>(i + 1));
  // A plain model file is a ModelFile without bootstrap models, and a model
  // of a bootstrap type predicts as any model (libvmaf reads it so).
  ojson typed = linear_model();
  typed["model_dict"]["model_type"] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR";
  const ModelFile plain = load_model_json_or_collection(typed.dump(), "plain.json");
  EXPECT_TRUE(plain.bootstrap.empty());
  EXPECT_EQ(plain.model.predict(x, {}), 3.0);
}

TEST(ModelCollection, BrokenCollectionsAreClearErrors) {
  const auto rejected = [](const ojson& json, const std::string& what) {
    try {
      load_model_json_or_collection(json.dump(), "broken.json");
      ADD_FAILURE() << "accepted; expected an error containing: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  ojson lone = linear_collection(1);
  rejected(lone, "needs models \"0\" and \"1\"");
  ojson mixed = linear_collection(3);
  mixed["2"]["model_dict"]["model_type"] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR";
  rejected(mixed, "broken.json, model \"2\": model_dict.model_type");
  ojson bad = linear_collection(3);
  bad["1"]["model_dict"].erase("feature_names");
  rejected(bad, "broken.json, model \"1\": model_dict: no \"feature_names\"");
  // One model where a collection is given: the loaders of single models say so.
  expect_rejected(linear_collection(2),
                  "a bootstrap model collection, where one model was expected");
}

// libvmaf's vmaf_bootstrap_predict_score_at_index(): the mean, the population
// standard deviation and the 2.5 and 97.5 percentiles (linear between the
// nearest) of the unfinished predictions; the mean and the percentiles then
// finished with the first model's transform and clip, the deviation scaled by
// the finish's slope at the mean (over +-0.01).
TEST(ModelCollection, StatisticsAsLibvmafFormsThem) {
  const Model first = load(linear_model());  // clip [0, 100], no transform
  const std::vector<double> scores = {40.0, 10.0, 30.0, 20.0, 50.0};
  const BootstrapScores stats = bootstrap_scores(scores, first, {});
  const double delta = 0.01;  // libvmaf's, and its rounding of mean +- delta
  EXPECT_EQ(stats.bagging, 30.0);
  EXPECT_EQ(stats.stddev,
            std::sqrt(1000.0 / 5.0) * (((30.0 + delta) - (30.0 - delta)) / (2.0 * delta)));
  EXPECT_NEAR(stats.stddev, std::sqrt(200.0), 1e-9);
  // p = 2.5 * 4 / 100 = 0.1 and 97.5 * 4 / 100 = 3.9 between the sorted scores.
  EXPECT_EQ(stats.ci_p95_lo, 10.0 * (1 - 0.1) + 20.0 * (0.1 - 0));
  EXPECT_EQ(stats.ci_p95_hi, 40.0 * (4 - 3.9) + 50.0 * (3.9 - 3));
  // Near the clip the slope flattens: 100.005 clips to 100.
  const BootstrapScores clipped = bootstrap_scores({99.995, 99.995}, first, {});
  EXPECT_EQ(clipped.stddev, 0.0);
  const BootstrapScores high = bootstrap_scores({99.99, 100.0}, first, {});
  const double mean = (99.99 + 100.0) / 2.0;
  EXPECT_EQ(high.bagging, mean);
  const double deviation = std::sqrt((std::pow(99.99 - mean, 2) + std::pow(100.0 - mean, 2)) / 2.0);
  EXPECT_EQ(high.stddev, deviation * ((100.0 - (mean - delta)) / (2.0 * delta)));
  EXPECT_NEAR(high.stddev, 0.005 * 0.75, 1e-9);
  const BootstrapScores unclipped = bootstrap_scores({99.99, 100.0, 101.0}, first, {true, false});
  EXPECT_GT(unclipped.ci_p95_hi, 100.0);
}

// libvmaf's built-in collections: model "0" and twenty bootstrap models on the
// same inputs, named as libvmaf names them; not a single model.
TEST(ModelCollection, BuiltInCollectionsAsLibvmafBuildsThemIn) {
  EXPECT_EQ(builtin_collection_names(),
            (std::vector<std::string>{"vmaf_b_v0.6.3", "vmaf_float_b_v0.6.3"}));
  for (const auto& version : builtin_collection_names()) {
    SCOPED_TRACE(version);
    const ModelFile file = load_builtin_model_or_collection(version);
    ASSERT_EQ(file.bootstrap.size(), 20u);
    EXPECT_EQ(file.model.name(), version);
    EXPECT_EQ(file.bootstrap[0].name(), version + "_0001");
    EXPECT_EQ(file.bootstrap[19].name(), version + "_0020");
    for (const auto& member : file.bootstrap) {
      ASSERT_EQ(member.features().size(), file.model.features().size());
      for (std::size_t i = 0; i < member.features().size(); ++i)
        EXPECT_EQ(member.features()[i].name, file.model.features()[i].name);
    }
    try {
      load_builtin_model(version);
      ADD_FAILURE() << "a collection loaded as one model";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is a bootstrap model collection"), std::string::npos);
    }
  }
  EXPECT_EQ(load_builtin_model_or_collection("vmaf_b_v0.6.3").model.features()[0].name,
            "VMAF_integer_feature_adm2_score");
  EXPECT_EQ(load_builtin_model_or_collection("vmaf_float_b_v0.6.3").model.features()[0].name,
            "VMAF_feature_adm2_score");
  // A plain built-in is a ModelFile without bootstrap models; unknown names
  // list the collections too.
  EXPECT_TRUE(load_builtin_model_or_collection("vmaf_v0.6.1").bootstrap.empty());
  try {
    load_builtin_model_or_collection("vmaf_b_v9");
    ADD_FAILURE() << "an unknown name loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vmaf_float_b_v0.6.3"), std::string::npos) << e.what();
  }
}
