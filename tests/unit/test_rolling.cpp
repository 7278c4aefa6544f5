// Live monitoring statistics (metrics/pooling/rolling.h): window figures against
// a brute-force sort and libvmaf-order sums, whole-stream percentiles exact and
// sketched, the property parsers with hostile strings, rolling windows over
// time and frames, and the alert state machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>

#include "common/error.h"
#include "pooling/pooling.h"
#include "pooling/rolling.h"

using namespace vmafexact;

namespace {

std::vector<double> random_scores(std::size_t n, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(0., 100.);
  std::vector<double> values(n);
  for (auto& value : values) value = uniform(generator);
  return values;
}

// The brute force: percentile of nearest rank ceil(p n / 100) by sorting, means by
// summing in order.
struct Brute {
  double p1, p5, p50, low1, low5;
};
Brute brute(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto rank = [&](double percent) {
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(percent * values.size() / 100. - 1e-9)));
  };
  const auto low = [&](double percent) {
    double sum = 0.;
    for (std::size_t i = 0; i < rank(percent); ++i) sum += values[i];
    return sum / rank(percent);
  };
  return {values[rank(1) - 1], values[rank(5) - 1], values[rank(50) - 1], low(1), low(5)};
}

}  // namespace

TEST(Rolling, NearestRankIsTheCeiling) {
  EXPECT_EQ(nearest_rank(1, 1), 1u);
  EXPECT_EQ(nearest_rank(4, 50), 2u);
  EXPECT_EQ(nearest_rank(5, 50), 3u);
  EXPECT_EQ(nearest_rank(100, 1), 1u);
  EXPECT_EQ(nearest_rank(101, 1), 2u);
  EXPECT_EQ(nearest_rank(250, 1), 3u);
  EXPECT_EQ(nearest_rank(20, 5), 1u);
  EXPECT_EQ(nearest_rank(21, 5), 2u);
}

TEST(Rolling, WindowStatsEqualBruteForceAndLibvmafPooling) {
  for (const std::size_t n : {1u, 2u, 3u, 19u, 20u, 21u, 99u, 100u, 101u, 257u, 1000u}) {
    const auto values = random_scores(n, static_cast<std::uint32_t>(n));
    const WindowStats stats = window_stats(values);
    const Brute expected = brute(values);
    EXPECT_EQ(stats.p1, expected.p1) << n;
    EXPECT_EQ(stats.p5, expected.p5) << n;
    EXPECT_EQ(stats.p50, expected.p50) << n;
    EXPECT_EQ(stats.low1_mean, expected.low1) << n;
    EXPECT_EQ(stats.low5_mean, expected.low5) << n;
    std::vector<std::optional<double>> column(values.begin(), values.end());
    const auto pooled = pool_scores(column, 0, static_cast<unsigned>(n - 1));
    ASSERT_TRUE(pooled);
    EXPECT_EQ(stats.min, pooled->min);
    EXPECT_EQ(stats.max, pooled->max);
    EXPECT_EQ(stats.mean, pooled->mean);
    EXPECT_EQ(stats.harmonic_mean, pooled->harmonic_mean);
  }
}

TEST(Rolling, StreamQuantilesAreExactUpToTheLimitThenWithinTheBound) {
  const auto values = random_scores(5000, 7);
  StreamQuantiles exact(10000), sketched(1000);
  for (const double value : values) {
    exact.add(value);
    sketched.add(value);
  }
  EXPECT_TRUE(exact.exact());
  EXPECT_FALSE(sketched.exact());
  const auto figures = exact.figures();
  ASSERT_TRUE(figures);
  const Brute expected = brute(values);
  EXPECT_EQ(figures->p1, expected.p1);
  EXPECT_EQ(figures->p5, expected.p5);
  EXPECT_EQ(figures->p50, expected.p50);
  EXPECT_EQ(figures->low1_mean, expected.low1);
  EXPECT_EQ(figures->low5_mean, expected.low5);
  const auto approx = sketched.figures();
  ASSERT_TRUE(approx);
  const double bound = StreamQuantiles::kRelativeError * 1.0001;
  EXPECT_LE(std::fabs(approx->p1 - expected.p1), bound * expected.p1);
  EXPECT_LE(std::fabs(approx->p5 - expected.p5), bound * expected.p5);
  EXPECT_LE(std::fabs(approx->p50 - expected.p50), bound * expected.p50);
  EXPECT_LE(std::fabs(approx->low1_mean - expected.low1), bound * expected.low1);
  EXPECT_LE(std::fabs(approx->low5_mean - expected.low5), bound * expected.low5);
  EXPECT_NE(approx->p50, expected.p50);  // it is the sketch that answered
}

