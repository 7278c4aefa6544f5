// vmafexact-monitor's channel pipeline (tools/monitor/channel_pipeline.cpp):
// inputs of different sizes scored as the vmafexact tool scores them (every
// frame's every score, bit for bit), inputs of one size as before, a
// distorted input whose caps come first held until the reference's are
// known, a pipeline stopped while the distorted input is held, caps changes
// mid-stream on either input, and the errors of a bad description.
// Media are made at test time with GStreamer (videotestsrc, jpegenc,
// matroskamux) in a temporary directory.

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../common/build_paths.h"
#include "channel_pipeline.h"
#include "child_process.h"
#include "support/handles.h"
#include "support/message_json.h"

using vmafexact::test::kCliPath;
using vmafexact::test::kMonitorPath;

namespace {

namespace fs = std::filesystem;
namespace tools = vmafexact::tools;
using namespace std::chrono_literals;
using Json = nlohmann::ordered_json;
using vmafexact::monitor_tool::build_channel_pipeline;
using vmafexact::monitor_tool::ChannelConfig;
using vmafexact::monitor_tool::ChannelPipeline;
using vmafexact::monitor_tool::PipelineError;

void run_to_eos(const std::string& description) {
  GError* raw_error = nullptr;
  tools::GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &raw_error));
  tools::ErrorPtr error(raw_error);
  ASSERT_TRUE(pipeline) << (error ? error->message : "?");
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  tools::GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
  tools::MessagePtr message(
      gst_bus_timed_pop_filtered(bus.get(), 60 * GST_SECOND,
                                 static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  ASSERT_TRUE(message && GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS)
      << "could not write the test media: " << description;
}

// A frame message's fields, numbers as %.17g text (every bit), others as JSON.
using FrameFields = std::map<std::string, std::string>;
FrameFields fields_text(const Json& fields) {
  FrameFields text;
  for (const auto& [key, value] : fields.items()) {
    if (value.is_number_float()) {
      char digits[40];
      std::snprintf(digits, sizeof digits, "%.17g", value.get<double>());
      text[key] = digits;
    } else {
      text[key] = value.dump();
    }
  }
  return text;
}

// What a run of a channel pipeline gave: its frames' fields, and its first
// error message (empty: it ended without one).
struct PlayResult {
  std::vector<FrameFields> frames;
  std::string error;
  bool ended = false;
};

// Plays the pipeline to its end or first error (or the timeout), then to NULL.
PlayResult play(const ChannelPipeline& built, std::chrono::seconds timeout = 60s) {
  PlayResult run;
  tools::GstObjectPtr<GstBus> bus(gst_element_get_bus(built.pipeline.get()));
  gst_element_set_state(built.pipeline.get(), GST_STATE_PLAYING);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!run.ended && run.error.empty() && std::chrono::steady_clock::now() < deadline) {
    tools::MessagePtr message(gst_bus_timed_pop(bus.get(), 100 * GST_MSECOND));
    if (!message) continue;
    switch (GST_MESSAGE_TYPE(message.get())) {
      case GST_MESSAGE_ELEMENT: {
        const GstStructure* s = gst_message_get_structure(message.get());
        if (GST_MESSAGE_SRC(message.get()) == GST_OBJECT(built.vmafexact.get()) &&
            gst_structure_has_name(s, "vmafexact-frame"))
          run.frames.push_back(fields_text(tools::json_of(s)));
        break;
      }
      case GST_MESSAGE_ERROR: {
        GError* raw_error = nullptr;
        gst_message_parse_error(message.get(), &raw_error, nullptr);
        tools::ErrorPtr error(raw_error);
        run.error = error->message;
        break;
      }
      case GST_MESSAGE_EOS:
        run.ended = true;
        break;
      default:
        break;
    }
  }
  gst_element_set_state(built.pipeline.get(), GST_STATE_NULL);
  return run;
}

ChannelConfig channel_of(const std::string& ref, const std::string& dist) {
  ChannelConfig channel;
  channel.name = "test";
  channel.ref = ref;
  channel.dist = dist;
  return channel;
}

bool has_element(const ChannelPipeline& built, const char* name) {
  return tools::GstObjectPtr<GstElement>(gst_bin_get_by_name(GST_BIN(built.pipeline.get()), name))
             .get() != nullptr;
}

GstPad* static_pad(const ChannelPipeline& built, const char* element, const char* pad) {
  tools::GstObjectPtr<GstElement> found(
      gst_bin_get_by_name(GST_BIN(built.pipeline.get()), element));
  if (!found) return nullptr;
  tools::GstObjectPtr<GstPad> got(gst_element_get_static_pad(found.get(), pad));
  return got.get();  // the element (in the pipeline) keeps its pad
}

