// BD-rate (tools/report/bd_rate.h): against published figures, against an
// independent implementation (tests/tools/bd_rate_reference.py, SciPy's PCHIP
// run by /usr/bin/python3) on hand-made and random curves, every refusal with
// its message, and the ladders' comparison and table.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"
#include "../common/strict_xml.h"
#include "bd_rate.h"
#include "child_process.h"
#include "report.h"

using vmafexact::test::kBdRateReference;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using vmafexact::report::bd_rate;
using vmafexact::report::BdRate;
using vmafexact::report::BdRateError;
using vmafexact::report::BdRateRefusal;
using vmafexact::report::Ladder;
using vmafexact::report::LadderComparison;
using vmafexact::report::LogRateCurve;
using vmafexact::report::RatePoint;
using Curve = std::vector<RatePoint>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kPython = "/usr/bin/python3";

// Within 1e-9 relative (and 1e-10 % absolute, for figures near zero).
::testing::AssertionResult agree(double expected, double actual) {
  const double tolerance = 1e-9 * std::max(std::abs(expected), std::abs(actual)) + 1e-10;
  if (std::abs(expected - actual) <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << json(expected).dump() << ", got " << json(actual).dump()
         << " (difference " << expected - actual << ")";
}

::testing::AssertionResult contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << part << "\" is not in:\n" << text;
}

std::optional<BdRateRefusal> refusal_of(const Curve& anchor, const Curve& test) {
  try {
    bd_rate({"anchor", anchor}, {"test", test});
    return std::nullopt;
  } catch (const BdRateError& error) {
    return error.reason();
  }
}

// The reference's names of the refusals.
std::string reference_name(BdRateRefusal refusal) {
  switch (refusal) {
    case BdRateRefusal::too_few_points:
      return "too_few";
    case BdRateRefusal::not_a_value:
      return "non_positive";
    case BdRateRefusal::same_quality:
      return "duplicate";
    case BdRateRefusal::not_rising:
      return "non_monotonic";
    case BdRateRefusal::no_overlap:
      return "no_overlap";
  }
  return "?";
}

struct Case {
  Curve anchor, test;
};

// The reference's answer for each case, in order; `skip` says why it cannot
// run here (no /usr/bin/python3, or no NumPy/SciPy for it).
struct ReferenceRun {
  std::string skip;
  std::vector<json> answers;
};

ReferenceRun run_reference(const std::vector<Case>& cases) {
  if (!fs::exists(kPython)) return {std::string(kPython) + " is not installed", {}};
  json input = {{"cases", json::array()}};
  for (const Case& each : cases) {
    json anchor = json::array(), test = json::array();
    for (const RatePoint& point : each.anchor) anchor.push_back({point.bitrate, point.quality});
    for (const RatePoint& point : each.test) test.push_back({point.bitrate, point.quality});
    input["cases"].push_back({{"anchor", anchor}, {"test", test}});
  }
  vmafexact::test::ScratchFolder scratch("vmafexact-bd-rate");
  vmafexact::test::write_file(scratch / "cases.json", input.dump());
  vmafexact::test::ChildProcess reference(
      {kPython, kBdRateReference, (scratch / "cases.json").string()}, scratch / "stderr.txt",
      scratch / "stdout.json");
  const auto status = reference.wait_exit(std::chrono::seconds(60));
  const std::string errors = reference.error_output();
  if (status != 0 && errors.find("ModuleNotFoundError") != std::string::npos) {
    return {"the BD-rate reference needs NumPy and SciPy for " + std::string(kPython) +
                " (Debian: python3-numpy python3-scipy; scripts/install-deps.sh): " + errors,
            {}};
  }
  if (status != 0) {
    ADD_FAILURE() << "the reference failed (" << (status ? std::to_string(*status) : "timeout")
                  << "): " << errors;
    return {};
  }
  const json results = json::parse(reference.output());
  return {"", std::vector<json>(results.begin(), results.end())};
}

