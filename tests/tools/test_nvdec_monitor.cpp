// vmafexact-monitor's channel pipeline with backend=cuda
// (tools/monitor/channel_pipeline.cpp, decode_live) without a GPU: a fake
// plugin named "nvcodec", registered in this process, offers a hardware
// H.264 decoder (a bin of avdec_h264 ! videoconvert ! NV12 ! fakecudaupload,
// with nvh264dec's klass and sink template) and a cudadownload. Without a GPU
// there is no CUDA memory: fakecudaupload only labels its NV12 output caps
// memory:CUDAMemory (the buffers stay in system memory) and the fake
// cudadownload takes the label off, so the channel's plan (which branch keeps
// NVDEC's "CUDA memory", which downloads) is what the pipeline negotiates,
// and the element (backend=cpu) still scores every frame. The channel's
// inputs, H.264 made here with ffmpeg, are decoded by the fake decoder (the
// uridecodebin exposes the compressed stream at pad-added) and scored as the
// channel without backend=cuda scores them. A stream the decoders refuse goes
// to the CPU (a decodebin) with a note. Its own program: the fake nvcodec
// must not be seen by other tests.

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "../common/fake_elements.h"
#include "../common/scratch_files.h"
#include "channel_pipeline.h"
#include "support/handles.h"
#include "support/message_json.h"
#include "support/nvdec.h"

namespace {

namespace fs = std::filesystem;
using vmafexact::monitor_tool::build_channel_pipeline;
using vmafexact::monitor_tool::ChannelConfig;
using vmafexact::test::FakeBinSpec;
using vmafexact::test::FakeRelabelSpec;
using vmafexact::test::register_fake_bin;
using vmafexact::test::register_fake_relabel;
using vmafexact::test::ScratchFolder;
using vmafexact::tools::GstObjectPtr;
using vmafexact::tools::MessagePtr;

const FakeBinSpec kDecoder{"fakenvh264dec", "Codec/Decoder/Video/Hardware",
                          "video/x-h264, stream-format=(string){ avc, avc3, byte-stream }, "
                          "alignment=(string)au, profile=(string){ constrained-baseline, "
                          "baseline, main, high }, width=(int)[ 48, 4096 ], height=(int)[ 16, "
                          "4096 ]",
                          "video/x-raw(memory:CUDAMemory), format=(string)NV12",
                          "avdec_h264 ! videoconvert ! video/x-raw,format=NV12 ! fakecudaupload"};
// High 10 into P010, as NVDEC delivers it (a decoder of its own: a format
// list would let videoconvert pick NV12 for a 10-bit input).
const FakeBinSpec kDecoder10{"fakenvh264dec10", "Codec/Decoder/Video/Hardware",
                            "video/x-h264, stream-format=(string){ avc, avc3, byte-stream }, "
                            "alignment=(string)au, profile=(string)high-10, width=(int)[ 48, "
                            "4096 ], height=(int)[ 16, 4096 ]",
                            "video/x-raw(memory:CUDAMemory), format=(string)P010_10LE",
                            "avdec_h264 ! videoconvert dither=none ! "
                            "video/x-raw,format=P010_10LE ! fakecudaupload"};

// fakecudaupload labels system memory as CUDA memory, the fake cudadownload
// takes the label off; the buffers stay as they are.
const FakeRelabelSpec kUpload{"fakecudaupload", GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
                              "memory:CUDAMemory"};
const FakeRelabelSpec kDownload{"cudadownload", "memory:CUDAMemory",
                                GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY};

// Registered into nvcodec by NvdecDecoderList only, after the list's first
// use; of a media type no stream has.
const FakeBinSpec kLateDecoder{"fakenvlatedec", "Codec/Decoder/Video/Hardware",
                               "video/x-vmafexact-late", "video/x-raw(memory:CUDAMemory)"};

gboolean fake_nvcodec_init(GstPlugin* plugin) {
  return register_fake_relabel(plugin, kUpload) && register_fake_relabel(plugin, kDownload) &&
         register_fake_bin(plugin, kDecoder) && register_fake_bin(plugin, kDecoder10);
}

// The fake "nvcodec" plugin, registered once in this process, whichever test
// comes first; false if it could not be.
bool register_fake_nvcodec() {
  static const bool registered = gst_plugin_register_static(
      GST_VERSION_MAJOR, GST_VERSION_MINOR, "nvcodec", "a stand-in for nvcodec", fake_nvcodec_init,
      "1.0", "LGPL", "vmafexact", "vmafexact", "vmafexact tests");
  return registered;
}

// The registered NVDEC decoders' names, highest rank first.
std::vector<std::string> nvdec_decoder_names() {
  std::vector<std::string> names;
  for (const auto& factory : vmafexact::tools::nvdec_decoder_factories())
    names.emplace_back(GST_OBJECT_NAME(factory.get()));
  return names;
}

// Whether a decoder of a real nvcodec is registered (not one of the fakes).
bool real_nvcodec_registered() {
  const auto names = nvdec_decoder_names();
  return std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return name != kDecoder.name && name != kDecoder10.name && name != kLateDecoder.name;
  });
}