// Whether `pad` blocks a data flow within the timeout (polled: GStreamer
// signals a block only to the probe's own callback, which is the code under test).
bool becomes_blocking(GstPad* pad, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!gst_pad_is_blocking(pad) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  return gst_pad_is_blocking(pad);
}

GstPadProbeReturn keep_blocked(GstPad*, GstPadProbeInfo*, gpointer) { return GST_PAD_PROBE_OK; }

// Media made once: a 640x360 source, its 320x180 rendition and a 640x360 one
// (MJPEG in Matroska), and the tool's frames for each pair.
class ChannelPipelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char templ[] = "/tmp/vmafexact-channel-XXXXXX";
    ASSERT_TRUE(g_mkdtemp(templ));
    dir_ = templ;
    const std::string raw =
        "videotestsrc num-buffers=6 pattern=smpte horizontal-speed=3 ! "
        "video/x-raw,format=I420,width=640,height=360,framerate=25/1";
    run_to_eos(raw +
               " ! tee name=t t. ! queue ! jpegenc quality=90 ! matroskamux ! filesink location=" +
               path("ref.mkv") +
               " t. ! queue ! videoscale ! video/x-raw,width=320,height=180 ! jpegenc quality=40 ! "
               "matroskamux ! filesink location=" +
               path("dist320.mkv") +
               " t. ! queue ! jpegenc quality=30 ! matroskamux ! filesink location=" +
               path("dist640.mkv"));
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string path(const std::string& name) { return (dir_ / name).string(); }

  // The vmafexact tool's frames for the pair (its --jsonl).
  static std::vector<FrameFields> tool_frames(const std::string& ref, const std::string& dist) {
    const std::string jsonl = path(fs::path(dist).stem().string() + ".tool.jsonl");
    vmafexact::test::ChildProcess tool({kCliPath, "--no-progress", "--jsonl", jsonl, ref, dist},
                                       path("tool.stderr"), path("tool.stdout"));
    const auto status = tool.wait_exit(120s);
    EXPECT_EQ(status, 0) << tool.error_output();
    std::vector<FrameFields> frames;
    std::ifstream in(jsonl);
    for (std::string line; std::getline(in, line);) {
      const Json message = Json::parse(line);
      if (message.at("message") == "vmafexact-frame")
        frames.push_back(fields_text(message.at("fields")));
    }
    return frames;
  }

  static inline fs::path dir_;
};

TEST_F(ChannelPipelineTest, ARenditionAgainstItsSourceScoresAsTheToolDoes) {
  const ChannelPipeline built =
      build_channel_pipeline(channel_of(path("ref.mkv"), path("dist320.mkv")));
  const PlayResult run = play(built);
  EXPECT_TRUE(run.ended) << run.error;
  EXPECT_TRUE(has_element(built, "dist_scale"));
  const std::vector<FrameFields> expected = tool_frames(path("ref.mkv"), path("dist320.mkv"));
  ASSERT_EQ(run.frames.size(), 6u);
  EXPECT_EQ(run.frames, expected);
}

TEST_F(ChannelPipelineTest, SameSizeInputsAreScoredAsTheToolDoesWithoutAScaler) {
  const ChannelPipeline built =
      build_channel_pipeline(channel_of(path("ref.mkv"), path("dist640.mkv")));
  const PlayResult run = play(built);
  EXPECT_TRUE(run.ended) << run.error;
  EXPECT_FALSE(has_element(built, "dist_scale"));
  ASSERT_EQ(run.frames.size(), 6u);
  EXPECT_EQ(run.frames, tool_frames(path("ref.mkv"), path("dist640.mkv")));
}

// The case end to end: vmafexact-monitor --ref --dist, its --jsonl.
TEST_F(ChannelPipelineTest, TheMonitorScoresARenditionAsTheToolDoes) {
  const std::string jsonl = path("monitor.jsonl");
  vmafexact::test::ChildProcess monitor(
      {kMonitorPath, "--ref", path("ref.mkv"), "--dist", path("dist320.mkv"), "--listen",
       "127.0.0.1:0", "--jsonl", jsonl},
      path("monitor.stderr"));
  ASSERT_EQ(monitor.wait_exit(120s), 0) << monitor.error_output();
  std::vector<FrameFields> frames;
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    const Json message = Json::parse(line);
    if (message.at("message") == "vmafexact-frame")
      frames.push_back(fields_text(message.at("fields")));
  }
  ASSERT_EQ(frames.size(), 6u) << monitor.error_output();
  EXPECT_EQ(frames, tool_frames(path("ref.mkv"), path("dist320.mkv")));
}