// Each case: the same refusal, or the same figure and overlap as the reference.
void expect_reference_agrees(const std::vector<Case>& cases, const std::vector<json>& expected) {
  ASSERT_EQ(expected.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i) + ": reference " + expected[i].dump());
    if (expected[i].contains("refused")) {
      const auto refusal = refusal_of(cases[i].anchor, cases[i].test);
      ASSERT_TRUE(refusal.has_value());
      EXPECT_EQ(reference_name(*refusal), expected[i]["refused"]);
      continue;
    }
    const BdRate figure = bd_rate({"anchor", cases[i].anchor}, {"test", cases[i].test});
    EXPECT_TRUE(agree(expected[i]["percent"], figure.percent));
    EXPECT_EQ(expected[i]["low"].get<double>(), figure.overlap_low);
    EXPECT_EQ(expected[i]["high"].get<double>(), figure.overlap_high);
  }
}

// A ladder-like curve: qualities and log10(bitrate) both rising by random steps,
// with uneven spacing and curvature (so that PCHIP's limited end slopes and
// every inner slope formula are taken).
Curve random_curve(std::mt19937_64& random, double quality_start, double log_rate_start) {
  std::uniform_int_distribution<int> count(4, 9);
  std::uniform_real_distribution<double> quality_step(0.05, 12.0), log_rate_step(0.002, 0.7);
  Curve curve;
  double quality = quality_start, log_rate = log_rate_start;
  for (int i = count(random); i > 0; --i) {
    curve.push_back({std::pow(10.0, log_rate), quality});
    quality += quality_step(random);
    log_rate += log_rate_step(random);
  }
  std::shuffle(curve.begin(), curve.end(), random);  // the order given must not matter
  return curve;
}

std::vector<Case> random_cases(std::uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> quality_start(20, 70), log_rate_start(4, 7);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) {
    cases.push_back({random_curve(random, quality_start(random), log_rate_start(random)),
                     random_curve(random, quality_start(random), log_rate_start(random))});
  }
  return cases;
}

// Linear interpolation of log10(bitrate), integrated exactly: what a wrong
// implementation would compute. The checks against the reference must tell
// it from PCHIP.
double linear_bd_rate(const Curve& anchor, const Curve& test) {
  const auto sorted = [](Curve curve) {
    std::ranges::sort(curve, {}, &RatePoint::quality);
    return curve;
  };
  const Curve a = sorted(anchor), t = sorted(test);
  const double low = std::max(a.front().quality, t.front().quality);
  const double high = std::min(a.back().quality, t.back().quality);
  const auto integral = [&](const Curve& curve) {
    double sum = 0;
    for (std::size_t k = 0; k + 1 < curve.size(); ++k) {
      const double q0 = curve[k].quality, q1 = curve[k + 1].quality;
      const double y0 = std::log10(curve[k].bitrate), y1 = std::log10(curve[k + 1].bitrate);
      const double from = std::clamp(low, q0, q1), to = std::clamp(high, q0, q1);
      const auto at = [&](double q) { return y0 + (y1 - y0) * (q - q0) / (q1 - q0); };
      sum += (at(from) + at(to)) / 2 * (to - from);
    }
    return sum;
  };
  return (std::pow(10.0, (integral(t) - integral(a)) / (high - low)) - 1) * 100;
}

std::vector<Case> hand_made_cases() {
  const Curve anchor = {{400e3, 70.1}, {800e3, 80.2}, {1500e3, 88.0}, {3000e3, 94.5}};
  return {
      // partial overlap at either end, unsorted input
      {anchor, {{2500e3, 95.5}, {350e3, 72.0}, {700e3, 83.1}, {1300e3, 90.2}}},
      {anchor, {{500e3, 60.0}, {900e3, 75.0}, {1600e3, 84.0}, {2800e3, 89.0}}},
      // steps of very different size: the end slopes are limited or zeroed
      {{{1e6, 30}, {1.001e6, 31}, {5e6, 32}, {5.1e6, 50}},
       {{0.9e6, 29}, {1e6, 40}, {1.2e6, 41}, {6e6, 45}, {7e6, 52}}},
      // a nearly flat curve against a steep one
      {{{100e3, 30}, {101e3, 40}, {102e3, 50}, {103e3, 60}},
       {{50e3, 30}, {500e3, 40}, {5e6, 50}, {50e6, 60}}},
      // touching ranges, no overlap, too few points, bad values, ties, falling
      {anchor, {{100e3, 94.5}, {200e3, 96}, {300e3, 97}, {400e3, 98}}},
      {anchor, {{100e3, 20}, {200e3, 30}, {300e3, 40}, {400e3, 50}}},
      {anchor, {{100e3, 70}, {200e3, 80}, {300e3, 90}}},
      {anchor, {{0, 70}, {200e3, 80}, {300e3, 90}, {400e3, 95}}},
      {anchor, {{-5, 70}, {200e3, 80}, {300e3, 90}, {400e3, 95}}},
      {anchor, {{100e3, 70}, {200e3, 80}, {300e3, 80}, {400e3, 95}}},
      {anchor, {{100e3, 70}, {200e3, 85}, {300e3, 80}, {400e3, 95}}},
      {anchor, {{100e3, 70}, {200e3, 80}, {200e3, 90}, {400e3, 95}}},
      {{{100e3, 70}, {200e3, 80}, {300e3, 90}}, {{0, 70}, {200e3, 80}, {300e3, 90}}},
  };
}

