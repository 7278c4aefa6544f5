// The NVDEC choice and wiring of --backend cuda (tools/support/nvdec.h),
// without a GPU: fake hardware decoders registered in this process (bins of
// the klass nvcodec gives its decoders, with sink templates like theirs) stand
// in for nvcodec's. The choice follows the sink templates (codec, profile,
// size), the parser and the stream's format, and says in one line why not;
// the wiring makes a uridecodebin expose a VP9 stream compressed, and the
// frames flow through vp9parse ! fake decoder (wrapping vp9dec).

#include <glib.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/fake_elements.h"
#include "support/conform.h"
#include "support/handles.h"
#include "support/nvdec.h"

using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using vmafexact::test::FakeBinSpec;
using vmafexact::test::register_fake_bin;
using vmafexact::tools::CapsPtr;
using vmafexact::tools::GstObjectPtr;
using vmafexact::tools::MessagePtr;
using vmafexact::tools::NvdecChoice;

// A fake decoder: a bin with the klass of nvcodec's decoders, the sink
// template `sink_caps` and, where `inner` names a decoder, that decoder
// inside (so frames flow).
constexpr FakeBinSpec fake_decoder(const char* name, const char* sink_caps,
                                   const char* inner = nullptr) {
  return {name, "Codec/Decoder/Video/Hardware", sink_caps, "video/x-raw", inner};
}

// Registered at primary rank, once.
GstElementFactory* register_fake(const FakeBinSpec& fake) {
  EXPECT_TRUE(register_fake_bin(nullptr, fake, GST_RANK_PRIMARY));
  GstElementFactory* factory = gst_element_factory_find(fake.name);
  if (factory) gst_object_unref(factory);  // the registry keeps it
  return factory;
}

// nvcodec's templates in GStreamer 1.22, narrowed as a device would narrow them.
const FakeBinSpec kH264 =
    fake_decoder("fakenvh264dec",
                 "video/x-h264, stream-format=(string){ avc, avc3, byte-stream }, "
                 "alignment=(string)au, profile=(string){ constrained-baseline, baseline, "
                 "main, high }, width=(int)[ 48, 4096 ], height=(int)[ 16, 4096 ]");
const FakeBinSpec kH264Second =
    fake_decoder("fakenvh264device1dec",
                 "video/x-h264, stream-format=(string)byte-stream, "
                 "alignment=(string)au, profile=(string)high, width=(int)[ 48, 4096 "
                 "], height=(int)[ 16, 4096 ]");
const FakeBinSpec kH265 =
    fake_decoder("fakenvh265dec",
                 "video/x-h265, stream-format=(string){ hev1, hvc1, byte-stream }, "
                 "alignment=(string)au, profile=(string){ main, main-10 }, "
                 "width=(int)[ 144, 8192 ], height=(int)[ 144, 8192 ]");
const FakeBinSpec kH265MainOnly =
    fake_decoder("fakenvh265mainonlydec",
                 "video/x-h265, stream-format=(string)byte-stream, "
                 "alignment=(string)au, profile=(string)main, "
                 "width=(int)[ 144, 8192 ], height=(int)[ 144, 8192 ]");
const FakeBinSpec kVp9 =
    fake_decoder("fakenvvp9dec",
                 "video/x-vp9, alignment=(string)frame, profile=(string){ 0, 2 }, "
                 "width=(int)[ 16, 8192 ], height=(int)[ 16, 8192 ]",
                 "vp9dec");

// NVDEC failing mid-stream (a feature it refuses, no decoder session left):
// an error after three frames, from inside the decoder.
const FakeBinSpec kVp9FailsAfterThree =
    fake_decoder("fakenvvp9faildec",
                 "video/x-vp9, alignment=(string)frame, profile=(string){ 0, "
                 "2 }, width=(int)[ 16, 8192 ], height=(int)[ 16, 8192 ]",
                 "vp9dec ! identity error-after=3");

GstElementFactory* parser(const char* name) {
  GstElementFactory* factory = gst_element_factory_find(name);
  if (factory) gst_object_unref(factory);  // the registry keeps it
  return factory;
}

NvdecChoice choose(const char* stream, const std::vector<GstElementFactory*>& decoders,
                   const std::vector<GstElementFactory*>& parsers) {
  CapsPtr caps(gst_caps_from_string(stream));
  return vmafexact::tools::choose_nvdec(caps.get(), decoders, parsers);
}

