// End to end: real pipelines (filesrc ! rawvideoparse ! vmafexact) on every
// shared fixture pair, with the log the element writes compared against
// libvmaf's reference logs, every frame and pooled value with ==.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <gst/gst.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <fstream>
#include <tuple>
#include <vector>

#include "fixtures.h"
#include "pipelines.h"
#include "reference_setup.h"

using namespace vmafexact;
using vmafexact::test::FixturePair;

namespace {

using vmafexact::test::raw_parser;
using vmafexact::test::run_pipeline;



std::filesystem::path temp_log(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("vmafexact-pipeline-" + std::to_string(::getpid()) + "-" + name);
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Compares every key of `ours` with the reference: each frame and pooled value.
void expect_log_matches(const test::ReferenceLog& ours, const test::ReferenceLog& reference,
                        const std::string& label) {
  ASSERT_EQ(ours.frames.size(), reference.frames.size()) << label;
  ASSERT_FALSE(ours.frame_key_order.empty()) << label;
  unsigned compared = 0;
  for (std::size_t i = 0; i < ours.frames.size(); ++i)
    for (const auto& [key, value] : ours.frames[i]) {
      const auto expected = reference.frames[i].find(key);
      ASSERT_NE(expected, reference.frames[i].end()) << label << ": " << key << " not in reference";
      EXPECT_TRUE(same(value, expected->second))
          << label << " frame " << i << " " << key << ": " << value << " vs " << expected->second;
      ++compared;
    }
  for (const auto& [key, methods] : ours.pooled)
    for (const auto& [method, value] : methods) {
      EXPECT_TRUE(same(value, reference.pooled.at(key).at(method)))
          << label << " pooled " << key << " " << method;
      ++compared;
    }
  ASSERT_EQ(ours.aggregates.size(), reference.aggregates.size()) << label << ": aggregate_metrics";
  for (std::size_t k = 0; k < ours.aggregates.size(); ++k) {
    EXPECT_EQ(ours.aggregates[k].first, reference.aggregates[k].first) << label;
    EXPECT_TRUE(same(ours.aggregates[k].second, reference.aggregates[k].second))
        << label << " aggregate " << ours.aggregates[k].first;
    ++compared;
  }
  std::printf("[pipeline] %s: %u values compared\n", label.c_str(), compared);
}

class Pipeline : public ::testing::TestWithParam<FixturePair> {};

TEST_P(Pipeline, LogEqualsLibvmafReference) {
  const FixturePair& pair = GetParam();
  const auto reference = test::load_reference_log(test::reference_dir() / pair.log_name);
  const auto setup = test::reference_setup(reference, pair.log_name);
  if (setup.empty()) GTEST_SKIP() << "no score of this build in " << pair.log_name;
  const auto yuv = test::fixture_yuv_dir();
  const std::string parser = raw_parser(pair);
  for (const char* precision : {"max", "default"}) {
    const auto log = temp_log(pair.log_name + "." + precision + ".json");
    const std::string description =
        "vmafexact name=v model=\"" + setup.models + "\" features=\"" + setup.features +
        "\" log-precision=" + std::string(precision) +
        " log-location=\"" + log.string() + "\" ! fakesink filesrc location=\"" +
        (yuv / pair.ref_yuv).string() + "\" ! " + parser + " ! v.ref_sink filesrc location=\"" +
        (yuv / pair.dist_yuv).string() + "\" ! " + parser + " ! v.dist_sink";
    ASSERT_EQ(run_pipeline(description), "") << description;
    const auto ours = test::load_reference_log(log);
    std::filesystem::remove(log);
    EXPECT_EQ(ours.frame_key_order, setup.expected_keys) << pair.log_name;
    if (std::string(precision) == "max") {
      expect_log_matches(ours, reference, pair.log_name);
    } else {
      // libvmaf's own printing: compare against the stock tool's .default.json.
      std::string default_name = pair.log_name;
      default_name.replace(default_name.rfind(".max.json"), 9, ".default.json");
      const auto default_path = test::reference_dir() / default_name;
      if (std::filesystem::exists(default_path))
        expect_log_matches(ours, test::load_reference_log(default_path), default_name);
    }
  }
  // libvmaf's SUB layout (its --sub), where the stock tool's is at hand: the
  // element's log, picked by the extension, equal byte for byte.
  std::string sub_name = pair.log_name;
  sub_name.replace(sub_name.rfind(".max.json"), 9, ".default.sub");
  const auto sub_path = test::reference_dir() / sub_name;
  if (!std::filesystem::exists(sub_path)) return;
  const auto log = temp_log(sub_name);
  const std::string description =
      "vmafexact name=v model=\"" + setup.models + "\" features=\"" + setup.features +
      "\" log-location=\"" + log.string() + "\" ! fakesink filesrc location=\"" +
      (yuv / pair.ref_yuv).string() + "\" ! " + parser + " ! v.ref_sink filesrc location=\"" +
      (yuv / pair.dist_yuv).string() + "\" ! " + parser + " ! v.dist_sink";
  ASSERT_EQ(run_pipeline(description), "") << description;
  const std::string ours = test::read_file(log);
  std::filesystem::remove(log);
  EXPECT_EQ(ours, test::read_file(sub_path)) << sub_name;
  std::printf("[pipeline] %s: %zu bytes identical to libvmaf's\n", sub_name.c_str(), ours.size());
}

std::string test_name(const ::testing::TestParamInfo<FixturePair>& info) {
  std::string name = info.param.log_name.substr(0, info.param.log_name.size() - 9);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(SharedFixtures, Pipeline, ::testing::ValuesIn(test::max_precision_pairs()),
                         test_name);

// VMAF v0 and v1 in one element: each model's inputs run as its own extractors
// (their options differ), so every score equals the one libvmaf printed in the
// run of that model alone (v1's under its version: it is not the first model).
TEST(PipelineModels, VmafV0AndV1InOneRunScoreAsInTheirOwnRuns) {
  const auto pairs = test::max_precision_pairs();
  const auto pair = std::find_if(pairs.begin(), pairs.end(), [](const FixturePair& p) {
    return p.log_name == "a_576x324_420p8_dis_x264crf37.max.json";
  });
  ASSERT_NE(pair, pairs.end());
  test::ReferenceLog merged = test::load_reference_log(test::reference_dir() / pair->log_name);
  const auto v1 = test::load_reference_log(test::reference_dir() /
                                           "a_576x324_420p8_dis_x264crf37.v1.max.json");
  ASSERT_EQ(merged.frames.size(), v1.frames.size());
  const auto renamed = [](const std::string& key) {
    return key == "vmaf" ? std::string("vmaf_v1.0.16_3d0h") : key;
  };
  for (std::size_t i = 0; i < v1.frames.size(); ++i)
    for (const auto& [key, value] : v1.frames[i]) merged.frames[i][renamed(key)] = value;
  for (const auto& [key, methods] : v1.pooled) merged.pooled[renamed(key)] = methods;

  const auto log = temp_log("v0-v1.json");
  const auto yuv = test::fixture_yuv_dir();
  const std::string parser = raw_parser(*pair);
  const std::string description =
      "vmafexact name=v model=\"vmaf_v0.6.1,vmaf_v1.0.16_3d0h\" log-precision=max log-location=\"" +
      log.string() + "\" ! fakesink filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " +
      parser + " ! v.ref_sink filesrc location=\"" + (yuv / pair->dist_yuv).string() + "\" ! " +
      parser + " ! v.dist_sink";
  ASSERT_EQ(run_pipeline(description), "") << description;
  const auto ours = test::load_reference_log(log);
  std::filesystem::remove(log);
  // 15 keys of each model's run alone, nothing shared.
  EXPECT_EQ(ours.frame_key_order.size(), 15u + 15u);
  EXPECT_NE(std::find(ours.frame_key_order.begin(), ours.frame_key_order.end(), "vmaf_v1.0.16_3d0h"),
            ours.frame_key_order.end());
  expect_log_matches(ours, merged, "v0 and v1 together");
}

// Issue 12's pipeline: the default model with
// `features=float_ssim,float_ms_ssim,cambi,psnr=enable_mse=true` writes the keys
// libvmaf's `vmaf --feature float_ssim --feature float_ms_ssim --feature cambi
// --feature psnr=enable_mse=true` writes on pair g, in its order (the extra
// features in the order given, each feature's keys in its own order), with
// libvmaf's values: those of the pair's reference log, and the mse keys of its
// options log (min_sse there changes the psnr caps, not the mse). The options
// logs themselves run through the element in Pipeline.LogEqualsLibvmafReference.
TEST(PipelineOptions, SsimCambiAndPsnrMseWriteLibvmafsKeysInItsOrder) {
  const auto reference = test::load_reference_log(test::reference_dir() /
                                                  "g_640x360_420p8_dis_x264crf40.max.json");
  const auto options_reference = test::load_reference_log(
      test::reference_dir() / "g_640x360_420p8_dis_x264crf40.options.max.json");
  const auto pairs = test::max_precision_pairs();
  const auto pair = std::find_if(pairs.begin(), pairs.end(), [](const FixturePair& p) {
    return p.log_name == "g_640x360_420p8_dis_x264crf40.max.json";
  });
  ASSERT_NE(pair, pairs.end());
  const auto log = temp_log("issue12.json");
  const auto yuv = test::fixture_yuv_dir();
  const std::string parser = raw_parser(*pair);
  const std::string description =
      "vmafexact name=v features=\"float_ssim,float_ms_ssim,cambi,psnr=enable_mse=true\" "
      "log-precision=max log-location=\"" +
      log.string() + "\" ! fakesink filesrc location=\"" + (yuv / pair->ref_yuv).string() +
      "\" ! " + parser + " ! v.ref_sink filesrc location=\"" + (yuv / pair->dist_yuv).string() +
      "\" ! " + parser + " ! v.dist_sink";
  ASSERT_EQ(run_pipeline(description), "") << description;
  const auto ours = test::load_reference_log(log);
  std::filesystem::remove(log);
  EXPECT_EQ(ours.frame_key_order,
            (std::vector<std::string>{
                "integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3",
                "VMAF_integer_feature_motion_sad_score", "integer_vif_scale0", "integer_vif_scale1",
                "integer_vif_scale2", "integer_vif_scale3", "float_ssim", "float_ms_ssim", "cambi",
                "psnr_y", "mse_y", "psnr_cb", "mse_cb", "psnr_cr", "mse_cr", "integer_motion2",
                "integer_motion3", "vmaf"}));
  EXPECT_TRUE(ours.aggregates.empty());
  // Every value against libvmaf's: the mse keys from the options log.
  test::ReferenceLog expected = reference;
  for (std::size_t i = 0; i < expected.frames.size(); ++i)
    for (const char* key : {"mse_y", "mse_cb", "mse_cr"})
      expected.frames[i][key] = options_reference.frames[i].at(key);
  for (const char* key : {"mse_y", "mse_cb", "mse_cr"})
    expected.pooled[key] = options_reference.pooled.at(key);
  expect_log_matches(ours, expected, "float_ssim, float_ms_ssim, cambi, psnr with mse");
}

TEST(PipelineFormats, P010FromVideoconvertEqualsItsSource) {
  // videoconvert writes real P010 (10 bits in the top of each word, V after U):
  // identical content must score the 10-bit cap, 72 dB, on every plane.
  const auto log = temp_log("p010.csv");
  const std::string description =
      "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=I420_10LE,width=64,height=48 "
      "! tee name=t t. ! queue ! v.ref_sink t. ! queue ! videoconvert dither=none ! "
      "video/x-raw,format=P010_10LE ! v.dist_sink vmafexact name=v model=\"\" features=psnr log-format=csv "
      "log-precision=max log-location=\"" + log.string() + "\" ! fakesink";
  ASSERT_EQ(run_pipeline(description), "");
  const std::string text = test::read_file(log);
  std::filesystem::remove(log);
  EXPECT_EQ(text, "Frame,psnr_y,psnr_cb,psnr_cr,\n0,72,72,72,\n1,72,72,72,\n2,72,72,72,\n");
}

// Runs a live pipeline in which a pad probe on `drop_after_pad` (element:pad)
// drops every buffer after the first `keep` ones; returns the summary fields.
struct LiveResult {
  std::string error;
  guint64 scored = 0, unpaired_ref = 0, unpaired_dist = 0;
  guint threads = 0, frames_in_flight = 0;
  unsigned warnings = 0;
  std::vector<std::string> warning_texts;
};

LiveResult run_live(const std::string& description, const char* element, guint keep) {
  LiveResult result;
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  g_clear_error(&error);
  if (!pipeline) {
    result.error = "parse failed";
    return result;
  }
  GstElement* dropper = gst_bin_get_by_name(GST_BIN(pipeline), element);
  GstPad* pad = gst_element_get_static_pad(dropper, "src");
  struct DropCounter {
    guint seen = 0;
    guint keep = 0;
  };
  auto counter = std::make_unique<DropCounter>();
  counter->keep = keep;
  gst_pad_add_probe(
      pad, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad*, GstPadProbeInfo*, gpointer data) -> GstPadProbeReturn {
        auto* counter = static_cast<DropCounter*>(data);
        return counter->seen++ < counter->keep ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
      },
      counter.release(),  // the probe owns it from here
      [](gpointer data) { std::unique_ptr<DropCounter>(static_cast<DropCounter*>(data)); });
  gst_object_unref(pad);
  gst_object_unref(dropper);
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  while (true) {
    GstMessage* message = gst_bus_timed_pop(bus, 60 * GST_SECOND);
    if (!message) {
      result.error = "timed out";
      break;
    }
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_ERROR) {
      GError* gerror = nullptr;
      gst_message_parse_error(message, &gerror, nullptr);
      result.error = gerror->message;
      g_error_free(gerror);
    } else if (type == GST_MESSAGE_WARNING) {
      ++result.warnings;
      GError* gerror = nullptr;
      gst_message_parse_warning(message, &gerror, nullptr);
      result.warning_texts.push_back(gerror->message);
      g_error_free(gerror);
    } else if (type == GST_MESSAGE_ELEMENT &&
               gst_structure_has_name(gst_message_get_structure(message), "vmafexact-summary")) {
      const GstStructure* summary = gst_message_get_structure(message);
      gst_structure_get_uint64(summary, "frames-scored", &result.scored);
      gst_structure_get_uint64(summary, "frames-unpaired-ref", &result.unpaired_ref);
      gst_structure_get_uint64(summary, "frames-unpaired-dist", &result.unpaired_dist);
      gst_structure_get_uint(summary, "threads", &result.threads);
      gst_structure_get_uint(summary, "frames-in-flight", &result.frames_in_flight);
    }
    const bool done = type == GST_MESSAGE_EOS || type == GST_MESSAGE_ERROR;
    gst_message_unref(message);
    if (done) break;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return result;
}

TEST(PipelineEnd, WithSrcUnlinkedTheElementEndsThePipeline) {
  // No sink at all: vmafexact's src is unlinked, so its EOS event goes
  // nowhere; the pipeline must still post EOS once the log is written.
  const auto log = std::filesystem::temp_directory_path() / "vmafexact-unlinked-src.json";
  std::filesystem::remove(log);
  const std::string source =
      "videotestsrc num-buffers=20 ! video/x-raw,format=I420,width=64,height=48 ! ";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(
      (source + "v.ref_sink " + source + "v.dist_sink vmafexact name=v model=\"\" features=psnr "
       "log-location=" + log.string()).c_str(),
      &error);
  ASSERT_NE(pipeline, nullptr) << (error ? error->message : "");
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  ASSERT_NE(message, nullptr) << "no EOS within 20 s";
  EXPECT_EQ(GST_MESSAGE_TYPE(message), GST_MESSAGE_EOS);
  gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  EXPECT_TRUE(std::filesystem::exists(log));
  std::filesystem::remove(log);
}

TEST(PipelineLive, LiveSourcesArePairedFrameForFrame) {
  const auto result = run_live(
      "videotestsrc is-live=true num-buffers=12 ! video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! identity name=gate ! "
      "v.dist_sink vmafexact name=v ! fakesink sync=true",
      "gate", G_MAXUINT);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.scored, 12u);
  EXPECT_EQ(result.unpaired_ref + result.unpaired_dist, 0u);
  EXPECT_EQ(result.warnings, 0u);
}

TEST(PipelineLive, LivePipelinesScoreOneFrameAtATimeInBands) {
  // frames-in-flight=0 (auto): live sources get each frame scored by all
  // threads before the next (lowest latency); other pipelines frames side by
  // side; an explicit value wins.
  const std::string source =
      "videotestsrc is-live=%s num-buffers=6 ! video/x-raw,format=I420,width=320,height=240,"
      "framerate=30/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! identity name=gate ! "
      "v.dist_sink vmafexact name=v threads=3 %s ! fakesink sync=%s";
  const auto run = [&](bool live, const char* extra) {
    char description[512];
    std::snprintf(description, sizeof description, source.c_str(), live ? "true" : "false", extra,
                  live ? "true" : "false");
    return run_live(description, "gate", G_MAXUINT);
  };
  for (const auto& [live, extra, expected] :
       {std::tuple{true, "", 1u}, {false, "", 3u}, {true, "frames-in-flight=2", 2u},
        {false, "frames-in-flight=1", 1u}}) {
    const auto result = run(live, extra);
    EXPECT_EQ(result.error, "") << live << " " << extra;
    EXPECT_EQ(result.scored, 6u) << live << " " << extra;
    EXPECT_EQ(result.threads, 3u) << live << " " << extra;
    EXPECT_EQ(result.frames_in_flight, expected) << (live ? "live " : "not live ") << extra;
  }
}

TEST(PipelineLive, FramesWhosePartnerNeverComesTimeOutAsUnpaired) {
  // The distorted branch stops delivering after 4 frames while its stream
  // stays open: each later reference frame must be given up on after the
  // latency, not wait forever.
  const auto result = run_live(
      "videotestsrc is-live=true num-buffers=12 ! video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! identity name=gate ! "
      "v.dist_sink vmafexact name=v latency=50000000 ! fakesink sync=true",
      "gate", 4);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.scored, 4u);
  EXPECT_EQ(result.unpaired_ref, 8u);
  EXPECT_EQ(result.unpaired_dist, 0u);
  EXPECT_GE(result.warnings, 1u);
}