// The hand-made cases, then 400 random ones, through one run of the reference
// (Python and SciPy take seconds to start).
class BdRateReference : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    hand_made_ = hand_made_cases();
    random_ = random_cases(41, 400);
    std::vector<Case> all = hand_made_;
    all.insert(all.end(), random_.begin(), random_.end());
    ReferenceRun run = run_reference(all);
    skip_ = run.skip;
    if (run.answers.size() == all.size()) {
      hand_made_answers_.assign(run.answers.begin(), run.answers.begin() + hand_made_.size());
      random_answers_.assign(run.answers.begin() + hand_made_.size(), run.answers.end());
    }
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
  }
  static inline std::vector<Case> hand_made_, random_;
  static inline std::vector<json> hand_made_answers_, random_answers_;
  static inline std::string skip_;
};

// Published figures: Netflix vmaf's python/test/bd_rate_calculator_test.py,
// BDrateCalculatorJCTVCTest (its BDrateCalculator, "validated against
// JCTVC-E137", PCHIP of log10(rate) integrated exactly, as the JCT-VC CTC
// sheet): 4 HM encodes each (bitrate in kb/s, PSNR in dB), BD-rate as a
// fraction -0.00465215420752807 and -0.018779823450567612.
TEST(BdRatePublished, JctvcExamplesFromNetflixVmaf) {
  const Curve anchor1 = {
      {108048.8736, 43.6471}, {61279.976, 40.3953}, {33905.6656, 37.247}, {18883.6928, 34.2911}};
  const Curve test1 = {
      {108061.2784, 43.6768}, {61299.9936, 40.4232}, {33928.7472, 37.2761}, {18910.912, 34.3147}};
  EXPECT_TRUE(agree(-0.465215420752807, bd_rate({"a", anchor1}, {"b", test1}).percent));
  const Curve anchor2 = {
      {40433.8848, 37.5761}, {7622.7456, 35.3756}, {2394.488, 33.8977}, {1017.6184, 32.0603}};
  const Curve test2 = {
      {40370.12, 37.5982}, {7587.0024, 35.4025}, {2390.0944, 33.9194}, {1017.0984, 32.0822}};
  const BdRate figure2 = bd_rate({"a", anchor2}, {"b", test2});
  EXPECT_TRUE(agree(-1.8779823450567612, figure2.percent));
  EXPECT_EQ(32.0822, figure2.overlap_low);  // the higher of the two lowest PSNRs
  EXPECT_EQ(37.5761, figure2.overlap_high);
}

TEST(BdRateExact, SameCurveIsZeroAndScaledRatesAreTheScale) {
  const Curve anchor = {
      {400e3, 70.1}, {800e3, 80.2}, {1500e3, 88.0}, {3000e3, 94.5}, {6000e3, 97.0}};
  EXPECT_EQ(0.0, bd_rate({"a", anchor}, {"a", anchor}).percent);
  // Every bitrate times 0.8 at the same quality: 20 % less, whatever the curve.
  Curve cheaper = anchor;
  for (RatePoint& point : cheaper) point.bitrate *= 0.8;
  const BdRate figure = bd_rate({"a", anchor}, {"b", cheaper});
  EXPECT_NEAR(-20.0, figure.percent, 1e-11);
  EXPECT_EQ(70.1, figure.overlap_low);
  EXPECT_EQ(97.0, figure.overlap_high);
  EXPECT_NEAR(25.0, bd_rate({"b", cheaper}, {"a", anchor}).percent, 1e-11);
}

