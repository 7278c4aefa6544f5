// Live monitoring through the element: vmafexact-window messages checked
// against the vmafexact-frame messages of the same run, alerts raised and
// cleared, input-stalled alerts from a stalled input, the summary's
// percentiles, and bad property values refused at start.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "element_harness.h"
#include "psnr/psnr.h"

using namespace vmafexact;
using namespace vmafexact::test;

namespace {

constexpr GstClockTime kFrame = GST_SECOND / 24;
const std::string kCaps = caps_string(GST_VIDEO_FORMAT_I420, 32, 24);

double psnr_y(const RawPicture& ref, const RawPicture& dist) {
  const OwnedView r = view_of(ref), d = view_of(dist);
  const auto sse = psnr::plane_sse(r.view.planes[0], d.view.planes[0], ref.bpc);
  return psnr::psnr_from_sse(sse, r.view.planes[0].width, r.view.planes[0].height, ref.bpc,
                             psnr::default_psnr_max(ref.bpc));
}

// Pictures whose distortion follows `amplitudes`, so that psnr_y moves.
struct Frames {
  std::vector<RawPicture> ref, dist;
};
Frames make_frames(const std::vector<int>& amplitudes) {
  Frames frames;
  for (std::size_t i = 0; i < amplitudes.size(); ++i) {
    frames.ref.push_back(random_picture(32, 24, 8, ChromaFormat::k420, 300 + i));
    frames.dist.push_back(distorted(frames.ref.back(), amplitudes[i], 400 + i));
  }
  return frames;
}

// Pushes every pair but the distorted frames listed, then EOS. A reference frame
// without a partner is pushed with the next distorted frame already waiting, so
// that the element drops it rather than wait for its partner.
void push_all(ElementHarness& harness, const Frames& frames, const std::vector<std::size_t>& no_dist = {}) {
  harness.set_caps(kCaps, kCaps);
  const auto missing = [&](std::size_t i) {
    return std::find(no_dist.begin(), no_dist.end(), i) != no_dist.end();
  };
  std::vector<bool> pushed(frames.dist.size());
  const auto push_dist = [&](std::size_t i) {
    if (pushed[i]) return;
    pushed[i] = true;
    ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)), GST_FLOW_OK);
  };
  for (std::size_t i = 0; i < frames.ref.size(); ++i) {
    ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)), GST_FLOW_OK);
    std::size_t next = i;
    while (next < frames.dist.size() && missing(next)) ++next;
    if (next < frames.dist.size()) push_dist(next);
  }
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
}

GstClockTime field_time(const GstStructure* structure, const char* name) {
  GstClockTime time = GST_CLOCK_TIME_NONE;
  if (!gst_structure_get_clock_time(structure, name, &time))
    throw std::runtime_error(std::string("no clock time field ") + name);
  return time;
}

std::string field_string(const GstStructure* structure, const char* name) {
  const gchar* text = gst_structure_get_string(structure, name);
  if (!text) throw std::runtime_error(std::string("no string field ") + name);
  return text;
}

const GstStructure* field_structure(const GstStructure* structure, const char* name) {
  const GValue* value = gst_structure_get_value(structure, name);
  if (!value || !GST_VALUE_HOLDS_STRUCTURE(value))
    throw std::runtime_error(std::string("no structure field ") + name);
  return gst_value_get_structure(value);
}

// The figures by brute force: plain sums in frame order, nearest rank on a sort.
void expect_figures(const GstStructure* figures, std::vector<double> values, const std::string& what) {
  ASSERT_FALSE(values.empty()) << what;
  double sum = 0., inverse = 0.;
  for (const double value : values) {
    sum += value;
    inverse += 1. / (value + 1.);
  }
  const double n = static_cast<double>(values.size());
  EXPECT_EQ(field_double(figures, "mean"), sum / n) << what;
  EXPECT_EQ(field_double(figures, "harmonic_mean"), n / inverse - 1.) << what;
  std::sort(values.begin(), values.end());
  EXPECT_EQ(field_double(figures, "min"), values.front()) << what;
  EXPECT_EQ(field_double(figures, "max"), values.back()) << what;
  const auto rank = [&](double percent) {
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(percent * n / 100. - 1e-9)));
  };
  const auto low = [&](double percent) {
    double low_sum = 0.;
    for (std::size_t i = 0; i < rank(percent); ++i) low_sum += values[i];
    return low_sum / static_cast<double>(rank(percent));
  };
  EXPECT_EQ(field_double(figures, "p1"), values[rank(1) - 1]) << what;
  EXPECT_EQ(field_double(figures, "p5"), values[rank(5) - 1]) << what;
  EXPECT_EQ(field_double(figures, "p50"), values[rank(50) - 1]) << what;
  EXPECT_EQ(field_double(figures, "low1_mean"), low(1)) << what;
  EXPECT_EQ(field_double(figures, "low5_mean"), low(5)) << what;
}

