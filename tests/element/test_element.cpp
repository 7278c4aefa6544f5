// The vmafexact element through GstHarness: pairing, formats, caps errors, EOS,
// flushing, messages and logs. Expected scores come from metrics/ directly on
// the test's own planes, so these tests check the element's plumbing.
#include <gst/allocators/gstfdmemory.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "../../gst/element_guard.h"
#include "../../gst/frame_source.h"
#include "../../gst/video_picture.h"
#include "element_harness.h"
#include "element_info_log.h"
#include "../common/strict_xml.h"
#include "psnr/psnr.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

constexpr GstClockTime kFrame = GST_SECOND / 24;

// psnr_y/cb/cr of a pair, from the metrics' own functions.
std::vector<double> expected_psnr(const RawPicture& ref, const RawPicture& dist) {
  const OwnedView r = view_of(ref), d = view_of(dist);
  std::vector<double> scores;
  for (unsigned p = 0; p < r.view.plane_count(); ++p) {
    const auto sse = psnr::plane_sse(r.view.planes[p], d.view.planes[p], ref.bpc);
    scores.push_back(psnr::psnr_from_sse(sse, r.view.planes[p].width, r.view.planes[p].height,
                                         ref.bpc, psnr::default_psnr_max(ref.bpc)));
  }
  return scores;
}

bool contains(const std::vector<std::string>& texts, const std::string& needle) {
  for (const auto& text : texts)
    if (text.find(needle) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const auto& text : texts) all += text + "\n";
  return all;
}

std::string time_text(GstClockTime time) {
  char text[64];
  std::snprintf(text, sizeof text, "%" GST_TIME_FORMAT, GST_TIME_ARGS(time));
  return text;
}

struct Frames {
  std::vector<RawPicture> ref, dist;
};

Frames make_frames(unsigned count, unsigned width, unsigned height, unsigned bpc,
                   ChromaFormat chroma) {
  Frames frames;
  for (unsigned i = 0; i < count; ++i) {
    frames.ref.push_back(random_picture(width, height, bpc, chroma, 100 + i));
    frames.dist.push_back(distorted(frames.ref.back(), 3 + static_cast<int>(i) % 5, 200 + i));
  }
  return frames;
}

// Pushes pairs in step and checks each frame message against the metrics.
void run_pairs(ElementHarness& harness, const Frames& frames, GstVideoFormat ref_format,
               GstVideoFormat dist_format) {
  for (std::size_t i = 0; i < frames.ref.size(); ++i) {
    ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], ref_format, i * kFrame, kFrame)),
              GST_FLOW_OK);
    ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], dist_format, i * kFrame, kFrame)),
              GST_FLOW_OK);
  }
}

void expect_frame_scores(const std::vector<const GstStructure*>& frames_posted,
                         const Frames& frames) {
  ASSERT_EQ(frames_posted.size(), frames.ref.size());
  const char* names[] = {"psnr_y", "psnr_cb", "psnr_cr"};
  for (std::size_t i = 0; i < frames_posted.size(); ++i) {
    EXPECT_EQ(field_uint64(frames_posted[i], "index"), i);
    const auto expected = expected_psnr(frames.ref[i], frames.dist[i]);
    for (std::size_t p = 0; p < expected.size(); ++p)
      EXPECT_EQ(field_double(frames_posted[i], names[p]), expected[p]) << "frame " << i << " " << names[p];
  }
}

}  // namespace

namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("vmafexact-test-" + std::to_string(::getpid()) + "-" + name);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace


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

TEST(Element, ScoresEveryPairAndPassesDistortedBuffersThrough) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48), caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  const Frames frames = make_frames(5, 64, 48, 8, ChromaFormat::k420);
  run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
  for (unsigned i = 0; i < 5; ++i) {
    GstBuffer* out = gst_harness_pull(harness.ref());
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(GST_BUFFER_PTS(out), i * kFrame);
    GstBuffer* expected = make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame);
    GstMapInfo a, b;
    gst_buffer_map(out, &a, GST_MAP_READ);
    gst_buffer_map(expected, &b, GST_MAP_READ);
    ASSERT_EQ(a.size, b.size);
    EXPECT_EQ(std::memcmp(a.data, b.data, a.size), 0) << "distorted buffer changed";
    gst_buffer_unmap(out, &a);
    gst_buffer_unmap(expected, &b);
    gst_buffer_unref(expected);
    gst_buffer_unref(out);
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  expect_frame_scores(posted, frames);
  for (std::size_t i = 0; i < posted.size(); ++i) {
    GstClockTime pts = 0, running_time = 0, duration = 0;
    gst_structure_get_clock_time(posted[i], "pts", &pts);
    gst_structure_get_clock_time(posted[i], "running-time", &running_time);
    gst_structure_get_clock_time(posted[i], "duration", &duration);
    EXPECT_EQ(pts, i * kFrame);
    EXPECT_EQ(running_time, i * kFrame);
    EXPECT_EQ(duration, kFrame);
  }
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 5u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired"), 0u);
  const GstStructure* pooled = nullptr;
  ASSERT_TRUE(gst_structure_get(summary[0], "psnr_y", GST_TYPE_STRUCTURE, &pooled, nullptr));
  double mean = 0, sum = 0;
  gst_structure_get_double(pooled, "mean", &mean);
  for (std::size_t i = 0; i < 5; ++i) sum += expected_psnr(frames.ref[i], frames.dist[i])[0];
  EXPECT_EQ(mean, sum / 5);
  gst_structure_free(const_cast<GstStructure*>(pooled));
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_WARNING).empty())
      << joined(message_texts(messages, GST_MESSAGE_WARNING));
}

// With one frame in flight a pair is scored inside aggregate(). It leaves its
// pads first, so that upstream delivers the next pair while this one is scored
// (a pad holds one frame; else reading and parsing the next pair waits for the
// scoring and the scoring then waits for them). Here each frame's message,
// posted once its pair is scored, is held by a sync handler until the next pair
// has been taken by both pads.
TEST(Element, TakesAPairOffItsPadsBeforeScoringIt) {
  struct Gate {
    std::mutex mutex;
    std::condition_variable pushed;
    guint64 pairs_taken = 0, pairs = 0;
    std::vector<guint64> frames_waited_out;
  } gate;
  constexpr guint64 kPairs = 4;
  gate.pairs = kPairs;
  ElementHarness harness("threads=1 frames-in-flight=1");
  // Not live, as filesrc: a pad then holds one frame (live pads hold two).
  gst_harness_set_live(harness.ref(), FALSE);
  gst_harness_set_live(harness.dist(), FALSE);
  GstBus* bus = gst_element_get_bus(harness.element());
  gst_bus_set_sync_handler(
      bus,
      [](GstBus*, GstMessage* message, gpointer data) {
        auto& gate = *static_cast<Gate*>(data);
        const GstStructure* structure = gst_message_get_structure(message);
        guint64 index = 0;
        if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ELEMENT ||
            !gst_structure_has_name(structure, "vmafexact-frame") ||
            !gst_structure_get_uint64(structure, "index", &index))
          return GST_BUS_PASS;
        std::unique_lock lock(gate.mutex);
        const guint64 wanted = std::min(index + 2, gate.pairs);
        // Waits once: after a first failure the others would only add time.
        if (gate.frames_waited_out.empty() &&
            !gate.pushed.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return gate.pairs_taken >= wanted; }))
          gate.frames_waited_out.push_back(index);
        return GST_BUS_PASS;
      },
      &gate, nullptr);
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48),
                   caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  const Frames frames = make_frames(kPairs, 64, 48, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < kPairs; ++i) {
    EXPECT_EQ(
        harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)),
        GST_FLOW_OK);
    EXPECT_EQ(
        harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)),
        GST_FLOW_OK);
    const std::lock_guard lock(gate.mutex);
    gate.pairs_taken = i + 1;
    gate.pushed.notify_all();
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  expect_frame_scores(element_messages(harness.drain_messages(), "vmafexact-frame"), frames);
  EXPECT_TRUE(gate.frames_waited_out.empty())
      << "frame " << gate.frames_waited_out.front()
      << "'s message was posted while the next pair could not reach the pads";
}

