#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/feature_collector.h"
#include "output/log_stream.h"
#include "output/log_writer.h"
#include "pooling/pooling.h"
#include "strict_xml.h"

using namespace vmafexact;

TEST(FormatScore, DefaultPrecisionFollowsLibvmaf) {
  EXPECT_EQ(format_score(36.397077450264355, LogPrecision::kDefault), "36.397077");
  EXPECT_EQ(format_score(0.0, LogPrecision::kDefault), "0.000000");
  EXPECT_EQ(format_score(100.0, LogPrecision::kDefault), "100.000000");
  EXPECT_EQ(format_score(0.5, LogPrecision::kDefault), "0.500000");
  // Five zeros after the point (six multiplications by 10 to reach 1) print with %.6f ...
  EXPECT_EQ(format_score(0.000005, LogPrecision::kDefault), "0.000005");
  EXPECT_EQ(format_score(0.0000005, LogPrecision::kDefault), "0.0000005000000000");
  // ... seven switch to %.16f, also behind an integer part.
  EXPECT_EQ(format_score(0.00000012345, LogPrecision::kDefault), "0.0000001234500000");
  EXPECT_EQ(format_score(3.00000001, LogPrecision::kDefault), "3.0000000099999999");
  EXPECT_EQ(format_score(-0.00000002, LogPrecision::kDefault), "-0.0000000200000000");
}

TEST(FormatScore, MaxPrecisionRoundTrips) {
  EXPECT_EQ(format_score(36.397077450264355, LogPrecision::kMax), "36.397077450264355");
  EXPECT_EQ(format_score(0.0, LogPrecision::kMax), "0");
  EXPECT_EQ(format_score(100.0, LogPrecision::kMax), "100");
  const double value = 0.1 + 0.2;
  EXPECT_EQ(std::stod(format_score(value, LogPrecision::kMax)), value);
}

namespace {

FeatureCollector two_frames() {
  FeatureCollector scores;
  scores.append("psnr_y", 0, 30.0);
  scores.append("psnr_cb", 0, 40.0);
  scores.append("psnr_y", 1, 50.0);
  scores.append("psnr_cb", 1, 0.00000001);
  return scores;
}

LogInfo info_for(unsigned frames) {
  LogInfo info;
  info.version = "test";
  info.fps = 12.345;
  info.width = 64;
  info.height = 48;
  info.frame_count = frames;
  return info;
}

std::string render(LogFormat format, LogPrecision precision, const FeatureCollector& scores,
                   const LogInfo& info) {
  std::ostringstream out;
  write_log(out, format, precision, scores, info);
  return out.str();
}

}  // namespace

TEST(LogWriter, JsonLayoutIsLibvmafs) {
  const std::string expected =
      "{\n"
      "  \"version\": \"test\",\n"
      "  \"fps\": 12.35,\n"
      "  \"frames\": [\n"
      "    {\n"
      "      \"frameNum\": 0,\n"
      "      \"metrics\": {\n"
      "        \"psnr_y\": 30.000000,\n"
      "        \"psnr_cb\": 40.000000\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"frameNum\": 1,\n"
      "      \"metrics\": {\n"
      "        \"psnr_y\": 50.000000,\n"
      "        \"psnr_cb\": 0.0000000100000000\n"
      "      }\n"
      "    }\n"
      "  ],\n"
      "  \"pooled_metrics\": {\n"
      "    \"psnr_y\": {\n"
      "      \"min\": 30.000000,\n"
      "      \"max\": 50.000000,\n"
      "      \"mean\": 40.000000,\n"
      "      \"harmonic_mean\": 37.560976\n"
      "    },\n"
      "    \"psnr_cb\": {\n"
      "      \"min\": 0.0000000100000000,\n"
      "      \"max\": 40.000000,\n"
      "      \"mean\": 20.0000000050000004,\n"
      "      \"harmonic_mean\": 0.952381\n"
      "    }\n"
      "  },\n"
      "  \"aggregate_metrics\": {\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(render(LogFormat::kJson, LogPrecision::kDefault, two_frames(), info_for(2)), expected);
}