// Checks every window against the frame messages whose running times it spans.
void expect_windows_match_frames(const std::vector<const GstStructure*>& windows,
                                 const std::vector<const GstStructure*>& frames) {
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const GstClockTime start = field_time(windows[w], "window-start");
    const GstClockTime end = field_time(windows[w], "window-end");
    std::vector<const GstStructure*> inside;
    for (const GstStructure* frame : frames) {
      const GstClockTime time = field_time(frame, "running-time");
      if (time >= start && time < end) inside.push_back(frame);
    }
    EXPECT_EQ(field_uint64(windows[w], "frames"), inside.size()) << "window " << w;
    for (const char* score : {"psnr_y", "psnr_cb", "psnr_cr"}) {
      std::vector<double> values;
      for (const GstStructure* frame : inside) values.push_back(field_double(frame, score));
      if (values.empty()) continue;
      expect_figures(field_structure(windows[w], score), values,
                     "window " + std::to_string(w) + " " + score);
    }
    if (!inside.empty() && field_uint64(windows[w], "frames-unpaired") == 0) {
      EXPECT_EQ(start, field_time(inside.front(), "running-time"));
      EXPECT_EQ(end, field_time(inside.back(), "running-time") + field_time(inside.back(), "duration"));
    }
  }
}

bool is_partial(const GstStructure* window) {
  gboolean partial = FALSE;
  gst_structure_get_boolean(window, "partial", &partial);
  return partial;
}

}  // namespace

TEST(Monitor, TumblingTimeWindowsEqualTheFrameMessagesAndEndWithAPartialWindow) {
  ElementHarness harness("window=249999996ns");  // 6 frames at 24 fps
  const Frames frames = make_frames({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});
  push_all(harness, frames);
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(posted.size(), 17u);
  // Frames 0-5, 6-11, then 12-16 partial.
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(field_uint64(windows[0], "frames"), 6u);
  EXPECT_EQ(field_uint64(windows[1], "frames"), 6u);
  EXPECT_EQ(field_uint64(windows[2], "frames"), 5u);
  EXPECT_FALSE(is_partial(windows[0]));
  EXPECT_TRUE(is_partial(windows[2]));
  EXPECT_EQ(field_time(windows[2], "window-end"), 17 * kFrame);
  expect_windows_match_frames(windows, posted);
  // Provenance, as in the summary.
  const auto summaries = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summaries.size(), 1u);
  for (const char* key : {"vmafexact-version", "libvmaf-version", "models", "backend"})
    EXPECT_EQ(field_string(windows[0], key), field_string(summaries[0], key)) << key;
  EXPECT_TRUE(field_string(windows[0], "backend").starts_with("CPU ("));
}

TEST(Monitor, OverlappingFrameWindowsStepAndCountUnpairedFrames) {
  ElementHarness harness("window=6f window-step=3f");
  const Frames frames = make_frames({1, 9, 3, 14, 5, 2, 7, 20, 4, 6, 11, 3, 8, 1});
  push_all(harness, frames, {4});  // the distorted frame 4 is lost: reference 4 is unpaired
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(posted.size(), 13u);
  // 13 scored frames: windows of scored frames 0-5, 3-8, 6-11, then 9-12 partial.
  ASSERT_EQ(windows.size(), 4u);
  const guint64 expected_frames[] = {6, 6, 6, 4};
  const guint64 expected_unpaired[] = {1, 1, 0, 0};  // reference 4 lies in the first two
  for (std::size_t w = 0; w < windows.size(); ++w) {
    EXPECT_EQ(field_uint64(windows[w], "frames"), expected_frames[w]) << w;
    EXPECT_EQ(field_uint64(windows[w], "frames-unpaired-ref"), expected_unpaired[w]) << w;
    EXPECT_EQ(field_uint64(windows[w], "frames-unpaired-dist"), 0u) << w;
    EXPECT_EQ(field_uint64(windows[w], "frames-unpaired"), expected_unpaired[w]) << w;
    EXPECT_EQ(is_partial(windows[w]), w == 3) << w;
  }
  // The windows' frames in scored order, 3 apart: compare with the frame messages.
  for (std::size_t w = 0; w < windows.size(); ++w) {
    std::vector<double> values;
    for (std::size_t i = 3 * w; i < std::min<std::size_t>(3 * w + 6, posted.size()); ++i)
      values.push_back(field_double(posted[i], "psnr_y"));
    expect_figures(field_structure(windows[w], "psnr_y"), values, "window " + std::to_string(w));
  }
  expect_windows_match_frames(windows, posted);
}