TEST(Element, PairsByRunningTimeNotArrival) {
  // The distorted stream's segment starts at 10 s with a base of 0, so its
  // timestamps are 10 s ahead but its running times match the reference's.
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.start = 10 * GST_SECOND;
  segment.time = 10 * GST_SECOND;
  gst_harness_push_event(harness.dist(), gst_event_new_segment(&segment));
  const Frames frames = make_frames(3, 32, 32, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 3; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, 10 * GST_SECOND + i * kFrame, kFrame));
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  expect_frame_scores(element_messages(messages, "vmafexact-frame"), frames);
  const auto posted = element_messages(messages, "vmafexact-frame");
  GstClockTime pts = 0, stream_time = 0;
  gst_structure_get_clock_time(posted[1], "pts", &pts);
  gst_structure_get_clock_time(posted[1], "stream-time", &stream_time);
  EXPECT_EQ(pts, 10 * GST_SECOND + kFrame);
  EXPECT_EQ(stream_time, 10 * GST_SECOND + kFrame);
}

TEST(Element, ToleratesTimestampJitterBelowHalfAFrame) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(4, 32, 32, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 4; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    const GstClockTime jitter = (i % 2) ? 3 * GST_MSECOND : 0;
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame + jitter, kFrame));
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  expect_frame_scores(element_messages(messages, "vmafexact-frame"), frames);
}

TEST(Element, DroppedFrameOnEachSideIsCountedAndReported) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(5, 32, 32, 8, ChromaFormat::k420);
  auto ref = [&](unsigned i) {
    return harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  };
  auto dist = [&](unsigned i) {
    return harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  };
  // Reference frame 1 and distorted frame 3 are missing.
  ASSERT_EQ(ref(0), GST_FLOW_OK);
  ASSERT_EQ(dist(0), GST_FLOW_OK);
  ASSERT_EQ(ref(2), GST_FLOW_OK);
  ASSERT_EQ(dist(1), GST_FLOW_OK);  // unpaired: pushed downstream, not scored
  ASSERT_EQ(dist(2), GST_FLOW_OK);
  ASSERT_EQ(ref(3), GST_FLOW_OK);
  ASSERT_EQ(dist(4), GST_FLOW_OK);  // reference 3 is unpaired
  ASSERT_EQ(ref(4), GST_FLOW_OK);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  EXPECT_EQ(gst_harness_buffers_received(harness.ref()), 4u) << "every distorted buffer goes out";

  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 3u);
  const unsigned scored[] = {0, 2, 4};
  for (unsigned k = 0; k < 3; ++k) {
    EXPECT_EQ(field_uint64(posted[k], "index"), k);
    EXPECT_EQ(field_double(posted[k], "psnr_y"),
              expected_psnr(frames.ref[scored[k]], frames.dist[scored[k]])[0]);
    GstClockTime pts = 0;
    gst_structure_get_clock_time(posted[k], "pts", &pts);
    EXPECT_EQ(pts, scored[k] * kFrame);
  }
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 3u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired"), 2u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired-ref"), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired-dist"), 1u);
  const auto warnings = message_texts(messages, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 2u) << joined(warnings);
  EXPECT_TRUE(contains(warnings, "distorted frame at running time " + time_text(kFrame) +
                                      " has no reference frame"))
      << joined(warnings);
  EXPECT_TRUE(contains(warnings, "the nearest reference frame is at " + time_text(2 * kFrame)))
      << joined(warnings);
  EXPECT_TRUE(contains(warnings, "reference frame at running time " + time_text(3 * kFrame) +
                                      " has no distorted frame"))
      << joined(warnings);
  EXPECT_TRUE(contains(warnings, "videorate")) << joined(warnings);
}

TEST(Element, GapEventMarksAMissingFrame) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(3, 32, 32, 8, ChromaFormat::k420);
  harness.push_ref(make_buffer(frames.ref[0], GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_dist(make_buffer(frames.dist[0], GST_VIDEO_FORMAT_I420, 0, kFrame));
  gst_harness_push_event(harness.ref(), gst_event_new_gap(kFrame, kFrame));
  harness.push_dist(make_buffer(frames.dist[1], GST_VIDEO_FORMAT_I420, kFrame, kFrame));
  harness.push_ref(make_buffer(frames.ref[2], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame));
  harness.push_dist(make_buffer(frames.dist[2], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame));
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 2u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired-dist"), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired-ref"), 0u);
}

TEST(Element, OneStreamEndingEarlyScoresWhatWasPairedAndWarns) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(5, 32, 32, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 2; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  }
  harness.push_eos_ref();
  for (unsigned i = 2; i < 5; ++i)
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  EXPECT_EQ(gst_harness_buffers_received(harness.ref()), 5u);
  const auto messages = harness.drain_messages();
  EXPECT_EQ(element_messages(messages, "vmafexact-frame").size(), 2u);
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 2u);
  EXPECT_EQ(field_uint64(summary[0], "frames-unpaired-dist"), 3u);
  const auto warnings = message_texts(messages, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
  EXPECT_TRUE(contains(warnings, "The reference stream ended first: 2 frames were scored and the last 3 distorted frames"))
      << joined(warnings);
}

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
  EXPECT_NE(details.find("videoscale"), std::string::npos) << details;
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

TEST(Element, RepeatedCapsAndANewLayoutOfTheSameFormatKeepScoring) {
  // A caps event that repeats the format, and one that changes the distorted
  // input's layout only (I420 to NV12, same size and depth), change nothing
  // in the scores; the src pad announces the distorted input's new caps
  // before the first buffer of that layout.
  ElementHarness harness("model=\"\" features=psnr");
  // The src pad's caps events and buffers, in the order they leave.
  struct Flow {
    std::mutex mutex;
    std::string caps;  // the format of the last caps event
    std::string caps_of_last_buffer;
    unsigned buffers = 0;
  } flow;
  GstPad* src = gst_element_get_static_pad(harness.element(), "src");
  gst_pad_add_probe(
      src, static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      [](GstPad*, GstPadProbeInfo* info, gpointer data) {
        auto& seen = *static_cast<Flow*>(data);
        std::lock_guard lock(seen.mutex);
        if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
          ++seen.buffers;
          seen.caps_of_last_buffer = seen.caps;
        } else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_CAPS) {
          GstCaps* caps = nullptr;
          gst_event_parse_caps(GST_PAD_PROBE_INFO_EVENT(info), &caps);
          seen.caps = gst_structure_get_string(gst_caps_get_structure(caps, 0), "format");
        }
        return GST_PAD_PROBE_OK;
      },
      &flow, nullptr);
  gst_object_unref(src);
  const Frames frames = make_frames(4, 64, 48, 8, ChromaFormat::k420);
  const std::string i420 = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  const std::string nv12 = caps_string(GST_VIDEO_FORMAT_NV12, 64, 48);
  harness.set_caps(i420, i420);
  auto push_pair = [&](unsigned i, GstVideoFormat dist_format) {
    ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)),
              GST_FLOW_OK);
    ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], dist_format, i * kFrame, kFrame)),
              GST_FLOW_OK);
  };
  push_pair(0, GST_VIDEO_FORMAT_I420);
  push_pair(1, GST_VIDEO_FORMAT_I420);
  harness.set_caps(i420, i420);
  push_pair(2, GST_VIDEO_FORMAT_I420);
  harness.set_caps(i420, nv12);
  push_pair(3, GST_VIDEO_FORMAT_NV12);
  harness.push_eos_ref();
  harness.push_eos_dist();

  ASSERT_TRUE(harness.wait_for_eos());
  // What came out of the src pad, in order: the caps in force at the last
  // buffer are NV12's.
  std::lock_guard lock(flow.mutex);
  EXPECT_EQ(flow.buffers, 4u);
  EXPECT_EQ(flow.caps_of_last_buffer, "NV12");

  const auto messages = harness.drain_messages();
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(messages, GST_MESSAGE_ERROR));
  expect_frame_scores(element_messages(messages, "vmafexact-frame"), frames);
}

