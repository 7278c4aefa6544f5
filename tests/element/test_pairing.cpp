// The vmafexact element through GstHarness: which frames it pairs and scores
// (by running time, with jitter, gaps, drops, streams ending early, frames
// without timestamps, gray with YUV), and the distorted buffers it passes on.
// Expected scores come from metrics/ directly on the test's own planes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

namespace {

std::string time_text(GstClockTime time) {
  char text[64];
  std::snprintf(text, sizeof text, "%" GST_TIME_FORMAT, GST_TIME_ARGS(time));
  return text;
}

}  // namespace

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