TEST(BdRateExact, CurvePassesThroughItsPointsAndStaysMonotone) {
  const Curve points = {{300e3, 40}, {310e3, 60}, {2000e3, 61}, {2100e3, 90}};
  const LogRateCurve curve({"c", points}, "VMAF");
  for (const RatePoint& point : points) {
    EXPECT_DOUBLE_EQ(std::log10(point.bitrate), curve.log_rate_at(point.quality));
  }
  double previous = curve.log_rate_at(40);
  for (double quality = 40.01; quality <= 90; quality += 0.01) {
    const double value = curve.log_rate_at(quality);
    EXPECT_GE(value, previous) << "at " << quality;  // no overshoot between the steps
    previous = value;
  }
}

TEST_F(BdRateReference, HandMadeCurves) { expect_reference_agrees(hand_made_, hand_made_answers_); }

TEST_F(BdRateReference, RandomCurves) { expect_reference_agrees(random_, random_answers_); }

// The comparison above can fail: a linear interpolation (a plausible wrong
// implementation) differs from the reference beyond the tolerance in nearly
// every random case.
TEST_F(BdRateReference, LinearInterpolationWouldNotPass) {
  const std::vector<Case>& cases = random_;
  const std::vector<json>& expected = random_answers_;
  ASSERT_EQ(expected.size(), cases.size());
  int compared = 0, told_apart = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (expected[i].contains("refused")) continue;
    ++compared;
    if (!agree(expected[i]["percent"], linear_bd_rate(cases[i].anchor, cases[i].test)))
      ++told_apart;
  }
  EXPECT_GT(compared, 100);
  EXPECT_GE(told_apart, compared * 95 / 100) << told_apart << " of " << compared;
}