TEST(Element, ARunThatFailsLeavesTheExistingLogAsItWas) {
  // Starting does not truncate the log, and it is replaced only by a complete
  // new one: a run that fails at its first frame leaves the old file intact,
  // and no temporary file behind.
  const auto folder = std::filesystem::temp_directory_path() / "vmafexact-log-kept";
  std::filesystem::create_directories(folder);
  const auto path = folder / "scores.json";
  std::ofstream(path) << "the previous log\n";
  {
    ElementHarness harness(("features=psnr model=\"\" log-location=" + path.string()).c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48),
                     caps_string(GST_VIDEO_FORMAT_I420, 32, 24));
    harness.push_ref(make_buffer(random_picture(64, 48, 8, ChromaFormat::k420, 1),
                                 GST_VIDEO_FORMAT_I420, 0, kFrame));
    harness.push_dist(make_buffer(random_picture(32, 24, 8, ChromaFormat::k420, 2),
                                  GST_VIDEO_FORMAT_I420, 0, kFrame));
    GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()),
                                                   10 * GST_SECOND, GST_MESSAGE_ERROR);
    ASSERT_NE(error, nullptr);
    gst_message_unref(error);
  }
  EXPECT_EQ(read_text(path), "the previous log\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(folder);
}

// In a child process whose files may not grow past 4 KiB (as on a full disk):
// the end-of-stream log, larger than that, cannot be written. Prints what it
// found and exits 0 when the error came, the previous log is intact and no
// temporary file is left.
[[noreturn]] void end_a_run_on_a_full_disk(const std::filesystem::path& folder) {
  const auto path = folder / "scores.json";
  std::ofstream(path) << "the previous log\n";
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG
  const rlimit file_size{4096, 4096};
  if (::setrlimit(RLIMIT_FSIZE, &file_size) != 0) std::_Exit(2);
  bool error_posted = false;
  {
    ElementHarness harness(("features=psnr model= log-location=" + path.string()).c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 16, 16),
                     caps_string(GST_VIDEO_FORMAT_I420, 16, 16));
    const Frames frames = make_frames(2, 16, 16, 8, ChromaFormat::k420);
    for (unsigned i = 0; i < 200; ++i) {  // about 20 KB of JSON
      harness.push_ref(make_buffer(frames.ref[i % 2], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
      harness.push_dist(make_buffer(frames.dist[i % 2], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    }
    harness.push_eos_ref();
    harness.push_eos_dist();
    GstMessage* error = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(harness.element()),
                                                   20 * GST_SECOND, GST_MESSAGE_ERROR);
    if (error) {
      GError* gerror = nullptr;
      gst_message_parse_error(error, &gerror, nullptr);
      std::fprintf(stderr, "posted: %s\n", gerror->message);
      error_posted = true;
      g_error_free(gerror);
      gst_message_unref(error);
    }
  }
  const bool kept = read_text(path) == "the previous log\n";
  const auto files = std::distance(std::filesystem::directory_iterator(folder),
                                   std::filesystem::directory_iterator());
  std::fprintf(stderr, "previous log %s, %ld file(s) in the folder\n", kept ? "kept" : "LOST",
               static_cast<long>(files));
  std::fflush(stderr);
  std::_Exit(error_posted && kept && files == 1 ? 0 : 1);
}

TEST(ElementDeathTest, AFullDiskAtEndOfStreamLeavesThePreviousLogWhole) {
  const auto folder = temp_path("full-disk");
  std::filesystem::create_directories(folder);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(end_a_run_on_a_full_disk(folder), ::testing::ExitedWithCode(0),
              "posted: Could not write the score log(.|\n)*previous log kept, 1 file\\(s\\)");
  std::filesystem::remove_all(folder);
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

struct LayoutCase {
  GstVideoFormat ref_format, dist_format;
  unsigned bpc;
  ChromaFormat chroma;
  unsigned width, height;
};

class ElementLayouts : public ::testing::TestWithParam<LayoutCase> {
 protected:
  // Three pairs of the case's frames (frames_) through an element with
  // `properties`, to EOS without an error: the frame messages posted, which
  // live as long as messages_.
  std::vector<const GstStructure*> frame_messages(const char* properties = nullptr) {
    const LayoutCase& c = GetParam();
    ElementHarness harness(properties);
    harness.set_caps(caps_string(c.ref_format, c.width, c.height), caps_string(c.dist_format, c.width, c.height));
    frames_ = make_frames(3, c.width, c.height, c.bpc, c.chroma);
    run_pairs(harness, frames_, c.ref_format, c.dist_format);
    harness.push_eos_ref();
    harness.push_eos_dist();
    EXPECT_TRUE(harness.wait_for_eos());
    messages_ = harness.drain_messages();
    EXPECT_TRUE(message_texts(messages_, GST_MESSAGE_ERROR).empty())
        << joined(message_texts(messages_, GST_MESSAGE_ERROR));
    return element_messages(messages_, "vmafexact-frame");
  }
  Frames frames_;
  std::vector<MessagePtr> messages_;
};

TEST_P(ElementLayouts, ScoresEqualTheMetricsOnTheSamePlanes) {
  const auto posted = frame_messages();
  expect_frame_scores(posted, frames_);
  if (GetParam().chroma == ChromaFormat::k400) {
    ASSERT_FALSE(posted.empty());
    EXPECT_FALSE(gst_structure_has_field(posted[0], "psnr_cb"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, ElementLayouts,
    ::testing::Values(
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, 8, ChromaFormat::k420, 64, 48},
        LayoutCase{GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV21, 8, ChromaFormat::k420, 33, 17},
        // libvmaf's chroma of a picture one pixel wide is empty (rounded down).
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, 8, ChromaFormat::k420, 1, 5},
        LayoutCase{GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE, 10, ChromaFormat::k420, 1, 4},
        LayoutCase{GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420, 8, ChromaFormat::k420, 17, 17},
        LayoutCase{GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_NV16, 8, ChromaFormat::k422, 35, 20},
        LayoutCase{GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_NV24, 8, ChromaFormat::k444, 30, 21},
        LayoutCase{GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8, 8, ChromaFormat::k400, 31, 9},
        LayoutCase{GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE, 10, ChromaFormat::k420, 64, 36},
        LayoutCase{GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_P012_LE, 12, ChromaFormat::k420, 41, 23},
        LayoutCase{GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_10LE, 10, ChromaFormat::k422, 40, 22},
        LayoutCase{GST_VIDEO_FORMAT_I422_12LE, GST_VIDEO_FORMAT_I422_12LE, 12, ChromaFormat::k422, 19, 40},
        LayoutCase{GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_Y444_10LE, 10, ChromaFormat::k444, 24, 24},
        LayoutCase{GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_12LE, 12, ChromaFormat::k444, 24, 25},
        LayoutCase{GST_VIDEO_FORMAT_Y444_16LE, GST_VIDEO_FORMAT_Y444_16LE, 16, ChromaFormat::k444, 23, 24},
        LayoutCase{GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_P016_LE, 16, ChromaFormat::k420, 32, 18},
        LayoutCase{GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_GRAY16_LE, 16, ChromaFormat::k400, 20, 20}),
    [](const ::testing::TestParamInfo<LayoutCase>& info) {
      return std::string(gst_video_format_to_string(info.param.ref_format)) + "_" +
             gst_video_format_to_string(info.param.dist_format) + "_" +
             std::to_string(info.param.width) + "x" + std::to_string(info.param.height);
    });

// The same layouts with a feature that reads luma only (psnr without chroma;
// the VMAF models read luma only too): the element leaves the chroma out of
// the pictures, and the luma scores are those of the planar frames.
TEST_P(ElementLayouts, LumaOnlyScoresEqualTheMetricsOnTheSameLuma) {
  const auto posted = frame_messages("features=psnr=enable_chroma=false threads=2");
  ASSERT_EQ(posted.size(), frames_.ref.size());
  for (std::size_t i = 0; i < posted.size(); ++i) {
    EXPECT_EQ(field_double(posted[i], "psnr_y"), expected_psnr(frames_.ref[i], frames_.dist[i])[0])
        << "frame " << i;
    EXPECT_FALSE(gst_structure_has_field(posted[i], "psnr_cb"));
  }
}

// The session reads chroma only when an extractor does: the element says so
// when it starts scoring (the frame sources then leave the chroma out; see
// VideoPicture.ChromaLeftOutIsNeitherRepackedNorCopied).
TEST(Element, ChromaIsReadOnlyWhenAnExtractorReadsIt) {
  const auto start_line = [](const char* properties, unsigned size = 64) {
    ElementInfoLog log;
    {
      ElementHarness harness(properties);
      harness.set_caps(caps_string(GST_VIDEO_FORMAT_NV12, size, size),
                       caps_string(GST_VIDEO_FORMAT_NV12, size, size));
      const Frames frames = make_frames(2, size, size, 8, ChromaFormat::k420);
      run_pairs(harness, frames, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV12);
      harness.push_eos_ref();
      harness.push_eos_dist();
      EXPECT_TRUE(harness.wait_for_eos());
    }
    for (const std::string& line : log.finish())
      if (line.find("scoring on the CPU") != std::string::npos) return line;
    return std::string("no start line");
  };
  EXPECT_NE(start_line(nullptr).find("chroma read"), std::string::npos);  // psnr
  EXPECT_NE(start_line("features=psnr=enable_chroma=false").find("luma only"), std::string::npos);
  // Any one extractor that reads chroma is enough (speed_chroma takes 160x160).
  EXPECT_NE(start_line("features=psnr=enable_chroma=false,speed_chroma", 160).find("chroma read"),
            std::string::npos);
}

// picture_view_of without chroma: the chroma planes are null and nothing is
// written for them (NV12's would be deinterleaved, P010's shifted); luma is
// viewed in place or repacked as with chroma, and the sizes are set.
TEST(VideoPicture, ChromaLeftOutIsNeitherRepackedNorCopied) {
  for (const GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_P010_10LE,
                                      GST_VIDEO_FORMAT_I420}) {
    SCOPED_TRACE(gst_video_format_to_string(format));
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, 36, 20);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    gst_buffer_memset(buffer, 0, 0x40, GST_VIDEO_INFO_SIZE(&info));
    GstVideoFrame frame;
    ASSERT_TRUE(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ));
    const auto picture_format = vmafexact::gst::picture_format_from_info(info);
    ASSERT_TRUE(picture_format);
    for (const bool copy : {false, true}) {
      vmafexact::gst::ScratchPlanes scratch;
      const PictureView view =
          vmafexact::gst::picture_view_of(frame, *picture_format, scratch, copy, false);
      ASSERT_NE(view.planes[0].data, nullptr);
      const bool p010 = format == GST_VIDEO_FORMAT_P010_10LE;
      // P010's 0x4040 >> 6 = 0x101; the others' samples are 0x40.
      EXPECT_EQ(p010 ? view.planes[0].row<std::uint16_t>(19)[35] : view.planes[0].row<std::uint8_t>(19)[35],
                p010 ? 0x101 : 0x40);
      for (unsigned p = 1; p < 3; ++p) {
        EXPECT_EQ(view.planes[p].data, nullptr) << "plane " << p;
        EXPECT_EQ(view.planes[p].width, 18u);
        EXPECT_EQ(view.planes[p].height, 10u);
        EXPECT_TRUE(scratch.planes[p].empty()) << "plane " << p << " was written";
      }
      // With chroma, the same call fills them.
      const PictureView full = vmafexact::gst::picture_view_of(frame, *picture_format, scratch, copy);
      EXPECT_NE(full.planes[1].data, nullptr);
      EXPECT_NE(full.planes[2].data, nullptr);
    }
    gst_video_frame_unmap(&frame);
    gst_buffer_unref(buffer);
  }
}

TEST(Element, FrameMessagesCanBeTurnedOff) {
  ElementHarness harness("frame-message=false");
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  run_pairs(harness, make_frames(2, 32, 32, 8, ChromaFormat::k420), GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  EXPECT_TRUE(element_messages(messages, "vmafexact-frame").empty());
  EXPECT_EQ(element_messages(messages, "vmafexact-summary").size(), 1u);
}

TEST(Element, FlushingSeekStartsAgainFromZero) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(4, 32, 32, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 3; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  }
  for (unsigned i = 0; i < 3; ++i) gst_buffer_unref(gst_harness_pull(harness.ref()));
  // A flushing seek reaches every input with the seek's sequence number.
  const guint32 seqnum = gst_util_seqnum_next();
  for (GstHarness* h : {harness.ref(), harness.dist()}) {
    GstEvent* start = gst_event_new_flush_start();
    gst_event_set_seqnum(start, seqnum);
    gst_harness_push_event(h, start);
  }
  for (GstHarness* h : {harness.ref(), harness.dist()}) {
    GstEvent* stop = gst_event_new_flush_stop(TRUE);
    gst_event_set_seqnum(stop, seqnum);
    gst_harness_push_event(h, stop);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
  }
  harness.drain_messages();
  harness.push_ref(make_buffer(frames.ref[3], GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_dist(make_buffer(frames.dist[3], GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(field_uint64(posted[0], "index"), 0u);
  EXPECT_EQ(field_double(posted[0], "psnr_y"), expected_psnr(frames.ref[3], frames.dist[3])[0]);
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 1u);
}

// Sends a flushing seek's FLUSH_START / FLUSH_STOP and a new segment to both inputs.
void flush_both(ElementHarness& harness) {
  const guint32 seqnum = gst_util_seqnum_next();
  for (GstHarness* h : {harness.ref(), harness.dist()}) {
    GstEvent* start = gst_event_new_flush_start();
    gst_event_set_seqnum(start, seqnum);
    gst_harness_push_event(h, start);
  }
  for (GstHarness* h : {harness.ref(), harness.dist()}) {
    GstEvent* stop = gst_event_new_flush_stop(TRUE);
    gst_event_set_seqnum(stop, seqnum);
    gst_harness_push_event(h, stop);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
  }
}

TEST(ElementVmaf, FlushingSeekWithFramesInFlightIsSafe) {
  // Frames scored on worker threads when the flush comes: the scoring session
  // must wait for them before it frees the copies they read (run this one
  // under ASan). Then a new measurement starts from frame 0.
  ElementHarness harness("model=vmaf_v0.6.1 features= threads=3 frames-in-flight=3");
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 640, 360),
                   caps_string(GST_VIDEO_FORMAT_NV12, 640, 360));
  const Frames frames = make_frames(6, 640, 360, 8, ChromaFormat::k420);
  for (int round = 0; round < 2; ++round) {
    for (unsigned i = 0; i < 4; ++i) {
      ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)),
                GST_FLOW_OK);
      ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_NV12, i * kFrame, kFrame)),
                GST_FLOW_OK);
    }
    flush_both(harness);  // at once: the last frames are still in flight
  }
  harness.drain_messages();
  for (unsigned i = 4; i < 6; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, (i - 4) * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_NV12, (i - 4) * kFrame, kFrame));
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
      << joined(message_texts(messages, GST_MESSAGE_ERROR));
  const auto posted = element_messages(messages, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(field_uint64(posted[0], "index"), 0u);
  EXPECT_EQ(field_uint64(posted[1], "index"), 1u);
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 2u);
}