// Whether vmafexact's sink pads take video/x-raw(memory:CUDAMemory).
bool element_takes_cuda_memory() {
  GstObjectPtr<GstElementFactory> factory(gst_element_factory_find("vmafexact"));
  if (!factory) return false;
  for (const GList* item = gst_element_factory_get_static_pad_templates(factory.get()); item;
       item = item->next) {
    auto* pad_template = static_cast<GstStaticPadTemplate*>(item->data);
    if (pad_template->direction != GST_PAD_SINK) continue;
    GstCaps* caps = gst_static_caps_get(&pad_template->static_caps);
    bool cuda = false;
    for (guint i = 0; caps && i < gst_caps_get_size(caps); ++i)
      cuda = cuda || gst_caps_features_contains(gst_caps_get_features(caps, i), "memory:CUDAMemory");
    if (caps) gst_caps_unref(caps);
    if (cuda) return true;
  }
  return false;
}

bool has_factory(const char* name) {
  GstElementFactory* factory = gst_element_factory_find(name);
  if (factory) gst_object_unref(factory);
  return factory != nullptr;
}

class NvdecMonitor : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Where a real nvcodec has decoders (a GPU), the fake would not be the one chosen.
    real_nvcodec_ = real_nvcodec_registered();
    if (!real_nvcodec_) registered_ = register_fake_nvcodec();
  }

  void SetUp() override {
    if (real_nvcodec_)
      GTEST_SKIP() << "GStreamer has a real nvcodec here; the fake cannot stand in";
    ASSERT_TRUE(registered_);
    for (const char* factory : {"avdec_h264", "h264parse", "vmafexact"})
      if (!has_factory(factory)) GTEST_SKIP() << "GStreamer's " << factory << " is missing";
    // A build without CUDA (-Dcuda=disabled, as the sanitizer runs'): its
    // element takes no CUDA memory, and backend=cuda is refused anyway.
    if (!element_takes_cuda_memory())
      GTEST_SKIP() << "this vmafexact is built without CUDA (its pads take no CUDA memory)";
    clip_ = make_clip("clip.mp4", "yuv420p");
    if (clip_.empty()) GTEST_SKIP() << "ffmpeg with libx264 is missing";
  }

  // 10 frames of H.264 in `pixel_format`, made with ffmpeg, the
  // timestamps `offset` on (for a transport stream); "" if it cannot.
  std::string make_clip(const char* name, const char* pixel_format, const char* size = "128x96",
                        const char* offset = "0") {
    const fs::path clip = scratch_ / name;
    const std::string command = std::string("ffmpeg -nostdin -loglevel error -f lavfi -i ") +
                                "testsrc2=size=" + size + ":rate=25 -frames:v 10 -pix_fmt " +
                                pixel_format + " -c:v libx264 -output_ts_offset " + offset + " " +
                                clip.string();
    return std::system(command.c_str()) == 0 ? clip.string() : "";
  }

  // The caps each sink pad of the element had at the end, as text.
  struct SinkCaps {
    std::string ref, dist;
  };

  // Plays the channel to its end (the element on the CPU: no GPU here, only
  // the decoding differs): the frames' messages as JSON, or the error's
  // message in `error`. `dist`: the distorted input, else the reference.
  std::vector<std::string> score(const std::vector<std::pair<std::string, std::string>>& properties,
                                 std::string& error, std::vector<std::string>* factories = nullptr,
                                 SinkCaps* sink_caps = nullptr, const std::string& dist = "") {
    error.clear();
    ChannelConfig channel;
    channel.name = "nvdec";
    channel.ref = clip_;
    channel.dist = dist.empty() ? clip_ : dist;
    channel.properties = properties;
    const auto built = build_channel_pipeline(channel);
    gst_util_set_object_arg(G_OBJECT(built.vmafexact.get()), "backend", "cpu");
    GstElement* pipeline = built.pipeline.get();
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline));
    std::vector<std::string> scores;
    for (;;) {
      MessagePtr message(gst_bus_timed_pop_filtered(
          bus.get(), 20 * GST_SECOND,
          static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT)));
      if (!message) {
        error = "no end within 20 s";
        break;
      }
      if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ERROR) {
        GError* raw = nullptr;
        gst_message_parse_error(message.get(), &raw, nullptr);
        error = raw ? raw->message : "?";
        g_clear_error(&raw);
        break;
      }
      if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS) break;
      const GstStructure* s = gst_message_get_structure(message.get());
      if (gst_structure_has_name(s, "vmafexact-frame"))
        scores.push_back(vmafexact::tools::json_of(s).dump());
    }
    if (factories) {
      GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(pipeline));
      GValue item = G_VALUE_INIT;
      while (gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
        GstElementFactory* factory =
            gst_element_get_factory(static_cast<GstElement*>(g_value_get_object(&item)));
        if (factory) factories->push_back(GST_OBJECT_NAME(factory));
        g_value_reset(&item);
      }
      g_value_unset(&item);
      gst_iterator_free(elements);
    }
    if (sink_caps) {
      const auto caps_text = [&](const char* pad_name) {
        GstObjectPtr<GstPad> pad(gst_element_get_static_pad(built.vmafexact.get(), pad_name));
        GstCaps* caps = gst_pad_get_current_caps(pad.get());
        if (!caps) return std::string();
        gchar* text = gst_caps_to_string(caps);
        std::string kept = text;
        g_free(text);
        gst_caps_unref(caps);
        return kept;
      };
      sink_caps->ref = caps_text("ref_sink");
      sink_caps->dist = caps_text("dist_sink");
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    return scores;
  }

  static inline bool real_nvcodec_ = false;
  static inline bool registered_ = false;
  ScratchFolder scratch_{"vmafexact-nvdec-monitor"};
  std::string clip_;
};