TEST(PipelineFiles, ALogLocationThatIsAnInputIsRefusedAndTheInputKept) {
  // The log replaces its file at the end: naming the reference input there
  // (however spelt) would destroy it. Refused at start; the file stays as it was.
  const auto input = temp_log("input.yuv");
  const std::string bytes(64 * 48 * 3 / 2 * 2, '\x5a');
  std::ofstream(input, std::ios::binary) << bytes;
  const std::string parser =
      "rawvideoparse use-sink-caps=false width=64 height=48 format=i420 framerate=24/1";
  const std::string spelt_otherwise =
      (input.parent_path() / "." / input.filename()).string();  // the same file
  const std::string description =
      "vmafexact name=v model=\"\" features=psnr log-location=\"" + spelt_otherwise +
      "\" ! fakesink filesrc name=reference location=\"" + input.string() + "\" ! " + parser +
      " ! v.ref_sink videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=48,"
      "framerate=24/1 ! v.dist_sink";
  const std::string error = run_pipeline(description);
  EXPECT_NE(error.find("is the file of element 'reference'"), std::string::npos) << error;
  EXPECT_EQ(test::read_file(input), bytes);
  std::filesystem::remove(input);
}

TEST(PipelineFiles, ALogLocationThatIsTheModelFileIsRefused) {
  const auto model = temp_log("model.json");
  // A small valid model (two inputs, linear kernel), so that only the log is wrong.
  const std::string text =
      R"({"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none", "feature_names": )"
      R"(["VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score"], "model": )"
      R"("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0.25\nSV\n2 1:0.25 2:1 \n"}})";
  std::ofstream(model) << text;
  const std::string source = "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=48 ! ";
  const std::string error = run_pipeline(
      "vmafexact name=v model=\"" + model.string() + "\" log-location=\"" + model.string() +
      "\" ! fakesink " + source + "v.ref_sink " + source + "v.dist_sink");
  EXPECT_NE(error.find("is the model file"), std::string::npos) << error;
  EXPECT_EQ(test::read_file(model), text);
  std::filesystem::remove(model);
}