TEST(Element, StopAndStartAgainReadsChangedSettings) {
  // Settings are read at start: after stop, a changed feature list and log
  // location apply to the next run.
  const auto path = temp_path("restart.csv");
  ElementHarness harness("features=psnr");
  const Frames frames = make_frames(2, 32, 32, 8, ChromaFormat::k420);
  for (int run = 0; run < 2; ++run) {
    if (run == 1) {
      gst_element_set_state(harness.element(), GST_STATE_NULL);
      g_object_set(harness.element(), "features", "motion", "log-format", 2 /* csv */,
                   "log-location", path.c_str(), nullptr);
      ASSERT_NE(gst_element_set_state(harness.element(), GST_STATE_PLAYING),
                GST_STATE_CHANGE_FAILURE);
      for (GstHarness* h : {harness.ref(), harness.dist()})
        gst_harness_push_event(h, gst_event_new_stream_start(run == 1 ? "second" : "first"));
    }
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos()) << "run " << run;
    const auto messages = harness.drain_messages();
    EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
        << joined(message_texts(messages, GST_MESSAGE_ERROR));
    const auto posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(posted.size(), 2u) << "run " << run;
    EXPECT_EQ(field_uint64(posted[0], "index"), 0u) << "run " << run;
    EXPECT_EQ(gst_structure_has_field(posted[0], "psnr_y"), run == 0) << "run " << run;
    EXPECT_EQ(gst_structure_has_field(posted[0], "integer_motion2"), run == 1) << "run " << run;
    const auto summary = element_messages(messages, "vmafexact-summary");
    ASSERT_EQ(summary.size(), 1u);
    EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 2u) << "counts start again";
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  EXPECT_EQ(text.rfind("Frame,VMAF_integer_feature_motion_sad_score,", 0), 0u) << text;
}