int count(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<int>(std::count(names.begin(), names.end(), name));
}

bool in_cuda_memory(const std::string& caps) {
  return caps.find("(memory:CUDAMemory)") != std::string::npos;
}

// Same size, same format: both inputs' NVDEC frames reach the element in
// CUDA memory (NV12 as decoded), nothing downloaded or converted.
TEST_F(NvdecMonitor, BackendCudaDecodesWithTheNvdecDecoderAndScoresAsTheCpu) {
  std::string error;
  std::vector<std::string> factories;
  SinkCaps caps;
  const auto nvdec = score({{"backend", "cuda"}}, error, &factories, &caps);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec.size(), 10u);
  EXPECT_EQ(count(factories, "fakenvh264dec"), 2) << "both inputs decoded by the NVDEC stand-in";
  EXPECT_EQ(count(factories, "h264parse"), 2);
  EXPECT_EQ(count(factories, "cudadownload"), 0) << "both kept in (stand-in) CUDA memory";
  EXPECT_TRUE(in_cuda_memory(caps.ref)) << caps.ref;
  EXPECT_TRUE(in_cuda_memory(caps.dist)) << caps.dist;
  EXPECT_NE(caps.ref.find("NV12"), std::string::npos) << caps.ref;
  std::vector<std::string> cpu_factories;
  const auto cpu = score({}, error, &cpu_factories);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(count(cpu_factories, "fakenvh264dec"), 0);
  EXPECT_EQ(nvdec, cpu);
}