TEST(Monitor, UnpairedFramesCountInTheTimeWindowOfTheirRunningTime) {
  ElementHarness harness("window=124999998ns");  // 3 frames at 24 fps
  const Frames frames = make_frames({1, 2, 3, 4, 5, 6, 7, 8, 9});
  push_all(harness, frames, {4, 5});
  const auto messages = harness.drain_messages();
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(field_uint64(windows[0], "frames-unpaired-ref"), 0u);
  EXPECT_EQ(field_uint64(windows[1], "frames"), 1u);  // frame 3; 4 and 5 unpaired
  EXPECT_EQ(field_uint64(windows[1], "frames-unpaired-ref"), 2u);
  EXPECT_EQ(field_time(windows[1], "window-end"), 6 * kFrame);
  EXPECT_EQ(field_uint64(windows[2], "frames-unpaired-ref"), 0u);
  expect_windows_match_frames({windows[0], windows[2]}, element_messages(messages, "vmafexact-frame"));
}

TEST(Monitor, AlertIsRaisedAfterForAndClearedPastTheHysteresis) {
  // 1: clean, 30: bad, 10: in between.
  const std::vector<int> amplitudes = {1, 1, 30, 30, 30, 10, 30, 1, 1, 30, 1, 1};
  const Frames frames = make_frames(amplitudes);
  std::vector<double> values;
  for (std::size_t i = 0; i < amplitudes.size(); ++i) values.push_back(psnr_y(frames.ref[i], frames.dist[i]));
  const double bad = std::max({values[2], values[3], values[4], values[6], values[9]});
  const double medium = values[5], good = std::min({values[0], values[7], values[8]});
  ASSERT_LT(bad, medium);
  ASSERT_LT(medium, good);
  const double threshold = (bad + medium) / 2, clear = (medium + good) / 2;
  const std::string alert = "psnr_y<" + std::to_string(threshold) + ":for=2f:clear=" + std::to_string(clear);
  ElementHarness harness(("window=4f alert=" + alert).c_str());
  push_all(harness, frames);
  const auto messages = harness.drain_messages();
  const auto alerts = element_messages(messages, "vmafexact-alert");
  // Raised at frame 3 (2 and 3 below), held through the medium frame 5, cleared
  // at frame 7; frame 9 alone is too short.
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(field_string(alerts[0], "alert"), alert);
  EXPECT_EQ(field_string(alerts[0], "state"), "raised");
  EXPECT_EQ(field_string(alerts[0], "score"), "psnr_y");
  EXPECT_EQ(field_double(alerts[0], "value"), values[3]);
  EXPECT_EQ(field_double(alerts[0], "threshold"), std::stod(std::to_string(threshold)));
  EXPECT_EQ(field_time(alerts[0], "running-time"), 3 * kFrame);
  // The window being filled: frames 0-3, complete with frame 3.
  expect_figures(field_structure(alerts[0], "window"), {values[0], values[1], values[2], values[3]}, "raised");
  EXPECT_EQ(field_string(alerts[1], "state"), "cleared");
  EXPECT_EQ(field_double(alerts[1], "value"), values[7]);
  EXPECT_EQ(field_double(alerts[1], "threshold"), std::stod(std::to_string(clear)));
  EXPECT_EQ(field_time(alerts[1], "running-time"), 7 * kFrame);
  EXPECT_EQ(field_string(alerts[0], "libvmaf-version"), "3.2.0 (master f85a8536)");
}

