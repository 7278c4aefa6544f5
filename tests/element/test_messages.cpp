// The vmafexact element through GstHarness: its frame and summary messages.
// They can be turned off, VMAF's come a frame late (motion) and the latency
// says so, threads change when they come but not what they hold, and the
// summary carries the aggregate metrics.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "element_harness.h"
#include "psnr/psnr.h"

using namespace vmafexact;
using namespace vmafexact::test;
using namespace vmafexact::test::checks;

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
