// On the GPU machine: the vmafexact tool with --backend cuda decodes H.264,
// HEVC, VP9 and AV1 files with NVDEC (its provenance names nvh264dec, ...)
// and gives --backend cpu's log, every frame's and every pooled figure equal
// at --precision max: unscaled (frames kept in CUDA memory), scaled
// (downloaded and scaled as the CPU path scales), converted 8 to 10 bits, and
// a frame range reached by seeking; and vmafexact-monitor's channel pipeline
// (NVDEC, then downloaded and conformed on the CPU) likewise. The media are made beforehand (by the
// device scripts) in the folder VMAFEXACT_NVDEC_MEDIA: h264_1080_ref.mp4,
// h264_1080_dist.mp4, h264_720_dist.mp4, hevc10_1080_{ref,dist}.mkv,
// vp9_1080_{ref,dist}.webm and av1_1080_{ref,dist}.mkv. Skips without that
// folder, a pair whose decoder GStreamer lacks, or everything where it has no
// nvh264dec (no GPU, no driver, no nvcodec). VMAFEXACT_TOOL names the tool
// where it is not the build's (a device bundle).

#include <glib.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"
#include "channel_pipeline.h"
#include "support/message_json.h"

using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using vmafexact::test::read_file;
using vmafexact::test::ScratchFolder;

struct Result {
  int status = -1;
  std::string err;
};

// The tool: VMAFEXACT_TOOL where set (a device bundle), else the build's.
std::string tool_path() {
  const char* bundled = std::getenv("VMAFEXACT_TOOL");
  return bundled && *bundled ? bundled : kCliPath;
}

Result run_tool(const std::vector<std::string>& args) {
  const std::string tool = tool_path();
  std::vector<gchar*> argv;
  argv.push_back(const_cast<gchar*>(tool.c_str()));
  for (const auto& arg : args) argv.push_back(const_cast<gchar*>(arg.c_str()));
  argv.push_back(nullptr);
  gchar* err = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  Result result;
  if (g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_STDOUT_TO_DEV_NULL, nullptr, nullptr,
                   nullptr, &err, &wait_status, &error)) {
    result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
    result.err = err ? err : "";
  } else {
    result.err = error ? error->message : "spawn failed";
  }
  g_clear_error(&error);
  g_free(err);
  return result;
}

bool has_factory(const char* name) {
  GstElementFactory* factory = gst_element_factory_find(name);
  if (factory) gst_object_unref(factory);
  return factory != nullptr;
}

// The CPU decoders that give the --backend cpu run its frames, for an NVDEC decoder's codec.
std::vector<const char*> cpu_decoders_for(const std::string& nvdec) {
  if (nvdec == "nvh264dec") return {"avdec_h264"};
  if (nvdec == "nvh265dec") return {"avdec_h265"};
  if (nvdec == "nvvp9dec") return {"avdec_vp9", "vp9dec"};
  if (nvdec == "nvav1dec") return {"avdec_av1", "dav1ddec", "av1dec"};
  return {};
}

struct Case {
  const char* name;
  const char* ref;
  const char* dist;
  const char* ref_decoder;  // expected in the cuda run's provenance
  const char* dist_decoder;
  std::vector<std::string> extra;  // more options, for both runs
  bool html = false;  // both runs also write --html pages, with the same thumbnails' count
};

// The worst frames' pictures of a --html page: its PNG data URLs.
std::size_t pictures_of_page(const std::string& page) {
  std::size_t count = 0;
  for (std::size_t at = page.find("data:image/png;base64,"); at != std::string::npos;
       at = page.find("data:image/png;base64,", at + 1))
    ++count;
  return count;
}

class NvdecTool : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const char* media = std::getenv("VMAFEXACT_NVDEC_MEDIA");
    if (!media || !fs::is_directory(media))
      GTEST_SKIP() << "VMAFEXACT_NVDEC_MEDIA names no folder of the media";
    media_ = media;
    if (!has_factory("nvh264dec")) GTEST_SKIP() << "GStreamer has no nvh264dec (no NVDEC here)";
    for (const char* decoder : {GetParam().ref_decoder, GetParam().dist_decoder}) {
      const std::string factory = std::string(decoder).substr(0, std::string(decoder).find(' '));
      if (!has_factory(factory.c_str())) GTEST_SKIP() << "GStreamer has no " << factory;
      const auto cpu = cpu_decoders_for(factory);
      if (std::none_of(cpu.begin(), cpu.end(), has_factory))
        GTEST_SKIP() << "GStreamer has no CPU decoder for " << factory << "'s codec";
    }
    for (const char* file : {GetParam().ref, GetParam().dist})
      if (!fs::exists(media_ / file)) GTEST_SKIP() << (media_ / file).string() << " is missing";
  }

  // Runs the tool with `backend`; returns its log.
  Json score(const char* backend) {
    const Case& pair = GetParam();
    const std::string log = (scratch_ / (std::string(backend) + ".json")).string();
    std::vector<std::string> args = {(media_ / pair.ref).string(),
                                     (media_ / pair.dist).string(),
                                     "--backend",
                                     backend,
                                     "--json",
                                     log,
                                     "--precision",
                                     "max",
                                     "--quiet"};
    args.insert(args.end(), pair.extra.begin(), pair.extra.end());
    if (pair.html) {
      args.push_back("--html");
      args.push_back((scratch_ / (std::string(backend) + ".html")).string());
    }
    const Result result = run_tool(args);
    EXPECT_EQ(result.status, 0) << backend << ": " << result.err;
    if (result.status != 0 || !fs::exists(log)) return Json::object();
    return Json::parse(read_file(log));
  }

  fs::path media_;
  ScratchFolder scratch_{"vmafexact-nvdec-tool"};
};

