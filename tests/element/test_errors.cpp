// The vmafexact element through GstHarness: errors while streaming. Inputs
// that differ or change in size, depth or format, buffers too short or whose
// video meta points past them, pictures too small for a feature; no exception
// leaves the element, and running out of memory is an error, not an abort.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../gst/element_guard.h"
#include "common/error.h"
#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

TEST(Element, SizeMismatchIsAnErrorThatSuggestsTheFix) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48), caps_string(GST_VIDEO_FORMAT_I420, 32, 24));
  const auto ref = random_picture(64, 48, 8, ChromaFormat::k420, 1);
  const auto dist = random_picture(32, 24, 8, ChromaFormat::k420, 2);
  harness.push_ref(make_buffer(ref, GST_VIDEO_FORMAT_I420, 0, kFrame));
  const GstFlowReturn ret = harness.push_dist(make_buffer(dist, GST_VIDEO_FORMAT_I420, 0, kFrame));
  (void)ret;  // the error is raised on the element's own thread
  GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()), 10 * GST_SECOND,
                                                 GST_MESSAGE_ERROR);
  ASSERT_NE(error, nullptr);
  GError* gerror = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(error, &gerror, &debug);
  const std::string text = gerror->message, details = debug ? debug : "";
  EXPECT_NE(text.find("reference is 64x48 8-bit 4:2:0 (I420), distorted is 32x24 8-bit 4:2:0 (I420)"),
            std::string::npos)
      << text;
  EXPECT_NE(details.find("vmafexactscale ! videoconvert"), std::string::npos) << details;
  g_error_free(gerror);
  g_free(debug);
  gst_message_unref(error);
}

TEST(Element, AFormatChangeMidStreamIsAnErrorThatSuggestsTheFix) {
  // Two pairs at 64x48 are scored; then both inputs change to 32x24, which
  // cannot be pooled with them: an error naming the new format and the fix,
  // after the frame messages of the first two pairs.
  ElementHarness harness("model=\"\" features=psnr");
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48), caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  const Frames frames = make_frames(2, 64, 48, 8, ChromaFormat::k420);
  run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 24), caps_string(GST_VIDEO_FORMAT_I420, 32, 24));
  const Frames smaller = make_frames(1, 32, 24, 8, ChromaFormat::k420);
  harness.push_ref(make_buffer(smaller.ref[0], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame));
  harness.push_dist(make_buffer(smaller.dist[0], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame));

  std::vector<MessagePtr> messages;  // up to the error, which comes from the element's thread
  while (messages.empty() || GST_MESSAGE_TYPE(messages.back().get()) != GST_MESSAGE_ERROR) {
    GstMessage* message = gst_bus_timed_pop(GST_ELEMENT_BUS(harness.element()), 10 * GST_SECOND);
    ASSERT_NE(message, nullptr) << "no error within 10 s";
    messages.emplace_back(message);
  }
  expect_frame_scores(element_messages(messages, "vmafexact-frame"), frames);
  const auto errors = message_texts(messages, GST_MESSAGE_ERROR);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(contains(errors, "The video format changed mid-stream to 32x24 8-bit 4:2:0 (I420)"))
      << errors[0];
  EXPECT_TRUE(contains(errors, "Scale both inputs to one fixed size and format")) << errors[0];
}

TEST(Element, BitDepthMismatchIsAnError) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32),
                   caps_string(GST_VIDEO_FORMAT_I420_10LE, 32, 32));
  harness.push_ref(make_buffer(random_picture(32, 32, 8, ChromaFormat::k420, 1), GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_dist(make_buffer(random_picture(32, 32, 10, ChromaFormat::k420, 1), GST_VIDEO_FORMAT_I420_10LE, 0, kFrame));
  GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()), 10 * GST_SECOND,
                                                 GST_MESSAGE_ERROR);
  ASSERT_NE(error, nullptr);
  GError* gerror = nullptr;
  gst_message_parse_error(error, &gerror, nullptr);
  EXPECT_NE(std::string(gerror->message).find("differ"), std::string::npos) << gerror->message;
  g_error_free(gerror);
  gst_message_unref(error);
}

TEST(Element, UnsupportedFormatIsRefusedAtNegotiation) {
  ElementHarness harness;
  // RGB is not in the pad templates: the caps event is refused.
  gst_harness_set_src_caps_str(harness.dist(), "video/x-raw,format=RGB,width=32,height=32,framerate=24/1");
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 32 * 32 * 3, nullptr);
  EXPECT_EQ(harness.push_dist(buffer), GST_FLOW_NOT_NEGOTIATED);
}