// The reference's frames stopped before its queue: the distorted input's
// caps arrive first, wait at its queue, and go on (scaled) once the
// reference's come; the scores are those of the tool.
TEST_F(ChannelPipelineTest, ADistWhoseCapsComeFirstWaitsForTheReference) {
  const ChannelPipeline built =
      build_channel_pipeline(channel_of(path("ref.mkv"), path("dist320.mkv")));
  GstPad* ref_in = static_pad(built, "ref_queue", "sink");
  GstPad* dist_out = static_pad(built, "dist_queue", "src");
  ASSERT_TRUE(ref_in && dist_out);
  const gulong ref_block = gst_pad_add_probe(
      ref_in,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM),
      keep_blocked, nullptr, nullptr);
  auto result = std::async(std::launch::async, [&] { return play(built); });
  ASSERT_TRUE(becomes_blocking(dist_out, 30s));
  // Held before its caps go on: nothing downstream has them yet.
  EXPECT_FALSE(tools::CapsPtr(gst_pad_get_current_caps(static_pad(built, "dist_filter", "src"))));
  gst_pad_remove_probe(ref_in, ref_block);
  ASSERT_EQ(result.wait_for(60s), std::future_status::ready);
  const PlayResult run = result.get();
  EXPECT_TRUE(run.ended) << run.error;
  ASSERT_EQ(run.frames.size(), 6u);
  EXPECT_EQ(run.frames, tool_frames(path("ref.mkv"), path("dist320.mkv")));
}

TEST_F(ChannelPipelineTest, ThePipelineGoesToNullWhileTheDistIsHeld) {
  const ChannelPipeline built =
      build_channel_pipeline(channel_of(path("ref.mkv"), path("dist320.mkv")));
  GstPad* ref_in = static_pad(built, "ref_queue", "sink");
  GstPad* dist_out = static_pad(built, "dist_queue", "src");
  ASSERT_TRUE(ref_in && dist_out);
  gst_pad_add_probe(
      ref_in,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM),
      keep_blocked, nullptr, nullptr);
  gst_element_set_state(built.pipeline.get(), GST_STATE_PLAYING);
  ASSERT_TRUE(becomes_blocking(dist_out, 30s));
  auto stopped = std::async(std::launch::async, [&] {
    return gst_element_set_state(built.pipeline.get(), GST_STATE_NULL);
  });
  ASSERT_EQ(stopped.wait_for(10s), std::future_status::ready) << "setting NULL hangs";
  EXPECT_EQ(stopped.get(), GST_STATE_CHANGE_SUCCESS);
}

// ------------------------------------------------------ caps changes mid-stream

// Raw frames fed through appsrc:// inputs, at sizes the test picks per frame.
struct FedInput {
  std::vector<std::pair<int, int>> sizes;         // one per frame
  int seed = 0;                                   // the distorted input: noise on the pattern
  bool colorimetry = true;                        // false: caps silent about it (as y4m's)
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;  // planar, 8 or 16 bits
};

GstSample* frame_sample(int width, int height, int index, int seed, bool colorimetry,
                        GstVideoFormat format) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  const bool wide = GST_VIDEO_FORMAT_INFO_DEPTH(info.finfo, 0) > 8;
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstMapInfo map;
  gst_buffer_map(buffer, &map, GST_MAP_WRITE);
  // A pattern by position on the picture, so that sizes show the same scene.
  for (int plane = 0; plane < static_cast<int>(GST_VIDEO_INFO_N_PLANES(&info)); ++plane) {
    const int w = GST_VIDEO_INFO_COMP_WIDTH(&info, plane);
    const int h = GST_VIDEO_INFO_COMP_HEIGHT(&info, plane);
    const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, plane);
    guint8* data = map.data + GST_VIDEO_INFO_PLANE_OFFSET(&info, plane);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        int value = plane == 0 ? 16 + (x * 200 / w + y * 19 / h + index * 7) % 220 : 128 + plane;
        if (seed) value += ((x * 31 + y * 17 + index * seed) % 9) - 4;
        if (wide)
          reinterpret_cast<guint16*>(data + y * stride)[x] = static_cast<guint16>(value << 2);
        else
          data[y * stride + x] = static_cast<guint8>(value);
      }
  }
  gst_buffer_unmap(buffer, &map);
  GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(index, GST_SECOND, 25);
  GST_BUFFER_DURATION(buffer) = GST_SECOND / 25;
  tools::CapsPtr caps(gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                          gst_video_format_to_string(format), "width", G_TYPE_INT,
                                          width, "height", G_TYPE_INT, height, "framerate",
                                          GST_TYPE_FRACTION, 25, 1, nullptr));
  if (colorimetry) gst_caps_set_simple(caps.get(), "colorimetry", G_TYPE_STRING, "bt601", nullptr);
  GstSample* sample = gst_sample_new(buffer, caps.get(), nullptr, nullptr);
  gst_buffer_unref(buffer);
  return sample;
}