// A dist of another size: the reference stays in CUDA memory, the dist is
// downloaded (the CPU decoder's I420) and scaled as on the CPU.
TEST_F(NvdecMonitor, ADistOfAnotherSizeIsDownloadedAndScaledAsOnTheCpu) {
  const std::string dist = make_clip("small.mp4", "yuv420p", "96x72");
  ASSERT_FALSE(dist.empty());
  std::string error;
  std::vector<std::string> factories;
  SinkCaps caps;
  const auto nvdec = score({{"backend", "cuda"}}, error, &factories, &caps, dist);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec.size(), 10u);
  EXPECT_EQ(count(factories, "fakenvh264dec"), 2);
  EXPECT_EQ(count(factories, "cudadownload"), 1) << "the dist only";
  EXPECT_TRUE(in_cuda_memory(caps.ref)) << caps.ref;
  EXPECT_FALSE(in_cuda_memory(caps.dist)) << caps.dist;
  EXPECT_NE(caps.dist.find("I420"), std::string::npos) << caps.dist;
  EXPECT_NE(caps.dist.find("width=(int)128"), std::string::npos) << caps.dist;
  const auto cpu = score({}, error, nullptr, nullptr, dist);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec, cpu);
}

// A dist kept in CUDA memory that switches to another size mid-stream (ABR):
// a clear error (a station's channel is then restarted, and downloads it),
// where the CPU's channel scales it.
TEST_F(NvdecMonitor, ADistKeptOnTheGpuThatChangesSizeIsAClearError) {
  clip_ = make_clip("ref.ts", "yuv420p");
  const std::string first = make_clip("first.ts", "yuv420p");
  const std::string second = make_clip("second.ts", "yuv420p", "96x72", "0.4");
  ASSERT_FALSE(clip_.empty() || first.empty() || second.empty());
  const fs::path dist = scratch_ / "switch.ts";
  ASSERT_EQ(std::system(("cat " + first + " " + second + " > " + dist.string()).c_str()), 0);
  std::string error;
  score({{"backend", "cuda"}}, error, nullptr, nullptr, dist.string());
  EXPECT_NE(error.find("changed mid-stream from 128x96 NV12"), std::string::npos) << error;
  EXPECT_NE(error.find("96x72"), std::string::npos) << error;
  const auto cpu = score({}, error, nullptr, nullptr, dist.string());
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(cpu.size(), 10u) << "the CPU's channel scores the switched stream";
}

// A dist downloaded from its first caps (another size) that switches size
// mid-stream (ABR) is conformed again, as on the CPU.
TEST_F(NvdecMonitor, ADownloadedDistThatChangesSizeIsScaledAsOnTheCpu) {
  clip_ = make_clip("ref.ts", "yuv420p");
  const std::string first = make_clip("first.ts", "yuv420p", "96x72");
  const std::string second = make_clip("second.ts", "yuv420p", "64x48", "0.4");
  ASSERT_FALSE(clip_.empty() || first.empty() || second.empty());
  const fs::path dist = scratch_ / "switch.ts";
  ASSERT_EQ(std::system(("cat " + first + " " + second + " > " + dist.string()).c_str()), 0);
  std::string error;
  std::vector<std::string> factories;
  const auto nvdec = score({{"backend", "cuda"}}, error, &factories, nullptr, dist.string());
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(count(factories, "cudadownload"), 1);
  const auto cpu = score({}, error, nullptr, nullptr, dist.string());
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(cpu.size(), 10u);
  EXPECT_EQ(nvdec, cpu);
}

// MPEG-TS, as live inputs come (udp://, srt://): tsdemux's caps name no
// profile; the choice waits for the parser's caps, and NVDEC decodes.
TEST_F(NvdecMonitor, ATransportStreamIsDecodedWithNvdecToo) {
  clip_ = make_clip("clip.ts", "yuv420p");
  ASSERT_FALSE(clip_.empty());
  std::string error;
  std::vector<std::string> factories;
  const auto nvdec = score({{"backend", "cuda"}}, error, &factories);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec.size(), 10u);
  EXPECT_EQ(count(factories, "fakenvh264dec"), 2);
  const auto cpu = score({}, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec, cpu);
}