TEST(Monitor, AlertOnWindowMeans) {
  const Frames frames = make_frames({1, 1, 30, 30, 1, 1, 1, 1});
  ElementHarness harness("window=2f alert=psnr_y<35:on=window");
  push_all(harness, frames);
  const auto messages = harness.drain_messages();
  const auto alerts = element_messages(messages, "vmafexact-alert");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(windows.size(), 4u);
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(field_double(alerts[0], "value"), field_double(field_structure(windows[1], "psnr_y"), "mean"));
  EXPECT_EQ(field_time(alerts[0], "running-time"), field_time(windows[1], "window-end"));
  EXPECT_EQ(field_string(alerts[1], "state"), "cleared");
  EXPECT_EQ(field_double(alerts[1], "value"), field_double(field_structure(windows[2], "psnr_y"), "mean"));
}

TEST(Monitor, SummaryPercentilesEqualTheFrameMessages) {
  ElementHarness harness;
  std::vector<int> amplitudes;
  for (int i = 0; i < 45; ++i) amplitudes.push_back(1 + (i * 7) % 23);
  const Frames frames = make_frames(amplitudes);
  push_all(harness, frames);
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  const auto summaries = element_messages(messages, "vmafexact-summary");
  ASSERT_EQ(summaries.size(), 1u);
  ASSERT_EQ(posted.size(), amplitudes.size());
  EXPECT_TRUE(element_messages(messages, "vmafexact-window").empty());
  for (const char* score : {"psnr_y", "psnr_cb", "psnr_cr"}) {
    std::vector<double> values;
    for (const GstStructure* frame : posted) values.push_back(field_double(frame, score));
    const GstStructure* pooled = field_structure(summaries[0], score);
    const double mean = field_double(pooled, "mean"), harmonic = field_double(pooled, "harmonic_mean");
    expect_figures(pooled, values, score);
    EXPECT_EQ(field_double(pooled, "mean"), mean);
    EXPECT_EQ(field_double(pooled, "harmonic_mean"), harmonic);
  }
}

TEST(Monitor, StalledInputsAreRaisedAndClearedWhenFramesComeAgain) {
  ElementHarness harness("input-timeout=400ms");  // checked every 100 ms
  const Frames frames = make_frames({1, 2, 3, 4, 5});
  harness.set_caps(kCaps, kCaps);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)), GST_FLOW_OK);
    ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[i], GST_VIDEO_FORMAT_I420, i * kFrame, kFrame)), GST_FLOW_OK);
  }
  // The reference's last frame comes 150 ms (more than a timer period) after the
  // distorted one's, so the two stalls are seen at different ticks.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_TRUE(element_messages(harness.drain_messages(), "vmafexact-alert").empty());
  // The reference sends one more frame, then both stay silent.
  ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[2], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame)), GST_FLOW_OK);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto messages = harness.drain_messages();
  auto alerts = element_messages(messages, "vmafexact-alert");
  ASSERT_EQ(alerts.size(), 2u);
  // The distorted input went silent first.
  EXPECT_EQ(field_string(alerts[0], "alert"), "input-stalled");
  EXPECT_EQ(field_string(alerts[0], "input"), "distorted");
  EXPECT_EQ(field_string(alerts[0], "state"), "raised");
  EXPECT_EQ(field_uint64(alerts[0], "frames-unpaired-ref"), 0u);
  EXPECT_EQ(field_uint64(alerts[0], "frames-unpaired-dist"), 0u);
  EXPECT_GT(field_time(alerts[0], "stalled-for"), 400 * GST_MSECOND);
  EXPECT_EQ(field_string(alerts[1], "input"), "reference");
  EXPECT_EQ(field_string(alerts[1], "state"), "raised");
  ASSERT_EQ(harness.push_dist(make_buffer(frames.dist[2], GST_VIDEO_FORMAT_I420, 2 * kFrame, kFrame)), GST_FLOW_OK);
  ASSERT_EQ(harness.push_ref(make_buffer(frames.ref[3], GST_VIDEO_FORMAT_I420, 3 * kFrame, kFrame)), GST_FLOW_OK);
  alerts = element_messages(messages = harness.drain_messages(), "vmafexact-alert");
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(field_string(alerts[0], "input"), "distorted");
  EXPECT_EQ(field_string(alerts[0], "state"), "cleared");
  EXPECT_EQ(field_string(alerts[1], "input"), "reference");
  EXPECT_EQ(field_string(alerts[1], "state"), "cleared");
  // An input that ended is not stalled.
  harness.push_eos_ref();
  harness.push_eos_dist();
  ASSERT_TRUE(harness.wait_for_eos());
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_TRUE(element_messages(harness.drain_messages(), "vmafexact-alert").empty());
}