std::string message_of(const Curve& anchor, const Curve& test, std::string_view metric) {
  try {
    bd_rate({"slow", anchor}, {"fast", test}, metric);
  } catch (const BdRateError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(BdRateRefusals, MessagesNameTheCurveThePointsAndTheFix) {
  const Curve good = {{400e3, 70}, {800e3, 80}, {1500e3, 88}, {3000e3, 94}};
  const std::string few = message_of(good, {{1e6, 70}, {2e6, 80}, {3e6, 90}}, "VMAF");
  EXPECT_TRUE(contains(few, "\"fast\" has 3 (bitrate, VMAF) points"));
  EXPECT_TRUE(contains(few, "4 or more"));
  EXPECT_TRUE(contains(few, "add encodes"));

  const std::string zero = message_of(good, {{1e6, 70}, {0, 75}, {2e6, 80}, {3e6, 90}}, "VMAF");
  EXPECT_TRUE(contains(zero, "\"fast\", point 2: bitrate 0"));
  EXPECT_TRUE(contains(zero, "positive bitrates"));

  const std::string nan = message_of(good, {{1e6, 70}, {2e6, kNaN}, {3e6, 80}, {4e6, 90}}, "PSNR");
  EXPECT_TRUE(contains(nan, "\"fast\", point 2: no finite PSNR"));

  const std::string tie = message_of(good, {{1e6, 70}, {2e6, 80}, {3e6, 80}, {4e6, 90}}, "VMAF");
  EXPECT_TRUE(
      contains(tie, "\"fast\": two encodes have the same VMAF 80 (2000 kb/s and 3000 kb/s)"));
  EXPECT_TRUE(contains(tie, "leave one of them out"));

  const std::string falling =
      message_of(good, {{1e6, 70}, {2e6, 85}, {3e6, 80}, {4e6, 90}}, "VMAF");
  EXPECT_TRUE(contains(falling,
                       "\"fast\": quality does not rise with bitrate: 2000 kb/s gives "
                       "VMAF 85 but 3000 kb/s gives 80"));
  EXPECT_TRUE(contains(falling, "leave out the encode that gives less for more bits"));

  const std::string apart = message_of(good, {{1e5, 20}, {2e5, 30}, {3e5, 40}, {4e5, 50}}, "VMAF");
  EXPECT_TRUE(contains(apart,
                       "\"slow\" (VMAF 70 to 94) and \"fast\" (VMAF 20 to 50) do not "
                       "overlap in VMAF"));
  EXPECT_TRUE(contains(apart,
                       "add higher-bitrate encodes to \"fast\" or lower-bitrate ones to "
                       "\"slow\""));
  // The anchor is checked first, and named as such.
  EXPECT_TRUE(contains(message_of({{1e6, 70}}, good, "VMAF"), "\"slow\" has 1"));
}

TEST(BdRateLadders, EachAgainstTheFirstForVmafAndPsnr) {
  const std::vector<Ladder> ladders = {
      {"slow",
       {{"s1.mp4", 400e3, 70, 35},
        {"s2.mp4", 800e3, 80, 38},
        {"s3.mp4", 1500e3, 88, 41},
        {"s4.mp4", 3000e3, 94, 44}}},
      {"fast",
       {{"f1.mp4", 500e3, 70.5, 35.2},
        {"f2.mp4", 1000e3, 80.1, 38.1},
        {"f3.mp4", 1800e3, 87.0, 40.5},
        {"f4.mp4", 3500e3, 93.0, 43.2}}},
      {"no-psnr",
       {{"n1.mp4", 500e3, 70.5, kNaN},
        {"n2.mp4", 1000e3, 80.1, kNaN},
        {"n3.mp4", 1800e3, 87.0, kNaN},
        {"n4.mp4", 3500e3, 93.0, kNaN}}},
  };
  const std::vector<LadderComparison> comparisons = vmafexact::report::compare_ladders(ladders);
  ASSERT_EQ(3u, comparisons.size());
  EXPECT_TRUE(comparisons[0].anchor);
  EXPECT_FALSE(comparisons[0].vmaf || comparisons[0].psnr);
  EXPECT_EQ("", comparisons[0].vmaf_refusal + comparisons[0].psnr_refusal);

  const Curve slow_vmaf = {{400e3, 70}, {800e3, 80}, {1500e3, 88}, {3000e3, 94}};
  const Curve fast_vmaf = {{500e3, 70.5}, {1000e3, 80.1}, {1800e3, 87.0}, {3500e3, 93.0}};
  const Curve slow_psnr = {{400e3, 35}, {800e3, 38}, {1500e3, 41}, {3000e3, 44}};
  const Curve fast_psnr = {{500e3, 35.2}, {1000e3, 38.1}, {1800e3, 40.5}, {3500e3, 43.2}};
  ASSERT_TRUE(comparisons[1].vmaf && comparisons[1].psnr);
  EXPECT_EQ(bd_rate({"", slow_vmaf}, {"", fast_vmaf}).percent, comparisons[1].vmaf->percent);
  EXPECT_EQ(bd_rate({"", slow_psnr}, {"", fast_psnr}).percent, comparisons[1].psnr->percent);
  EXPECT_GT(comparisons[1].vmaf->percent, 0);  // "fast" needs more bits

  ASSERT_TRUE(comparisons[2].vmaf);
  EXPECT_FALSE(comparisons[2].psnr);
  EXPECT_TRUE(contains(comparisons[2].psnr_refusal, "\"no-psnr\", point 1: no finite PSNR"));

  const std::string table = vmafexact::report::bd_rate_table_text(comparisons);
  EXPECT_TRUE(contains(table, "BD-rate against \"slow\""));
  EXPECT_TRUE(contains(table, "fast     " + vmafexact::report::format_bd_rate_percent(
                                                comparisons[1].vmaf->percent)));
  EXPECT_TRUE(contains(table, "70.50 to 93.00"));
  EXPECT_TRUE(contains(table, "slow     anchor"));
  EXPECT_TRUE(contains(table, "refused (1)"));
  EXPECT_TRUE(contains(table, "(1) \"no-psnr\", point 1: no finite PSNR"));
}

std::size_t count_of(const std::string& text, std::string_view part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// The page's BD-rate section: well-formed, the table's figures those of
// compare_ladders, one PCHIP curve per ladder and metric it accepts, names escaped.
TEST(BdRateSection, TableChartsAndPointsOfTheLadders) {
  EXPECT_EQ("", vmafexact::report::render_rate_quality_html({}));
  const std::vector<Ladder> ladders = {
      {"slow <&>",
       {{"s1.mp4", 400e3, 70, 35},
        {"s2.mp4", 800e3, 80, 38},
        {"s3.mp4", 1500e3, 88, 41},
        {"s4.mp4", 3000e3, 94, 44}}},
      {"fast",
       {{"f1.mp4", 500e3, 70.5, kNaN},
        {"f2.mp4", 1000e3, 80.1, kNaN},
        {"f3.mp4", 1800e3, 87.0, kNaN},
        {"f4.mp4", 3500e3, 93.0, kNaN}}},
  };
  const std::string html = vmafexact::report::render_rate_quality_html(ladders);
#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
  EXPECT_TRUE(vmafexact::test::parse_strict_xml("<div xmlns=\"http://www.w3.org/1999/xhtml\">" +
                                                html + "</div>"))
      << html;
#endif
  const std::vector<LadderComparison> comparisons = vmafexact::report::compare_ladders(ladders);
  ASSERT_TRUE(comparisons[1].vmaf);
  EXPECT_TRUE(contains(html, "<th scope=\"row\">slow &lt;&amp;&gt;</th>"));
  EXPECT_TRUE(
      contains(html, "<th scope=\"row\">fast</th><td class=\"number\">4</td><td class=\"number\">" +
                         vmafexact::report::format_bd_rate_percent(comparisons[1].vmaf->percent) +
                         "</td><td class=\"number\">70.50 to 93.00</td><td>refused (1)</td>"));
  EXPECT_TRUE(contains(html, "<li>&quot;fast&quot;, point 1: no finite PSNR"));
  EXPECT_TRUE(contains(html, "against \"slow &lt;&amp;&gt;\""));
  EXPECT_EQ(2u, count_of(html, "<svg "));      // VMAF and PSNR
  EXPECT_EQ(3u, count_of(html, "<path "));     // both ladders' VMAF curves, one PSNR curve
  EXPECT_EQ(12u, count_of(html, "<circle "));  // every point with a quality: fast has no PSNR
  EXPECT_TRUE(contains(html,
                       "<td>fast</td><th scope=\"row\">f2.mp4</th><td class=\"number\">"
                       "1000.000</td><td class=\"number\">80.100000</td>"));
}

// An encode as the tool and `vmafexact report` hold it: its first model's
// pooled mean (whatever the model's name), psnr_y's, its bitrate.
TEST(BdRateLadders, PointOfAnEncode) {
  using vmafexact::report::Encode;
  using vmafexact::report::ScoreKind;
  Encode encode;
  encode.name = "crf30";
  encode.bitrate_bps = 954800;
  encode.series = {{"integer_adm2", {}, ScoreKind::internal},
                   {"psnr_y", {}, ScoreKind::feature},
                   {"vmaf_v0.6.1neg", {}, ScoreKind::model},
                   {"vmaf", {}, ScoreKind::model}};
  encode.pooled = {{.name = "vmaf", .mean = 90.5},
                   {.name = "vmaf_v0.6.1neg", .mean = 88.25},
                   {.name = "psnr_y", .mean = 38.5}};
  const vmafexact::report::LadderPoint point = vmafexact::report::ladder_point_of(encode);
  EXPECT_EQ("crf30", point.encode);
  EXPECT_EQ(954800, point.bitrate_bps);
  EXPECT_EQ(88.25, point.vmaf);
  EXPECT_EQ(38.5, point.psnr_y);
  encode.series.clear();  // no series known: "vmaf"; no psnr_y: NaN
  encode.pooled.pop_back();
  const vmafexact::report::LadderPoint bare = vmafexact::report::ladder_point_of(encode);
  EXPECT_EQ(90.5, bare.vmaf);
  EXPECT_TRUE(std::isnan(bare.psnr_y));
}

}  // namespace