// 10-bit: NVDEC's P010 repacked into the CPU decoder's I420_10LE before the
// scaler without videoconvert's default dither (which moves 10-bit samples
// by one), so the scaled scores equal the CPU's.
TEST_F(NvdecMonitor, ATenBitDistOfAnotherSizeIsRepackedBitForBit) {
  clip_ = make_clip("clip10.mp4", "yuv420p10le");
  const std::string small = make_clip("small10.mp4", "yuv420p10le", "96x72");
  ASSERT_FALSE(clip_.empty() || small.empty());
  std::string error;
  std::vector<std::string> factories;
  SinkCaps caps;
  const auto nvdec = score({{"backend", "cuda"}}, error, &factories, &caps, small);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec.size(), 10u);
  EXPECT_EQ(count(factories, "fakenvh264dec10"), 2);
  EXPECT_EQ(count(factories, "cudadownload"), 1);
  EXPECT_TRUE(in_cuda_memory(caps.ref)) << caps.ref;
  EXPECT_NE(caps.ref.find("P010_10LE"), std::string::npos) << caps.ref;
  const auto cpu = score({}, error, nullptr, nullptr, small);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(nvdec, cpu);
}

// A stream with no sequence header (SPS and PPS taken out): the parser before
// the NVDEC decoder never says what it holds, so no decoder is chosen; its
// end of stream is an error naming the parser's problem, not a channel that
// waits for ever.
TEST_F(NvdecMonitor, AStreamWithoutASequenceHeaderEndsInAnError) {
  const fs::path clip = scratch_ / "nosps.ts";
  const std::string command =
      "ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=128x96:rate=25 -frames:v 10 "
      "-c:v libx264 -bsf:v 'filter_units=remove_types=7|8' -f mpegts " +
      clip.string();
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "ffmpeg's filter_units is missing";
  clip_ = clip.string();
  std::string error;
  std::vector<std::string> factories;
  const auto frames = score({{"backend", "cuda"}}, error, &factories);
  EXPECT_TRUE(frames.empty());
  EXPECT_NE(error.find("No valid frames found before end of stream"), std::string::npos) << error;
  EXPECT_EQ(count(factories, "fakenvh264dec"), 0);
}

// 4:4:4 (High 4:4:4 Predictive): no NVDEC path (the fake refuses the
// profile); decoded on the CPU by a decodebin, every frame scored.
TEST_F(NvdecMonitor, AStreamNvdecRefusesIsDecodedOnTheCpu) {
  clip_ = make_clip("clip444.mp4", "yuv444p");
  ASSERT_FALSE(clip_.empty());
  std::string error;
  std::vector<std::string> factories;
  const auto frames = score({{"backend", "cuda"}}, error, &factories);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(frames.size(), 10u);
  EXPECT_EQ(count(factories, "fakenvh264dec"), 0);
  // Each uridecodebin's own decodebin, and each input's fallback.
  EXPECT_EQ(count(factories, "decodebin"), 4);
}

