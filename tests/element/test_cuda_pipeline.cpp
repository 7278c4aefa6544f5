// The element on CUDA: pipelines with cudaupload in front of the inputs must
// write the same log, bit for bit, as the CPU path; also NV12/P010 in CUDA
// memory (repacked on the device) and system-memory input with backend=cuda.
// Also the element's CUDA context as nvcodec handles it: dropped at stop (a
// changed cuda-device-id takes effect), CUDA memory of another context on the
// same device scored in place, a CUDA buffer pool offered to upstream.
// Skips cleanly where GStreamer's CUDA elements or a device are missing.
#include <gtest/gtest.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "element_info_log.h"
#include "fixtures.h"
#include "pipelines.h"
#include "reference_setup.h"

using namespace vmafexact;

namespace {

using vmafexact::test::raw_parser;
using vmafexact::test::run_pipeline;

// cudaupload passes system memory through when downstream also takes it, as
// vmafexact does: the caps filter makes it upload.
const std::string kCudaCaps = "video/x-raw(memory:CUDAMemory)";


bool cuda_elements_usable() {
  GstElementFactory* upload = gst_element_factory_find("cudaupload");
  if (!upload) return false;
  gst_object_unref(upload);
  // A tiny pipeline proves the driver and a device are there.
  return run_pipeline(
             "videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=64 ! "
             "cudaupload ! cudadownload ! fakesink") == "";
}

class CudaPipeline : public ::testing::TestWithParam<test::FixturePair> {
 protected:
  void SetUp() override {
    if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  }
};

std::string temp_log(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vmafexact-cuda-" + std::to_string(::getpid()) + "-" + name))
      .string();
}


TEST_P(CudaPipeline, CudaUploadGivesTheCpuLog) {
  const auto& pair = GetParam();
  const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
  const auto setup = test::reference_setup(log, pair.log_name);
  if (setup.empty()) GTEST_SKIP();
  if (!test::every_feature_has_a_cuda_twin(setup))
    GTEST_SKIP() << pair.log_name << " reads features without a CUDA twin";
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair.ref_yuv) || !std::filesystem::exists(yuv / pair.dist_yuv))
    GTEST_SKIP() << pair.ref_yuv << " is not in this slice of the fixtures";
  const std::string parser = raw_parser(pair);
  const std::string element = "vmafexact name=v model=\"" + setup.models + "\" features=\"" +
                              setup.features + "\" log-precision=max";
  const std::string ref_src = "filesrc location=\"" + (yuv / pair.ref_yuv).string() + "\" ! " + parser;
  const std::string dist_src = "filesrc location=\"" + (yuv / pair.dist_yuv).string() + "\" ! " + parser;

  const std::string cpu_log = temp_log(pair.log_name + ".cpu.json");
  ASSERT_EQ(run_pipeline(element + " backend=cpu log-location=" + cpu_log + " ! fakesink " + ref_src +
                         " ! v.ref_sink " + dist_src + " ! v.dist_sink"),
            "");
  const std::string gpu_log = temp_log(pair.log_name + ".cuda.json");
  ASSERT_EQ(run_pipeline(element + " backend=auto log-location=" + gpu_log + " ! fakesink " + ref_src +
                         " ! cudaupload ! " + kCudaCaps + " ! v.ref_sink " + dist_src + " ! cudaupload ! " +
                         kCudaCaps + " ! v.dist_sink"),
            "");
  const auto cpu = test::load_reference_log(cpu_log);
  const auto gpu = test::load_reference_log(gpu_log);
  std::filesystem::remove(cpu_log);
  std::filesystem::remove(gpu_log);
  ASSERT_EQ(cpu.frame_key_order, gpu.frame_key_order);
  ASSERT_EQ(cpu.frames.size(), gpu.frames.size());
  unsigned compared = 0;
  for (std::size_t i = 0; i < cpu.frames.size(); ++i)
    for (const auto& [key, value] : cpu.frames[i]) {
      EXPECT_EQ(gpu.frames[i].at(key), value) << pair.log_name << " frame " << i << " " << key;
      ++compared;
    }
  for (const auto& [key, methods] : cpu.pooled)
    for (const auto& [method, value] : methods) {
      EXPECT_EQ(gpu.pooled.at(key).at(method), value) << key << " " << method;
      ++compared;
    }
  std::printf("[cuda pipeline] %s: %u values, CUDA log == CPU log\n", pair.log_name.c_str(), compared);
}

