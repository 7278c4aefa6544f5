// The vmafexact element through GstHarness: flushing seeks (with frames in
// flight too) start the measurement again from frame 0, and a stop and start
// reads the changed settings.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "element_harness.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

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
  harness.flushing_seek();
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
    harness.flushing_seek();  // at once: the last frames are still in flight
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