// A folder of its own under the temporary folder, removed at the end.
struct PipelineFolder {
  std::filesystem::path path;
  PipelineFolder() {
    gchar* made = g_dir_make_tmp("vmafexact-files-XXXXXX", nullptr);
    path = made;
    g_free(made);
  }
  ~PipelineFolder() {
    std::error_code error;
    std::filesystem::remove_all(path, error);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path))
      names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
};

const std::string kPairedSource =
    "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=48,framerate=24/1";
const std::string kFrameParser =
    "rawvideoparse use-sink-caps=false width=64 height=48 format=i420 framerate=24/1";
const std::string kFrameBytes(64 * 48 * 3 / 2, '\x5a');

TEST(PipelineFiles, ALogLocationThatIsOneOfAMultifilesrcsNumberedFilesIsRefused) {
  // multifilesrc reads f000.yuv, f001.yuv, ...: a log named as one of them
  // (however spelt) once replaced that frame file.
  PipelineFolder folder;
  for (const char* name : {"f000.yuv", "f001.yuv"})
    std::ofstream(folder.path / name, std::ios::binary) << kFrameBytes;
  const auto run = [&](const std::string& log) {
    return run_pipeline("vmafexact name=v model=\"\" features=psnr log-location=\"" + log +
                        "\" ! fakesink multifilesrc name=reference location=\"" +
                        (folder.path / "f%03d.yuv").string() + "\" stop-index=1 ! " +
                        kFrameParser + " ! v.ref_sink " + kPairedSource + " ! v.dist_sink");
  };
  for (const auto& log : {folder.path / "f001.yuv", folder.path / "." / "f000.yuv"}) {
    const std::string error = run(log.string());
    EXPECT_NE(error.find("is the file of element 'reference'"), std::string::npos)
        << log << ": " << error;
  }
  EXPECT_EQ(test::read_file(folder.path / "f000.yuv"), kFrameBytes);
  EXPECT_EQ(test::read_file(folder.path / "f001.yuv"), kFrameBytes);
  // A name the pattern does not print is free: %03d never prints "1".
  EXPECT_EQ(run((folder.path / "f1.yuv").string()), "");
  EXPECT_TRUE(std::filesystem::exists(folder.path / "f1.yuv"));
}

