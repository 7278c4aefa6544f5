#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "common/feature_collector.h"
#include "output/log_writer.h"

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