TEST(LogWriter, JsonNullForNonFiniteScores) {
  FeatureCollector scores;
  scores.append("a", 0, std::numeric_limits<double>::quiet_NaN());
  scores.append("b", 0, 1.0);
  const std::string text = render(LogFormat::kJson, LogPrecision::kMax, scores, info_for(1));
  // libvmaf prints no newline after a null score.
  EXPECT_NE(text.find("        \"a\": null,        \"b\": 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\"min\": null"), std::string::npos) << text;
}

TEST(LogWriter, XmlLayoutIsLibvmafs) {
  const std::string expected =
      "<VMAF version=\"test\">\n"
      "  <params qualityWidth=\"64\" qualityHeight=\"48\" />\n"
      "  <fyi fps=\"12.35\" />\n"
      "  <frames>\n"
      "    <frame frameNum=\"0\" psnr_y=\"30\" psnr_cb=\"40\" />\n"
      "    <frame frameNum=\"1\" psnr_y=\"50\" psnr_cb=\"1e-08\" />\n"
      "  </frames>\n"
      "  <pooled_metrics>\n"
      "    <metric name=\"psnr_y\" min=\"30\" max=\"50\" mean=\"40\" harmonic_mean=\"37.560975609756099\" />\n"
      "    <metric name=\"psnr_cb\" min=\"1e-08\" max=\"40\" mean=\"20.000000005\" "
      "harmonic_mean=\"0.95238097143990941\" />\n"
      "  </pooled_metrics>\n"
      "  <aggregate_metrics />\n"
      "</VMAF>\n";
  EXPECT_EQ(render(LogFormat::kXml, LogPrecision::kMax, two_frames(), info_for(2)), expected);
}

TEST(LogWriter, CsvLayoutIsLibvmafs) {
  const std::string expected =
      "Frame,psnr_y,psnr_cb,\n"
      "0,30.000000,40.000000,\n"
      "1,50.000000,0.0000000100000000,\n";
  EXPECT_EQ(render(LogFormat::kCsv, LogPrecision::kDefault, two_frames(), info_for(2)), expected);
}

TEST(LogWriter, SubLayoutIsLibvmafs) {
  // vmaf_write_output_sub(): a MicroDVD subtitle per frame, no head or tail.
  const std::string expected =
      "{0}{1}frame: 0|psnr_y: 30.000000|psnr_cb: 40.000000|\n"
      "{1}{2}frame: 1|psnr_y: 50.000000|psnr_cb: 0.0000000100000000|\n";
  EXPECT_EQ(render(LogFormat::kSub, LogPrecision::kDefault, two_frames(), info_for(2)), expected);
  FeatureCollector scores;
  for (unsigned i = 0; i < 5; ++i) scores.append("s", i, i + 0.25);
  LogInfo info = info_for(5);
  info.subsample = 2;
  EXPECT_EQ(render(LogFormat::kSub, LogPrecision::kMax, scores, info),
            "{0}{1}frame: 0|s: 0.25|\n{2}{3}frame: 2|s: 2.25|\n{4}{5}frame: 4|s: 4.25|\n");
}

TEST(LogWriter, SubsampleListsEveryNthFrame) {
  FeatureCollector scores;
  for (unsigned i = 0; i < 5; ++i) scores.append("s", i, i);
  LogInfo info = info_for(5);
  info.subsample = 2;
  EXPECT_EQ(render(LogFormat::kCsv, LogPrecision::kMax, scores, info), "Frame,s,\n0,0,\n2,2,\n4,4,\n");
}

TEST(LogWriter, ParsesNames) {
  EXPECT_EQ(parse_log_format("xml"), LogFormat::kXml);
  EXPECT_EQ(parse_log_format("sub"), LogFormat::kSub);
  EXPECT_STREQ(log_format_name(LogFormat::kSub), "sub");
  EXPECT_FALSE(parse_log_format("yaml"));
  EXPECT_EQ(parse_log_precision("max"), LogPrecision::kMax);
  EXPECT_FALSE(parse_log_precision("17"));
}

