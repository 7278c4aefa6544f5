// The PyGObject examples (examples/python/) run as programs with
// /usr/bin/python3 and Debian's PyGObject: the live monitor prints windows and
// alerts with the documented fields and ends with the summary on SIGINT; the
// messages module converts every kind of value. Skips, saying why, where
// python3-gi or GStreamer's typelibs are missing (CI installs them:
// scripts/install-deps.sh). score.py runs the vmafexact module, tested with
// it in test_module.py.

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "child_process.h"

using vmafexact::test::kSourceRoot;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;
using vmafexact::test::ChildProcess;

const fs::path kExamples = fs::path(kSourceRoot) / "examples" / "python";
constexpr const char* kPython = "/usr/bin/python3";

// Why the examples cannot run here, or empty when they can.
const std::string& python_missing() {
  static const std::string reason = [] {
    if (!fs::exists(kPython)) return std::string(kPython) + " is not installed";
    char dir_template[] = "/tmp/vmafexact-python-check-XXXXXX";
    if (!g_mkdtemp(dir_template)) return std::string("no temporary folder");
    const fs::path dir = dir_template;
    std::string problem;
    {
      ChildProcess check({kPython, "-c",
                          "import gi; gi.require_version('Gst', '1.0'); "
                          "gi.require_version('GstPbutils', '1.0'); "
                          "from gi.repository import Gst, GstPbutils"},
                         dir / "stderr.txt");
      const auto status = check.wait_exit(60s);
      if (status != 0)
        problem =
            "PyGObject or GStreamer's typelibs are missing (Debian: python3-gi, "
            "gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0): " +
            check.error_output();
    }
    fs::remove_all(dir);
    return problem;
  }();
  return reason;
}

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(Json::parse(line));
  return lines;
}

class PythonExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_missing().empty()) GTEST_SKIP() << python_missing();
    char dir_template[] = "/tmp/vmafexact-python-XXXXXX";
    ASSERT_TRUE(g_mkdtemp(dir_template));
    dir_ = dir_template;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs an example to its end; returns its exit status.
  int run(const std::string& script, const std::vector<std::string>& arguments) {
    std::vector<std::string> argv = {kPython, (kExamples / script).string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ChildProcess child(argv, dir_ / "stderr.txt", dir_ / "stdout.txt");
    const auto status = child.wait_exit(120s);
    output_ = child.output();
    errors_ = child.error_output();
    return status.value_or(-1);
  }

  fs::path dir_;
  std::string output_;
  std::string errors_;
};

