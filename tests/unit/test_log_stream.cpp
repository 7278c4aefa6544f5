// Bounded memory for runs of any length (metrics side): the collector drops
// final frames, the pooling runs as frames become final, and the log is
// written in pieces; each must equal the whole-run way bit for bit and byte
// for byte (output/log_writer.h's write_log stays the reference).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
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
#include "strict_xml.h"
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

// --- Score names every log can hold (issue 39). A model's name is written as
// it is into every layout: as libvmaf's XML attribute names, CSV columns, SUB
// labels and the element's message fields, none of which escapes. ---

namespace {

std::string error_of_model_list(const std::string& list) {
  try {
    parse_model_list(list);
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

}  // namespace

// Names with markup characters, white space, control characters, UTF-8 (valid
// or not) or a leading digit, '-' or '.' are refused when the list is read,
// by an error in ASCII that names the model entry, the character and what
// is allowed.
TEST(ModelNames, NamesNoLayoutCanHoldAreRefusedAtStart) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"a\"b", "holds '\"'"},
      {"a<b", "holds '<'"},
      {"a>b", "holds '>'"},
      {"a&b", "holds '&'"},
      {"a'b", "holds '''"},
      {"a b", "holds a space"},
      {"a\tb", "holds a tab"},
      {"a\nb", "holds a newline"},
      {std::string("a\x01") + "b", "holds the control character 0x01"},
      {"caf\xC3\xA9", "holds a byte outside ASCII (0xC3)"},
      {std::string("a\xFF") + "b", "holds a byte outside ASCII (0xFF)"},
      {"4k", "starts with '4'"},
      {"-x", "starts with '-'"},
      {".x", "starts with '.'"},
      {"a=b", "holds '='"},
  };
  for (const auto& [name, what] : refused) {
    const std::string message = error_of_model_list("vmaf_v0.6.1:name=" + name);
    SCOPED_TRACE(message);
    EXPECT_NE(message.find("model entry 'vmaf_v0.6.1:name="), std::string::npos);
    EXPECT_NE(message.find(what), std::string::npos);
    EXPECT_NE(message.find("only ASCII letters, digits, '_', '-' and '.', and starts with a "
                           "letter or '_'"),
              std::string::npos);
    for (const char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(c);
  }
  for (const char* name : {"vmaf_4k", "a.b-c_1", "_x", "X"})
    EXPECT_EQ(error_of_model_list(std::string("vmaf_v0.6.1:name=") + name), "") << name;
}

// Models under accepted names of every kind, scored and streamed into each
// layout with a provenance text of hostile kinds: JSON and XML parse back
// strictly, CSV's and SUB's first lines name the scores as they are.
TEST(ModelNames, AcceptedNamesKeepEveryStreamedLayoutWellFormed) {
  PictureFormat format;
  format.width = 64;
  format.height = 48;
  const test::Clip clip = test::make_clip(format, 3, 5);
  Scorer scorer(load_models(parse_model_list("vmaf_v0.6.1:name=a.b-c_1,vmaf_v0.6.1:name=_X")), {},
                format);
  std::vector<StreamedLogs> logs;
  logs.reserve(4);
  for (const auto f : {LogFormat::kJson, LogFormat::kXml, LogFormat::kCsv, LogFormat::kSub})
    logs.emplace_back(f, LogPrecision::kDefault);
  const auto consume = [&](const std::vector<unsigned>& finished) {
    for (const unsigned index : finished)
      for (auto& log : logs)
        log.stream.write_frame(log.body, index, scorer.scores().frame_scores(index));
  };
  for (unsigned i = 0; i < clip.frames(); ++i)
    consume(scorer.push(clip.ref_view(i), clip.dist_view(i)));
  consume(scorer.finish());
  LogInfo info;
  info.version = "v\t<\"&'>\n";
  info.width = format.width;
  info.height = format.height;
  info.frame_count = clip.frames();
  info.provenance = {{"models", "a.b-c_1=vmaf (/tmp/odd \xFF\x01 \xC3\xA9.json)"}};
  for (auto& log : logs) {
    std::ostringstream text;
    log.stream.write_head(text, scorer.scores().names(), info);
    text << log.body.str();
    log.stream.write_tail(text, scorer.scores().names(), scorer.pooled(),
                          scorer.scores().aggregates());
    const std::string whole = text.str();
    SCOPED_TRACE(log_format_name(log.format));
    switch (log.format) {
      case LogFormat::kJson: {
        const auto json = nlohmann::json::parse(whole);
        EXPECT_EQ(json["version"], info.version);
        EXPECT_EQ(json["frames"].size(), 3u);
        EXPECT_TRUE(json["frames"][2]["metrics"].contains("a.b-c_1"));
        EXPECT_TRUE(json["pooled_metrics"].contains("_X"));
        EXPECT_EQ(json["provenance"]["models"],
                  "a.b-c_1=vmaf (/tmp/odd \xEF\xBF\xBD\x01 \xC3\xA9.json)");
        break;
      }
      case LogFormat::kXml: {
#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
        const auto doc = test::parse_strict_xml(whole);
        ASSERT_TRUE(doc) << whole;
        EXPECT_EQ(test::xml_attribute(doc, "VMAF", "version"), info.version);
        EXPECT_TRUE(test::xml_attribute(doc, "frame", "a.b-c_1"));
        EXPECT_TRUE(test::xml_attribute(doc, "frame", "_X"));
        EXPECT_EQ(test::xml_attribute(doc, "provenance", "models"),
                  "a.b-c_1=vmaf (/tmp/odd \xEF\xBF\xBD\xEF\xBF\xBD \xC3\xA9.json)");
#else
        GTEST_SKIP() << "libxml2's headers were not found";
#endif
        break;
      }
      case LogFormat::kCsv:
        EXPECT_NE(whole.substr(0, whole.find('\n')).find(",a.b-c_1,"), std::string::npos) << whole;
        break;
      case LogFormat::kSub:
        EXPECT_NE(whole.substr(0, whole.find('\n')).find("|_X: "), std::string::npos) << whole;
        break;
    }
  }
}