INSTANTIATE_TEST_SUITE_P(SharedFixtures, CudaPipeline, ::testing::ValuesIn(test::max_precision_pairs()),
                         [](const ::testing::TestParamInfo<test::FixturePair>& info) {
                           std::string name = info.param.log_name.substr(0, info.param.log_name.size() - 9);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

class CudaLayouts : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  }
};

TEST_P(CudaLayouts, DeviceRepackAndUploadEqualTheCpu) {
  // A fixture pair read as planar I420 (or I420_10LE) and scored on the CPU,
  // then converted losslessly into the tested layout (same subsampling) and
  // scored on CUDA: from CUDA memory (repacked on the device when
  // semi-planar) and from system memory (uploaded by the element).
  const std::string format = GetParam();
  const bool high = format.find("10") != std::string::npos;
  const auto pairs = test::max_precision_pairs();
  const char* wanted = high ? "c_1920x1080_420p10_dis_x264crf28.max.json"
                            : "g_640x360_420p8_dis_x264crf40.max.json";
  const auto pair = std::find_if(pairs.begin(), pairs.end(),
                                 [&](const test::FixturePair& p) { return p.log_name == wanted; });
  ASSERT_NE(pair, pairs.end());
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair->ref_yuv) || !std::filesystem::exists(yuv / pair->dist_yuv))
    GTEST_SKIP() << pair->ref_yuv << " is not in this slice of the fixtures";
  const std::string parser = raw_parser(*pair);
  // psnr reads chroma; the second list reads luma only, so the element leaves
  // the chroma out (null planes: no upload, no device repack).
  for (const std::string features : {"psnr", "psnr=enable_chroma=false,vif"}) {
    SCOPED_TRACE(features);
    // Each input's own layout: the elements between its parser and the element.
    auto run = [&](const std::string& backend, const std::string& ref_layout,
                   const std::string& dist_layout, const std::string& log) {
      return run_pipeline(
          "filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " + parser + " ! " +
          ref_layout + "v.ref_sink filesrc location=\"" + (yuv / pair->dist_yuv).string() +
          "\" ! " + parser + " ! " + dist_layout +
          "v.dist_sink vmafexact name=v model=\"\" backend=" + backend + " features=\"" + features +
          "\" log-format=csv log-precision=max log-location=" + log + " ! fakesink");
    };
    const std::string cpu_log = temp_log(format + ".cpu.csv"), gpu_log = temp_log(format + ".gpu.csv");
    ASSERT_EQ(run("cpu", "", "", cpu_log), "");
    const std::string cpu = test::read_file(cpu_log);
    const std::string convert = "videoconvert dither=none ! video/x-raw,format=" + format + " ! ";
    const std::string in_cuda = convert + "cudaupload ! " + kCudaCaps + " ! ";
    ASSERT_EQ(run("auto", in_cuda, in_cuda, gpu_log), "");
    EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " in CUDA memory";
    ASSERT_EQ(run("cuda", convert, convert, gpu_log), "");
    EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " in system memory, uploaded";
    ASSERT_EQ(run("auto", in_cuda, convert, gpu_log), "");
    EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " reference in CUDA memory, distorted in system memory";
    std::printf("[cuda layouts] %s, %s: CUDA logs == CPU log (%zu bytes)\n", format.c_str(),
                features.c_str(), cpu.size());
    std::filesystem::remove(cpu_log);
    std::filesystem::remove(gpu_log);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, CudaLayouts,
                         ::testing::Values("I420", "NV12", "NV21", "YV12", "I420_10LE", "P010_10LE"));

// ---- The element's CUDA context ------------------------------------------

bool cuda_device_usable() {
  if (!gst_cuda_load_library()) return false;
  GstCudaContext* context = gst_cuda_context_new(0);
  if (!context) return false;
  gst_object_unref(context);
  return true;
}