TEST(Rolling, SketchOrdersNegativesZerosAndPositives) {
  StreamQuantiles sketch(0);
  for (int i = 0; i < 50; ++i) sketch.add(-10.);
  for (int i = 0; i < 30; ++i) sketch.add(0.);
  for (int i = 0; i < 20; ++i) sketch.add(5.);
  const auto figures = sketch.figures();
  ASSERT_TRUE(figures);
  EXPECT_NEAR(figures->p50, -10., 10. * StreamQuantiles::kRelativeError);
  EXPECT_LT(figures->p1, -9.9);
  StreamQuantiles upper(0);
  for (int i = 0; i < 10; ++i) upper.add(0.);
  for (int i = 0; i < 90; ++i) upper.add(5.);
  EXPECT_NEAR(upper.figures()->p50, 5., 5. * StreamQuantiles::kRelativeError);
  EXPECT_EQ(upper.figures()->p5, 0.);
}

TEST(RollingParse, Spans) {
  EXPECT_EQ(parse_span("10s", "window"), (Span{Span::Unit::kTime, 10'000'000'000}));
  EXPECT_EQ(parse_span(" 500ms ", "window"), (Span{Span::Unit::kTime, 500'000'000}));
  EXPECT_EQ(parse_span("1m", "window"), (Span{Span::Unit::kTime, 60'000'000'000}));
  EXPECT_EQ(parse_span("1.5s", "window"), (Span{Span::Unit::kTime, 1'500'000'000}));
  EXPECT_EQ(parse_span("300f", "window"), (Span{Span::Unit::kFrames, 300}));
  EXPECT_EQ(parse_span("", "window"), std::nullopt);
  EXPECT_EQ(parse_span("  ", "window"), std::nullopt);
}

TEST(RollingParse, HostileSpansAreClearErrors) {
  for (const char* bad : {"10", "s", "-1s", "0s", "0f", "1.5f", "10x", "10 s s", "1e400s",
                          "99999999999999999999999f", "1..2s", ".s", "nan s", "infs", "10sf",
                          "\x01\x02", "1000000000h", "0.0000000001ns", "10S"}) {
    try {
      parse_span(bad, "window");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& error) {
      const std::string text = error.what();
      EXPECT_NE(text.find("window"), std::string::npos) << text;
    }
  }
  try {
    parse_span("10f", "input-timeout", false);
    ADD_FAILURE() << "frames accepted where a duration is needed";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("duration"), std::string::npos);
  }
  try {
    parse_span("10x", "window");
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'x'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("500ms"), std::string::npos) << error.what();
  }
}

TEST(RollingParse, Alerts) {
  const auto alerts = parse_alerts(" vmaf<60:for=2s:clear=65 ; psnr_y <= 30;integer_motion2>=+1.5:for=3f;x>-2:on=window;");
  ASSERT_EQ(alerts.size(), 4u);
  EXPECT_EQ(alerts[0].text, "vmaf<60:for=2s:clear=65");
  EXPECT_EQ(alerts[0].score, "vmaf");
  EXPECT_EQ(alerts[0].op, Compare::kLess);
  EXPECT_EQ(alerts[0].threshold, 60.);
  EXPECT_EQ(alerts[0].clear, 65.);
  EXPECT_EQ(alerts[0].hold, (Span{Span::Unit::kTime, 2'000'000'000}));
  EXPECT_EQ(alerts[1].op, Compare::kLessEqual);
  EXPECT_EQ(alerts[1].clear, 30.);
  EXPECT_FALSE(alerts[1].hold);
  EXPECT_EQ(alerts[2].op, Compare::kGreaterEqual);
  EXPECT_EQ(alerts[2].threshold, 1.5);
  EXPECT_EQ(alerts[2].hold, (Span{Span::Unit::kFrames, 3}));
  EXPECT_EQ(alerts[3].op, Compare::kGreater);
  EXPECT_EQ(alerts[3].threshold, -2.);
  EXPECT_TRUE(alerts[3].on_window);
  EXPECT_TRUE(parse_alerts("").empty());
  EXPECT_TRUE(parse_alerts(" ; ;").empty());
}

TEST(RollingParse, HostileAlertsAreClearErrors) {
  const struct {
    const char* text;
    const char* named;
  } cases[] = {
      {"vmaf", "no comparison"},
      {"<60", "names no score"},
      {"vmaf<", "not a number"},
      {"vmaf<abc", "'abc'"},
      {"vmaf<60x", "not a number"},
      {"vmaf<<60", "not a number"},
      {"vmaf=60", "no comparison"},
      {"vmaf<nan", "not a number"},
      {"vmaf<inf", "not a number"},
      {"vmaf<60:for", "without a value"},
      {"vmaf<60:for=", "without a value"},
      {"vmaf<60:for=2", "no unit"},
      {"vmaf<60:for=2s:for=3s", "twice"},
      {"vmaf<60:clear=50", "wrong side"},
      {"vmaf>60:clear=70", "wrong side"},
      {"vmaf<60:clear=x", "not a number"},
      {"vmaf<60:on=sometimes", "on=frame"},
      {"vmaf<60:color=red", "unknown option"},
      {"vmaf<60:", "without a value"},
      {"vm af<60", "character"},
      {"vmaf<60;psnr_y", "'psnr_y'"},
      {"\xff\xfe<1", "character"},
  };
  for (const auto& bad : cases) {
    try {
      parse_alerts(bad.text);
      ADD_FAILURE() << "accepted '" << bad.text << "'";
    } catch (const Error& error) {
      const std::string text = error.what();
      EXPECT_NE(text.find(bad.named), std::string::npos) << bad.text << ": " << text;
    }
  }
  // Long and binary garbage: an Error, never a crash.
  std::string garbage;
  for (int i = 0; i < 2000; ++i) garbage += static_cast<char>(i * 37);
  EXPECT_THROW(parse_alerts(garbage), Error);
}

namespace {

constexpr Nanoseconds kMs = 1'000'000;

std::vector<std::optional<double>> one(double value) { return {value}; }

}  // namespace

TEST(RollingWindows, TumblingTimeWindowsHoldTheirFrames) {
  RollingWindows windows({Span::Unit::kTime, 100 * kMs}, {Span::Unit::kTime, 100 * kMs});
  std::vector<WindowReport> reports;
  for (int i = 0; i < 25; ++i) {
    auto closed = windows.add_frame(i * 10 * kMs, 10 * kMs, one(i));
    reports.insert(reports.end(), closed.begin(), closed.end());
  }
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].start, 0u);
  EXPECT_EQ(reports[0].end, 100 * kMs);
  EXPECT_EQ(reports[0].frames, 10u);
  EXPECT_EQ(reports[0].stats[0]->mean, (0. + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9) / 10);
  EXPECT_EQ(reports[1].start, 100 * kMs);
  EXPECT_EQ(reports[1].stats[0]->min, 10.);
  const auto last = windows.finish();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_TRUE(last[0].partial);
  EXPECT_EQ(last[0].frames, 5u);
  EXPECT_EQ(last[0].start, 200 * kMs);
  EXPECT_EQ(last[0].end, 250 * kMs);
}

TEST(RollingWindows, PendingPairsHoldTheWindowOpen) {
  RollingWindows windows({Span::Unit::kTime, 20 * kMs}, {Span::Unit::kTime, 20 * kMs});
  windows.pair_pushed(0);
  windows.pair_pushed(10 * kMs);
  windows.pair_pushed(20 * kMs);
  EXPECT_TRUE(windows.add_frame(0, 10 * kMs, one(1)).empty());
  // An unpaired frame past the window's end, while frame 10 ms is still scored.
  EXPECT_TRUE(windows.add_unpaired(false, 30 * kMs, 10 * kMs).empty());
  const auto closed = windows.add_frame(10 * kMs, 10 * kMs, one(2));
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].frames, 2u);
  EXPECT_EQ(closed[0].unpaired_ref, 0u);
}

TEST(RollingWindows, OverlappingWindowsAndGapsAndUnpaired) {
  RollingWindows windows({Span::Unit::kTime, 40 * kMs}, {Span::Unit::kTime, 20 * kMs});
  std::vector<WindowReport> reports;
  const auto take = [&](std::vector<WindowReport> closed) {
    reports.insert(reports.end(), closed.begin(), closed.end());
  };
  take(windows.add_frame(0, 10 * kMs, one(0)));
  take(windows.add_unpaired(true, 10 * kMs, 10 * kMs));
  take(windows.add_frame(20 * kMs, 10 * kMs, one(2)));
  take(windows.add_frame(30 * kMs, 10 * kMs, one(3)));
  // A gap of a second: the empty windows between are not posted.
  take(windows.add_frame(1000 * kMs, 10 * kMs, one(100)));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].frames, 3u);  // [0, 40)
  EXPECT_EQ(reports[0].unpaired_dist, 1u);
  EXPECT_EQ(reports[1].frames, 2u);  // [20, 60)
  EXPECT_EQ(reports[1].unpaired_dist, 0u);
  EXPECT_EQ(reports[1].stats[0]->mean, 2.5);
  const auto last = windows.finish();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].start, 1000 * kMs);
  EXPECT_EQ(last[0].frames, 1u);
}

TEST(RollingWindows, FrameWindowsStepAndCountUnpairedWithTheNextFrame) {
  RollingWindows windows({Span::Unit::kFrames, 4}, {Span::Unit::kFrames, 2});
  std::vector<WindowReport> reports;
  const auto take = [&](std::vector<WindowReport> closed) {
    reports.insert(reports.end(), closed.begin(), closed.end());
  };
  for (int i = 0; i < 9; ++i) {
    if (i == 3) take(windows.add_unpaired(false, 25 * kMs, 10 * kMs));
    take(windows.add_frame(i * 10 * kMs, 10 * kMs, one(i)));
  }
  take(windows.add_unpaired(true, 95 * kMs, 10 * kMs));
  // Windows of frames 0-3, 2-5, 4-7; then 6-8 partial with the trailing unpaired one.
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].unpaired_ref, 1u);
  EXPECT_EQ(reports[1].unpaired_ref, 1u);
  EXPECT_EQ(reports[2].unpaired_ref, 0u);
  EXPECT_EQ(reports[1].stats[0]->min, 2.);
  EXPECT_EQ(reports[1].stats[0]->max, 5.);
  EXPECT_EQ(reports[2].start, 40 * kMs);
  EXPECT_EQ(reports[2].end, 80 * kMs);
  const auto last = windows.finish();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_TRUE(last[0].partial);
  EXPECT_EQ(last[0].frames, 3u);
  EXPECT_EQ(last[0].unpaired_dist, 1u);
  EXPECT_EQ(last[0].end, 105 * kMs);
}