// The tool's and the monitor's one download chain (tools::add_download_chain):
// NVDEC's NV12 and P010 (here labelled CUDA memory by the fake upload) into
// I420 and I420_10LE, every sample as it was, its elements named after the
// prefix, its caps the decoder's colorimetry where given.
TEST(DownloadChain, RepacksNvdecFramesIntoTheCpuFormatBitForBit) {
  if (real_nvcodec_registered()) GTEST_SKIP() << "GStreamer has a real nvcodec here";
  ASSERT_TRUE(register_fake_nvcodec());
  ScratchFolder scratch("vmafexact-download-chain");
  for (const bool pinned : {false, true})
    for (const auto& [cpu, nvdec] : {std::pair{GST_VIDEO_FORMAT_I420_10LE, "P010_10LE"},
                                     std::pair{GST_VIDEO_FORMAT_I420, "NV12"}}) {
      const std::string cpu_name = gst_video_format_to_string(cpu);
      const fs::path expected = scratch.path() / "expected.yuv";
      const fs::path downloaded = scratch.path() / "downloaded.yuv";
      const std::string description =
          "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=" + cpu_name +
          ",width=64,height=48,colorimetry=bt709 ! tee name=t t. ! queue ! filesink location=" +
          expected.string() +
          " t. ! queue ! videoconvert dither=none ! video/x-raw,format=" + nvdec +
          " ! fakecudaupload name=upload filesink name=out location=" + downloaded.string();
      GError* error = nullptr;
      GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &error));
      ASSERT_TRUE(pipeline) << (error ? error->message : "");
      gst_object_ref_sink(pipeline.get());
      const std::string decoded_text = std::string("video/x-raw(memory:CUDAMemory), format=") +
                                       nvdec + ", width=64, height=48, colorimetry=bt709";
      vmafexact::tools::CapsPtr decoded(gst_caps_from_string(decoded_text.c_str()));
      const vmafexact::tools::DownloadChain chain = vmafexact::tools::add_download_chain(
          GST_BIN(pipeline.get()), cpu, pinned ? decoded.get() : nullptr, "dist0");
      ASSERT_EQ(chain.missing, "");
      ASSERT_TRUE(chain.linked);
      EXPECT_STREQ(GST_ELEMENT_NAME(chain.download.get()), "dist0-cudadownload");
      EXPECT_STREQ(GST_ELEMENT_NAME(chain.repack.get()), "dist0-repack");
      EXPECT_STREQ(GST_ELEMENT_NAME(chain.filter.get()), "dist0-decoded");
      const GstStructure* caps = gst_caps_get_structure(chain.caps.get(), 0);
      EXPECT_EQ(gst_structure_get_string(caps, "format"), cpu_name);
      EXPECT_EQ(gst_structure_has_field(caps, "colorimetry"), pinned);
      GstObjectPtr<GstElement> upload(gst_bin_get_by_name(GST_BIN(pipeline.get()), "upload"));
      GstObjectPtr<GstElement> out(gst_bin_get_by_name(GST_BIN(pipeline.get()), "out"));
      ASSERT_TRUE(gst_element_link(upload.get(), chain.download.get()));
      ASSERT_TRUE(gst_element_link(chain.filter.get(), out.get()));
      gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
      GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
      MessagePtr message(gst_bus_timed_pop_filtered(
          bus.get(), 20 * GST_SECOND,
          static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
      gst_element_set_state(pipeline.get(), GST_STATE_NULL);
      ASSERT_TRUE(message && GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS) << nvdec;
      const std::string want = vmafexact::test::read_file(expected);
      EXPECT_EQ(want.size(), 3u * 64 * 48 * 3 / 2 * (cpu == GST_VIDEO_FORMAT_I420 ? 1 : 2));
      EXPECT_TRUE(want == vmafexact::test::read_file(downloaded))
          << nvdec << " to " << cpu_name << " changed values";
    }
}

// nvdec_decoder_factories() keeps its list for the process (it scans the
// registry) and lists a decoder registered after its first use, as the fakes
// of a test's set-up are: it scans again when the registry's features change.
TEST(NvdecDecoderList, ADecoderRegisteredAfterTheFirstUseIsListed) {
  if (!real_nvcodec_registered()) {
    ASSERT_TRUE(register_fake_nvcodec());
  }
  GstObjectPtr<GstPlugin> nvcodec(gst_registry_find_plugin(gst_registry_get(), "nvcodec"));
  ASSERT_TRUE(nvcodec);
  const auto before = nvdec_decoder_names();
  ASSERT_FALSE(before.empty());
  ASSERT_EQ(count(before, kLateDecoder.name), 0);
  EXPECT_EQ(nvdec_decoder_names(), before);
  ASSERT_TRUE(register_fake_bin(nvcodec.get(), kLateDecoder, GST_RANK_PRIMARY + 100));
  const auto after = nvdec_decoder_names();
  ASSERT_EQ(after.size(), before.size() + 1);
  EXPECT_EQ(after.front(), kLateDecoder.name) << "the highest rank first";
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin() + 1));
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