TEST(Element, AllocationQueryOffersVideoMetaAndNoPoolForSystemMemory) {
  ElementHarness harness;
  const std::string caps_text = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  harness.set_caps(caps_text, caps_text);
  GstCaps* caps = gst_caps_from_string(caps_text.c_str());
  GstQuery* query = gst_query_new_allocation(caps, TRUE);
  gst_caps_unref(caps);
  ASSERT_TRUE(gst_pad_peer_query(harness.ref()->srcpad, query));
  EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
  EXPECT_EQ(gst_query_get_n_allocation_pools(query), 0u);
  gst_query_unref(query);
}

namespace {

struct PoolRelease {
  void operator()(GstBufferPool* pool) const {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }
};
using PoolPtr = std::unique_ptr<GstBufferPool, PoolRelease>;

// An active video buffer pool for `caps_text` that hands out at most
// `max_buffers` buffers at once (0: no limit), as upstream elements make them.
PoolPtr make_pool(const std::string& caps_text, unsigned max_buffers) {
  GstCaps* caps = gst_caps_from_string(caps_text.c_str());
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) throw std::runtime_error("bad test caps");
  PoolPtr pool(gst_video_buffer_pool_new());
  GstStructure* config = gst_buffer_pool_get_config(pool.get());
  gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0,
                                    max_buffers);
  gst_caps_unref(caps);
  if (!gst_buffer_pool_set_config(pool.get(), config) || !gst_buffer_pool_set_active(pool.get(), TRUE))
    throw std::runtime_error("cannot set up the test pool");
  return pool;
}