namespace {

// The error the element posts when it starts with each property set to its value.
std::string start_error(const std::vector<std::pair<const char*, const char*>>& properties) {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  if (!element) throw std::runtime_error("vmafexact element not found");
  g_object_set(element, "model", "", "features", "psnr", nullptr);
  for (const auto& [property, value] : properties)
    gst_util_set_object_arg(G_OBJECT(element), property, value);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  gst_element_set_state(element, GST_STATE_PAUSED);
  std::string text;
  if (GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* gerror = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(error, &gerror, &debug);
    text = std::string(gerror->message) + " | " + (debug ? debug : "");
    g_error_free(gerror);
    g_free(debug);
    gst_message_unref(error);
  }
  gst_element_set_state(element, GST_STATE_NULL);
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  gst_object_unref(element);
  return text;
}

std::string start_error(const char* property, const char* value) {
  return start_error({{property, value}});
}

}  // namespace

TEST(Monitor, BadPropertiesAreErrorsAtStartNamingThePropertyAndTheFix) {
  const struct {
    const char* property;
    const char* value;
    const char* named;
  } cases[] = {
      {"window", "10", "no unit"},
      {"window", "10x", "unknown unit 'x'"},
      {"window", "0s", "at least 1ns"},
      {"window-step", "-1s", "does not start with a number"},
      {"window-step", "5f", "window-step is set but window is not"},
      {"input-timeout", "10f", "a duration is needed"},
      {"alert", "vmaf<60:clear=50", "wrong side"},
      {"alert", "vmaf<60:on=window", "window is not set"},
      {"alert", "vmaf", "no comparison"},
  };
  for (const auto& bad : cases) {
    const std::string text = start_error(bad.property, bad.value);
    EXPECT_NE(text.find(std::string("Invalid ") + bad.property + " property"), std::string::npos)
        << bad.property << "=" << bad.value << ": " << text;
    EXPECT_NE(text.find(bad.named), std::string::npos) << bad.property << "=" << bad.value << ": " << text;
  }
  EXPECT_EQ(start_error("window", "1s"), "");
  // Mixed units need the window set as well: tested through the property pair.
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  g_object_set(element, "window", "10s", "window-step", "30f", nullptr);
  gchar* step = nullptr;
  g_object_get(element, "window-step", &step, nullptr);
  EXPECT_STREQ(step, "30f");
  g_free(step);
  gst_object_unref(element);
}

TEST(Monitor, TinyWindowStepsAreRefusedAtStartNamingTheLimitAndTheFix) {
  // Once, window=100ms window-step=1ns never ended (40 million windows per
  // frame, 11.5 GB after 20 s) and window=1s window-step=1us posted 100,000
  // window messages for 29 frames.
  const auto began = std::chrono::steady_clock::now();
  const struct {
    const char *window, *step, *named;
  } cases[] = {
      {"100ms", "1ns", "window-step=1ns opens 100000000 overlapping windows per window=100ms"},
      {"1s", "1us", "window-step=1us opens 1000000 overlapping windows per window=1s"},
      {"100ms", "999us", "use window-step=1ms or more"},  // a step under 1 ms
      {"1h", "1s", "use window-step=3600ms or more"},     // 3600 windows
      {"5000f", "1f", "use window-step=5f or more"},
  };
  for (const auto& bad : cases) {
    const std::string text = start_error({{"window", bad.window}, {"window-step", bad.step}});
    const std::string what = std::string("window=") + bad.window + " window-step=" + bad.step;
    EXPECT_NE(text.find("Invalid window-step property"), std::string::npos) << what << ": " << text;
    EXPECT_NE(text.find("at most 1000 may overlap"), std::string::npos) << what << ": " << text;
    EXPECT_NE(text.find(bad.named), std::string::npos) << what << ": " << text;
  }
  // The limits themselves are allowed.
  for (const auto& [window, step] : {std::pair{"1s", "1ms"}, {"100ms", "1ms"}, {"1h", "3600ms"},
                                     {"1000f", "1f"}, {"500us", "500us"}})
    EXPECT_EQ(start_error({{"window", window}, {"window-step", step}}), "") << window << " " << step;
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
}

