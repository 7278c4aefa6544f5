// vmafexact --ladder (tools/vmafexact/ladder.cpp) as a program: two ladders of
// four x264 encodes each (320x180, 1 s, made here with ffmpeg), their BD-rates
// printed after the summary and on the page equal to the independent reference
// (tests/tools/bd_rate_reference.py, SciPy) computed from the pooled figures and
// bitrates in the run's own logs; the ladders' usage errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"
#include "child_process.h"

using vmafexact::test::kBdRateReference;
using vmafexact::test::kCliPath;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using vmafexact::test::ChildProcess;
using vmafexact::test::read_file;

constexpr const char* kPython = "/usr/bin/python3";

struct ProgramRun {
  int status = -1;
  std::string out, err;
};

ProgramRun run(const std::vector<std::string>& argv, const fs::path& folder,
               const std::string& label) {
  ChildProcess child(argv, folder / (label + ".err"), folder / (label + ".out"));
  const auto status = child.wait_exit(std::chrono::seconds(120));
  return {status.value_or(-1), child.output(), child.error_output()};
}

std::string describe(const ProgramRun& result) {
  return "exit " + std::to_string(result.status) + "\nstdout:\n" + result.out + "\nstderr:\n" +
         result.err;
}

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// The line of `text` that starts with `start` ("" when none).
std::string line_starting(const std::string& text, const std::string& start) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? end : end - at);
    if (line.rfind(start, 0) == 0) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

const std::vector<std::string> kSlow = {"slow24", "slow30", "slow36", "slow42"};
const std::vector<std::string> kFast = {"fast22", "fast28", "fast34", "fast40"};

// One run of the tool over two ladders, shared by the tests below.
class LadderRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = std::make_unique<vmafexact::test::ScratchFolder>("vmafexact-ladder-test");
    const std::string f = folder_->path().string() + "/";
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    // Noise keeps the bitrates apart; two presets over their own CRFs give
    // curves that overlap in quality.
    std::vector<std::string> commands = {
        ff + "-f lavfi -i testsrc2=size=320x180:rate=25,noise=alls=12:allf=t -t 1 " +
        "-pix_fmt yuv420p " + f + "ref.y4m"};
    for (const std::string& name : kSlow)
      commands.push_back(ff + "-i " + f + "ref.y4m -c:v libx264 -preset slow -crf " +
                         name.substr(4) + " " + f + name + ".mp4");
    for (const std::string& name : kFast)
      commands.push_back(ff + "-i " + f + "ref.y4m -c:v libx264 -preset ultrafast -crf " +
                         name.substr(4) + " " + f + name + ".mp4");
    for (const std::string& command : commands) {
      if (std::system(command.c_str()) != 0) {
        setup_error_ = "ffmpeg failed: " + command;
        return;
      }
    }
    fs::create_directories(folder_->path() / "out");
    const auto ladder = [&](const std::string& name, const std::vector<std::string>& encodes) {
      std::string text = name + "=";
      for (const std::string& encode : encodes) text += f + encode + ".mp4,";
      text.pop_back();
      return text;
    };
    tool_ = run({kCliPath, "--no-progress", "--precision", "max", "--json", f + "out/{name}.json",
                 "--html", f + "out/page.html", "--ladder", ladder("slow", kSlow), "--ladder",
                 ladder("fast", kFast), f + "ref.y4m"},
                folder_->path(), "tool");
  }
  static void TearDownTestSuite() { folder_.reset(); }
  void SetUp() override {
    if (!setup_error_.empty()) GTEST_FAIL() << setup_error_;
    ASSERT_EQ(0, tool_.status) << describe(tool_);
  }

  // (bitrate, quality) of each encode, from its log: the pooled mean of
  // `score` and the provenance's distorted_bitrate_bps.
  static json points(const std::vector<std::string>& names, const std::string& score) {
    json result = json::array();
    for (const std::string& name : names) {
      const json log = json::parse(read_file(folder_->path() / "out" / (name + ".json")));
      result.push_back({std::stod(log["provenance"]["distorted_bitrate_bps"].get<std::string>()),
                        log["pooled_metrics"][score]["mean"].get<double>()});
    }
    return result;
  }

  // The reference's answers for fast against slow: VMAF, then PSNR.
  static std::vector<json> reference() {
    if (!fs::exists(kPython)) return {};
    const json cases = {
        {"cases",
         {{{"anchor", points(kSlow, "vmaf")}, {"test", points(kFast, "vmaf")}},
          {{"anchor", points(kSlow, "psnr_y")}, {"test", points(kFast, "psnr_y")}}}}};
    vmafexact::test::write_file(folder_->path() / "cases.json", cases.dump());
    const ProgramRun answer =
        run({kPython, kBdRateReference, (folder_->path() / "cases.json").string()}, folder_->path(),
            "reference");
    if (answer.status != 0) {
      ADD_FAILURE() << "the reference failed: " << describe(answer);
      return {};
    }
    const json results = json::parse(answer.out);
    return {results.begin(), results.end()};
  }

  static inline std::unique_ptr<vmafexact::test::ScratchFolder> folder_;
  static inline std::string setup_error_;
  static inline ProgramRun tool_;
};