// A buffer of `pool` with the bytes and timestamps of `filled` (taken), or
// nullptr when none came free within 10 s. While it waits it takes what
// the element passed on (the distorted buffers are the pool's too), as a
// sink would.
GstBuffer* pooled_copy(ElementHarness& harness, GstBufferPool* pool, GstBuffer* filled) {
  GstBufferPoolAcquireParams params{};
  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  GstBuffer* buffer = nullptr;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (gst_buffer_pool_acquire_buffer(pool, &buffer, &params) != GST_FLOW_OK) {
    while (GstBuffer* out = gst_harness_try_pull(harness.ref())) gst_buffer_unref(out);
    if (std::chrono::steady_clock::now() > give_up) {
      gst_buffer_unref(filled);
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  GstMapInfo map;
  gst_buffer_map(filled, &map, GST_MAP_READ);
  gst_buffer_fill(buffer, 0, map.data, map.size);
  gst_buffer_unmap(filled, &map);
  GST_BUFFER_PTS(buffer) = GST_BUFFER_PTS(filled);
  GST_BUFFER_DURATION(buffer) = GST_BUFFER_DURATION(filled);
  gst_buffer_unref(filled);
  return buffer;
}

// Pushes the pairs from pools of `max_buffers` each through three frames in
// flight, and checks every frame's scores.
void score_from_pools(unsigned max_buffers) {
  ElementHarness harness("model=\"\" features=psnr threads=3 frames-in-flight=3");
  const std::string caps = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  harness.set_caps(caps, caps);
  const PoolPtr ref_pool = make_pool(caps, max_buffers), dist_pool = make_pool(caps, max_buffers);
  const Frames frames = make_frames(12, 64, 48, 8, ChromaFormat::k420);
  for (std::size_t i = 0; i < frames.ref.size(); ++i) {
    GstBuffer* ref = pooled_copy(harness, ref_pool.get(),
                                 make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    ASSERT_NE(ref, nullptr) << "the reference pool ran dry at pair " << i;
    ASSERT_EQ(harness.push_ref(ref), GST_FLOW_OK);
    GstBuffer* dist = pooled_copy(harness, dist_pool.get(),
                                  make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    ASSERT_NE(dist, nullptr) << "the distorted pool ran dry at pair " << i;
    ASSERT_EQ(harness.push_dist(dist), GST_FLOW_OK);
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  expect_frame_scores(element_messages(harness.drain_messages(), "vmafexact-frame"), frames);
}

}  // namespace

TEST(Element, FramesInFlightOfAPoolWithALimitAreCopiedSoItNeverRunsDry) {
  // Pools of one buffer each (as small as a hardware decoder's can get): a
  // frame held in flight past its push would keep upstream from the next
  // one for ever. Such frames are copied and their buffers let go at once.
  score_from_pools(1);
}

TEST(Element, FramesInFlightOfAPoolWithoutALimitAreHeldAndScoredTheSame) {
  // Software decoders', videotestsrc's and videoconvert's pools have no limit:
  // their frames are held in flight instead of copied (the pool grows).
  score_from_pools(0);
}

TEST(Element, OnlyBuffersOfAPoolWithALimitCouldStallUpstreamIfHeld) {
  const std::string caps = caps_string(GST_VIDEO_FORMAT_I420, 64, 48);
  for (const unsigned max_buffers : {0u, 1u, 8u}) {
    const PoolPtr pool = make_pool(caps, max_buffers);
    GstBuffer* buffer = nullptr;
    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &buffer, nullptr), GST_FLOW_OK);
    EXPECT_EQ(vmafexact::gst::holding_could_stall_upstream(buffer), max_buffers != 0) << max_buffers;
    gst_buffer_unref(buffer);
  }
  GstBuffer* unpooled = gst_buffer_new_allocate(nullptr, 64 * 48 * 3 / 2, nullptr);
  EXPECT_FALSE(vmafexact::gst::holding_could_stall_upstream(unpooled));
  gst_buffer_unref(unpooled);

  // A pool without a limit whose buffer holds memory other than system memory
  // (here an fd's, as DMABuf's is): its buffers may be scarce surfaces.
  const PoolPtr pool = make_pool(caps, 0);
  GstBuffer* buffer = nullptr;
  ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool.get(), &buffer, nullptr), GST_FLOW_OK);
  EXPECT_FALSE(vmafexact::gst::holding_could_stall_upstream(buffer));
  const int fd = memfd_create("vmafexact-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  const gsize size = gst_buffer_get_size(buffer);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
  GstAllocator* fd_allocator = gst_fd_allocator_new();
  gst_buffer_replace_all_memory(buffer, gst_fd_allocator_alloc(fd_allocator, fd, size, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(fd_allocator);
  EXPECT_TRUE(vmafexact::gst::holding_could_stall_upstream(buffer));
  gst_buffer_unref(buffer);  // the pool drops a buffer whose memory was replaced
}

class ElementLogs : public ::testing::TestWithParam<const char*> {};

TEST_P(ElementLogs, LogHoldsEveryFrameAndPooledScore) {
  const std::string format = GetParam();
  const auto path = temp_path("log." + format);
  const std::string properties =
      "log-location=" + path.string() + " log-format=" + format + " log-precision=max";
  const Frames frames = make_frames(4, 40, 30, 8, ChromaFormat::k420);
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 40, 30), caps_string(GST_VIDEO_FORMAT_I420, 40, 30));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(text.empty());
  std::vector<std::vector<double>> expected;
  for (unsigned i = 0; i < 4; ++i) expected.push_back(expected_psnr(frames.ref[i], frames.dist[i]));
  const char* names[] = {"psnr_y", "psnr_cb", "psnr_cr"};

  if (format == "json") {
    const auto json = nlohmann::ordered_json::parse(text);
    ASSERT_EQ(json.at("frames").size(), 4u);
    for (unsigned i = 0; i < 4; ++i) {
      EXPECT_EQ(json["frames"][i]["frameNum"].get<unsigned>(), i);
      for (unsigned p = 0; p < 3; ++p)
        EXPECT_EQ(json["frames"][i]["metrics"][names[p]].get<double>(), expected[i][p]);
    }
    double sum = 0;
    for (unsigned i = 0; i < 4; ++i) sum += expected[i][0];
    EXPECT_EQ(json["pooled_metrics"]["psnr_y"]["mean"].get<double>(), sum / 4);
    EXPECT_TRUE(json.at("aggregate_metrics").empty());
    EXPECT_EQ(json.at("version").get<std::string>().rfind("vmafexact", 0), 0u);
  } else if (format == "xml") {
    EXPECT_EQ(text.rfind("<VMAF version=\"vmafexact", 0), 0u) << text;
    EXPECT_NE(text.find("<params qualityWidth=\"40\" qualityHeight=\"30\" />"), std::string::npos);
    for (unsigned i = 0; i < 4; ++i) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "<frame frameNum=\"%u\" psnr_y=\"%.17g\" psnr_cb=\"%.17g\" psnr_cr=\"%.17g\" />", i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
    }
    EXPECT_NE(text.find("<metric name=\"psnr_cr\" min="), std::string::npos);
  } else if (format == "sub") {
    std::istringstream lines(text);
    std::string line;
    for (unsigned i = 0; i < 4; ++i) {
      ASSERT_TRUE(std::getline(lines, line));
      char expected_line[512];
      std::snprintf(expected_line, sizeof expected_line,
                    "{%u}{%u}frame: %u|psnr_y: %.17g|psnr_cb: %.17g|psnr_cr: %.17g|", i, i + 1, i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_EQ(line, expected_line);
    }
    EXPECT_FALSE(std::getline(lines, line));
  } else {
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "Frame,psnr_y,psnr_cb,psnr_cr,");
    for (unsigned i = 0; i < 4; ++i) {
      ASSERT_TRUE(std::getline(lines, line));
      char expected_line[512];
      std::snprintf(expected_line, sizeof expected_line, "%u,%.17g,%.17g,%.17g,", i,
                    expected[i][0], expected[i][1], expected[i][2]);
      EXPECT_EQ(line, expected_line);
    }
    EXPECT_FALSE(std::getline(lines, line));
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ElementLogs, ::testing::Values("json", "xml", "csv", "sub"));

// Without log-format, the extension of log-location picks the layout (in any
// case); another extension, or none, keeps JSON.
class ElementLogExtensions : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
};

TEST_P(ElementLogExtensions, PickTheLayoutWhenLogFormatIsNotSet) {
  const auto [name, start] = GetParam();
  const auto path = temp_path(name);
  const std::string properties = "features=psnr model=\"\" log-location=" + path.string();
  const Frames frames = make_frames(2, 40, 30, 8, ChromaFormat::k420);
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 40, 30),
                     caps_string(GST_VIDEO_FORMAT_I420, 40, 30));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  EXPECT_EQ(text.rfind(start, 0), 0u) << name << ":\n" << text;
}

INSTANTIATE_TEST_SUITE_P(Extensions, ElementLogExtensions,
                         ::testing::Values(std::pair{"ext.json", "{\n  \"version\""},
                                           std::pair{"ext.xml", "<VMAF version="},
                                           std::pair{"ext.csv", "Frame,psnr_y,psnr_cb,psnr_cr,\n"},
                                           std::pair{"ext.CSV", "Frame,psnr_y,"},
                                           std::pair{"ext.Xml", "<VMAF version="},
                                           std::pair{"ext.sub", "{0}{1}frame: 0|psnr_y: "},
                                           std::pair{"ext.log", "{\n  \"version\""},
                                           std::pair{"noextension", "{\n  \"version\""}));