TEST(Element, ShortBufferIsAnErrorNotACrash) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48), caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  harness.push_ref(make_buffer(random_picture(64, 48, 8, ChromaFormat::k420, 1), GST_VIDEO_FORMAT_I420, 0, kFrame));
  GstBuffer* small = gst_buffer_new_allocate(nullptr, 100, nullptr);
  GST_BUFFER_PTS(small) = 0;
  GST_BUFFER_DURATION(small) = kFrame;
  harness.push_dist(small);
  GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()), 10 * GST_SECOND,
                                                 GST_MESSAGE_ERROR);
  ASSERT_NE(error, nullptr);
  GError* gerror = nullptr;
  gst_message_parse_error(error, &gerror, nullptr);
  EXPECT_NE(std::string(gerror->message).find("the buffer holds 100 bytes"), std::string::npos)
      << gerror->message;
  g_error_free(gerror);
  gst_message_unref(error);
}

// A buffer whose video meta describes planes beyond its memory (an upstream
// element's bug, or a hostile one): GStreamer maps it, checking only that each
// plane starts inside the buffer. The element must refuse it with an error,
// never read past the memory.
TEST(Element, AVideoMetaBeyondTheBufferIsAnErrorNotAnOverread) {
  const struct {
    const char* what;
    gsize offsets[3];
    gint strides[3];
  } cases[] = {
      {"luma stride too large", {0, 3072, 3840}, {512, 32, 32}},
      {"a chroma plane past the end", {0, 3072, 4600}, {64, 32, 32}},
      {"negative stride", {0, 3072, 3840}, {-64, 32, 32}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ElementHarness harness;
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48),
                     caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
    harness.push_ref(make_buffer(random_picture(64, 48, 8, ChromaFormat::k420, 1),
                                 GST_VIDEO_FORMAT_I420, 0, kFrame));
    // 64x48 I420 is 4608 bytes: the buffer has them, its meta points elsewhere.
    GstBuffer* bad = gst_buffer_new_allocate(nullptr, 4608, nullptr);
    gst_buffer_memset(bad, 0, 0x40, 4608);
    GST_BUFFER_PTS(bad) = 0;
    GST_BUFFER_DURATION(bad) = kFrame;
    gst_buffer_add_video_meta_full(bad, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 64, 48, 3,
                                   const_cast<gsize*>(c.offsets), const_cast<gint*>(c.strides));
    harness.push_dist(bad);
    GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()),
                                                   10 * GST_SECOND, GST_MESSAGE_ERROR);
    ASSERT_NE(error, nullptr);
    GError* gerror = nullptr;
    gst_message_parse_error(error, &gerror, nullptr);
    const std::string text = gerror->message;
    EXPECT_NE(text.find("Could not read a distorted frame: its video meta"), std::string::npos)
        << text;
    EXPECT_NE(text.find(c.what == std::string("negative stride") ? "shorter than a row"
                                                                 : "past the end of its memory"),
              std::string::npos)
        << text;
    std::printf("[video meta] %s: %s\n", c.what, text.c_str());
    g_error_free(gerror);
    gst_message_unref(error);
  }
}

namespace {

// The error message posted when a first I420 pair of w x h is scored with
// `properties`.
std::string first_frame_error(const char* properties, unsigned w, unsigned h) {
  ElementHarness harness(properties);
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, w, h), caps_string(GST_VIDEO_FORMAT_I420, w, h));
  harness.push_ref(make_buffer(random_picture(w, h, 8, ChromaFormat::k420, 1), GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_dist(make_buffer(random_picture(w, h, 8, ChromaFormat::k420, 2), GST_VIDEO_FORMAT_I420, 0, kFrame));
  GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()), 10 * GST_SECOND,
                                                 GST_MESSAGE_ERROR);
  if (!error) return "(no error)";
  GError* gerror = nullptr;
  gst_message_parse_error(error, &gerror, nullptr);
  std::string message = gerror->message;
  g_error_free(gerror);
  gst_message_unref(error);
  return message;
}

}  // namespace

TEST(ElementVmaf, PicturesTooSmallForAdmAreAClearError) {
  const std::string message = first_frame_error("model=vmaf_v0.6.1 features=", 16, 16);
  EXPECT_NE(message.find("adm: pictures must be at least 33x33"), std::string::npos) << message;
}

// libvmaf cannot score VMAF v1 at 64x48 (tests/fixtures/ref/d_64x48_*.xfail.v1.log:
// "problem reading pictures"): its CAMBI needs a side of 216 pixels.
TEST(ElementVmaf, VmafV1BelowCambisMinimumIsAClearError) {
  const std::string message = first_frame_error("model=vmaf_v1.0.16_3d0h features=", 64, 48);
  EXPECT_NE(message.find("cambi"), std::string::npos) << message;
  EXPECT_NE(message.find("64x48"), std::string::npos) << message;
  EXPECT_NE(message.find("216"), std::string::npos) << message;
}

