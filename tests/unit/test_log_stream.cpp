// Bounded memory for runs of any length (metrics side): the collector drops
// final frames, the pooling runs as frames become final, and the log is
// written in pieces; each must equal the whole-run way bit for bit and byte
// for byte (output/log_writer.h's write_log stays the reference).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/feature_collector.h"
#include "output/log_stream.h"
#include "output/log_writer.h"
#include "pooling/pooling.h"
#include "scorer.h"
#include "synthetic_clip.h"

using namespace vmafexact;

namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_same_pooled(const std::optional<PooledScore>& a, const std::optional<PooledScore>& b,
                        const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (!a) return;
  EXPECT_TRUE(same_bits(a->min, b->min)) << what;
  EXPECT_TRUE(same_bits(a->max, b->max)) << what;
  EXPECT_TRUE(same_bits(a->mean, b->mean)) << what;
  EXPECT_TRUE(same_bits(a->harmonic_mean, b->harmonic_mean)) << what;
}

}  // namespace

TEST(FeatureCollectorDrop, KeepsOnlyFramesNotDropped) {
  FeatureCollector scores;
  for (unsigned i = 0; i < 5; ++i) scores.append("a", i, i * 1.0);
  scores.append("b", 3, 7.0);
  scores.drop_frames_below(3);
  EXPECT_FALSE(scores.score("a", 2));
  EXPECT_EQ(*scores.score("a", 3), 3.0);
  EXPECT_EQ(*scores.score("b", 3), 7.0);
  EXPECT_EQ(scores.frame_count(), 5u);
  EXPECT_EQ(scores.frame_scores(4).size(), 1u);
  // A write to a dropped frame is a bug upstream: refused, not lost silently.
  EXPECT_THROW(scores.append("b", 1, 1.0), Error);
  scores.append("c", 10, 1.0);  // a new name later on
  EXPECT_EQ(scores.names().size(), 3u);
  EXPECT_EQ(*scores.score("c", 10), 1.0);
  scores.append("a", 6, 6.0);  // a gap: frame 5 unwritten
  EXPECT_FALSE(scores.score("a", 5));
  const auto column = scores.column("a");
  ASSERT_TRUE(column);
  ASSERT_EQ(column->size(), 7u);
  EXPECT_FALSE((*column)[0]);  // dropped
  EXPECT_EQ(*(*column)[6], 6.0);
}

TEST(RunningPools, EqualPoolScoresBitForBit) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(-0.5, 120.0);
  for (const unsigned subsample : {1u, 3u}) {
    const unsigned frames = 5000;
    std::vector<std::optional<double>> a(frames), b(frames), c(frames);
    RunningPools pools;
    for (unsigned i = 0; i < frames; ++i) {
      a[i] = value(random);
      b[i] = i == 17 ? std::numeric_limits<double>::quiet_NaN() : value(random);
      if (i != 40) c[i] = value(random);  // frame 40 lacks c: c does not pool
      if (subsample > 1 && i % subsample) continue;
      std::vector<std::pair<std::string, double>> frame{{"a", *a[i]}, {"b", *b[i]}};
      if (c[i]) frame.emplace_back("c", *c[i]);
      pools.add_frame(frame);
    }
    expect_same_pooled(pools.pooled("a"), pool_scores(a, 0, frames - 1, subsample), "a");
    expect_same_pooled(pools.pooled("b"), pool_scores(b, 0, frames - 1, subsample), "b");
    expect_same_pooled(pools.pooled("c"), pool_scores(c, 0, frames - 1, subsample), "c");
    EXPECT_EQ(pools.pooled("c").has_value(), subsample == 3 ? 40 % 3 != 0 : false);
    EXPECT_FALSE(pools.pooled("unknown"));
  }
}