TEST(PipelineFiles, ALogLocationThatIsAMultifilesinksFutureFileIsRefused) {
  // %% is a '%', %05d five digits at least: "out%%00007.raw" prints "out%00007.raw".
  PipelineFolder folder;
  const std::string error = run_pipeline(
      "vmafexact name=v model=\"\" features=psnr log-location=\"" +
      (folder.path / "out%00007.raw").string() + "\" ! fakesink " + kPairedSource +
      " ! v.ref_sink " + kPairedSource + " ! v.dist_sink fakesrc num-buffers=0 ! multifilesink "
      "name=out location=\"" + (folder.path / "out%%%05d.raw").string() + "\"");
  EXPECT_NE(error.find("is the file of element 'out'"), std::string::npos) << error;
  EXPECT_EQ(folder.entries(), std::vector<std::string>{});
}

TEST(PipelineFiles, AnInputNamedAsARotatedLogIsRefusedAtStart) {
  // log-location=cap-{index}.json with log-rotate once replaced an input
  // named cap-000000.json; {time} names, with or without a collision suffix, too.
  PipelineFolder folder;
  const auto run = [&](const std::string& pattern, const std::string& input) {
    std::ofstream(folder.path / input, std::ios::binary) << kFrameBytes + kFrameBytes;
    return run_pipeline("vmafexact name=v model=\"\" features=psnr log-rotate=1frames "
                        "log-location=\"" + (folder.path / pattern).string() +
                        "\" ! fakesink filesrc name=reference location=\"" +
                        (folder.path / "." / input).string() + "\" ! " + kFrameParser +
                        " ! v.ref_sink " + kPairedSource + " ! v.dist_sink");
  };
  for (const auto& [pattern, input] :
       {std::pair{"cap-{index}.json", "cap-000000.json"}, {"cap-{index}.json", "cap-1234567.json"},
        {"t-{time}.json", "t-20261206T044600Z.json"}, {"t-{time}.json", "t-20261206T044600Z-3.json"},
        {"{index}", "000002-1"}}) {
    const std::string error = run(pattern, input);
    EXPECT_NE(error.find("names the file of element 'reference'"), std::string::npos)
        << pattern << " " << input << ": " << error;
    EXPECT_EQ(test::read_file(folder.path / input), kFrameBytes + kFrameBytes) << input;
  }
  // Names no rotated file takes: five digits, another prefix.
  for (const auto& [pattern, input] :
       {std::pair{"c-{index}.json", "c-00000.json"}, {"t-{time}.json", "u-20261206T044600Z.json"}}) {
    EXPECT_EQ(run(pattern, input), "") << pattern << " " << input;
    EXPECT_EQ(test::read_file(folder.path / input), kFrameBytes + kFrameBytes) << input;
  }
}

