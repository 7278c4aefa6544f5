// The vmafexact element's properties, checked when it starts: models (built-in,
// files, names, overloads), features, the backend and the log's location are
// refused with an error that names the problem and the fix, in valid UTF-8.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/strict_xml.h"
#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

namespace {

// Sets one property, starts the element and returns what it refused with:
// nullopt when the start succeeded; else the error's message and details.
struct StartError {
  std::string message, details;
};
// `as_is`: a string property set with g_object_set(), as an application sets
// it (gst_util_set_object_arg() refuses text that is not UTF-8).
std::optional<StartError> start_error(const char* property, const char* value,
                                      bool as_is = false) {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  if (!element) throw std::runtime_error("vmafexact element not found");
  if (as_is)
    g_object_set(element, property, value, nullptr);
  else
    gst_util_set_object_arg(G_OBJECT(element), property, value);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  const GstStateChangeReturn ret = gst_element_set_state(element, GST_STATE_PAUSED);
  std::optional<StartError> result;
  if (GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* gerror = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(error, &gerror, &debug);
    result = StartError{gerror->message, debug ? debug : ""};
    g_error_free(gerror);
    g_free(debug);
    gst_message_unref(error);
  }
  gst_element_set_state(element, GST_STATE_NULL);
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  gst_object_unref(element);
  if (ret != GST_STATE_CHANGE_FAILURE) return std::nullopt;
  if (!result) result = StartError{"state change failed without an error message", ""};
  return result;
}

}  // namespace

TEST(Element, BrokenModelFileIsAnErrorAtStart) {
  const auto path = temp_path("broken-model.json");
  std::ofstream(path) << "{ \"model_dict\": { \"feature_names\": [";
  const auto error = start_error("model", path.c_str());
  std::filesystem::remove(path);
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("Invalid model property"), std::string::npos) << error->message;
  EXPECT_NE(error->message.find(path.string()), std::string::npos) << error->message;
}

TEST(Element, ScoreNamesThatAreMessageFieldsOrTakenAreErrorsAtStart) {
  // A model named after a message field would overwrite it (index, pts, the
  // summary's counts); two models may not write one score either.
  for (const char* model : {"vmaf_v0.6.1:name=index", "vmaf_v0.6.1:name=pts",
                            "vmaf_v0.6.1:name=frames-scored", "vmaf_v0.6.1:name=running-time",
                            "vmaf_v0.6.1:name=apsnr_y"}) {
    const auto error = start_error("model", model);
    ASSERT_TRUE(error) << model;
    EXPECT_NE(error->message.find("is a field of vmafexact's messages"), std::string::npos)
        << error->message;
  }
  const auto twice = start_error("model", "vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf");
  ASSERT_TRUE(twice);
  EXPECT_NE(twice->message.find("would both write the score 'vmaf'"), std::string::npos)
      << twice->message;
  EXPECT_FALSE(start_error("model", "vmaf_v0.6.1:name=quality"));
}

TEST(Element, ModelFileWithAnInputNoExtractorProvidesIsAnErrorAtStart) {
  // A well-formed model whose input no extractor provides fails when the
  // element starts, naming the input, not at the first frame.
  const auto path = temp_path("unknown-input-model.json");
  std::ofstream(path) << R"({"model_dict": {"model_type": "LIBSVMNUSVR",
    "norm_type": "linear_rescale", "score_transform": {"enabled": false},
    "feature_names": ["VMAF_feature_ssim_score"], "slopes": [0.0, 1.0],
    "intercepts": [0.0, 0.0], "model": "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:0.5\n"}})";
  const auto error = start_error("model", path.c_str());
  std::filesystem::remove(path);
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("Invalid model property"), std::string::npos) << error->message;
  EXPECT_NE(error->message.find("no feature extractor provides its input 'VMAF_feature_ssim_score'"),
            std::string::npos)
      << error->message;
}

TEST(ElementVmaf, UnknownBuiltInModelIsAnErrorAtStart) {
  const auto error = start_error("model", "vmaf_v9");
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("vmaf_v9"), std::string::npos) << error->message;
  EXPECT_NE(error->details.find("vmaf_v0.6.1"), std::string::npos) << error->details;
}