// As GstDiscoverer reports a 1080p H.264 High stream of an mp4.
constexpr const char* kHighH264 =
    "video/x-h264, stream-format=(string)avc, alignment=(string)au, level=(string)4, "
    "profile=(string)high, codec_data=(buffer)0164002affe1, width=(int)1920, height=(int)1080, "
    "framerate=(fraction)25/1, pixel-aspect-ratio=(fraction)1/1, "
    "interlace-mode=(string)progressive, "
    "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8, "
    "colorimetry=(string)bt709, parsed=(boolean)true";

TEST(NvdecChoice, TakesTheDecoderWhoseSinkTemplateAcceptsTheStreamAndItsParser) {
  const NvdecChoice choice =
      choose(kHighH264, {register_fake(kH265), register_fake(kH264)}, {parser("h264parse")});
  ASSERT_TRUE(choice.chosen()) << choice.why_not;
  EXPECT_EQ(choice.decoder, "fakenvh264dec");
  EXPECT_EQ(choice.description(), "fakenvh264dec (NVDEC)");
  EXPECT_EQ(choice.parser, "h264parse");
  EXPECT_EQ(choice.media_type, "video/x-h264");
  EXPECT_EQ(choice.decoded, GST_VIDEO_FORMAT_NV12);
  EXPECT_EQ(choice.cpu_format, GST_VIDEO_FORMAT_I420);
  EXPECT_TRUE(choice.why_not.empty());
}

TEST(NvdecChoice, TakesTheFirstAcceptingDecoderInRankOrder) {
  const auto second = register_fake(kH264Second), first = register_fake(kH264);
  EXPECT_EQ(choose(kHighH264, {second, first}, {parser("h264parse")}).decoder,
            "fakenvh264device1dec");
  EXPECT_EQ(choose(kHighH264, {first, second}, {parser("h264parse")}).decoder, "fakenvh264dec");
}

TEST(NvdecChoice, TenBitHevcIsDeliveredAsP010AndScoredAsI420Ten) {
  const NvdecChoice choice = choose(
      "video/x-h265, stream-format=(string)hvc1, alignment=(string)au, profile=(string)main-10, "
      "width=(int)1920, height=(int)1080, chroma-format=(string)4:2:0, bit-depth-luma=(uint)10, "
      "bit-depth-chroma=(uint)10",
      {register_fake(kH264), register_fake(kH265)}, {parser("h265parse")});
  ASSERT_TRUE(choice.chosen()) << choice.why_not;
  EXPECT_EQ(choice.decoder, "fakenvh265dec");
  EXPECT_EQ(choice.parser, "h265parse");
  EXPECT_EQ(choice.decoded, GST_VIDEO_FORMAT_P010_10LE);
  EXPECT_EQ(choice.cpu_format, GST_VIDEO_FORMAT_I420_10LE);
}