// libvmaf fails MS-SSIM below 176 pixels a side (tests/fixtures/ref/
// d_64x48_*.xfail.msssim.log: "scale below 1x1!"), and SSIM below its window.
TEST(ElementVmaf, SsimBelowTheirMinimumsAreAClearError) {
  std::string message = first_frame_error("features=float_ms_ssim", 64, 48);
  EXPECT_NE(message.find("float_ms_ssim: picture 64x48 is smaller than libvmaf's minimum of 176x176"),
            std::string::npos)
      << message;
  message = first_frame_error("features=float_ssim=scale=5", 64, 48);
  EXPECT_NE(message.find("float_ssim: picture 64x48 downscaled by 5 to 12x9"), std::string::npos)
      << message;
}

// The first error message on `bus`, or "" when none is there.
std::string first_error(GstBus* bus) {
  GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (!message) return "";
  GError* error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  std::string text = error->message;
  g_error_free(error);
  gst_message_unref(message);
  return text;
}

TEST(Element, NoExceptionLeavesTheElement) {
  // What GStreamer calls from C runs through guarded(): any exception becomes
  // an element error instead of terminating the host process.
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  ASSERT_NE(element, nullptr);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  using vmafexact::gst::guarded;
  EXPECT_EQ(guarded(element, "testing", -1,
                    []() -> int { throw std::length_error("vector::_M_default_append"); }),
            -1);
  EXPECT_EQ(first_error(bus), "Internal error while testing: vector::_M_default_append.");
  EXPECT_EQ(guarded(element, "testing", -1, []() -> int { throw std::bad_alloc(); }), -1);
  EXPECT_EQ(first_error(bus), "Out of memory while testing.");
  EXPECT_EQ(guarded(element, "testing", -1, []() -> int { throw Error("a reason"); }), -1);
  EXPECT_EQ(first_error(bus), "Failed while testing: a reason.");
  EXPECT_EQ(guarded(element, "testing", -1, []() -> int { throw 42; }), -1);
  EXPECT_EQ(first_error(bus), "Internal error while testing: an unknown exception.");
  EXPECT_EQ(guarded(element, "testing", -1, [] { return 7; }), 7);
  EXPECT_EQ(first_error(bus), "");
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  gst_object_unref(element);
}

// In a child process: a picture whose scoring needs more memory than the
// address-space limit leaves. Prints the error posted and exits 0; an
// exception escaping into GStreamer's C code would abort instead.
[[noreturn]] void score_with_too_little_memory() {
  constexpr unsigned kSide = 8192;
  ElementHarness harness("model=vmaf_v0.6.1 threads=1");
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_GRAY8, kSide, kSide),
                   caps_string(GST_VIDEO_FORMAT_GRAY8, kSide, kSide));
  GstBuffer* buffers[2];
  for (GstBuffer*& buffer : buffers) {
    buffer = gst_buffer_new_allocate(nullptr, std::size_t{kSide} * kSide, nullptr);
    gst_buffer_memset(buffer, 0, 0x80, std::size_t{kSide} * kSide);
    GST_BUFFER_PTS(buffer) = 0;
    GST_BUFFER_DURATION(buffer) = kFrame;
  }
  // The address space in use now, plus 192 MiB: far less than VMAF's
  // working planes for 8192x8192 need.
  long pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  const rlim_t limit = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) + (192u << 20);
  const rlimit address_space{limit, limit};
  if (pages == 0 || ::setrlimit(RLIMIT_AS, &address_space) != 0) {
    std::fprintf(stderr, "could not limit the address space\n");
    std::_Exit(2);
  }
  harness.push_ref(buffers[0]);
  harness.push_dist(buffers[1]);
  for (int tries = 0; tries < 200; ++tries) {
    for (const auto& text : message_texts(harness.drain_messages(), GST_MESSAGE_ERROR)) {
      std::fprintf(stderr, "posted: %s\n", text.c_str());
      std::fflush(stderr);
      std::_Exit(0);
    }
    g_usleep(50000);
  }
  std::fprintf(stderr, "no error within 10 s\n");
  std::_Exit(3);
}

TEST(ElementDeathTest, RunningOutOfMemoryIsAnErrorNotAnAbort) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ASan's shadow memory cannot live under an address-space limit";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(score_with_too_little_memory(), ::testing::ExitedWithCode(0),
              "posted: Out of memory while scoring frames");
#endif
}