// log-format set to another layout than the extension names: refused at start,
// naming both and the fix; the same layout, or an extension naming none, is fine.
TEST(Element, LogFormatThatContradictsTheExtensionIsAnErrorAtStart) {
  const auto folder = std::filesystem::temp_directory_path();
  struct Case {
    const char* format;
    const char* file;
    bool refused;
  };
  for (const Case c : {Case{"json", "scores.csv", true}, Case{"csv", "scores.XML", true},
                       Case{"xml", "scores.json", true}, Case{"csv", "scores.csv", false},
                       Case{"csv", "scores.log", false}, Case{"xml", "scores", false}}) {
    GstElement* element = gst_element_factory_make("vmafexact", nullptr);
    ASSERT_NE(element, nullptr);
    const std::string location = (folder / c.file).string();
    gst_util_set_object_arg(G_OBJECT(element), "log-format", c.format);
    g_object_set(element, "log-location", location.c_str(), nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(element, bus);
    const GstStateChangeReturn ret = gst_element_set_state(element, GST_STATE_PAUSED);
    std::string message, details;
    if (GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
      GError* gerror = nullptr;
      gchar* debug = nullptr;
      gst_message_parse_error(error, &gerror, &debug);
      message = gerror->message;
      details = debug ? debug : "";
      g_error_free(gerror);
      g_free(debug);
      gst_message_unref(error);
    }
    gst_element_set_state(element, GST_STATE_NULL);
    gst_element_set_bus(element, nullptr);
    gst_object_unref(bus);
    gst_object_unref(element);
    std::filesystem::remove(location);
    SCOPED_TRACE(std::string(c.format) + " " + c.file);
    if (!c.refused) {
      EXPECT_NE(ret, GST_STATE_CHANGE_FAILURE) << message;
      continue;
    }
    EXPECT_EQ(ret, GST_STATE_CHANGE_FAILURE);
    std::string named = c.file + std::string(c.file).rfind('.') + 1;
    for (char& ch : named) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(message, "log-location \"" + location + "\" names a " + named +
                           " log, but log-format is " + c.format + ".");
    EXPECT_NE(details.find("Set log-format=" + named), std::string::npos) << details;
    EXPECT_NE(details.find("the extension ." + std::string(c.format)), std::string::npos)
        << details;
  }
}

TEST(Element, SubsampleListsAndPoolsEveryNthFrame) {
  const auto path = temp_path("subsample.csv");
  const std::string properties =
      "subsample=2 log-format=csv log-precision=max log-location=" + path.string();
  const Frames frames = make_frames(5, 32, 32, 8, ChromaFormat::k400);
  std::vector<const GstStructure*> posted;
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_GRAY8, 32, 32), caps_string(GST_VIDEO_FORMAT_GRAY8, 32, 32));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY8);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
    const auto messages = harness.drain_messages();
    posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(posted.size(), 3u);
    EXPECT_EQ(field_uint64(posted[1], "index"), 2u);
    const auto summary = element_messages(messages, "vmafexact-summary");
    ASSERT_EQ(summary.size(), 1u);
    const GstStructure* pooled = nullptr;
    ASSERT_TRUE(gst_structure_get(summary[0], "psnr_y", GST_TYPE_STRUCTURE, &pooled, nullptr));
    double mean = 0;
    gst_structure_get_double(pooled, "mean", &mean);
    double sum = 0;
    for (unsigned i : {0u, 2u, 4u}) sum += expected_psnr(frames.ref[i], frames.dist[i])[0];
    EXPECT_EQ(mean, sum / 3);
    gst_structure_free(const_cast<GstStructure*>(pooled));
  }
  const std::string text = read_text(path);
  std::filesystem::remove(path);
  char expected[512];
  std::snprintf(expected, sizeof expected, "Frame,psnr_y,\n0,%.17g,\n2,%.17g,\n4,%.17g,\n",
                expected_psnr(frames.ref[0], frames.dist[0])[0],
                expected_psnr(frames.ref[2], frames.dist[2])[0],
                expected_psnr(frames.ref[4], frames.dist[4])[0]);
  EXPECT_EQ(text, expected);
}

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

TEST(ElementVmaf, DefaultIsTheVmafModelWithMotionLatency) {
  // Default properties: vmaf_v0.6.1. Frame N's scores need frame N+1 (motion2),
  // so the first frame message comes after the second pair; the last at EOS.
  ElementHarness harness("model=vmaf_v0.6.1 features= threads=1");
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 64, 48), caps_string(GST_VIDEO_FORMAT_I420, 64, 48));
  const Frames frames = make_frames(3, 64, 48, 8, ChromaFormat::k420);
  harness.push_ref(make_buffer(frames.ref[0], GST_VIDEO_FORMAT_I420, 0, kFrame));
  harness.push_dist(make_buffer(frames.dist[0], GST_VIDEO_FORMAT_I420, 0, kFrame));
  gst_buffer_unref(gst_harness_pull(harness.ref()));  // the buffer is not held back
  EXPECT_TRUE(element_messages(harness.drain_messages(), "vmafexact-frame").empty());
  for (unsigned i = 1; i < 3; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
  }
  for (unsigned i = 1; i < 3; ++i) gst_buffer_unref(gst_harness_pull(harness.ref()));
  auto messages = harness.drain_messages();
  auto posted = element_messages(messages, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(field_uint64(posted[1], "index"), 1u);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  messages = harness.drain_messages();
  posted = element_messages(messages, "vmafexact-frame");
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(field_uint64(posted[0], "index"), 2u);
  const char* keys[] = {"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                        "VMAF_integer_feature_motion_sad_score", "integer_vif_scale0",
                        "integer_vif_scale3", "integer_motion2", "integer_motion3", "vmaf"};
  for (const char* key : keys) EXPECT_TRUE(gst_structure_has_field(posted[0], key)) << key;
  const double vmaf = field_double(posted[0], "vmaf");
  EXPECT_GE(vmaf, 0.0);
  EXPECT_LE(vmaf, 100.0);
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_TRUE(gst_structure_has_field(summary[0], "vmaf"));
  GstQuery* latency = gst_query_new_latency();
  // The aggregator adds the reported frame of score latency to upstream's.
  if (gst_element_query(harness.element(), latency)) {
    GstClockTime min_latency = 0;
    gst_query_parse_latency(latency, nullptr, &min_latency, nullptr);
    EXPECT_GE(min_latency, kFrame);
  }
  gst_query_unref(latency);
}

TEST(ElementVmaf, ThreadsChangeNothingButWhenMessagesCome) {
  // The same pairs scored with one thread, with three frames in flight on
  // three threads, and one frame at a time cut into bands on three (640x360 is
  // large enough to be cut): the logs must be identical, byte for byte, and
  // every frame posted in order.
  const Frames frames = make_frames(7, 640, 360, 8, ChromaFormat::k420);
  const char* runs[] = {"threads=1", "threads=3 frames-in-flight=3", "threads=3"};
  std::string logs[3];
  for (int run = 0; run < 3; ++run) {
    const auto path = temp_path("threads" + std::to_string(run) + ".csv");
    const std::string properties = std::string("model=vmaf_v0.6.1 features=psnr log-format=csv ") +
                                   "log-precision=max " + runs[run] +
                                   " log-location=" + path.string();
    {
      ElementHarness harness(properties.c_str());
      harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 640, 360),
                       caps_string(GST_VIDEO_FORMAT_NV12, 640, 360));
      run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12);
      harness.push_eos_ref();
      harness.push_eos_dist();
      ASSERT_TRUE(harness.wait_for_eos());
      const auto messages = harness.drain_messages();
      const auto posted = element_messages(messages, "vmafexact-frame");
      ASSERT_EQ(posted.size(), 7u) << runs[run];
      for (unsigned i = 0; i < 7; ++i) EXPECT_EQ(field_uint64(posted[i], "index"), i) << runs[run];
      const auto summary = element_messages(messages, "vmafexact-summary");
      ASSERT_EQ(summary.size(), 1u);
      guint threads = 0, in_flight = 0;
      gst_structure_get_uint(summary[0], "threads", &threads);
      gst_structure_get_uint(summary[0], "frames-in-flight", &in_flight);
      EXPECT_EQ(threads, run == 0 ? 1u : 3u) << runs[run];
      // GstHarness answers the latency query as a live source, so auto (the
      // third run) scores one frame at a time, in bands.
      EXPECT_EQ(in_flight, run == 1 ? 3u : 1u) << runs[run];
    }
    logs[run] = read_text(path);
    std::filesystem::remove(path);
  }
  EXPECT_FALSE(logs[0].empty());
  EXPECT_EQ(logs[1], logs[0]);
  EXPECT_EQ(logs[2], logs[0]);
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