TEST(PipelineFiles, ARotatedLogNameThatIsAnotherElementsFileIsRefusedBeforeItIsWritten) {
  // multifilesink's files do not exist yet at start: the rotated name is
  // checked again when the file is about to be written.
  PipelineFolder folder;
  const std::string error = run_pipeline(
      "vmafexact name=v model=\"\" features=psnr log-rotate=1frames log-location=\"" +
      (folder.path / "cap-{index}.json").string() + "\" ! fakesink " + kPairedSource +
      " ! v.ref_sink " + kPairedSource + " ! v.dist_sink fakesrc num-buffers=0 ! multifilesink "
      "name=out location=\"" + (folder.path / "cap-%06d.json").string() + "\"");
  EXPECT_NE(error.find("cap-000000.json\" is the file of element 'out'"), std::string::npos)
      << error;
  EXPECT_EQ(folder.entries(), std::vector<std::string>{});
}

TEST(PipelineFiles, ARotatedEmptyLogNameThatIsAnotherElementsFileIsRefused) {
  // No pair came: the empty log's rotated name is checked as a scored one's.
  PipelineFolder folder;
  const std::string no_frames =
      "videotestsrc num-buffers=0 ! video/x-raw,format=I420,width=64,height=48,framerate=24/1";
  const std::string error =
      run_pipeline("vmafexact name=v model=\"\" features=psnr log-rotate=1frames log-location=\"" +
                   (folder.path / "cap-{index}.json").string() + "\" ! fakesink " + no_frames +
                   " ! v.ref_sink " + no_frames +
                   " ! v.dist_sink fakesrc num-buffers=0 ! multifilesink "
                   "name=out location=\"" +
                   (folder.path / "cap-%06d.json").string() + "\"");
  EXPECT_NE(error.find("cap-000000.json\" is the file of element 'out'"), std::string::npos)
      << error;
  EXPECT_EQ(folder.entries(), std::vector<std::string>{});
}