TEST(Element, BackendCudaWithoutADeviceIsAClearError) {
  const auto error = start_error("backend", "cuda");
  if (!error) GTEST_SKIP() << "a CUDA device is usable here";
  EXPECT_NE(error->message.find("backend=cuda, but"), std::string::npos) << error->message;
}

TEST(Element, UnwritableLogIsAnErrorAtStart) {
  const auto error = start_error("log-location", "/nonexistent-folder/scores.json");
  ASSERT_TRUE(error);
  // The path, the cause, and the fix for that cause.
  EXPECT_NE(error->message.find("log-location \"/nonexistent-folder/scores.json\" cannot be "
                                "written: its folder \"/nonexistent-folder\" does not exist"),
            std::string::npos)
      << error->message;
  EXPECT_NE(error->details.find("Create the folder \"/nonexistent-folder\""), std::string::npos)
      << error->details;
}

TEST(Element, ALogLocationThatIsAFolderIsAnErrorAtStart) {
  // Renaming the log over a folder would fail only after the whole stream.
  const auto folder = std::filesystem::temp_directory_path();
  const auto error = start_error("log-location", folder.c_str());
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("cannot be written: it is a folder"), std::string::npos)
      << error->message;
  EXPECT_NE(error->details.find((folder / "scores.json").string()), std::string::npos)
      << error->details;
}

TEST(Element, UnknownFeatureIsAnErrorAtStart) {
  const auto error = start_error("features", "psnr,ssimulacra2");
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("unknown feature 'ssimulacra2'"), std::string::npos) << error->message;
}

TEST(Element, BadModelOverloadIsAnErrorAtStartThatNamesTheFix) {
  // libvmaf ignores an overload of an extractor the model does not use; the
  // element refuses it before any data flows.
  const auto unused = start_error("model", "vmaf_v0.6.1:psnr.min_sse=1");
  ASSERT_TRUE(unused);
  EXPECT_NE(unused->message.find("Invalid model property"), std::string::npos) << unused->message;
  EXPECT_NE(unused->message.find("overload one of adm, motion, vif"), std::string::npos)
      << unused->message;
  const auto range = start_error("model", "vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5");
  ASSERT_TRUE(range);
  EXPECT_NE(range->message.find("vif_enhn_gain_limit=0.5 is not a number in [1, 100]"),
            std::string::npos)
      << range->message;
  const auto psnr = start_error("features", "psnr=min_sse=-1");
  ASSERT_TRUE(psnr);
  EXPECT_NE(psnr->message.find("psnr: option min_sse=-1 is not a number in [0, 1.79769e+308]"),
            std::string::npos)
      << psnr->message;
}

namespace {

// A libvmaf JSON model of two inputs (linear SVR), small enough to write here.
constexpr const char* kLinearModel =
    "{\"param_dict\": {\"C\": 4.0}, \"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
    "\"norm_type\": \"none\", \"feature_names\": [\"VMAF_integer_feature_adm2_score\", "
    "\"VMAF_integer_feature_motion2_score\"], \"score_clip\": [0.0, 100.0], \"model\": "
    "\"svm_type nu_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 2\\nrho 0.25\\nSV\\n2 "
    "1:0.25 2:1 \\n-1 2:0.5 \\n\"}}";

// Scores 3 pairs of 64x48 I420 with `properties` (and a model set as it is,
// when given); returns the messages.
std::vector<MessagePtr> score_three_pairs(const std::string& properties,
                                          const std::string& model = {}) {
  ElementHarness harness(properties.c_str(), [&](GstElement* element) {
    if (!model.empty()) g_object_set(element, "model", model.c_str(), nullptr);
  });
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48),
                   caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  const Frames frames = make_frames(3, 64, 48, 8, ChromaFormat::k420);
  run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
  harness.push_eos_ref();
  harness.push_eos_dist();
  EXPECT_TRUE(harness.wait_for_eos());
  return harness.drain_messages();
}

}  // namespace