TEST(LogWriter, LogFormatOfPathReadsTheExtensionInAnyCase) {
  EXPECT_EQ(log_format_of_path("scores.json"), LogFormat::kJson);
  EXPECT_EQ(log_format_of_path("/tmp/a.b/scores.XML"), LogFormat::kXml);
  EXPECT_EQ(log_format_of_path("dir/scores-{index}.Csv"), LogFormat::kCsv);
  EXPECT_EQ(log_format_of_path("scores.sub"), LogFormat::kSub);
  EXPECT_FALSE(log_format_of_path("scores.log"));
  EXPECT_FALSE(log_format_of_path("scores"));
  EXPECT_FALSE(log_format_of_path("dir.csv/scores"));
  EXPECT_FALSE(log_format_of_path(".json.AbC123"));
  EXPECT_STREQ(log_format_name(LogFormat::kCsv), "csv");
}

// --- Text from outside in the logs (issue 39): whatever a quoted text holds
// (markup characters, a tab, line breaks, control characters, UTF-8 or bytes
// that are not), every layout stays well-formed; names are those the model
// list accepts (test_log_stream.cpp: the others are refused at start). ---

namespace {

struct QuotedText {
  std::string text;
  std::string in_json;  // what a JSON parser reads back
  std::string in_xml;   // what an XML parser reads back
};

const std::string kReplaced = "\xEF\xBF\xBD";  // U+FFFD

std::vector<QuotedText> hostile_texts() {
  return {
      {"a\"b<c>&d'e f", "a\"b<c>&d'e f", "a\"b<c>&d'e f"},
      {"tab\there", "tab\there", "tab\there"},
      {"line\nbreak\r\n", "line\nbreak\r\n", "line\nbreak\r\n"},
      {"\xC3\xA9t\xC3\xA9 \xE2\x9C\x93 \xE6\x97\xA5", "\xC3\xA9t\xC3\xA9 \xE2\x9C\x93 \xE6\x97\xA5",
       "\xC3\xA9t\xC3\xA9 \xE2\x9C\x93 \xE6\x97\xA5"},
      {"bell\x01", "bell\x01", "bell" + kReplaced},
      {"bad \xFF\xFE byte", "bad " + kReplaced + kReplaced + " byte",
       "bad " + kReplaced + kReplaced + " byte"},
      {"overlong \xC0\xAF", "overlong " + kReplaced + kReplaced,
       "overlong " + kReplaced + kReplaced},
      {"cut \xE2\x82", "cut " + kReplaced + kReplaced, "cut " + kReplaced + kReplaced},
      {"surrogate \xED\xA0\x80", "surrogate " + kReplaced + kReplaced + kReplaced,
       "surrogate " + kReplaced + kReplaced + kReplaced},
      {"not a character \xEF\xBF\xBE", "not a character \xEF\xBF\xBE",
       "not a character " + kReplaced},
  };
}

// Scores under the kinds of names the model list accepts.
FeatureCollector oddly_named_scores() {
  FeatureCollector scores;
  for (unsigned frame = 0; frame < 2; ++frame) {
    scores.append("vmaf_4k", frame, 90.0 + frame);
    scores.append("a.b-c_1", frame, 1.5);
    scores.append("_x", frame, 2.5);
  }
  return scores;
}

}  // namespace

TEST(LogWriter, EveryLayoutStaysWellFormedWhateverTheQuotedTextHolds) {
  for (const QuotedText& quoted : hostile_texts()) {
    SCOPED_TRACE(nlohmann::json(quoted.in_json).dump());
    LogInfo info = info_for(2);
    info.version = quoted.text;
    info.provenance = {{"models", quoted.text}};
    const FeatureCollector scores = oddly_named_scores();

    const auto json =
        nlohmann::json::parse(render(LogFormat::kJson, LogPrecision::kMax, scores, info));
    EXPECT_EQ(json["version"], quoted.in_json);
    EXPECT_EQ(json["provenance"]["models"], quoted.in_json);
    EXPECT_EQ(json["frames"][1]["metrics"]["a.b-c_1"], 1.5);
    EXPECT_EQ(json["pooled_metrics"]["vmaf_4k"]["max"], 91.0);

#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
    const std::string xml = render(LogFormat::kXml, LogPrecision::kMax, scores, info);
    const auto doc = vmafexact::test::parse_strict_xml(xml);
    ASSERT_TRUE(doc) << xml;
    EXPECT_EQ(vmafexact::test::xml_attribute(doc, "VMAF", "version"), quoted.in_xml);
    EXPECT_EQ(vmafexact::test::xml_attribute(doc, "provenance", "models"), quoted.in_xml);
    EXPECT_EQ(vmafexact::test::xml_attribute(doc, "frame", "a.b-c_1"), "1.5");
#else
    GTEST_SKIP() << "libxml2's headers were not found";
#endif

    const std::string csv = render(LogFormat::kCsv, LogPrecision::kMax, scores, info);
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "Frame,vmaf_4k,a.b-c_1,_x,");
    const std::string sub = render(LogFormat::kSub, LogPrecision::kMax, scores, info);
    EXPECT_EQ(sub.substr(0, sub.find('\n')), "{0}{1}frame: 0|vmaf_4k: 90|a.b-c_1: 1.5|_x: 2.5|");
  }
}