// The table after the summary: "fast" against "slow", VMAF and PSNR, with the
// overlap used, as the reference computes them from the logs' figures.
TEST_F(LadderRun, PrintsBdRatesEqualToTheReferenceFromTheLogs) {
  const std::vector<json> expected = reference();
  if (expected.empty() && !HasFailure()) GTEST_SKIP() << kPython << " is not installed";
  ASSERT_EQ(2u, expected.size());
  ASSERT_FALSE(expected[0].contains("refused")) << expected[0];
  ASSERT_FALSE(expected[1].contains("refused")) << expected[1];
  EXPECT_NE(std::string::npos,
            tool_.out.find("BD-rate against \"slow\" (PCHIP; negative: less bitrate for the same "
                           "quality)\n"))
      << describe(tool_);
  EXPECT_NE("", line_starting(tool_.out, "slow  ")) << describe(tool_);
  const std::string fast = line_starting(tool_.out, "fast  ");
  // "fast  +45.16 %  76.09 to 92.78  +58.19 %  28.52 to 31.47": each printed
  // figure is the reference's, rounded as printed (the logs' bitrates are
  // whole bits per second: half a unit of the last digit more allowed).
  double figures[6] = {};
  ASSERT_EQ(6, std::sscanf(fast.c_str(), "fast %lf %% %lf to %lf %lf %% %lf to %lf", &figures[0],
                           &figures[1], &figures[2], &figures[3], &figures[4], &figures[5]))
      << describe(tool_);
  const double wanted[6] = {expected[0]["percent"], expected[0]["low"], expected[0]["high"],
                            expected[1]["percent"], expected[1]["low"], expected[1]["high"]};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(wanted[i], figures[i], 0.005 + 1e-6) << fast;
}

// The page's table holds the figures printed (which equal the reference's).
TEST_F(LadderRun, PageHasTheBdRateSectionWithTheSameFigures) {
  const std::string page = read_file(folder_->path() / "out" / "page.html");
  EXPECT_NE(std::string::npos, page.find("id=\"bd-rate\""));
  double vmaf = 0, low = 0, high = 0, psnr = 0;
  ASSERT_EQ(4, std::sscanf(line_starting(tool_.out, "fast  ").c_str(), "fast %lf %% %lf to %lf %lf",
                           &vmaf, &low, &high, &psnr))
      << describe(tool_);
  EXPECT_NE(std::string::npos,
            page.find("<th scope=\"row\">fast</th><td class=\"number\">4</td><td "
                      "class=\"number\">" +
                      printed("%+.2f %%", vmaf) + "</td><td class=\"number\">" +
                      printed("%.2f", low) + " to " + printed("%.2f", high) +
                      "</td><td class=\"number\">" + printed("%+.2f %%", psnr) + "</td>"));
}

// The section of the page between `<section id="bd-rate"` and its end ("" when none).
std::string bd_rate_section(const std::string& page) {
  const std::size_t start = page.find("<section class=\"bd-rate\" id=\"bd-rate\">");
  const std::size_t end = page.find("</section>", start);
  return start == std::string::npos || end == std::string::npos ? ""
                                                                : page.substr(start, end - start);
}

// `vmafexact report --ladder NAME=LOG,...` on the run's logs: the same table
// printed and the same BD-rate section on its page, without scoring again.
TEST_F(LadderRun, ReportFromTheLogsGivesTheSameBdRates) {
  const fs::path out = folder_->path() / "out";
  const auto logs = [&](const std::string& name, const std::vector<std::string>& encodes) {
    std::string text = name + "=";
    for (const std::string& encode : encodes) text += (out / (encode + ".json")).string() + ",";
    text.pop_back();
    return text;
  };
  const ProgramRun report = run({kCliPath, "report", "--ladder", logs("slow", kSlow), "--ladder",
                                 logs("fast", kFast), "--html", (out / "rebuilt.html").string()},
                                folder_->path(), "report");
  ASSERT_EQ(0, report.status) << describe(report);
  const std::string table_start = "BD-rate against \"slow\"";
  const std::size_t printed_at = tool_.out.find(table_start);
  ASSERT_NE(std::string::npos, printed_at) << describe(tool_);
  EXPECT_NE(std::string::npos, report.out.find(tool_.out.substr(printed_at))) << describe(report);
  const std::string section = bd_rate_section(read_file(out / "page.html"));
  EXPECT_NE("", section);
  EXPECT_EQ(section, bd_rate_section(read_file(out / "rebuilt.html")));
}

// psnr was not asked for: the ladders add it, so each log has psnr_y.
TEST_F(LadderRun, PsnrIsScoredForTheLadders) {
  const json log = json::parse(read_file(folder_->path() / "out" / "fast22.json"));
  EXPECT_TRUE(log["pooled_metrics"].contains("psnr_y"));
  EXPECT_TRUE(log["pooled_metrics"].contains("vmaf"));
}

TEST(LadderOptions, FewerThanFourEncodesIsAUsageError) {
  vmafexact::test::ScratchFolder folder("vmafexact-ladder-usage");
  const ProgramRun result = run({kCliPath, "--ladder", "a=1.mp4,2.mp4,3.mp4,4.mp4", "--ladder",
                                 "b=5.mp4,6.mp4,7.mp4", "ref.y4m"},
                                folder.path(), "usage");
  EXPECT_EQ(1, result.status) << describe(result);
  EXPECT_NE(std::string::npos,
            result.err.find("--ladder b has 3 encodes; BD-rate needs 4 or more per ladder"))
      << describe(result);
  EXPECT_NE(std::string::npos, result.err.find("Give each ladder 4 or more encodes"))
      << describe(result);
}

}  // namespace