void feed(GstElement*, GstElement* source, gpointer data) {
  const auto* input = static_cast<const FedInput*>(data);
  g_object_set(source, "format", GST_FORMAT_TIME, nullptr);
  for (std::size_t index = 0; index < input->sizes.size(); ++index) {
    const auto [width, height] = input->sizes[index];
    GstSample* sample = frame_sample(width, height, static_cast<int>(index), input->seed,
                                     input->colorimetry, input->format);
    gst_app_src_push_sample(GST_APP_SRC(source), sample);
    gst_sample_unref(sample);
  }
  gst_app_src_end_of_stream(GST_APP_SRC(source));
}

// `prepare` sees the pipeline before it plays.
PlayResult play_fed(const FedInput& ref, const FedInput& dist,
                    const std::function<void(const ChannelPipeline&)>& prepare = {}) {
  const ChannelPipeline built = build_channel_pipeline(channel_of("appsrc://", "appsrc://"));
  if (prepare) prepare(built);
  for (const auto& [name, input] :
       {std::pair{"ref_decoder", &ref}, std::pair{"dist_decoder", &dist}}) {
    tools::GstObjectPtr<GstElement> decoder(
        gst_bin_get_by_name(GST_BIN(built.pipeline.get()), name));
    g_signal_connect(decoder.get(), "source-setup", G_CALLBACK(feed), const_cast<FedInput*>(input));
  }
  return play(built, 30s);
}

std::vector<std::pair<int, int>> sizes(int frames, std::pair<int, int> size) {
  return std::vector<std::pair<int, int>>(static_cast<std::size_t>(frames), size);
}

// An ABR rendition switching from 80x48 to 160x96 (the reference's size):
// every frame scored; the frames before the switch as a rendition at 80x48
// throughout scores, those after it as one at 160x96.
TEST(ChannelPipelineCapsChange, ADistSizeChangeMidStreamIsConformedAgain) {
  const FedInput ref{sizes(8, {160, 96}), 0};
  FedInput switching{sizes(4, {80, 48}), 5};
  for (const auto& size : sizes(4, {160, 96})) switching.sizes.push_back(size);
  const PlayResult run = play_fed(ref, switching);
  EXPECT_TRUE(run.ended) << run.error;
  ASSERT_EQ(run.frames.size(), 8u);
  const PlayResult small = play_fed(ref, FedInput{sizes(8, {80, 48}), 5});
  const PlayResult large = play_fed(ref, FedInput{sizes(8, {160, 96}), 5});
  ASSERT_EQ(small.frames.size(), 8u) << small.error;
  ASSERT_EQ(large.frames.size(), 8u) << large.error;
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(run.frames[i], (i < 4 ? small : large).frames[i]) << "frame " << i;
  EXPECT_NE(small.frames[6], large.frames[6]);  // the switch does change the scores
}

// The other way: at the reference's size first (no scaler), then 80x48 (the
// scaler linked in mid-stream, at the new caps).
TEST(ChannelPipelineCapsChange, ADistShrinkingMidStreamGetsAScaler) {
  const FedInput ref{sizes(8, {160, 96}), 0};
  FedInput switching{sizes(4, {160, 96}), 5};
  for (const auto& size : sizes(4, {80, 48})) switching.sizes.push_back(size);
  const PlayResult run = play_fed(ref, switching);
  EXPECT_TRUE(run.ended) << run.error;
  ASSERT_EQ(run.frames.size(), 8u);
  const PlayResult large = play_fed(ref, FedInput{sizes(8, {160, 96}), 5});
  const PlayResult small = play_fed(ref, FedInput{sizes(8, {80, 48}), 5});
  ASSERT_EQ(small.frames.size(), 8u) << small.error;
  ASSERT_EQ(large.frames.size(), 8u) << large.error;
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(run.frames[i], (i < 4 ? large : small).frames[i]) << "frame " << i;
}