// Pairs a live run skipped (max-lateness) count in their own field, in time
// and frame windows alike, never as unpaired frames.
TEST(RollingWindows, SkippedPairsAreCountedApart) {
  RollingWindows time_windows({Span::Unit::kTime, 40 * kMs}, {Span::Unit::kTime, 40 * kMs});
  RollingWindows frame_windows({Span::Unit::kFrames, 2}, {Span::Unit::kFrames, 2});
  std::vector<WindowReport> by_time, by_frames;
  const auto take = [](std::vector<WindowReport>& into, std::vector<WindowReport> closed) {
    into.insert(into.end(), closed.begin(), closed.end());
  };
  for (RollingWindows* windows : {&time_windows, &frame_windows}) {
    auto& into = windows == &time_windows ? by_time : by_frames;
    take(into, windows->add_frame(0, 10 * kMs, one(1)));
    take(into, windows->add_unscored(Unscored::kSkippedPair, 10 * kMs, 10 * kMs));
    take(into, windows->add_unscored(Unscored::kSkippedPair, 20 * kMs, 10 * kMs));
    take(into, windows->add_frame(30 * kMs, 10 * kMs, one(3)));
    take(into, windows->add_unscored(Unscored::kSkippedPair, 40 * kMs, 10 * kMs));
    take(into, windows->finish());
  }
  for (const auto* reports : {&by_time, &by_frames}) {
    ASSERT_EQ(reports->size(), 2u);
    EXPECT_EQ((*reports)[0].frames, 2u);
    EXPECT_EQ((*reports)[0].skipped, 2u);
    EXPECT_EQ((*reports)[0].unpaired_ref + (*reports)[0].unpaired_dist, 0u);
    EXPECT_EQ((*reports)[0].stats[0]->mean, 2.);
    EXPECT_EQ((*reports)[1].frames, 0u);  // only the skipped pair at 40 ms
    EXPECT_EQ((*reports)[1].skipped, 1u);
    EXPECT_TRUE((*reports)[1].partial);
  }
}