TEST(Element, FramesWithoutTimestampsAreWarnedOnceAndCounted) {
  // The distorted frames carry no timestamps: they are paired in arrival
  // order, which a dropped frame would shift without a word. Say so, once,
  // and count those pairs in the summary.
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  const Frames frames = make_frames(4, 32, 32, 8, ChromaFormat::k420);
  for (unsigned i = 0; i < 4; ++i) {
    harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame));
    harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, GST_CLOCK_TIME_NONE,
                                  GST_CLOCK_TIME_NONE));
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  const auto warnings = message_texts(messages, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
  EXPECT_NE(warnings[0].find("The distorted input carries no timestamps"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("arrival order"), std::string::npos) << warnings[0];
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-scored"), 4u);
  EXPECT_EQ(field_uint64(summary[0], "frames-paired-by-arrival-order"), 4u);
}

TEST(Element, TimestampedInputsPairNothingByArrivalOrder) {
  ElementHarness harness;
  harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 32, 32), caps_string(GST_VIDEO_FORMAT_I420, 32, 32));
  run_pairs(harness, make_frames(2, 32, 32, 8, ChromaFormat::k420), GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_I420);
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  const auto messages = harness.drain_messages();
  EXPECT_TRUE(message_texts(messages, GST_MESSAGE_WARNING).empty());
  const auto summary = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(field_uint64(summary[0], "frames-paired-by-arrival-order"), 0u);
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

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

// psnr's enable_apsnr: the summary carries libvmaf's aggregates as gdoubles
// named as its logs name them, equal to the metrics' own apsnr of the sums.
TEST(Element, SummaryCarriesTheAggregateMetrics) {
  const auto log = temp_path("aggregates.json");
  const std::string properties = "features=psnr=enable_mse=true:enable_apsnr=true log-location=" +
                                 log.string() + " log-precision=max";
  const Frames frames = make_frames(3, 40, 30, 8, ChromaFormat::k420);
  {
    ElementHarness harness(properties.c_str());
    harness.set_caps(caps_string(GST_VIDEO_FORMAT_I420, 40, 30),
                     caps_string(GST_VIDEO_FORMAT_I420, 40, 30));
    run_pairs(harness, frames, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_I420);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
    const auto messages = harness.drain_messages();
    const auto summary = element_messages(messages, "vmafexact-summary");
    ASSERT_EQ(summary.size(), 1u);
    const char* names[] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};
    for (unsigned p = 0; p < 3; ++p) {
      std::uint64_t sse = 0, pixels = 0;
      for (unsigned i = 0; i < 3; ++i) {
        const OwnedView r = view_of(frames.ref[i]), d = view_of(frames.dist[i]);
        sse += psnr::plane_sse(r.view.planes[p], d.view.planes[p], 8);
        pixels += r.view.planes[p].width * r.view.planes[p].height;
      }
      EXPECT_EQ(field_double(summary[0], names[p]), psnr::apsnr(sse, pixels, 255)) << names[p];
    }
    const auto posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(posted.size(), 3u);
    EXPECT_TRUE(gst_structure_has_field_typed(posted[0], "mse_cb", G_TYPE_DOUBLE));
  }
  const auto json = nlohmann::ordered_json::parse(read_text(log));
  std::filesystem::remove(log);
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.at("aggregate_metrics").items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"apsnr_y", "apsnr_cb", "apsnr_cr"}));
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

// --- Right outputs (issue 39): gray paired with YUV by luma, score names
// every log can hold, error texts valid UTF-8. ---

// A gray input holds the luma as it is: paired with a YUV input of the same
// size and depth, the pair is scored on luma (psnr_y of the two lumas, no
// chroma score), in either order, with a warning that says so; a gray input
// of another depth is still refused.
TEST(Element, GrayPairsWithYuvByLumaInEitherOrder) {
  const Frames frames = make_frames(3, 32, 32, 8, ChromaFormat::k420);
  for (const bool gray_ref : {true, false}) {
    SCOPED_TRACE(gray_ref ? "gray reference" : "gray distorted");
    const GstVideoFormat ref_format = gray_ref ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_I420;
    const GstVideoFormat dist_format = gray_ref ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_GRAY8;
    ElementHarness harness("model= features=psnr");
    harness.set_caps(caps_string(ref_format, 32, 32), caps_string(dist_format, 32, 32));
    run_pairs(harness, frames, ref_format, dist_format);
    harness.push_eos_ref();
    harness.push_eos_dist();
    ASSERT_TRUE(harness.wait_for_eos());
    const auto messages = harness.drain_messages();
    EXPECT_TRUE(message_texts(messages, GST_MESSAGE_ERROR).empty())
        << joined(message_texts(messages, GST_MESSAGE_ERROR));
    const auto warnings = message_texts(messages, GST_MESSAGE_WARNING);
    EXPECT_TRUE(contains(warnings, "Scoring the luma only")) << joined(warnings);
    const auto posted = element_messages(messages, "vmafexact-frame");
    ASSERT_EQ(posted.size(), frames.ref.size());
    for (std::size_t i = 0; i < posted.size(); ++i) {
      EXPECT_EQ(field_double(posted[i], "psnr_y"), expected_psnr(frames.ref[i], frames.dist[i])[0]);
      EXPECT_FALSE(gst_structure_has_field(posted[i], "psnr_cb"));
    }
  }
  ElementHarness deeper;
  deeper.set_caps(caps_string(GST_VIDEO_FORMAT_GRAY16_LE, 32, 32),
                  caps_string(GST_VIDEO_FORMAT_I420_10LE, 32, 32));
  const RawPicture picture = random_picture(32, 32, 10, ChromaFormat::k420, 1);
  deeper.push_ref(make_buffer(random_picture(32, 32, 16, ChromaFormat::k400, 1),
                              GST_VIDEO_FORMAT_GRAY16_LE, 0, kFrame));
  deeper.push_dist(make_buffer(picture, GST_VIDEO_FORMAT_I420_10LE, 0, kFrame));
  MessagePtr error(gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(deeper.element()), 10 * GST_SECOND,
                                              GST_MESSAGE_ERROR));
  ASSERT_TRUE(error);
  GError* gerror = nullptr;
  gst_message_parse_error(error.get(), &gerror, nullptr);
  EXPECT_NE(std::string(gerror->message).find("differ"), std::string::npos) << gerror->message;
  g_error_free(gerror);
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