TEST(NvdecChoice, AProfileTheDecoderRefusesIsNamed) {
  const NvdecChoice choice = choose(
      "video/x-h265, stream-format=(string)hvc1, alignment=(string)au, profile=(string)main-10, "
      "width=(int)1920, height=(int)1080, chroma-format=(string)4:2:0, bit-depth-luma=(uint)10",
      {register_fake(kH265MainOnly)}, {parser("h265parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_EQ(choice.why_not, "fakenvh265mainonlydec refuses this stream's profile (main-10)");
}

TEST(NvdecChoice, ASizeBeyondTheDecoderIsNamed) {
  const NvdecChoice choice = choose(
      "video/x-h264, profile=(string)high, width=(int)8192, height=(int)4320, "
      "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8",
      {register_fake(kH264)}, {parser("h264parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_EQ(choice.why_not, "fakenvh264dec refuses this stream's picture size");
}

TEST(NvdecChoice, ACodecWithoutAnNvdecDecoderIsNamed) {
  const NvdecChoice choice = choose(
      "video/x-vp9, profile=(string)0, width=(int)640, height=(int)360, "
      "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8",
      {register_fake(kH264), register_fake(kH265)}, {parser("vp9parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_EQ(choice.why_not, "no NVDEC decoder for VP9 (GStreamer's nvcodec registers none)");
}

TEST(NvdecChoice, CodecsWhoseDecodingIsNotExactStayOnTheCpu) {
  for (const char* stream :
       {"video/mpeg, mpegversion=(int)4, systemstream=(boolean)false, width=(int)640, "
        "height=(int)360",
        "video/mpeg, mpegversion=(int)2, systemstream=(boolean)false", "image/jpeg"}) {
    const NvdecChoice choice = choose(stream, {register_fake(kH264)}, {parser("h264parse")});
    EXPECT_FALSE(choice.chosen()) << stream;
    EXPECT_EQ(choice.why_not.rfind("NVDEC is used for H.264, HEVC, VP8, VP9 and AV1 only", 0), 0u)
        << choice.why_not;
  }
}

TEST(NvdecChoice, AMissingParserIsNamed) {
  const NvdecChoice choice = choose(kHighH264, {register_fake(kH264)}, {parser("h265parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_TRUE(choice.decoder.empty());
  EXPECT_EQ(choice.why_not,
            "GStreamer has no h264parse to feed fakenvh264dec (gstreamer1.0-plugins-bad)");
}

// Without h264parse, the stream's caps are the demuxer's (qtdemux's: no
// chroma format or bit depth): the note names what is missing.
TEST(NvdecChoice, AMissingParserIsNamedWhenTheCapsLackTheFormat) {
  const NvdecChoice choice = choose(
      "video/x-h264, stream-format=(string)avc, alignment=(string)au, level=(string)4, "
      "profile=(string)high, codec_data=(buffer)0164002affe1, width=(int)1920, "
      "height=(int)1080, framerate=(fraction)25/1",
      {register_fake(kH264)}, {parser("h265parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_EQ(choice.why_not,
            "GStreamer has no h264parse to read its chroma format and bit depth "
            "(gstreamer1.0-plugins-bad)");
}

// h265parse leaves the profile out where it does not know it: no template's
// profile list can refuse such a stream, so it stays on the CPU.
TEST(NvdecChoice, AStreamWithoutAProfileStaysOnTheCpu) {
  const NvdecChoice choice = choose(
      "video/x-h265, stream-format=(string)hvc1, alignment=(string)au, width=(int)1920, "
      "height=(int)1080, interlace-mode=(string)progressive, chroma-format=(string)4:2:0, "
      "bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8, parsed=(boolean)true",
      {register_fake(kH265)}, {parser("h265parse")});
  EXPECT_FALSE(choice.chosen());
  EXPECT_EQ(choice.why_not, "its caps do not say its profile");
}

// Hostile caps: absurd or missing sizes, no fields at all, several structures.
TEST(NvdecChoice, HostileCapsAreRefusedOrTakenWithoutACrash) {
  const std::vector<GstElementFactory*> decoders = {register_fake(kH264), register_fake(kH265)};
  const std::vector<GstElementFactory*> parsers = {parser("h264parse"), parser("h265parse")};
  EXPECT_EQ(choose("video/x-h264, profile=(string)high, width=(int)2147483647, "
                   "height=(int)2147483647, chroma-format=(string)4:2:0, bit-depth-luma=(uint)8",
                   decoders, parsers)
                .why_not,
            "fakenvh264dec refuses this stream's picture size");
  EXPECT_EQ(choose("video/x-h264, profile=(string)high, width=(int)-5, height=(int)0, "
                   "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8",
                   decoders, parsers)
                .why_not,
            "fakenvh264dec refuses this stream's picture size");
  EXPECT_EQ(
      choose("video/x-h265, chroma-format=(int)3, bit-depth-luma=(string)ten", decoders, parsers)
          .why_not,
      "its caps do not say its chroma format and bit depth");
  EXPECT_EQ(choose("video/x-h264, chroma-format=(string)4:2:0, bit-depth-luma=(uint)4294967295",
                   decoders, parsers)
                .why_not,
            "its caps do not say its chroma format and bit depth");
  EXPECT_FALSE(choose("video/x-h264", decoders, parsers).chosen());
  EXPECT_FALSE(choose("ANY", decoders, parsers).chosen());
  EXPECT_FALSE(choose("EMPTY", decoders, parsers).chosen());
  EXPECT_FALSE(vmafexact::tools::choose_nvdec(nullptr, decoders, parsers).chosen());
}

TEST(NvdecChoice, OnlyProgressiveFourTwoZeroAtEightOrTenBits) {
  struct Case {
    const char* stream;
    const char* why_not;
  };
  for (const Case& refused : std::vector<Case>{
           {"video/x-h264, profile=(string)high-4:4:4, width=(int)640, height=(int)360, "
            "chroma-format=(string)4:4:4, bit-depth-luma=(uint)8",
            "H.264 4:4:4 at 8 bits: the NVDEC path takes 4:2:0 video at 8 or 10 bits"},
           {"video/x-h265, profile=(string)main-12, width=(int)640, height=(int)360, "
            "chroma-format=(string)4:2:0, bit-depth-luma=(uint)12, bit-depth-chroma=(uint)12",
            "HEVC 4:2:0 at 12 bits: the NVDEC path takes 4:2:0 video at 8 or 10 bits"},
           {"video/x-h264, profile=(string)high, width=(int)640, height=(int)360, "
            "chroma-format=(string)4:0:0, bit-depth-luma=(uint)8",
            "H.264 4:0:0 at 8 bits: the NVDEC path takes 4:2:0 video at 8 or 10 bits"},
           {"video/x-h264, profile=(string)high, width=(int)1920, height=(int)1080, "
            "interlace-mode=(string)mixed, chroma-format=(string)4:2:0, bit-depth-luma=(uint)8",
            "it is interlaced (mixed): the NVDEC path takes progressive video"},
           {"video/x-h264, profile=(string)high, width=(int)640, height=(int)360",
            "its caps do not say its chroma format and bit depth"},
           // What h264parse (1.22) says of an MBAFF or PAFF stream (x264
           // --interlaced): no interlace-mode, the coded structure only.
           {"video/x-h264, stream-format=(string)avc, alignment=(string)au, "
            "profile=(string)high, width=(int)320, height=(int)240, "
            "coded-picture-structure=(string)field, chroma-format=(string)4:2:0, "
            "bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8, parsed=(boolean)true",
            "it is field-coded (field): the NVDEC path takes progressive video"},
       }) {
    const NvdecChoice choice = choose(refused.stream, {register_fake(kH264), register_fake(kH265)},
                                      {parser("h264parse"), parser("h265parse")});
    EXPECT_FALSE(choice.chosen()) << refused.stream;
    EXPECT_EQ(choice.why_not, refused.why_not);
  }
}

// A live input's stream waits for its parser's caps behind a capsfilter of
// the packaging the NVDEC decoders take.
TEST(NvdecChoice, TheParserAndPackagingOfALiveStream) {
  EXPECT_EQ(vmafexact::tools::nvdec_parser_for("video/x-h264"), "h264parse");
  EXPECT_EQ(vmafexact::tools::nvdec_parser_for("video/x-av1"), "av1parse");
  EXPECT_EQ(vmafexact::tools::nvdec_parser_for("video/x-vp8"), "");
  EXPECT_EQ(vmafexact::tools::nvdec_parser_for("video/mpeg"), "");
  // Without registered NVDEC decoders (here), any packaging of the codec.
  if (vmafexact::tools::nvdec_decoder_factories().empty()) {
    CapsPtr packaging = vmafexact::tools::nvdec_packaging_caps("video/x-h264");
    CapsPtr plain(gst_caps_from_string("video/x-h264"));
    EXPECT_TRUE(gst_caps_is_equal(packaging.get(), plain.get()));
  }
}

TEST(NvdecChoice, TheParsedFormatMustBeTheOneChosenFor) {
  NvdecChoice choice;
  choice.decoder = "fakenvh264dec";
  choice.cpu_format = GST_VIDEO_FORMAT_I420;
  CapsPtr same(
      gst_caps_from_string("video/x-h264, chroma-format=(string)4:2:0, bit-depth-luma=(uint)8"));
  EXPECT_EQ(vmafexact::tools::check_parsed_format(choice, same.get()), "");
  CapsPtr gray(
      gst_caps_from_string("video/x-h264, chroma-format=(string)4:0:0, bit-depth-luma=(uint)8"));
  EXPECT_EQ(vmafexact::tools::check_parsed_format(choice, gray.get()),
            "the stream is now 4:0:0 at 8 bits, not 4:2:0 at 8 bits as when its decoder was "
            "chosen");
  CapsPtr deeper(
      gst_caps_from_string("video/x-h264, chroma-format=(string)4:2:0, bit-depth-luma=(uint)10"));
  EXPECT_NE(vmafexact::tools::check_parsed_format(choice, deeper.get()), "");
  // A live stream that turns to fields (or interlaced) after the choice.
  CapsPtr fields(gst_caps_from_string(
      "video/x-h264, chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, "
      "interlace-mode=(string)progressive, coded-picture-structure=(string)field"));
  EXPECT_EQ(vmafexact::tools::check_parsed_format(choice, fields.get()),
            "the stream is now field-coded (field), not progressive as when its decoder was "
            "chosen");
  CapsPtr interlaced(
      gst_caps_from_string("video/x-h265, chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, "
                           "interlace-mode=(string)alternate"));
  EXPECT_NE(vmafexact::tools::check_parsed_format(choice, interlaced.get()), "");
}

// Only nvcodec's decoders are taken: the fakes here (no plugin) are not.
TEST(NvdecChoice, TheRegisteredListHoldsOnlyNvcodecDecoders) {
  register_fake(kH264);
  for (const auto& factory : vmafexact::tools::nvdec_decoder_factories())
    EXPECT_STREQ(gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory.get())), "nvcodec");
  const NvdecChoice choice = [] {
    CapsPtr caps(gst_caps_from_string(kHighH264));
    return vmafexact::tools::choose_registered_nvdec(caps.get());
  }();
  if (vmafexact::tools::nvdec_decoder_factories().empty()) {
    EXPECT_FALSE(choice.chosen());
    EXPECT_EQ(choice.why_not, "no NVDEC decoder for H.264 (GStreamer's nvcodec registers none)");
  }
}

// Where GStreamer has no cudadownload (no nvcodec, as here without a GPU):
// the shared download chain names it and adds nothing, for the tool's and
// the monitor's errors (test_nvdec_monitor.cpp runs it with a fake one).
TEST(DownloadChain, AMissingElementIsNamedAndNothingIsAdded) {
  if (GstElementFactory* found = gst_element_factory_find("cudadownload")) {
    gst_object_unref(found);
    GTEST_SKIP() << "GStreamer has a cudadownload here";
  }
  GstObjectPtr<GstElement> bin(static_cast<GstElement*>(gst_object_ref_sink(gst_bin_new("b"))));
  const auto chain =
      vmafexact::tools::add_download_chain(GST_BIN(bin.get()), GST_VIDEO_FORMAT_I420, nullptr, "");
  EXPECT_EQ(chain.missing, "cudadownload");
  // nvcodec's package, not plugins-base's (the tool's advice said -base once).
  EXPECT_EQ(chain.missing_package, "gstreamer1.0-plugins-bad");
  EXPECT_FALSE(chain.linked);
  EXPECT_FALSE(chain.download || chain.repack || chain.filter);
  EXPECT_EQ(GST_BIN(bin.get())->numchildren, 0);
}

// A small VP9 webm made here with GStreamer (vp9enc), 10 frames of 64x48.
class NvdecWiring : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* factory : {"vp9enc", "webmmux", "vp9parse", "vp9dec", "uridecodebin"})
      if (GstElementFactory* found = gst_element_factory_find(factory))
        gst_object_unref(found);
      else
        GTEST_SKIP() << "GStreamer's " << factory << " is missing";
    folder_ = fs::temp_directory_path() / ("vmafexact-nvdec-" + std::to_string(getpid()));
    fs::create_directories(folder_);
    path_ = folder_ / "clip.webm";
    const std::string description =
        "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48,framerate=25/1 ! vp9enc "
        "deadline=1 ! webmmux ! filesink location=" +
        path_.string();
    GError* error = nullptr;
    GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &error));
    ASSERT_TRUE(pipeline) << (error ? error->message : "");
    gst_object_ref_sink(pipeline.get());
    ASSERT_EQ(run(pipeline.get()), GST_MESSAGE_EOS);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!folder_.empty()) fs::remove_all(folder_, ignored);
  }

  // Plays to the end or an error (at most 20 s); returns which came.
  static GstMessageType run(GstElement* pipeline, std::string* error_text = nullptr) {
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline));
    MessagePtr message(gst_bus_timed_pop_filtered(
        bus.get(), 20 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    const GstMessageType type = message ? GST_MESSAGE_TYPE(message.get()) : GST_MESSAGE_UNKNOWN;
    if (message && type == GST_MESSAGE_ERROR && error_text) {
      GError* error = nullptr;
      gst_message_parse_error(message.get(), &error, nullptr);
      *error_text = error ? error->message : "";
      g_clear_error(&error);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    return type;
  }

  std::string uri() const {
    gchar* text = gst_filename_to_uri(path_.c_str(), nullptr);
    std::string result = text;
    g_free(text);
    return result;
  }

  fs::path folder_;
  fs::path path_;
};

void count_frame(GstElement*, GstBuffer*, GstPad*, gpointer count) { ++*static_cast<int*>(count); }

// Whether any element inside `bin` (at any depth) is a decoder.
bool decodes_inside(GstElement* bin) {
  bool found = false;
  GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(bin));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
    auto* element = static_cast<GstElement*>(g_value_get_object(&item));
    GstElementFactory* factory = gst_element_get_factory(element);
    const gchar* klass =
        factory ? gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : nullptr;
    if (klass && std::string(klass).find("Decoder") != std::string::npos) found = true;
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(elements);
  return found;
}

TEST_F(NvdecWiring, TheUridecodebinExposesTheCompressedStreamAndTheChosenDecoderDecodesIt) {
  CapsPtr stream(gst_caps_from_string(
      "video/x-vp9, profile=(string)0, width=(int)64, height=(int)48, "
      "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8"));
  const NvdecChoice choice =
      vmafexact::tools::choose_nvdec(stream.get(), {register_fake(kVp9)}, {parser("vp9parse")});
  ASSERT_TRUE(choice.chosen()) << choice.why_not;
  GstObjectPtr<GstElement> pipeline(
      static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("nvdec"))));
  GstElement* source = gst_element_factory_make("uridecodebin", "source");
  GstElement* parse = gst_element_factory_make(choice.parser.c_str(), "parse");
  GstElement* decode = gst_element_factory_make(choice.decoder.c_str(), "decode");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  ASSERT_TRUE(source && parse && decode && sink);
  gst_bin_add_many(GST_BIN(pipeline.get()), source, parse, decode, sink, nullptr);
  ASSERT_TRUE(gst_element_link_many(parse, decode, sink, nullptr));
  g_object_set(source, "uri", uri().c_str(), nullptr);
  vmafexact::tools::expose_compressed_stream(source, choice);
  vmafexact::tools::link_compressed_video(source, parse, choice.media_type);
  int frames = 0;
  g_object_set(sink, "signal-handoffs", TRUE, "sync", FALSE, nullptr);
  g_signal_connect(sink, "handoff", G_CALLBACK(count_frame), &frames);
  std::string error;
  ASSERT_EQ(run(pipeline.get(), &error), GST_MESSAGE_EOS) << error;
  EXPECT_EQ(frames, 10);
  EXPECT_FALSE(decodes_inside(source)) << "the uridecodebin decoded the stream itself";
  // Without the compressed caps, the same uridecodebin decodes it (the test
  // would pass for nothing if it never did).
  GstObjectPtr<GstElement> plain(gst_element_factory_make("uridecodebin", nullptr));
  gst_object_ref_sink(plain.get());
  GstCaps* caps = nullptr;
  g_object_get(source, "caps", &caps, nullptr);
  CapsPtr exposed(caps);
  EXPECT_TRUE(gst_caps_can_intersect(exposed.get(), stream.get()));
  g_object_get(plain.get(), "caps", &caps, nullptr);
  CapsPtr defaults(caps);
  EXPECT_FALSE(gst_caps_can_intersect(defaults.get(), stream.get()));
}

// uridecodebin (compressed VP9) ! vp9parse [! before_decoder] ! the fake
// decoder ! fakesink, played to its end or first error (at most 20 s: a hang
// fails the test).
// Says whether the error came from the decoder (asked while the pipeline
// stands, as the tool asks) and counts frames.
struct WiredRun {
  GstMessageType type = GST_MESSAGE_UNKNOWN;
  std::string error_source;  // the element that posted the error
  bool posted_by_decoder = false;
  int frames = 0;
};
WiredRun run_wired(const std::string& uri, const NvdecChoice& choice,
                   const char* before_decoder = nullptr) {
  WiredRun result;
  GstObjectPtr<GstElement> pipeline(
      static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("nvdec"))));
  GstElement* source = gst_element_factory_make("uridecodebin", "source");
  GstElement* parse = gst_element_factory_make(choice.parser.c_str(), "parse");
  GstElement* decode = gst_element_factory_make(choice.decoder.c_str(), "decode");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  EXPECT_TRUE(source && parse && decode && sink);
  if (!source || !parse || !decode || !sink) return result;
  gst_bin_add_many(GST_BIN(pipeline.get()), source, parse, decode, sink, nullptr);
  GstElement* before =
      before_decoder ? gst_parse_bin_from_description(before_decoder, TRUE, nullptr) : nullptr;
  if (before) {
    gst_bin_add(GST_BIN(pipeline.get()), before);
    EXPECT_TRUE(gst_element_link_many(parse, before, decode, sink, nullptr));
  } else {
    EXPECT_TRUE(gst_element_link_many(parse, decode, sink, nullptr));
  }
  g_object_set(source, "uri", uri.c_str(), nullptr);
  vmafexact::tools::expose_compressed_stream(source, choice);
  vmafexact::tools::link_compressed_video(source, parse, choice.media_type);
  g_object_set(sink, "signal-handoffs", TRUE, "sync", FALSE, nullptr);
  g_signal_connect(sink, "handoff", G_CALLBACK(count_frame), &result.frames);
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
  MessagePtr message(
      gst_bus_timed_pop_filtered(bus.get(), 20 * GST_SECOND,
                                 static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  if (message) {
    result.type = GST_MESSAGE_TYPE(message.get());
    if (result.type == GST_MESSAGE_ERROR) {
      result.error_source = GST_MESSAGE_SRC_NAME(message.get());
      result.posted_by_decoder =
          vmafexact::tools::posted_by_decoder(GST_MESSAGE_SRC(message.get()), choice);
    }
  }
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  return result;
}

NvdecChoice vp9_choice(const FakeBinSpec& decoder) {
  CapsPtr stream(gst_caps_from_string(
      "video/x-vp9, profile=(string)0, width=(int)64, height=(int)48, "
      "chroma-format=(string)4:2:0, bit-depth-luma=(uint)8, bit-depth-chroma=(uint)8"));
  return vmafexact::tools::choose_nvdec(stream.get(), {register_fake(decoder)},
                                        {parser("vp9parse")});
}

// NVDEC failing mid-stream: the error ends the run (no wait), and it is
// told apart as the decoder's (the tool then names NVDEC and --backend cpu).
TEST_F(NvdecWiring, ADecoderFailingMidStreamEndsTheRunWithItsError) {
  const NvdecChoice choice = vp9_choice(kVp9FailsAfterThree);
  ASSERT_TRUE(choice.chosen()) << choice.why_not;
  const WiredRun wired = run_wired(uri(), choice);
  ASSERT_EQ(wired.type, GST_MESSAGE_ERROR);
  EXPECT_LE(wired.frames, 3);
  EXPECT_TRUE(wired.posted_by_decoder) << wired.error_source;
}

// A demuxer's or parser's error (here an element between the parser and the
// decoder, failing after two frames) is the input's, as with --backend cpu:
// not NVDEC's, so the tool does not send the user to the CPU for it. (A
// truncated mp4 is no stand-in: decodebin drops qtdemux's error when it comes
// while decodebin brings qtdemux to PAUSED, and then nothing ends the run.)
TEST_F(NvdecWiring, AnErrorBeforeTheDecoderIsNotTheDecoders) {
  const NvdecChoice choice = vp9_choice(kVp9);
  ASSERT_TRUE(choice.chosen()) << choice.why_not;
  const WiredRun wired = run_wired(uri(), choice, "identity error-after=2");
  ASSERT_EQ(wired.type, GST_MESSAGE_ERROR);
  EXPECT_FALSE(wired.posted_by_decoder) << wired.error_source;
  EXPECT_FALSE(vmafexact::tools::posted_by_decoder(nullptr, choice));
}

TEST_F(NvdecWiring, AnInputWithoutTheChosenCodecEndsInAnErrorNamingIt) {
  // Told to expect H.264, the uridecodebin finds VP9 only: no pad for the
  // parser, so an error (not a wait) when all its pads are out.
  GstObjectPtr<GstElement> pipeline(
      static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("nvdec"))));
  GstElement* source = gst_element_factory_make("uridecodebin", "source");
  GstElement* parse = gst_element_factory_make("h264parse", "parse");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  ASSERT_TRUE(source && parse && sink);
  gst_bin_add_many(GST_BIN(pipeline.get()), source, parse, sink, nullptr);
  ASSERT_TRUE(gst_element_link(parse, sink));
  g_object_set(source, "uri", uri().c_str(), nullptr);
  NvdecChoice choice;
  choice.media_type = "video/x-h264";
  vmafexact::tools::expose_compressed_stream(source, choice);
  vmafexact::tools::link_compressed_video(source, parse, choice.media_type);
  std::string error;
  ASSERT_EQ(run(pipeline.get(), &error), GST_MESSAGE_ERROR);
  EXPECT_NE(error.find("has no video/x-h264 stream for parse"), std::string::npos) << error;
}

// NVDEC's frames, downloaded for scaling or conversion, are repacked into the
// CPU decoder's format before the CPU path's steps: NV12 to I420 and P010 to
// I420_10LE must keep every value (videoconvert's default dithering moved
// 10-bit values by one).
TEST_F(NvdecWiring, DownloadedFramesAreRepackedBitForBit) {
  for (const char* formats : {"I420_10LE P010_10LE", "I420 NV12"}) {
    const std::string cpu = std::string(formats).substr(0, std::string(formats).find(' '));
    const std::string nvdec = std::string(formats).substr(cpu.size() + 1);
    const fs::path expected = folder_ / "expected.yuv", repacked = folder_ / "repacked.yuv";
    const std::string description =
        "videotestsrc num-buffers=3 pattern=smpte ! video/x-raw,format=" + cpu +
        ",width=64,height=48 ! tee name=t t. ! queue ! filesink location=" + expected.string() +
        " t. ! queue ! videoconvert dither=none ! video/x-raw,format=" + nvdec +
        " ! videoconvert name=repack ! video/x-raw,format=" + cpu +
        " ! filesink location=" + repacked.string();
    GError* error = nullptr;
    GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &error));
    ASSERT_TRUE(pipeline) << (error ? error->message : "");
    gst_object_ref_sink(pipeline.get());
    GstObjectPtr<GstElement> repack(gst_bin_get_by_name(GST_BIN(pipeline.get()), "repack"));
    vmafexact::tools::repack_exactly(repack.get());
    ASSERT_EQ(run(pipeline.get()), GST_MESSAGE_EOS);
    gchar *expected_bytes = nullptr, *repacked_bytes = nullptr;
    gsize expected_size = 0, repacked_size = 0;
    ASSERT_TRUE(g_file_get_contents(expected.c_str(), &expected_bytes, &expected_size, nullptr));
    ASSERT_TRUE(g_file_get_contents(repacked.c_str(), &repacked_bytes, &repacked_size, nullptr));
    const std::string want(expected_bytes, expected_size), got(repacked_bytes, repacked_size);
    g_free(expected_bytes);
    g_free(repacked_bytes);
    EXPECT_EQ(want.size(), 3u * 64 * 48 * 3 / 2 * (cpu == "I420" ? 1 : 2)) << cpu;
    EXPECT_TRUE(want == got) << nvdec << " to " << cpu << " changed values";
  }
}

// The tool's note where --backend cuda finds no NVDEC decoder for an input
// (here an MPEG-4 part 2 file, made with GStreamer's avenc_mpeg4): printed
// before anything plays, whether or not a GPU is there (without one the run
// then stops at the element); nothing with --backend cpu or auto, or --quiet.
TEST_F(NvdecWiring, TheToolNotesAnInputNvdecDoesNotTake) {
  for (const char* factory : {"avenc_mpeg4", "avimux", "vmafexact"})
    if (GstElementFactory* found = gst_element_factory_find(factory))
      gst_object_unref(found);
    else
      GTEST_SKIP() << "GStreamer's " << factory << " is missing";
  const fs::path clip = folder_ / "part2.avi";
  const std::string description =
      "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48,framerate=25/1 ! avenc_mpeg4 "
      "! avimux ! filesink location=" +
      clip.string();
  GError* error = nullptr;
  GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &error));
  ASSERT_TRUE(pipeline) << (error ? error->message : "");
  gst_object_ref_sink(pipeline.get());
  ASSERT_EQ(run(pipeline.get()), GST_MESSAGE_EOS);
  auto stderr_of = [&](const std::vector<std::string>& options) {
    std::vector<std::string> args = {kCliPath, clip.string(), clip.string()};
    args.insert(args.end(), options.begin(), options.end());
    std::vector<gchar*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<gchar*>(arg.c_str()));
    argv.push_back(nullptr);
    gchar* err = nullptr;
    gint status = 0;
    EXPECT_TRUE(g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_STDOUT_TO_DEV_NULL, nullptr,
                             nullptr, nullptr, &err, &status, nullptr));
    std::string text = err ? err : "";
    g_free(err);
    return text;
  };
  // "vmafexact: note: PATH: CODEC: WHY; decoding on the CPU", once per input.
  const std::string why =
      ": NVDEC is used for H.264, HEVC, VP8, VP9 and AV1 only (codecs whose "
      "decoding is exact by specification); decoding on the CPU\n";
  const std::string cuda = stderr_of({"--backend", "cuda"});
  int notes = 0;
  for (std::size_t at = cuda.find("vmafexact: note: " + clip.string() + ": ");
       at != std::string::npos;
       at = cuda.find("vmafexact: note: " + clip.string() + ": ", at + 1)) {
    const std::string line = cuda.substr(at, cuda.find('\n', at) + 1 - at);
    EXPECT_TRUE(line.ends_with(why)) << line;
    ++notes;
  }
  EXPECT_EQ(notes, 2) << "one note per input:\n" << cuda;
  for (const std::vector<std::string>& quiet : {std::vector<std::string>{"--backend", "cpu"},
                                                {"--backend", "auto"},
                                                {},
                                                {"--backend", "cuda", "--quiet"}}) {
    const std::string text = stderr_of(quiet);
    EXPECT_EQ(text.find("note:"), std::string::npos) << text;
  }
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