double number_or_nan(const Json& value) {
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

// A live pipeline for a few seconds, windows of 10 frames and two alerts (one
// raised at once, one never), then SIGINT: the last window and the summary.
TEST_F(PythonExamples, MonitorPrintsWindowsAndAlertsAndEndsWithTheSummaryOnSigint) {
  ChildProcess monitor(
      {kPython, (kExamples / "monitor.py").string(), "--pipeline",
       "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! "
       "video/x-raw,format=GRAY8,width=96,height=64,framerate=25/1 ! tee name=t "
       "t. ! queue ! v.ref_sink t. ! queue ! jpegenc quality=30 ! jpegdec ! videoconvert ! "
       "video/x-raw,format=GRAY8 ! v.dist_sink vmafexact name=v latency=200000000 ! fakesink",
       "--window", "10f", "--alert", "psnr_y<1000;psnr_y<0", "--input-timeout", "5s", "--frames",
       "--set", "model=\"\"", "--set", "features=psnr=enable_apsnr=true", "--set", "threads=1"},
      dir_ / "stderr.txt", dir_ / "stdout.txt");
  const auto windows_posted = [&] {
    std::size_t windows = 0;
    for (const Json& line : json_lines(monitor.output()))
      windows += line.at("message") == "vmafexact-window";
    return windows;
  };
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       windows_posted() < 2 && std::chrono::steady_clock::now() < deadline && monitor.running();)
    ChildProcess::pump(100ms);
  ASSERT_GE(windows_posted(), 2u) << monitor.error_output();
  monitor.send_signal(SIGINT);
  ASSERT_EQ(monitor.wait_exit(30s), 0) << monitor.error_output();
  EXPECT_NE(monitor.error_output().find("alert psnr_y<1000 raised"), std::string::npos)
      << monitor.error_output();

  std::vector<Json> frames, windows, alerts, summaries;
  const auto lines = json_lines(monitor.output());
  for (const Json& line : lines) {
    const std::string name = line.at("message");
    auto& kind = name == "vmafexact-frame"    ? frames
                 : name == "vmafexact-window" ? windows
                 : name == "vmafexact-alert"  ? alerts
                                              : summaries;
    kind.push_back(line.at("fields"));
  }
  ASSERT_EQ(summaries.size(), 1u);
  ASSERT_EQ(lines.back().at("message"), "vmafexact-summary");
  ASSERT_GE(frames.size(), 20u);

  const std::set<std::string> stats = {"min", "max", "mean",      "harmonic_mean", "p1",
                                       "p5",  "p50", "low1_mean", "low5_mean"};
  const std::vector<std::string> window_fields = {"window-start",
                                                  "window-end",
                                                  "frames",
                                                  "frames-unpaired",
                                                  "frames-unpaired-ref",
                                                  "frames-unpaired-dist",
                                                  "frames-skipped-late",
                                                  "partial",
                                                  "truncated",
                                                  "vmafexact-version",
                                                  "libvmaf-version",
                                                  "models",
                                                  "backend",
                                                  "threads",
                                                  "psnr_y"};
  std::size_t first_frame = 0;
  for (const Json& window : windows) {
    std::vector<std::string> names;
    for (const auto& [name, value] : window.items()) names.push_back(name);
    EXPECT_EQ(names, window_fields) << window.dump();
    std::set<std::string> figures;
    for (const auto& [stat, value] : window.at("psnr_y").items()) figures.insert(stat);
    EXPECT_EQ(figures, stats);
    // The window's figures are those of the frames the program printed, exactly.
    const auto count = window.at("frames").get<std::size_t>();
    if (!window.at("partial").get<bool>()) {
      EXPECT_EQ(count, 10u);
    }
    ASSERT_LE(first_frame + count, frames.size());
    double low = INFINITY, high = -INFINITY;
    for (std::size_t i = first_frame; i < first_frame + count; ++i) {
      low = std::min(low, frames[i].at("psnr_y").get<double>());
      high = std::max(high, frames[i].at("psnr_y").get<double>());
    }
    EXPECT_EQ(window.at("psnr_y").at("min").get<double>(), low);
    EXPECT_EQ(window.at("psnr_y").at("max").get<double>(), high);
    // (An unpaired frame, on a loaded machine, may open the window instead.)
    if (window.at("frames-unpaired") == 0) {
      EXPECT_EQ(window.at("window-start"), frames[first_frame].at("running-time"));
    }
    first_frame += count;
  }
  EXPECT_EQ(first_frame, frames.size()) << "every frame is in one window";

  // psnr_y<1000 is raised at the first frame; psnr_y<0 never.
  ASSERT_EQ(alerts.size(), 1u);
  const Json& alert = alerts[0];
  EXPECT_EQ(alert.at("alert"), "psnr_y<1000");
  EXPECT_EQ(alert.at("state"), "raised");
  EXPECT_EQ(alert.at("score"), "psnr_y");
  EXPECT_EQ(alert.at("value").get<double>(), frames[0].at("psnr_y").get<double>());
  EXPECT_EQ(alert.at("threshold").get<double>(), 1000.0);
  EXPECT_EQ(alert.at("running-time"), frames[0].at("running-time"));
  for (const char* field : {"vmafexact-version", "libvmaf-version", "models", "backend"})
    EXPECT_TRUE(alert.at(field).is_string()) << field;
  std::set<std::string> alert_figures;
  for (const auto& [stat, value] : alert.at("window").items()) alert_figures.insert(stat);
  EXPECT_EQ(alert_figures, stats);

  // The summary: every frame printed, pooled as they were; gray video has no
  // chroma, so apsnr_cb and apsnr_cr are -inf, written null.
  const Json& summary = summaries[0];
  EXPECT_EQ(summary.at("frames-scored").get<std::size_t>(), frames.size());
  double low = INFINITY;
  for (const Json& frame : frames) low = std::min(low, frame.at("psnr_y").get<double>());
  EXPECT_EQ(summary.at("psnr_y").at("min").get<double>(), low);
  EXPECT_TRUE(std::isfinite(number_or_nan(summary.at("apsnr_y"))));
  EXPECT_TRUE(summary.at("apsnr_cb").is_null());
  EXPECT_TRUE(summary.at("apsnr_cr").is_null());
}

TEST_F(PythonExamples, MonitorRefusesBadCommandLines) {
  EXPECT_EQ(run("monitor.py", {"--ref", "a.mkv"}), 2);
  EXPECT_NE(errors_.find("give --ref URI and --dist URI, or --pipeline"), std::string::npos)
      << errors_;
  EXPECT_EQ(run("monitor.py", {"--pipeline", "videotestsrc ! fakesink"}), 2);
  EXPECT_NE(errors_.find("needs a vmafexact element named v"), std::string::npos) << errors_;
  EXPECT_EQ(
      run("monitor.py", {"--pipeline", "videotestsrc ! vmafexact name=v", "--set", "backend=gpu"}),
      2);
  EXPECT_NE(errors_.find("'gpu' is not a value of type GstVmafExactBackend"), std::string::npos)
      << errors_;
  // The element's own checks at start: an error from it, status 1.
  EXPECT_EQ(run("monitor.py", {"--pipeline", "videotestsrc ! vmafexact name=v", "--window", "10x"}),
            1);
  EXPECT_NE(errors_.find("Invalid window property: window: '10x' has an unknown unit"),
            std::string::npos)
      << errors_;
  EXPECT_EQ(run("monitor.py", {"--help"}), 0);
  EXPECT_NE(output_.find("--eos-timeout SECONDS"), std::string::npos) << output_;
}

// The helper module on every kind of value a structure can hold, in Python.
TEST_F(PythonExamples, MessagesModuleConvertsEveryKindOfValue) {
  const fs::path test = fs::path(kSourceRoot) / "tests" / "examples" / "test_vmafexact_messages.py";
  ChildProcess child({kPython, test.string(), kExamples.string()}, dir_ / "stderr.txt",
                     dir_ / "stdout.txt");
  EXPECT_EQ(child.wait_exit(60s), 0) << child.error_output() << child.output();
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