TEST(Monitor, AFrameWindowOverTheFrameLimitIsRefusedAtStartNamingTheLimitAndTheFix) {
  // A window holds every frame's scores until it is posted: window=300000f
  // would hold 300,000 (a duration window is cut at the limit instead).
  const std::string text = start_error("window", "300000f");
  EXPECT_NE(text.find("Invalid window property: window=300000f holds more frames than a window "
                      "may; at most 262144 frames (2 MiB per score): use window=262144f or less"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("See the window property"), std::string::npos) << text;
  EXPECT_EQ(start_error("window", "262144f"), "");
  EXPECT_EQ(start_error("window", "24h"), "");
}

TEST(Monitor, TheMostOverlappingWindowsAllowedEndPromptlyWithBoundedMessages) {
  // window=1s window-step=1ms, the limit: 48 frames at 24 fps (2 s) give the
  // 1001 windows that end by the last frame's end and the partial one after;
  // each frame is in at most 1000 of them.
  const auto began = std::chrono::steady_clock::now();
  ElementHarness harness("window=1s window-step=1ms");
  std::vector<int> amplitudes(48);
  for (std::size_t i = 0; i < amplitudes.size(); ++i) amplitudes[i] = 1 + static_cast<int>(i % 7);
  push_all(harness, make_frames(amplitudes));
  const auto messages = harness.drain_messages();
  const auto posted = element_messages(messages, "vmafexact-frame");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_EQ(posted.size(), 48u);
  EXPECT_GE(windows.size(), 1000u);
  EXPECT_LE(windows.size(), 1002u);
  for (const GstStructure* frame : posted) {
    const GstClockTime time = field_time(frame, "running-time");
    std::size_t holding = 0;
    for (const GstStructure* window : windows)
      holding += time >= field_time(window, "window-start") && time < field_time(window, "window-end");
    EXPECT_LE(holding, 1000u + 1u);  // the partial window may hold it too
  }
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(20));
}

TEST(Monitor, AnAlertOnAScoreTheRunDoesNotProduceIsWarnedOnce) {
  ElementHarness harness("alert=vmaf<60");
  const Frames frames = make_frames({1, 2, 3});
  push_all(harness, frames);
  const auto messages = harness.drain_messages();
  const auto warnings = message_texts(messages, GST_MESSAGE_WARNING);
  const auto named = std::count_if(warnings.begin(), warnings.end(), [](const std::string& text) {
    return text.find("names the score 'vmaf'") != std::string::npos;
  });
  EXPECT_EQ(named, 1) << warnings.size();
}

TEST(MonitorPipeline, LiveSourcesGiveOverlappingWindowsThatEqualTheFrameMessages) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(
      "videotestsrc is-live=true pattern=ball num-buffers=24 ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! v.ref_sink "
      "videotestsrc is-live=true pattern=ball num-buffers=24 ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! videobalance brightness=0.1 ! "
      "v.dist_sink vmafexact name=v model=\"\" features=psnr window=200ms window-step=100ms "
      "latency=100000000 ! fakesink",
      &error);
  ASSERT_TRUE(pipeline) << (error ? error->message : "");
  GstBus* bus = gst_element_get_bus(pipeline);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  std::vector<MessagePtr> messages;
  bool ended = false;
  while (GstMessage* message = gst_bus_timed_pop(bus, 20 * GST_SECOND)) {
    messages.emplace_back(message);
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS || GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
      ended = GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
      break;
    }
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  EXPECT_TRUE(ended);
  const auto posted = element_messages(messages, "vmafexact-frame");
  const auto windows = element_messages(messages, "vmafexact-window");
  ASSERT_GE(posted.size(), 20u);
  // 24 frames at 30 fps: 800 ms, windows every 100 ms, then the partial one.
  ASSERT_GE(windows.size(), 5u);
  EXPECT_TRUE(is_partial(windows.back()));
  for (std::size_t w = 0; w + 1 < windows.size(); ++w) EXPECT_FALSE(is_partial(windows[w]));
  for (std::size_t w = 1; w < windows.size(); ++w)
    EXPECT_GT(field_time(windows[w], "window-start"), field_time(windows[w - 1], "window-start"));
  expect_windows_match_frames(windows, posted);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
}