TEST(PipelineCaps, ADownstreamThatRefusesTheDistortedFormatIsNamed) {
  // The distorted video goes out unchanged; when downstream takes only NV12
  // and the distorted input is fixed to I420, upstream fails with a generic
  // not-negotiated: the element says first which caps are refused.
  const auto result = run_live(
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! v.ref_sink "
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! identity name=gate ! "
      "v.dist_sink vmafexact name=v model=\"\" features=psnr ! video/x-raw,format=NV12 ! fakesink",
      "gate", G_MAXUINT);
  EXPECT_NE(result.error, "");
  ASSERT_EQ(result.warning_texts.size(), 1u);
  const std::string& warning = result.warning_texts[0];
  EXPECT_NE(warning.find("Downstream of vmafexact refuses the distorted video"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("format=(string)I420"), std::string::npos) << warning;
  EXPECT_NE(warning.find("format=(string)NV12"), std::string::npos) << warning;
}

TEST(PipelineCaps, AConverterBeforeTheDistortedInputNegotiatesWithoutAWarning) {
  const auto result = run_live(
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! v.ref_sink "
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! videoconvert ! "
      "identity name=gate ! v.dist_sink vmafexact name=v model=\"\" features=psnr ! "
      "video/x-raw,format=NV12 ! fakesink",
      "gate", G_MAXUINT);
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(result.warnings, 0u);
}

// The reproduction of issue 10's crash: 1080p snow, the distorted branch
// through videobalance, default settings (frames in flight on every thread),
// and a flushing seek to 0 after the fifth frame message, while frames are
// still being scored. Runs VMAFEXACT_SEEK_RUNS times (default 2); run it
// under ASan (scripts/sanitize.sh) to see a use-after-free, if any.
TEST(PipelineSeek, AFlushingSeekWithFramesInFlightAt1080pIsSafe) {
  const char* runs_text = std::getenv("VMAFEXACT_SEEK_RUNS");
  const int runs = runs_text ? std::max(1, std::atoi(runs_text)) : 2;
  for (int run = 0; run < runs; ++run) {
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(
        "videotestsrc pattern=snow ! video/x-raw,format=I420,width=1920,height=1080,"
        "framerate=30/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! "
        "videobalance brightness=0.05 ! v.dist_sink vmafexact name=v features=psnr ! fakesink",
        &error);
    ASSERT_NE(pipeline, nullptr) << (error ? error->message : "");
    g_clear_error(&error);
    GstBus* bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    unsigned frames = 0, frames_after_seek = 0;
    bool seeked = false;
    std::string failure;
    guint64 first_index_after_seek = G_MAXUINT64;
    while (frames_after_seek < 8 && failure.empty()) {
      GstMessage* message = gst_bus_timed_pop(bus, 60 * GST_SECOND);
      if (!message) {
        failure = "timed out";
        break;
      }
      if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError* gerror = nullptr;
        gst_message_parse_error(message, &gerror, nullptr);
        failure = gerror->message;
        g_error_free(gerror);
      } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS) {
        failure = "unexpected EOS";
      } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ELEMENT &&
                 gst_structure_has_name(gst_message_get_structure(message), "vmafexact-frame")) {
        guint64 index = 0;
        gst_structure_get_uint64(gst_message_get_structure(message), "index", &index);
        if (seeked) {
          if (first_index_after_seek == G_MAXUINT64) first_index_after_seek = index;
          ++frames_after_seek;
        } else if (++frames == 5) {
          seeked = gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0);
          if (!seeked) failure = "the seek was refused";
        }
      }
      gst_message_unref(message);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    ASSERT_EQ(failure, "") << "run " << run;
    // Frames posted after the seek belong to the old measurement until the
    // flush, then a new one counts from 0 again; the first of them may still
    // be an old frame, but frame 0 of the new one must come.
    EXPECT_GE(frames_after_seek, 8u) << "run " << run;
  }
}