// --- One writer per layout (issue 40): write_log() and the streamed log
// (LogStream's head, frames and tail, pooled as the frames go) write every
// layout through the same code, so they agree byte for byte in the cases the
// layouts treat apart, not only on scorer output
// (test_log_stream.cpp's StreamedLog tests). ---

namespace {

struct EdgeCase {
  const char* what;
  FeatureCollector scores;
  LogInfo info;
};

std::vector<EdgeCase> edge_cases() {
  std::vector<EdgeCase> cases;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  {
    EdgeCase c{"no frame", {}, info_for(0)};
    c.scores.set_aggregate("apsnr_y", inf);
    cases.push_back(std::move(c));
  }
  {
    // Frame 0 not listed: libvmaf still writes a comma before frame 1; no
    // score pools (a frame in the range lacks it).
    EdgeCase c{"frame 0 without scores", {}, info_for(3)};
    c.scores.append("a", 1, 1.5);
    c.scores.append("a", 2, 2.5);
    cases.push_back(std::move(c));
  }
  {
    EdgeCase c{"non-finite scores, fps and aggregates", {}, info_for(3)};
    c.info.fps = nan;
    for (unsigned i = 0; i < 3; ++i) {
      c.scores.append("a", i, i == 1 ? nan : 0.00000001 * i);
      c.scores.append("b", i, i == 2 ? -inf : 100.0 + i);
    }
    c.scores.append("late", 2, 3.0);  // frames 0 and 1 lack it: no pooled values
    c.scores.set_aggregate("apsnr_y", inf);
    c.scores.set_aggregate("apsnr_cb", 42.125);
    cases.push_back(std::move(c));
  }
  {
    EdgeCase c{"subsampled, names and provenance to escape", {}, info_for(7)};
    c.info.subsample = 3;
    c.info.version = "v<\"&'>\t\n\xFF";
    c.info.provenance = {{"models", "a=b (\"/tmp/x\x01.json\")"}, {"k<&>", "v"}};
    for (unsigned i = 0; i < 7; ++i) {
      c.scores.append("s", i, i * 1.25);
      if (i != 3) c.scores.append("t", i, 2.0 - i);  // frame 3 is off the grid
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

TEST(LogWriter, StreamedPiecesEqualTheWholeLogInEveryLayout) {
  for (const EdgeCase& c : edge_cases()) {
    for (const auto format : {LogFormat::kJson, LogFormat::kXml, LogFormat::kCsv, LogFormat::kSub})
      for (const auto precision : {LogPrecision::kDefault, LogPrecision::kMax}) {
        SCOPED_TRACE(std::string(c.what) + ", " + log_format_name(format) +
                     (precision == LogPrecision::kMax ? ", max" : ", default"));
        LogStream stream(format, precision);
        RunningPools pools;
        std::ostringstream body;
        const unsigned step = std::max(c.info.subsample, 1u);
        for (unsigned i = 0; i < c.scores.frame_count(); i += step) {
          stream.write_frame(body, i, c.scores.frame_scores(i));
          pools.add_frame(c.scores.frame_scores(i));
        }
        std::ostringstream streamed;
        stream.write_head(streamed, c.scores.names(), c.info);
        streamed << body.str();
        stream.write_tail(streamed, c.scores.names(), pools, c.scores.aggregates());
        EXPECT_EQ(streamed.str(), render(format, precision, c.scores, c.info));
      }
  }
}