namespace {

struct StreamedLogs {
  LogFormat format;
  LogPrecision precision;
  LogStream stream;
  std::ostringstream body;
  StreamedLogs(LogFormat f, LogPrecision p) : format(f), precision(p), stream(f, p) {}
};

// Scores `frames` pairs of a 64x48 clip with the vmaf model (integer motion:
// motion2 comes one frame late) and psnr with its aggregates, twice: once
// keeping every frame (the reference: write_log and pool_scores over the
// whole collector), once releasing each frame as soon as it is final and
// writing the logs in pieces. Both must match byte for byte.
void check_streamed_equals_whole(unsigned frames, unsigned subsample, unsigned threads) {
  PictureFormat format;
  format.width = 64;
  format.height = 48;
  const test::Clip clip = test::make_clip(format, 24, 11);
  const auto features = parse_feature_list("psnr=enable_apsnr=true:enable_mse=true");
  ScorerOptions options;
  options.subsample = subsample;
  options.threads = threads;
  Scorer whole(load_models(parse_model_list("vmaf_v0.6.1")), features, format, options);
  Scorer streamed(load_models(parse_model_list("vmaf_v0.6.1")), features, format, options);

  std::vector<StreamedLogs> logs;
  logs.reserve(8);
  for (const auto f : {LogFormat::kJson, LogFormat::kXml, LogFormat::kCsv, LogFormat::kSub})
    for (const auto p : {LogPrecision::kDefault, LogPrecision::kMax}) logs.emplace_back(f, p);
  unsigned listed = 0;
  const auto consume = [&](const std::vector<unsigned>& finished) {
    for (const unsigned index : finished) {
      const auto scores = streamed.scores().frame_scores(index);
      for (auto& log : logs) log.stream.write_frame(log.body, index, scores);
      ++listed;
    }
    streamed.release_final_frames();
  };
  for (unsigned i = 0; i < frames; ++i) {
    whole.push(clip.ref_view(i % clip.frames()), clip.dist_view(i % clip.frames()));
    consume(streamed.push(clip.ref_view(i % clip.frames()), clip.dist_view(i % clip.frames())));
  }
  whole.finish();
  consume(streamed.finish());
  EXPECT_EQ(listed, (frames + subsample - 1) / subsample);
  // Memory: only the frames not yet final are kept.
  EXPECT_EQ(streamed.scores().frames_dropped(), frames);
  EXPECT_FALSE(streamed.scores().score("vmaf", frames - 1));
  ASSERT_FALSE(streamed.scores().aggregates().empty());  // apsnr_y, ...

  LogInfo info;
  info.version = "vmafexact test";
  info.fps = 1234.5678;
  info.width = format.width;
  info.height = format.height;
  info.subsample = subsample;
  info.frame_count = frames;
  info.provenance = {{"vmafexact-version", "0"}, {"backend", "CPU <\"x\">"}};
  for (auto& log : logs) {
    std::ostringstream reference;
    write_log(reference, log.format, log.precision, whole.scores(), info);
    std::ostringstream assembled;
    log.stream.write_head(assembled, streamed.scores().names(), info);
    assembled << log.body.str();
    log.stream.write_tail(assembled, streamed.scores().names(), streamed.pooled(),
                          streamed.scores().aggregates());
    const std::string what = "format " + std::to_string(static_cast<int>(log.format)) +
                             " precision " + std::to_string(static_cast<int>(log.precision));
    ASSERT_GT(reference.str().size(), frames / subsample * 20) << what;
    EXPECT_TRUE(reference.str() == assembled.str()) << what;  // no 2 MB diff printed
    if (reference.str() != assembled.str()) {
      const auto& a = reference.str();
      const auto& b = assembled.str();
      std::size_t at = 0;
      while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
      ADD_FAILURE() << what << ": first difference at byte " << at << ": reference \""
                    << a.substr(at > 80 ? at - 80 : 0, 160) << "\" streamed \""
                    << b.substr(at > 80 ? at - 80 : 0, 160) << "\"";
    }
  }
  // The summary's pooling: running values equal pool_scores over every frame.
  for (const auto& name : whole.scores().names())
    expect_same_pooled(streamed.pooled().pooled(name),
                       pool_scores(*whole.scores().column(name), 0, frames - 1, subsample), name);
  EXPECT_TRUE(streamed.pooled().pooled("vmaf"));
  EXPECT_TRUE(streamed.pooled().pooled("integer_motion2"));
}

}  // namespace

TEST(StreamedLog, TenThousandFramesEqualTheWholeLog) { check_streamed_equals_whole(10000, 1, 1); }
TEST(StreamedLog, SubsampledEqualsTheWholeLog) { check_streamed_equals_whole(3001, 3, 1); }
TEST(StreamedLog, FramesSideBySideEqualTheWholeLog) { check_streamed_equals_whole(500, 1, 3); }