// A live scorer slower than real time: the first pair is still being scored
// when the pairs after it are skipped. The windows' grid starts at the pair
// pushed first, not at the first skip, so that its frame lands in a window.
// (valgrind's slowness once showed the windows summing to one frame fewer
// than the summary: the grid started at the first skip.)
TEST(RollingWindows, APairPushedBeforeTheFirstSkipStartsTheWindows) {
  for (const Nanoseconds window : {40 * kMs, 1000 * kMs}) {
    RollingWindows windows({Span::Unit::kTime, window}, {Span::Unit::kTime, window});
    std::vector<WindowReport> reports;
    const auto take = [&](std::vector<WindowReport> closed) {
      reports.insert(reports.end(), closed.begin(), closed.end());
    };
    windows.pair_pushed(0);
    take(windows.add_unscored(Unscored::kSkippedPair, 10 * kMs, 10 * kMs));
    take(windows.add_unscored(Unscored::kSkippedPair, 20 * kMs, 10 * kMs));
    take(windows.add_frame(0, 10 * kMs, one(7)));
    windows.pair_pushed(50 * kMs);
    take(windows.add_frame(50 * kMs, 10 * kMs, one(9)));
    take(windows.finish());
    std::uint64_t frames = 0, skipped = 0;
    for (const WindowReport& report : reports) {
      frames += report.frames;
      skipped += report.skipped;
    }
    EXPECT_EQ(frames, 2u) << "window " << window;
    EXPECT_EQ(skipped, 2u) << "window " << window;
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports[0].start, 0u) << "window " << window;
  }
}