// The device of the context the element answers a context query with; -1
// when it answers none.
int answered_device(GstElement* element) {
  GstQuery* query = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
  int device = -1;
  if (gst_element_query(element, query)) {
    GstContext* context = nullptr;
    gst_query_parse_context(query, &context);
    GstCudaContext* cuda = nullptr;
    if (context &&
        gst_structure_get(gst_context_get_structure(context), GST_CUDA_CONTEXT_TYPE,
                          GST_TYPE_CUDA_CONTEXT, &cuda, nullptr) &&
        cuda) {
      guint id = 0;
      g_object_get(cuda, "cuda-device-id", &id, nullptr);
      device = static_cast<int>(id);
      gst_object_unref(cuda);
    }
  }
  gst_query_unref(query);
  return device;
}

TEST(CudaContext, ChangedDeviceIdTakesEffectAfterStopAndStart) {
  if (!cuda_device_usable()) GTEST_SKIP() << "no usable CUDA device";
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  ASSERT_NE(element, nullptr);
  g_object_set(element, "backend", 2 /* cuda */, "cuda-device-id", 0, nullptr);
  ASSERT_NE(gst_element_set_state(element, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  EXPECT_EQ(answered_device(element), 0);
  ASSERT_EQ(gst_element_set_state(element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  EXPECT_EQ(answered_device(element), -1) << "the context is dropped at stop";
  // A device that does not exist: the start must fail rather than keep the
  // context of the last run.
  g_object_set(element, "cuda-device-id", 63, nullptr);
  EXPECT_EQ(gst_element_set_state(element, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(element, GST_STATE_NULL);
  // A second device, where there is one: its context is the one used.
  if (GstCudaContext* second = gst_cuda_context_new(1)) {
    gst_object_unref(second);
    g_object_set(element, "cuda-device-id", 1, nullptr);
    ASSERT_NE(gst_element_set_state(element, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    EXPECT_EQ(answered_device(element), 1);
    gst_element_set_state(element, GST_STATE_NULL);
  } else {
    std::printf("[cuda context] one device: 0 -> 63 checked (start fails), 0 -> 1 not\n");
  }
  gst_object_unref(element);
}

TEST(CudaContext, CudaBufferPoolOfferedForCudaMemoryCaps) {
  if (!cuda_device_usable()) GTEST_SKIP() << "no usable CUDA device";
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  ASSERT_NE(element, nullptr);
  g_object_set(element, "backend", 2 /* cuda */, "model", "", "features", "psnr", nullptr);
  GstHarness* harness = gst_harness_new_with_element(element, "ref_sink", "src");
  gst_object_unref(element);
  for (const bool cuda_caps : {true, false}) {
    const std::string caps_text = std::string(cuda_caps ? kCudaCaps : "video/x-raw") +
                                  ",format=I420,width=64,height=48,framerate=24/1";
    gst_harness_set_src_caps_str(harness, caps_text.c_str());
    GstCaps* caps = gst_caps_from_string(caps_text.c_str());
    GstQuery* query = gst_query_new_allocation(caps, TRUE);
    gst_caps_unref(caps);
    ASSERT_TRUE(gst_pad_peer_query(harness->srcpad, query)) << caps_text;
    EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
    if (cuda_caps) {
      ASSERT_GE(gst_query_get_n_allocation_pools(query), 1u);
      GstBufferPool* pool = nullptr;
      guint size = 0;
      gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, nullptr, nullptr);
      ASSERT_NE(pool, nullptr);
      EXPECT_TRUE(GST_IS_CUDA_BUFFER_POOL(pool));
      EXPECT_GE(size, 64u * 48u * 3u / 2u);
      gst_object_unref(pool);
    } else {
      EXPECT_EQ(gst_query_get_n_allocation_pools(query), 0u) << "no pool for system memory";
    }
    gst_query_unref(query);
  }
  gst_harness_teardown(harness);
}

// The pair the context tests score (g, 640x360 8-bit); a failure where the
// fixture list lacks it, nullopt where this slice of the fixtures lacks its files.
std::optional<test::FixturePair> context_test_pair() {
  const auto pairs = test::max_precision_pairs();
  const auto pair = std::find_if(pairs.begin(), pairs.end(), [](const test::FixturePair& p) {
    return p.log_name == "g_640x360_420p8_dis_x264crf40.max.json";
  });
  EXPECT_NE(pair, pairs.end());
  if (pair == pairs.end()) return std::nullopt;
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair->ref_yuv) || !std::filesystem::exists(yuv / pair->dist_yuv))
    return std::nullopt;
  return *pair;
}

TEST(CudaContext, CudaMemoryOfAnotherContextIsScoredInPlace) {
  if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  const auto pair = context_test_pair();
  if (!pair) GTEST_SKIP() << "g_640x360_420p8_ref.yuv is not in this slice of the fixtures";
  const auto yuv = test::fixture_yuv_dir();
  const std::string parser = raw_parser(*pair);
  const std::string sources = "filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " +
                              parser + " ! cudaupload name=up_ref ! " + kCudaCaps +
                              " ! v.ref_sink filesrc location=\"" +
                              (yuv / pair->dist_yuv).string() + "\" ! " + parser +
                              " ! cudaupload name=up_dist ! " + kCudaCaps + " ! v.dist_sink ";
  const std::string element =
      "vmafexact name=v model=\"\" features=psnr log-format=csv log-precision=max ";
  const std::string cpu_log = temp_log("other-context.cpu.csv");
  const std::string gpu_log = temp_log("other-context.gpu.csv");
  ASSERT_EQ(run_pipeline(element + "backend=cpu log-location=" + cpu_log + " ! fakesink " + sources), "");

  // The uploads get one context, the element another, both on device 0.
  GstElement* pipeline = gst_parse_launch(
      (element + "backend=auto log-location=" + gpu_log + " ! fakesink " + sources).c_str(), nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstCudaContext* upstream_context = gst_cuda_context_new(0);
  GstCudaContext* element_context = gst_cuda_context_new(0);
  ASSERT_NE(upstream_context, element_context);
  GstContext* upstream = gst_context_new_cuda_context(upstream_context);
  GstContext* own = gst_context_new_cuda_context(element_context);
  for (const char* name : {"up_ref", "up_dist"}) {
    GstElement* upload = gst_bin_get_by_name(GST_BIN(pipeline), name);
    gst_element_set_context(upload, upstream);
    gst_object_unref(upload);
  }
  GstElement* vmaf = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  gst_element_set_context(vmaf, own);
  gst_object_unref(vmaf);
  ElementInfoLog log;
  EXPECT_EQ(test::run_to_eos(pipeline), "");
  const std::vector<std::string> lines = log.finish();
  gst_object_unref(pipeline);
  gst_context_unref(upstream);
  gst_context_unref(own);
  gst_object_unref(upstream_context);
  gst_object_unref(element_context);

  EXPECT_EQ(test::read_file(gpu_log), test::read_file(cpu_log));
  bool adopted = false, on_gpu = false;
  unsigned in_place = 0;
  for (const auto& line : lines) {
    adopted |= line.find("CUDA memory of another context") != std::string::npos;
    on_gpu |= line.find("scoring on the GPU (CUDA)") != std::string::npos;
    in_place += line.find("CUDA memory read in place") != std::string::npos;
  }
  EXPECT_TRUE(on_gpu);
  EXPECT_EQ(in_place, 2u) << "both inputs must be read in place, not through the host";
  // cudaupload refuses a pool of another context (nvcodec's decide_allocation),
  // so its buffers are of its own context and the element takes that one.
  EXPECT_TRUE(adopted) << "the element did not take the buffers' context";
  std::filesystem::remove(cpu_log);
  std::filesystem::remove(gpu_log);
}

// The element's INFO lines of one pipeline run to EOS.
std::vector<std::string> info_lines_of_run(const std::string& description) {
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  EXPECT_NE(pipeline, nullptr) << description;
  if (!pipeline) return {};
  ElementInfoLog log;
  EXPECT_EQ(test::run_to_eos(pipeline), "") << description;
  std::vector<std::string> lines = log.finish();
  gst_object_unref(pipeline);
  return lines;
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// backend=auto looks for a CUDA context only when an input brings CUDA
// memory: a system-memory pipeline on a GPU machine never initialises CUDA
// (a context takes a fraction of a second and device memory), and CUDA
// memory is still scored on the GPU, in place, with the uploads' context.
TEST(CudaContext, AutoInitialisesCudaOnlyForCudaMemory) {
  if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  const std::string source =
      "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=I420,width=64,height=48,"
      "framerate=24/1";
  const auto run = [&](bool cuda_memory) {
    const std::string upload = cuda_memory ? " ! cudaupload ! " + kCudaCaps : "";
    return info_lines_of_run("vmafexact name=v backend=auto model=\"\" features=psnr ! fakesink " +
                             source + upload + " ! v.ref_sink " + source + upload +
                             " ! v.dist_sink");
  };
  const auto system = run(false);
  EXPECT_TRUE(any_line_has(system, "scoring on the CPU"));
  EXPECT_FALSE(any_line_has(system, "CUDA context")) << "a system-memory run looked for CUDA";
  const auto cuda = run(true);
  EXPECT_TRUE(any_line_has(cuda, "CUDA context")) << "no context was looked for";
  EXPECT_TRUE(any_line_has(cuda, "scoring on the GPU (CUDA)"));
  EXPECT_FALSE(any_line_has(cuda, "CUDA memory of another context"))
      << "the element made a context of its own instead of taking the uploads'";
}

// frames-in-flight sets the frames kept in flight on the device (1 to 4,
// more taken as 4; 0: two, or VMAFEXACT_CUDA_FRAMES), as the element's info
// line says, and every setting writes the CPU's log.
TEST(CudaContext, FramesInFlightSetsTheFramesOnTheDevice) {
  if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  const std::string caps = "video/x-raw,format=I420,width=176,height=144,framerate=25/1";
  const std::string ref = "videotestsrc num-buffers=12 pattern=ball ! " + caps;
  const std::string dist =
      "videotestsrc num-buffers=12 pattern=ball animation-mode=frames motion=sweep ! " + caps;
  const std::string upload = " ! cudaupload ! " + kCudaCaps;
  const auto pipeline = [&](const std::string& settings, const std::string& log, bool cuda) {
    return "vmafexact name=v model=vmaf_v0.6.1 log-precision=max log-location=" + log + " " +
           settings + " ! fakesink " + ref + (cuda ? upload : "") + " ! v.ref_sink " + dist +
           (cuda ? upload : "") + " ! v.dist_sink";
  };
  const std::string cpu_log = temp_log("frames.cpu.json");
  ASSERT_EQ(run_pipeline(pipeline("backend=cpu", cpu_log, false)), "");
  const auto cpu = test::load_reference_log(cpu_log);
  std::filesystem::remove(cpu_log);
  ASSERT_EQ(cpu.frames.size(), 12u);
  const char* from_environment = g_getenv("VMAFEXACT_CUDA_FRAMES");
  const unsigned default_frames =
      from_environment && *from_environment ? static_cast<unsigned>(std::atoi(from_environment)) : 2;
  for (const auto& [settings, frames] :
       {std::pair<std::string, unsigned>{"", default_frames}, {"frames-in-flight=1", 1},
        {"frames-in-flight=3", 3}, {"frames-in-flight=9", 4}}) {
    const std::string gpu_log = temp_log("frames.cuda.json");
    const auto lines = info_lines_of_run(pipeline("backend=cuda " + settings, gpu_log, true));
    EXPECT_TRUE(any_line_has(lines, "threads, " + std::to_string(frames) + " frames in flight"))
        << "'" << settings << "' should keep " << frames << " frames in flight";
    const auto gpu = test::load_reference_log(gpu_log);
    std::filesystem::remove(gpu_log);
    ASSERT_EQ(gpu.frames.size(), cpu.frames.size()) << settings;
    for (std::size_t i = 0; i < cpu.frames.size(); ++i)
      for (const auto& [key, value] : cpu.frames[i])
        EXPECT_EQ(gpu.frames[i].at(key), value) << settings << " frame " << i << " " << key;
    for (const auto& [key, methods] : cpu.pooled)
      for (const auto& [method, value] : methods)
        EXPECT_EQ(gpu.pooled.at(key).at(method), value) << settings << " " << key << " " << method;
  }
}

// Runs a pipeline to EOS or error: the error text (empty at EOS) and every
// warning's message text, in order.
struct RunOutcome {
  std::string error;
  std::vector<std::string> warnings;
};
RunOutcome run_collecting_warnings(const std::string& description) {
  RunOutcome outcome;
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  if (!pipeline) return {"parse failed", {}};
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  for (;;) {
    GstMessage* message = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    if (!message) {
      outcome.error = "timed out";
      break;
    }
    GError* gerror = nullptr;
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_WARNING) gst_message_parse_warning(message, &gerror, nullptr);
    if (type == GST_MESSAGE_ERROR) gst_message_parse_error(message, &gerror, nullptr);
    if (gerror) {
      (type == GST_MESSAGE_WARNING ? outcome.warnings.emplace_back(gerror->message)
                                   : outcome.error.assign(gerror->message));
      g_error_free(gerror);
    }
    gst_message_unref(message);
    if (type != GST_MESSAGE_WARNING) break;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return outcome;
}

// backend=auto with CUDA memory and a feature without a CUDA twin
// (psnr_hvs) scores on the CPU through a host map, says so once, and writes
// the CPU's log; backend=cuda refuses the same run with an error naming the
// feature. The float model, whose features all have twins (float_adm's
// since 2026-12-05), scores on the GPU without a warning, with the CPU's log.
TEST(CudaBackend, AutoScoresFeaturesWithoutTwinsOnTheCpuWithOneWarning) {
  if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  const std::string caps = "video/x-raw,format=I420,width=176,height=144,framerate=25/1";
  const std::string ref = "videotestsrc num-buffers=6 pattern=ball ! " + caps;
  const std::string dist =
      "videotestsrc num-buffers=6 pattern=ball animation-mode=frames "
      "motion=sweep ! " +
      caps;
  const std::string upload = " ! cudaupload ! " + kCudaCaps;
  const auto element = [](const std::string& scoring, const std::string& backend,
                          const std::string& log) {
    return "vmafexact name=v " + scoring + " log-precision=max backend=" + backend +
           (log.empty() ? "" : " log-location=" + log) + " ! fakesink ";
  };
  const auto same_logs = [](const std::string& cpu_log, const std::string& other_log) {
    const auto expected = test::load_reference_log(cpu_log);
    const auto scored = test::load_reference_log(other_log);
    std::filesystem::remove(cpu_log);
    std::filesystem::remove(other_log);
    ASSERT_EQ(expected.frame_key_order, scored.frame_key_order);
    ASSERT_EQ(expected.frames.size(), 6u);
    ASSERT_EQ(scored.frames.size(), 6u);
    // libvmaf writes null (NaN here) where a score is undefined, as
    // psnr_hvs_cb and _cr are for this content's flat chroma: equal when both are.
    for (std::size_t i = 0; i < expected.frames.size(); ++i)
      for (const auto& [key, value] : expected.frames[i]) {
        const double other = scored.frames[i].at(key);
        if (std::isnan(value))
          EXPECT_TRUE(std::isnan(other)) << "frame " << i << " " << key << ": " << other;
        else
          EXPECT_EQ(other, value) << "frame " << i << " " << key;
      }
  };
  for (const std::string scoring :
       {"model=vmaf_v0.6.1 features=psnr_hvs", "model=vmaf_float_v0.6.1"}) {
    const bool twinned = scoring == "model=vmaf_float_v0.6.1";
    const std::string cpu_log = temp_log("fallback.cpu.json");
    const RunOutcome cpu = run_collecting_warnings(element(scoring, "cpu", cpu_log) + ref +
                                                   " ! v.ref_sink " + dist + " ! v.dist_sink");
    ASSERT_EQ(cpu.error, "") << scoring;
    EXPECT_TRUE(cpu.warnings.empty()) << scoring;
    const std::string auto_log = temp_log("fallback.auto.json");
    const RunOutcome automatic =
        run_collecting_warnings(element(scoring, "auto", auto_log) + ref + upload +
                                " ! v.ref_sink " + dist + upload + " ! v.dist_sink");
    ASSERT_EQ(automatic.error, "") << scoring;
    if (twinned) {
      EXPECT_TRUE(automatic.warnings.empty()) << scoring << ": " << automatic.warnings[0];
    } else {
      ASSERT_EQ(automatic.warnings.size(), 1u);
      EXPECT_NE(automatic.warnings[0].find("Scoring on the CPU: backend=auto does not use the GPU "
                                           "for this run, because of psnr_hvs (no CUDA twin "
                                           "yet)."),
                std::string::npos)
          << automatic.warnings[0];
    }
    same_logs(cpu_log, auto_log);
    if (twinned) continue;
    const RunOutcome forced =
        run_collecting_warnings(element(scoring, "cuda", "") + ref + upload + " ! v.ref_sink " +
                                dist + upload + " ! v.dist_sink");
    EXPECT_NE(forced.error.find("psnr_hvs"), std::string::npos) << forced.error;
  }
}

// Two elements in one process, each on its own device (0 and 1 where the
// machine has two GPUs, else both on 0), run at the same time: each keeps its
// context and its streams, and each writes the CPU's log.
TEST(CudaContext, TwoElementsOnTheirOwnDevicesInOneProcess) {
  if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  const auto pair = context_test_pair();
  if (!pair) GTEST_SKIP() << "g_640x360_420p8_ref.yuv is not in this slice of the fixtures";
  const auto yuv = test::fixture_yuv_dir();
  int devices = 1;
  if (GstCudaContext* second_device = gst_cuda_context_new(1)) {
    devices = 2;
    gst_object_unref(second_device);
  }
  const std::string parser = raw_parser(*pair);
  const auto sources = [&](int device) {
    const std::string upload = " ! cudaupload cuda-device-id=" + std::to_string(device) + " ! " + kCudaCaps;
    return "filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " + parser + upload +
           " ! v.ref_sink filesrc location=\"" + (yuv / pair->dist_yuv).string() + "\" ! " + parser +
           upload + " ! v.dist_sink ";
  };
  const std::string element = "vmafexact name=v log-format=csv log-precision=max ";
  const std::string cpu_log = temp_log("two-devices.cpu.csv");
  ASSERT_EQ(run_pipeline(element + "backend=cpu log-location=" + cpu_log + " ! fakesink " + sources(0)), "");

  const int second = devices > 1 ? 1 : 0;
  std::printf("[cuda context] two elements on devices 0 and %d (%s)\n", second,
              devices > 1 ? "two devices here" : "one device here");
  struct Run {
    int device = 0;
    std::string log;
    GstElement* pipeline = nullptr;
    std::string error;
  };
  std::vector<Run> runs(2);
  runs[0].device = 0;
  runs[0].log = temp_log("two-devices.0.csv");
  runs[1].device = second;
  runs[1].log = temp_log("two-devices.1.csv");
  for (auto& run : runs) {
    run.pipeline = gst_parse_launch((element + "backend=cuda cuda-device-id=" + std::to_string(run.device) +
                                     " log-location=" + run.log + " ! fakesink " + sources(run.device))
                                        .c_str(),
                                    nullptr);
    ASSERT_NE(run.pipeline, nullptr);
  }
  ElementInfoLog log;
  {
    std::vector<std::thread> threads;
    for (auto& run : runs) threads.emplace_back([&run] { run.error = test::run_to_eos(run.pipeline); });
    for (auto& thread : threads) thread.join();
  }
  unsigned on_gpu = 0;
  for (const auto& line : log.finish()) on_gpu += line.find("scoring on the GPU (CUDA)") != std::string::npos;
  EXPECT_EQ(on_gpu, 2u) << "each element must score on its device, not fall back to the CPU";
  const std::string expected = test::read_file(cpu_log);
  for (auto& run : runs) {
    EXPECT_EQ(run.error, "") << "device " << run.device;
    gst_object_unref(run.pipeline);
    EXPECT_EQ(test::read_file(run.log), expected) << "device " << run.device;
    std::filesystem::remove(run.log);
  }
  std::filesystem::remove(cpu_log);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