// ---- A live input that never sends (issue 39) -----------------------------
//
// A live source beside one that never sends (a udpsrc on a port nobody sends
// to), both linked to the element without a queue: the sources' latencies
// (40 ms minimum, 0 maximum) made GstAggregator work as if not live, so it
// waited for a frame on both pads; the live source's streaming thread blocked
// in its pad for ever, and an EOS sent to the pipeline (gst-launch-1.0 -e,
// the monitor's SIGTERM) blocked the application in gst_element_send_event().

constexpr const char* kSmallLiveCaps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";

// Counts the buffers that reach a pad, and lets a test wait for a count.
class BufferCount {
 public:
  explicit BufferCount(GstPad* pad) {
    gst_pad_add_probe(
        pad, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad*, GstPadProbeInfo*, gpointer self) {
          static_cast<BufferCount*>(self)->add();
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
  }
  bool wait_for(unsigned count, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return count_ >= count; });
  }

 private:
  void add() {
    const std::lock_guard lock(mutex_);
    ++count_;
    changed_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  unsigned count_ = 0;
};

// Sends an event from a thread of its own, so that a test can give up on a
// send_event() that blocks instead of hanging with it.
class EventSender {
 public:
  EventSender(GstElement* element, GstEvent* event)
      : thread_([this, element, event] {
          gst_element_send_event(element, event);
          sent_.set_value();
        }) {}
  bool wait(std::chrono::seconds timeout) {
    return done_.wait_for(timeout) == std::future_status::ready;
  }
  ~EventSender() { thread_.join(); }

 private:
  std::promise<void> sent_;
  std::future<void> done_ = sent_.get_future();
  std::thread thread_;
};

struct EndOfRun {
  bool eos = false;
  bool summary = false;
  guint64 unpaired_ref = 0, unpaired_dist = 0;
  std::vector<std::string> warnings;
};

// Reads the bus until EOS or an error, for at most `timeout`.
EndOfRun wait_end(GstElement* pipeline, std::chrono::seconds timeout) {
  EndOfRun end;
  GstBus* bus = gst_element_get_bus(pipeline);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!end.eos) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    GstMessage* message = gst_bus_timed_pop(bus, left.count());
    if (!message) break;
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_EOS) end.eos = true;
    if (type == GST_MESSAGE_WARNING || type == GST_MESSAGE_ERROR) {
      GError* error = nullptr;
      if (type == GST_MESSAGE_WARNING)
        gst_message_parse_warning(message, &error, nullptr);
      else
        gst_message_parse_error(message, &error, nullptr);
      end.warnings.push_back(error->message);
      g_error_free(error);
    }
    const GstStructure* structure = gst_message_get_structure(message);
    if (type == GST_MESSAGE_ELEMENT && gst_structure_has_name(structure, "vmafexact-summary")) {
      end.summary = true;
      gst_structure_get_uint64(structure, "frames-unpaired-ref", &end.unpaired_ref);
      gst_structure_get_uint64(structure, "frames-unpaired-dist", &end.unpaired_dist);
    }
    const bool failed = type == GST_MESSAGE_ERROR;
    gst_message_unref(message);
    if (failed) break;
  }
  gst_object_unref(bus);
  return end;
}

// Unblocks streaming threads stuck in the element's pads (a failed test's
// way out, so that the pipeline can still be stopped and freed).
void flush_element_inputs(GstElement* pipeline) {
  GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  for (const char* name : {"ref_sink", "dist_sink"}) {
    GstPad* pad = gst_element_get_static_pad(element, name);
    gst_pad_send_event(pad, gst_event_new_flush_start());
    gst_object_unref(pad);
  }
  gst_object_unref(element);
}

class PipelineSilentInput : public ::testing::TestWithParam<const char*> {};