TEST(ChannelPipelineCapsChange, AReferenceSizeChangeMidStreamIsAClearError) {
  FedInput ref{sizes(4, {160, 96}), 0};
  for (const auto& size : sizes(4, {80, 48})) ref.sizes.push_back(size);
  const PlayResult run = play_fed(ref, FedInput{sizes(8, {80, 48}), 5});
  EXPECT_FALSE(run.ended);
  EXPECT_NE(run.error.find("the reference changed mid-stream from 160x96 I420 to 80x48 I420"),
            std::string::npos)
      << run.error;
}

// A BT.601 rendition scaled up to an HD reference keeps its BT.601 matrix
// (the colour pin): videoconvert and the scaler would otherwise take HD's
// default, BT.709, and re-matrix the samples.
TEST(ChannelPipelineCapsChange, TheDistKeepsItsColorimetryWhenScaledToHd) {
  std::mutex mutex;
  std::string dist_colorimetry;
  const auto capture = [](GstPad*, GstPadProbeInfo* info, gpointer data) {
    GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
      GstCaps* caps = nullptr;
      gst_event_parse_caps(event, &caps);
      const gchar* value = gst_structure_get_string(gst_caps_get_structure(caps, 0), "colorimetry");
      auto* seen = static_cast<std::pair<std::mutex*, std::string*>*>(data);
      std::lock_guard lock(*seen->first);
      *seen->second = value ? value : "(none)";
    }
    return GST_PAD_PROBE_OK;
  };
  std::pair<std::mutex*, std::string*> seen{&mutex, &dist_colorimetry};
  const PlayResult run =
      play_fed(FedInput{sizes(3, {1280, 720}), 0, false}, FedInput{sizes(3, {640, 360}), 5, false},
               [&](const ChannelPipeline& built) {
                 gst_util_set_object_arg(G_OBJECT(built.vmafexact.get()), "model", "");
                 gst_util_set_object_arg(G_OBJECT(built.vmafexact.get()), "features", "psnr");
                 gst_pad_add_probe(static_pad(built, "dist_filter", "src"),
                                   GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, capture, &seen, nullptr);
               });
  EXPECT_TRUE(run.ended) << run.error;
  EXPECT_EQ(run.frames.size(), 3u);
  std::lock_guard lock(mutex);
  EXPECT_EQ(dist_colorimetry, "bt601");
}

// A gray rendition pairs by luma with a YUV reference of its bit depth only:
// against a 10-bit one it is refused, naming both formats, before anything is scored.
TEST(ChannelPipelineCapsChange, AGrayDistAgainstATenBitReferenceIsRefused) {
  const PlayResult run = play_fed(FedInput{sizes(3, {80, 48}), 0, true, GST_VIDEO_FORMAT_I420_10LE},
                                  FedInput{sizes(3, {80, 48}), 5, false, GST_VIDEO_FORMAT_GRAY8});
  EXPECT_FALSE(run.ended);
  EXPECT_TRUE(run.frames.empty());
  EXPECT_NE(run.error.find("the reference is 10-bit YUV (I420_10LE) and the distorted video "
                           "appsrc:// gray (GRAY8)"),
            std::string::npos)
      << run.error;
}

// ------------------------------------------------------------- errors

TEST(ChannelPipelineErrors, NameTheProblemAndTheFix) {
  const auto message_of = [](const ChannelConfig& channel) -> std::string {
    try {
      build_channel_pipeline(channel);
    } catch (const PipelineError& error) {
      return error.what();
    }
    return "(built)";
  };
  ChannelConfig channel = channel_of("/nonexistent/ref.mkv", "udp://@239.1.1.1:5000");
  EXPECT_NE(message_of(channel).find("is neither a URI"), std::string::npos);
  channel = channel_of("udp://@239.1.1.1:5000", "udp://@239.1.1.2:5000");
  channel.scale_flags = "bicubic+sharp";
  EXPECT_NE(message_of(channel).find("scale-flags bicubic+sharp: 'sharp' is not a libswscale flag"),
            std::string::npos)
      << message_of(channel);
  channel = {};
  channel.pipeline = "videotestsrc ! fakesink";
  EXPECT_NE(message_of(channel).find("write the element as 'vmafexact name=v'"), std::string::npos);
  channel.pipeline = "videotestsrc name=v ! fakesink";
  EXPECT_NE(message_of(channel).find("is a videotestsrc, not a vmafexact"), std::string::npos);
  channel.pipeline = "videotestsrc ! nosuchelement ! fakesink";
  EXPECT_NE(message_of(channel).find("could not build the pipeline"), std::string::npos);
  channel.pipeline = "videotestsrc ! vmafexact name=v ! fakesink";
  EXPECT_EQ(message_of(channel), "(built)");
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