// A model's name is written as it is into every log layout and message: a
// name that one of them cannot hold (markup characters, white space, control
// characters, anything outside ASCII) is refused at start by an error in valid
// UTF-8; an accepted one keeps the XML and JSON logs parseable and the
// messages' text readable back by gst_structure_from_string().
TEST(Element, ModelNamesEveryLogHoldsOrTheStartRefuses) {
  const std::vector<std::string> refused = {"a\"b", "a<b",  "a>b",  "a&b",         "a'b",
                                            "a b",  "a\tb", "a\nb", "caf\xC3\xA9", "a\xFF"};
  for (const std::string& name : refused) {
    const auto error = start_error("model", ("vmaf_v0.6.1:name=" + name).c_str(), true);
    ASSERT_TRUE(error) << name;
    EXPECT_NE(error->message.find("Invalid model property: model entry"), std::string::npos)
        << error->message;
    EXPECT_NE(error->message.find("only ASCII letters, digits, '_', '-' and '.'"),
              std::string::npos)
        << error->message;
    EXPECT_TRUE(g_utf8_validate(error->message.c_str(), -1, nullptr)) << error->message;
  }
  const std::string name = "a.b-c_1";
  for (const char* layout : {"xml", "json", "csv", "sub"}) {
    SCOPED_TRACE(layout);
    const auto log = temp_path(std::string("named.") + layout);
    const auto messages =
        score_three_pairs("model=vmaf_v0.6.1:name=" + name + " log-location=" + log.string());
    const std::string text = read_text(log);
    std::filesystem::remove(log);
    if (std::string(layout) == "xml") {
#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
      const auto doc = test::parse_strict_xml(text);
      ASSERT_TRUE(doc) << text;
      EXPECT_TRUE(test::xml_attribute(doc, "frame", name.c_str())) << text;
#else
      GTEST_SKIP() << "libxml2's headers were not found";
#endif
    } else if (std::string(layout) == "json") {
      const auto json = nlohmann::ordered_json::parse(text);
      EXPECT_TRUE(json["frames"][2]["metrics"].contains(name)) << text;
    } else if (std::string(layout) == "csv") {
      EXPECT_NE(text.substr(0, text.find('\n')).find("," + name + ","), std::string::npos);
    } else {
      EXPECT_NE(text.find("|" + name + ": "), std::string::npos) << text;
    }
    const auto frames_posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(frames_posted.size(), 3u);
    gchar* serialized = gst_structure_to_string(frames_posted[0]);
    GstStructure* read_back = gst_structure_from_string(serialized, nullptr);
    EXPECT_TRUE(read_back && gst_structure_has_field_typed(read_back, name.c_str(), G_TYPE_DOUBLE))
        << serialized;
    if (read_back) gst_structure_free(read_back);
    g_free(serialized);
  }
}

// Every error and warning text the element posts is valid UTF-8, whatever it
// quotes: a model file with a byte that is not UTF-8 in a key (the JSON
// reader's error quotes it) fails the start with a message and a debug text
// that g_utf8_validate() accepts, the byte shown as U+FFFD; a model file
// whose path holds such a byte is named in the summary's provenance in UTF-8.
TEST(Element, ErrorTextsAndProvenanceAreValidUtf8WhateverTheyQuote) {
  std::string bad_key = kLinearModel;
  bad_key.replace(bad_key.find("norm_type"), 9, "norm\xFF_type");
  const auto model = temp_path("bad-key.json");
  std::ofstream(model) << bad_key;
  const auto error = start_error("model", model.string().c_str());
  std::filesystem::remove(model);
  ASSERT_TRUE(error);
  EXPECT_NE(error->message.find("Invalid model property: " + model.string()), std::string::npos)
      << error->message;
  EXPECT_NE(error->message.find("\xEF\xBF\xBD"), std::string::npos) << error->message;
  EXPECT_TRUE(g_utf8_validate(error->message.c_str(), -1, nullptr)) << error->message;
  EXPECT_TRUE(g_utf8_validate(error->details.c_str(), -1, nullptr)) << error->details;

  const auto odd_path = temp_path("odd-\xFF.json");
  std::ofstream(odd_path) << kLinearModel;
  const auto messages = score_three_pairs("", odd_path.string());
  std::filesystem::remove(odd_path);
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(messages, GST_MESSAGE_ERROR));
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  const gchar* models = gst_structure_get_string(summary[0], "models");
  ASSERT_TRUE(models);
  EXPECT_TRUE(g_utf8_validate(models, -1, nullptr)) << models;
  EXPECT_NE(std::string(models).find("odd-\xEF\xBF\xBD.json"), std::string::npos) << models;
}