TEST_P(PipelineSilentInput, AnEosSentToThePipelineEndsItWithoutAQueue) {
  const std::string silent_pad = GetParam();
  const std::string live_pad = silent_pad == "ref_sink" ? "dist_sink" : "ref_sink";
  // The silent source first: a bin sends EOS to its newest source first, so
  // the live one gets it while its streaming thread is in the element's pad.
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(
      ("udpsrc port=0 address=127.0.0.1 caps=\"" + std::string(kSmallLiveCaps) + "\" ! v." +
       silent_pad + " videotestsrc is-live=true ! " + kSmallLiveCaps + " ! v." + live_pad +
       " vmafexact name=v model=\"\" features=psnr ! fakesink")
          .c_str(),
      &error);
  ASSERT_NE(pipeline, nullptr) << (error ? error->message : "");
  GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  GstPad* live_input = gst_element_get_static_pad(element, live_pad.c_str());
  BufferCount frames(live_input);
  gst_object_unref(live_input);
  gst_object_unref(element);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  // Frames keep reaching the element although their partners never come.
  EXPECT_TRUE(frames.wait_for(12, std::chrono::seconds(10)))
      << "the live input's streaming thread is blocked in " << live_pad;
  {
    EventSender eos(pipeline, gst_event_new_eos());
    const bool returned = eos.wait(std::chrono::seconds(10));
    EXPECT_TRUE(returned) << "gst_element_send_event(EOS) blocked for 10 s";
    if (!returned) flush_element_inputs(pipeline);
  }
  const EndOfRun end = wait_end(pipeline, std::chrono::seconds(10));
  EXPECT_TRUE(end.eos) << "no EOS on the bus within 10 s of the EOS event";
  EXPECT_TRUE(end.summary);
  EXPECT_GE(live_pad == "ref_sink" ? end.unpaired_ref : end.unpaired_dist, 1u);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

INSTANTIATE_TEST_SUITE_P(EitherInput, PipelineSilentInput,
                         ::testing::Values("ref_sink", "dist_sink"));

TEST(PipelineSilentInputEnd, TheEndOfOneLiveInputEndsTheRunWhenTheOtherNeverSends) {
  // With queues the latency is configured and lone frames time out; but once
  // the live input ended nothing was left to time out, and the element
  // waited for the silent input for ever: no summary, no EOS.
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(
      ("udpsrc port=0 address=127.0.0.1 caps=\"" + std::string(kSmallLiveCaps) +
       "\" ! queue ! v.ref_sink videotestsrc name=live is-live=true ! " + kSmallLiveCaps +
       " ! queue ! v.dist_sink vmafexact name=v model=\"\" features=psnr latency=50000000 ! "
       "fakesink")
          .c_str(),
      &error);
  ASSERT_NE(pipeline, nullptr) << (error ? error->message : "");
  GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  GstPad* dist = gst_element_get_static_pad(element, "dist_sink");
  BufferCount frames(dist);
  gst_object_unref(dist);
  gst_object_unref(element);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  // EXPECT, not ASSERT: the pipeline must reach NULL before `frames` goes.
  EXPECT_TRUE(frames.wait_for(3, std::chrono::seconds(10)));
  GstElement* live = gst_bin_get_by_name(GST_BIN(pipeline), "live");
  {
    EventSender eos(live, gst_event_new_eos());
    EXPECT_TRUE(eos.wait(std::chrono::seconds(10)));
  }
  gst_object_unref(live);
  const auto sent = std::chrono::steady_clock::now();
  const EndOfRun end = wait_end(pipeline, std::chrono::seconds(10));
  EXPECT_TRUE(end.eos) << "no EOS within 10 s of the live input's end";
  // The latency (50 ms plus the sources') and the 100 ms grace, with room
  // for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(5));
  EXPECT_TRUE(end.summary);
  EXPECT_GE(end.unpaired_dist, 3u);
  EXPECT_TRUE(std::any_of(end.warnings.begin(), end.warnings.end(), [](const std::string& text) {
    return text.find("the reference input sent nothing") != std::string::npos;
  })) << "no warning that names the silent input";
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// A program run by the test: standard output in a file, killed if it is still
// running when the test ends (so that a hang fails the test, not the suite).
class Program {
 public:
  Program(std::vector<std::string> argv, const std::filesystem::path& output) {
    std::vector<char*> args;
    for (std::string& argument : argv) args.push_back(argument.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Program() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  bool started() const { return pid_ > 0; }
  void send_signal(int signal) { ::kill(pid_, signal); }
  // The exit status, or nothing if the program still runs at the timeout.
  std::optional<int> wait_exit(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!status_ && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_)
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

TEST(PipelineSilentInputEnd, GstLaunchWithEosEndsOnSigintWhenALiveInputNeverSends) {
#if defined(__SANITIZE_ADDRESS__)
  // The in-process PipelineSilentInput tests cover the element under ASan.
  GTEST_SKIP() << "a gst-launch-1.0 child cannot load the ASan-built plugin";
#endif
  const std::unique_ptr<gchar, decltype(&g_free)> launcher(
      g_find_program_in_path("gst-launch-1.0"), g_free);
  if (!launcher) GTEST_SKIP() << "gst-launch-1.0 is not installed";
  const auto output = temp_log("gst-launch.txt");
  Program program({launcher.get(), "-e", "-v", "udpsrc", "port=0", "address=127.0.0.1",
                   std::string("caps=") + kSmallLiveCaps, "!", "v.ref_sink", "videotestsrc",
                   "is-live=true", "!", kSmallLiveCaps, "!", "identity", "name=seen",
                   "silent=false", "!", "v.dist_sink", "vmafexact", "name=v", "model=\"\"",
                   "features=psnr", "!", "fakesink"},
                  output);
  ASSERT_TRUE(program.started());
  // Frames flow (identity reports each one), or, before the fix, the live
  // input's thread stuck in the element's pad after a few (6 here).
  const auto frames_seen = [&] {
    const std::string text = test::read_file(output);
    std::size_t count = 0;
    for (std::size_t at = text.find("GstIdentity:seen: last-message"); at != std::string::npos;
         at = text.find("GstIdentity:seen: last-message", at + 1))
      ++count;
    return count;
  };
  for (const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       frames_seen() < 12 && std::chrono::steady_clock::now() < deadline && !program.wait_exit(
           std::chrono::seconds(0));)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(frames_seen(), 12u);
  program.send_signal(SIGINT);
  const auto status = program.wait_exit(std::chrono::seconds(10));
  ASSERT_TRUE(status) << "gst-launch-1.0 -e still ran 10 s after SIGINT";
  EXPECT_EQ(*status, 0) << test::read_file(output);
  EXPECT_NE(test::read_file(output).find("Got EOS from element"), std::string::npos);
  std::filesystem::remove(output);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
