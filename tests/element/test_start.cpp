// The element's start of scoring (gst/session_start.h, gst/provenance.h): the
// models are read once a run, at start, and every scoring session of the run
// scores with them; the provenance is the same typed fields in every message
// (threads a guint) and text in the log.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

namespace {

// A libvmaf model file with a linear SVM over adm2 and motion2.
constexpr const char* kLinearModel =
    "{\"param_dict\": {\"C\": 4.0}, \"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
    "\"norm_type\": \"none\", \"feature_names\": [\"VMAF_integer_feature_adm2_score\", "
    "\"VMAF_integer_feature_motion2_score\"], \"score_clip\": [0.0, 100.0], \"model\": "
    "\"svm_type nu_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 2\\nrho 0.25\\nSV\\n2 "
    "1:0.25 2:1 \\n-1 2:0.5 \\n\"}}";

constexpr unsigned kWidth = 64, kHeight = 48;

// Pushes pairs `first` .. `last` - 1 of `frames`, from running time 0.
void push_pairs(ElementHarness& harness, const Frames& frames, unsigned first, unsigned last) {
  for (unsigned i = first; i < last; ++i) {
    const GstClockTime pts = (i - first) * kFrame;
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, pts, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, pts, kFrame));
  }
}

guint field_uint(const GstStructure* structure, const char* name) {
  EXPECT_EQ(gst_structure_get_field_type(structure, name), G_TYPE_UINT) << name;
  guint value = 0;
  gst_structure_get_uint(structure, name, &value);
  return value;
}

std::string field_text(const GstStructure* structure, const char* name) {
  const gchar* text = gst_structure_get_string(structure, name);
  EXPECT_TRUE(text) << name;
  return text ? text : "";
}

}  // namespace

// A model file is read once a run, when the element starts: the first pair's
// scoring session and the one after a flushing seek both score with the
// models read then, though the file is gone by the first pair.
TEST(Start, AModelFileIsReadOnceARunAtStart) {
  const auto model = temp_path("read-once-model.json");
  std::ofstream(model) << kLinearModel;
  ElementHarness harness(("model=" + model.string()).c_str());
  std::filesystem::remove(model);
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight),
                   caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight));
  const Frames frames = make_frames(5, kWidth, kHeight, 8, ChromaFormat::k420);
  push_pairs(harness, frames, 0, 3);
  // Before the flush drops what is still in flight: a pair scored with the
  // models read at start, though their file is gone.
  auto before = harness.messages_until("vmafexact-frame");
  for (auto& message : harness.drain_messages()) before.push_back(std::move(message));
  EXPECT_TRUE(message_texts(before, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(before, GST_MESSAGE_ERROR));
  EXPECT_FALSE(element_messages(before, "vmafexact-frame").empty());
  harness.flushing_seek();
  harness.drain_messages();
  push_pairs(harness, frames, 3, 5);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto after = harness.drain_messages();
  EXPECT_TRUE(message_texts(after, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(after, GST_MESSAGE_ERROR));
  const auto posted = element_messages(after, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 2u);
  for (const GstStructure* frame : posted)
    EXPECT_TRUE(gst_structure_has_field_typed(frame, "vmaf", G_TYPE_DOUBLE));
  const auto summary = element_messages(after, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 2u);
  const std::string models = field_text(summary[0], "models");
  EXPECT_TRUE(models.starts_with("vmaf=")) << models;
  EXPECT_TRUE(models.ends_with(" (" + model.string() + ")")) << models;
}

// The provenance: typed fields of the summary and of every window message
// (threads a guint, the same in both), and text in the log's provenance, in
// the order vmafexact-version, libvmaf-version, models, backend, threads.
TEST(Start, ProvenanceIsTypedInEveryMessageAndTextInTheLog) {
  const auto log = temp_path("start-provenance.json");
  ElementHarness harness(("threads=2 window=2f log-location=" + log.string()).c_str());
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight),
                   caps_string(GST_VIDEO_FORMAT_I420, kWidth, kHeight));
  const Frames frames = make_frames(4, kWidth, kHeight, 8, ChromaFormat::k420);
  push_pairs(harness, frames, 0, 4);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  const auto summary = element_messages(messages, "vmafexact-summary");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(summary.size(), 1u);
  ASSERT_FALSE(windows.empty());
  EXPECT_EQ(field_uint(summary[0], "threads"), 2u);
  const char* texts[] = {"vmafexact-version", "libvmaf-version", "models", "backend"};
  for (const GstStructure* window : windows) {
    EXPECT_EQ(field_uint(window, "threads"), 2u);
    for (const char* key : texts)
      EXPECT_EQ(field_text(window, key), field_text(summary[0], key)) << key;
  }
  EXPECT_TRUE(field_text(summary[0], "backend").starts_with("CPU ("));
  const auto parsed = nlohmann::ordered_json::parse(read_text(log));
  std::filesystem::remove(log);
  const auto& provenance = parsed.at("provenance");
  std::vector<std::string> keys;
  for (const auto& [key, value] : provenance.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"vmafexact-version", "libvmaf-version", "models",
                                            "backend", "threads"}));
  EXPECT_EQ(provenance.at("threads"), "2");
  for (const char* key : texts) EXPECT_EQ(provenance.at(key), field_text(summary[0], key)) << key;
}