TEST(RollingWindows, MixedUnitsAreRefused) {
  EXPECT_THROW(RollingWindows({Span::Unit::kTime, 1}, {Span::Unit::kFrames, 1}), Error);
}

TEST(RollingWindows, StepsThatOpenTooManyOverlappingWindowsAreRefused) {
  const Span time_window{Span::Unit::kTime, 100 * kMs};
  // 100 million windows a frame once: refused, with the limit and the fix.
  EXPECT_THROW(RollingWindows(time_window, {Span::Unit::kTime, 1}), Error);
  try {
    check_window_step(time_window, {Span::Unit::kTime, 1});
    ADD_FAILURE() << "window-step=1ns allowed";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "window-step=1ns opens 100000000 overlapping windows per window=100ms; at most "
                 "1000 may overlap and a step must be at least 1ms: use window-step=1ms or more "
                 "(or a shorter window)");
  }
  EXPECT_THROW(check_window_step(time_window, {Span::Unit::kTime, kMs - 1}), Error);
  EXPECT_NO_THROW(check_window_step(time_window, {Span::Unit::kTime, kMs}));
  EXPECT_NO_THROW(check_window_step({Span::Unit::kTime, 1000 * kMs}, {Span::Unit::kTime, kMs}));
  EXPECT_THROW(check_window_step({Span::Unit::kTime, 1001 * kMs}, {Span::Unit::kTime, kMs}), Error);
  // Tumbling windows and windows apart overlap nothing: any length.
  EXPECT_NO_THROW(check_window_step({Span::Unit::kTime, 1}, {Span::Unit::kTime, 1}));
  EXPECT_NO_THROW(check_window_step({Span::Unit::kTime, 1}, {Span::Unit::kTime, 5}));
  EXPECT_NO_THROW(check_window_step({Span::Unit::kFrames, 1000}, {Span::Unit::kFrames, 1}));
  EXPECT_THROW(check_window_step({Span::Unit::kFrames, 1001}, {Span::Unit::kFrames, 1}), Error);
  EXPECT_EQ(span_text({Span::Unit::kTime, 1'500'000'000}), "1500ms");
  EXPECT_EQ(span_text({Span::Unit::kTime, 3'600'000'000'000}), "3600s");
  EXPECT_EQ(span_text({Span::Unit::kFrames, 300}), "300f");
}

TEST(RollingWindows, AtTheLimitAFrameClosesAtMostTheLimitOfWindows) {
  // window=1s window-step=1ms: 2 s of frames at 25 fps, then a frame an hour
  // later: it closes the windows still open, those that hold the last frame,
  // no more (and no empty window of the gap).
  RollingWindows windows({Span::Unit::kTime, 1000 * kMs}, {Span::Unit::kTime, kMs});
  std::size_t posted = 0;
  for (Nanoseconds time = 0; time < 2000 * kMs; time += 40 * kMs) {
    const auto closed = windows.add_frame(time, 40 * kMs, {1.});
    EXPECT_LE(closed.size(), 40u) << time;  // one a step of the frame's 40 ms
    posted += closed.size();
  }
  const auto closed = windows.add_frame(3'600'000 * kMs, 40 * kMs, {2.});
  EXPECT_EQ(closed.size(), kMaxOverlappingWindows);
  for (const WindowReport& report : closed) EXPECT_GE(report.frames, 1u);
  posted += closed.size();
  EXPECT_EQ(posted, 1961u);  // a window at each millisecond of the frames' 1960 ms
  EXPECT_LE(windows.finish().size(), kMaxOverlappingWindows + 1);
}

TEST(RollingWindows, FrameWindowsHoldABoundedNumberOfUnpairedFrames) {
  // A distorted input that sends nothing for long: every reference frame is
  // unpaired and waits for the next scored frame; once a mark each (100,000
  // marks here, 2 million a day at 25 fps).
  constexpr std::uint64_t kUnpaired = 100'000;
  RollingWindows windows({Span::Unit::kFrames, 2}, {Span::Unit::kFrames, 2});
  RollingWindows ending({Span::Unit::kFrames, 2}, {Span::Unit::kFrames, 2});
  for (std::uint64_t i = 0; i < kUnpaired; ++i) {
    EXPECT_TRUE(windows.add_unpaired(false, i * 40 * kMs, 40 * kMs).empty());
    ending.add_unpaired(false, i * 40 * kMs, 40 * kMs);
  }
  EXPECT_LE(windows.held_marks(), RollingWindows::kMaxHeldMarks);
  // Counted all the same: with the next scored frame's window...
  EXPECT_TRUE(windows.add_frame(kUnpaired * 40 * kMs, 40 * kMs, {1.}).empty());
  const auto closed = windows.add_frame((kUnpaired + 1) * 40 * kMs, 40 * kMs, {2.});
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].frames, 2u);
  EXPECT_EQ(closed[0].unpaired_ref, kUnpaired);
  // ... or in the partial window at the end, over their running times.
  const auto last = ending.finish();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].unpaired_ref, kUnpaired);
  EXPECT_EQ(last[0].start, 0u);
  EXPECT_EQ(last[0].end, kUnpaired * 40 * kMs);
  EXPECT_TRUE(last[0].partial);
}