TEST_P(NvdecTool, DecodesWithNvdecAndScoresAsTheCpuDoes) {
  const Case& pair = GetParam();
  const Json cpu = score("cpu");
  const Json cuda = score("cuda");
  ASSERT_TRUE(cpu.contains("frames") && cuda.contains("frames"));
  ASSERT_GT(cpu["frames"].size(), 0u);
  EXPECT_EQ(cuda["provenance"].value("reference_decoder", ""), pair.ref_decoder);
  EXPECT_EQ(cuda["provenance"].value("distorted_decoder", ""), pair.dist_decoder);
  EXPECT_FALSE(cpu["provenance"].contains("reference_decoder"));
  ASSERT_EQ(cuda["frames"].size(), cpu["frames"].size());
  for (std::size_t frame = 0; frame < cpu["frames"].size(); ++frame)
    ASSERT_EQ(cuda["frames"][frame], cpu["frames"][frame]) << "frame " << frame;
  for (const char* key : {"pooled_metrics", "aggregate_metrics"})
    EXPECT_EQ(cuda.value(key, Json()), cpu.value(key, Json())) << key;
  if (pair.html) {
    // The worst frames' thumbnails, reference and distorted, from CUDA memory
    // as from the CPU's (5 worst frames by default: 10 pictures).
    const std::size_t cpu_pictures = pictures_of_page(read_file(scratch_ / "cpu.html"));
    EXPECT_GE(cpu_pictures, 10u);
    EXPECT_EQ(pictures_of_page(read_file(scratch_ / "cuda.html")), cpu_pictures);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, NvdecTool,
    ::testing::Values(
        Case{"H264SameSize",
             "h264_1080_ref.mp4",
             "h264_1080_dist.mp4",
             "nvh264dec (NVDEC)",
             "nvh264dec (NVDEC)",
             {}, true},
        Case{"H264Scaled",
             "h264_1080_ref.mp4",
             "h264_720_dist.mp4",
             "nvh264dec (NVDEC)",
             "nvh264dec (NVDEC)",
             {}, true},
        Case{"H264ScaledByVideoscale",
             "h264_1080_ref.mp4",
             "h264_720_dist.mp4",
             "nvh264dec (NVDEC)",
             "nvh264dec (NVDEC)",
             {"--scale-method", "bilinear"}},
        Case{"Hevc10SameSize",
             "hevc10_1080_ref.mkv",
             "hevc10_1080_dist.mkv",
             "nvh265dec (NVDEC)",
             "nvh265dec (NVDEC)",
             {}, true},
        // An 8-bit DIST against a 10-bit REF: converted on the CPU as the CPU path converts.
        Case{"H264AgainstHevc10",
             "hevc10_1080_ref.mkv",
             "h264_1080_dist.mp4",
             "nvh265dec (NVDEC)",
             "nvh264dec (NVDEC)",
             {}},
        Case{"Vp9SameSize",
             "vp9_1080_ref.webm",
             "vp9_1080_dist.webm",
             "nvvp9dec (NVDEC)",
             "nvvp9dec (NVDEC)",
             {}},
        Case{"Av1SameSize",
             "av1_1080_ref.mkv",
             "av1_1080_dist.mkv",
             "nvav1dec (NVDEC)",
             "nvav1dec (NVDEC)",
             {}},
        // A frame range: both inputs sought through parser and decoder.
        Case{"H264FrameRange",
             "h264_1080_ref.mp4",
             "h264_1080_dist.mp4",
             "nvh264dec (NVDEC)",
             "nvh264dec (NVDEC)",
             {"--start", "0.5", "--frames", "10"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// vmafexact-monitor's channel pipeline in this process, backend=cuda against
// backend=cpu on the same files: with cuda both inputs go through nvh264dec
// (and cudadownload, then conformed on the CPU), every frame's message equal.
class NvdecMonitorChannel : public ::testing::TestWithParam<Case> {};

// The caps of the element's sink pad `name` at the end of the run, as text.
std::string sink_caps_text(GstElement* vmafexact, const char* name) {
  GstPad* pad = gst_element_get_static_pad(vmafexact, name);
  GstCaps* caps = pad ? gst_pad_get_current_caps(pad) : nullptr;
  std::string text;
  if (caps) {
    gchar* printed = gst_caps_to_string(caps);
    text = printed;
    g_free(printed);
    gst_caps_unref(caps);
  }
  if (pad) gst_object_unref(pad);
  return text;
}

// `sink_caps`: the element's ref_sink's and dist_sink's caps at the end.
std::vector<std::string> channel_frames(const Case& pair, const fs::path& media,
                                        const char* backend, std::vector<std::string>& factories,
                                        std::string& error,
                                        std::pair<std::string, std::string>* sink_caps = nullptr) {
  vmafexact::monitor_tool::ChannelConfig channel;
  channel.name = "nvdec";
  channel.ref = (media / pair.ref).string();
  channel.dist = (media / pair.dist).string();
  channel.properties = {{"backend", backend}};
  const auto built = vmafexact::monitor_tool::build_channel_pipeline(channel);
  gst_util_set_object_arg(G_OBJECT(built.vmafexact.get()), "backend", backend);
  GstElement* pipeline = built.pipeline.get();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  std::vector<std::string> frames;
  for (;;) {
    GstMessage* message = gst_bus_timed_pop_filtered(
        bus, 300 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
    if (!message) {
      error = "no end within 300 s";
      break;
    }
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_ERROR) {
      GError* raw = nullptr;
      gst_message_parse_error(message, &raw, nullptr);
      error = raw ? raw->message : "?";
      g_clear_error(&raw);
    } else if (type == GST_MESSAGE_ELEMENT &&
               gst_structure_has_name(gst_message_get_structure(message), "vmafexact-frame")) {
      frames.push_back(vmafexact::tools::json_of(gst_message_get_structure(message)).dump());
    }
    gst_message_unref(message);
    if (type != GST_MESSAGE_ELEMENT) break;
  }
  gst_object_unref(bus);
  GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
    GstElementFactory* factory =
        gst_element_get_factory(static_cast<GstElement*>(g_value_get_object(&item)));
    if (factory) factories.push_back(GST_OBJECT_NAME(factory));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(elements);
  if (sink_caps)
    *sink_caps = {sink_caps_text(built.vmafexact.get(), "ref_sink"),
                  sink_caps_text(built.vmafexact.get(), "dist_sink")};
  gst_element_set_state(pipeline, GST_STATE_NULL);
  return frames;
}

TEST_P(NvdecMonitorChannel, DecodesWithNvdecAndScoresAsTheCpuDoes) {
  const char* media = std::getenv("VMAFEXACT_NVDEC_MEDIA");
  if (!media || !fs::is_directory(media))
    GTEST_SKIP() << "VMAFEXACT_NVDEC_MEDIA names no folder of the media";
  if (!has_factory("nvh264dec")) GTEST_SKIP() << "GStreamer has no nvh264dec (no NVDEC here)";
  const Case& pair = GetParam();
  for (const char* file : {pair.ref, pair.dist})
    if (!fs::exists(fs::path(media) / file)) GTEST_SKIP() << file << " is missing";
  std::vector<std::string> cuda_factories, cpu_factories;
  std::string error;
  std::pair<std::string, std::string> caps;
  const auto cuda = channel_frames(pair, media, "cuda", cuda_factories, error, &caps);
  ASSERT_TRUE(error.empty()) << "cuda: " << error;
  const auto cpu = channel_frames(pair, media, "cpu", cpu_factories, error);
  ASSERT_TRUE(error.empty()) << "cpu: " << error;
  EXPECT_EQ(std::count(cuda_factories.begin(), cuda_factories.end(), "nvh264dec"), 2);
  // The reference's NVDEC frames reach the element in CUDA memory; the dist's
  // too at the reference's size, else downloaded to be scaled as on the CPU.
  const bool dist_resident = std::string(pair.name) == "H264SameSize";
  EXPECT_NE(caps.first.find("memory:CUDAMemory"), std::string::npos) << caps.first;
  EXPECT_EQ(caps.second.find("memory:CUDAMemory") != std::string::npos, dist_resident)
      << caps.second;
  EXPECT_EQ(std::count(cuda_factories.begin(), cuda_factories.end(), "cudadownload"),
            dist_resident ? 0 : 1);
  ASSERT_GT(cpu.size(), 0u);
  ASSERT_EQ(cuda.size(), cpu.size());
  for (std::size_t frame = 0; frame < cpu.size(); ++frame)
    ASSERT_EQ(cuda[frame], cpu[frame]) << "frame " << frame;
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, NvdecMonitorChannel,
    ::testing::Values(Case{"H264SameSize", "h264_1080_ref.mp4", "h264_1080_dist.mp4", "", "", {}},
                      Case{"H264Scaled", "h264_1080_ref.mp4", "h264_720_dist.mp4", "", "", {}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