TEST(RollingWindows, AFrameWindowLongerThanTheFrameLimitIsRefused) {
  EXPECT_THROW(RollingWindows({Span::Unit::kFrames, 300'000}, {Span::Unit::kFrames, 300'000}),
               Error);
  try {
    check_window_length({Span::Unit::kFrames, 300'000});
    ADD_FAILURE() << "window=300000f allowed";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "window=300000f holds more frames than a window may; at most 262144 frames "
                 "(2 MiB per score): use window=262144f or less");
  }
  EXPECT_NO_THROW(check_window_length({Span::Unit::kFrames, kMaxWindowFrames}));
  EXPECT_THROW(check_window_length({Span::Unit::kFrames, kMaxWindowFrames + 1}), Error);
  // Duration windows of any length: they are cut at the limit instead.
  EXPECT_NO_THROW(
      RollingWindows({Span::Unit::kTime, 86'400'000 * kMs}, {Span::Unit::kTime, 86'400'000 * kMs}));
}

namespace {

// `count` frames at 1000 fps (1 ms each, frame i scores i) into `windows`; the
// reports, and the most frames held at any time.
std::pair<std::vector<WindowReport>, std::size_t> feed_1000_fps(RollingWindows& windows,
                                                                std::uint64_t count) {
  std::vector<WindowReport> reports;
  std::size_t most_held = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    auto closed = windows.add_frame(i * kMs, kMs, one(static_cast<double>(i)));
    reports.insert(reports.end(), closed.begin(), closed.end());
    most_held = std::max(most_held, windows.frames_held());
  }
  return {std::move(reports), most_held};
}

}  // namespace

TEST(RollingWindows, ADurationWindowIsCutAtTheFrameLimitAndTheRestFollows) {
  // window=1h at 1000 fps would hold 3.6 million frames: it is posted at
  // 262,144 frames instead, truncated, with the span of what it holds; the
  // rest of the hour is the next window.
  RollingWindows windows({Span::Unit::kTime, 3'600'000 * kMs},
                         {Span::Unit::kTime, 3'600'000 * kMs});
  const auto [reports, most_held] = feed_1000_fps(windows, 300'000);
  EXPECT_LE(most_held, kMaxWindowFrames);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(reports[0].truncated);
  EXPECT_FALSE(reports[0].partial);
  EXPECT_EQ(reports[0].frames, kMaxWindowFrames);
  EXPECT_EQ(reports[0].start, 0u);
  EXPECT_EQ(reports[0].end, kMaxWindowFrames * kMs);
  EXPECT_EQ(reports[0].stats[0]->mean, (kMaxWindowFrames - 1) / 2.);  // frames 0 to 262143, exact
  EXPECT_EQ(reports[0].stats[0]->max, kMaxWindowFrames - 1.);
  const auto last = windows.finish();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_TRUE(last[0].truncated);
  EXPECT_TRUE(last[0].partial);
  EXPECT_EQ(last[0].frames, 300'000 - kMaxWindowFrames);
  EXPECT_EQ(last[0].start, kMaxWindowFrames * kMs);
  EXPECT_EQ(last[0].stats[0]->min, static_cast<double>(kMaxWindowFrames));

  // window=400s: cut at 262,144 frames, its rest (to 400 s) posted at its end,
  // truncated too; the next window whole again.
  RollingWindows tumbling({Span::Unit::kTime, 400'000 * kMs}, {Span::Unit::kTime, 400'000 * kMs});
  const auto [pieces, held] = feed_1000_fps(tumbling, 500'000);
  EXPECT_LE(held, kMaxWindowFrames);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].frames, kMaxWindowFrames);
  EXPECT_TRUE(pieces[1].truncated);
  EXPECT_EQ(pieces[1].start, kMaxWindowFrames * kMs);
  EXPECT_EQ(pieces[1].end, 400'000 * kMs);
  EXPECT_EQ(pieces[1].frames, 400'000 - kMaxWindowFrames);
  const auto rest = tumbling.finish();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_FALSE(rest[0].truncated);
  EXPECT_EQ(rest[0].start, 400'000 * kMs);
  EXPECT_EQ(rest[0].frames, 100'000u);
}

TEST(RollingWindows, OverlappingDurationWindowsHoldAtMostTheFrameLimitTogether) {
  // window=1h window-step=3600ms (1000 overlapping) at 1000 fps: each window
  // is cut once it holds 262,144 frames; the frames of all the open windows
  // together stay within the limit.
  RollingWindows windows({Span::Unit::kTime, 3'600'000 * kMs}, {Span::Unit::kTime, 3600 * kMs});
  const auto [reports, most_held] = feed_1000_fps(windows, 300'000);
  EXPECT_LE(most_held, kMaxWindowFrames);
  ASSERT_EQ(reports.size(), 11u);  // cut at frames 262143 + 3600 k
  for (std::size_t k = 0; k < reports.size(); ++k) {
    EXPECT_TRUE(reports[k].truncated) << k;
    EXPECT_EQ(reports[k].frames, kMaxWindowFrames) << k;
    EXPECT_EQ(reports[k].start, k * 3600 * kMs) << k;
    EXPECT_EQ(reports[k].end, (k * 3600 + kMaxWindowFrames) * kMs) << k;
  }
  EXPECT_LE(windows.finish().size(), 1u);
}

TEST(RollingWindows, UnpairedFramesAndFramesBetweenWindowsAreBoundedToo) {
  // An input whose partner never comes: a window of unpaired frames only is
  // cut at the limit as well.
  RollingWindows unpaired({Span::Unit::kTime, 3'600'000 * kMs},
                          {Span::Unit::kTime, 3'600'000 * kMs});
  std::size_t most_held = 0, cut = 0;
  for (std::uint64_t i = 0; i < 300'000; ++i) {
    for (const WindowReport& report : unpaired.add_unpaired(true, i * kMs, kMs)) {
      EXPECT_TRUE(report.truncated);
      EXPECT_EQ(report.unpaired_dist, kMaxWindowFrames);
      ++cut;
    }
    most_held = std::max(most_held, unpaired.frames_held());
  }
  EXPECT_LE(most_held, kMaxWindowFrames);
  EXPECT_EQ(cut, 1u);
  // window=1s window-step=1h: the frames between windows are in none and held by none.
  RollingWindows apart({Span::Unit::kTime, 1000 * kMs}, {Span::Unit::kTime, 3'600'000 * kMs});
  const auto [reports, held] = feed_1000_fps(apart, 300'000);
  EXPECT_LE(held, 1001u);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].frames, 1000u);
  EXPECT_FALSE(reports[0].truncated);
  EXPECT_TRUE(apart.finish().empty());
}

TEST(RollingAlerts, HoldAndHysteresis) {
  const auto specs = parse_alerts("vmaf<60:for=20ms:clear=65;vmaf<50:for=2f");
  AlertState timed(specs[0]), counted(specs[1]);
  const double values[] = {70, 59, 59, 70, 59, 58, 57, 62, 64, 66, 40, 40};
  std::vector<std::pair<int, bool>> timed_changes, counted_changes;
  for (int i = 0; i < 12; ++i) {
    const Nanoseconds start = i * 10 * kMs, end = start + 10 * kMs;
    if (auto change = timed.update(values[i], start, end, 1)) timed_changes.push_back({i, change->raised});
    if (auto change = counted.update(values[i], start, end, 1)) counted_changes.push_back({i, change->raised});
  }
  // 59,59 holds 20 ms at frame 2; 70 clears; 59,58 again at 5; 62 and 64 hold (< 65); 66 clears;
  // 40,40 for 20 ms at 11.
  const std::vector<std::pair<int, bool>> expected_timed = {{2, true}, {3, false}, {5, true},
                                                            {9, false}, {11, true}};
  EXPECT_EQ(timed_changes, expected_timed);
  const std::vector<std::pair<int, bool>> expected_counted = {{11, true}};
  EXPECT_EQ(counted_changes, expected_counted);
}
