// A real Prometheus (Debian's package) scraping vmafexact-monitor every second:
// what PromQL returns through Prometheus' HTTP API equals, bit for bit, what the
// monitor wrote as JSON lines for the same frames, windows and summary; and every
// query of the shipped Grafana dashboard and rules (deploy/) runs on that data.
//
// One station for the whole suite (Prometheus' first scrape comes ~5 s after its
// start): a monitor with --config and three channels, "long" and "other" (live,
// scoring for the whole test) and "broken" (its inputs missing: restarted again
// and again), and a single-channel monitor, "main" (live, 12 s, then its
// summary; it keeps serving with --no-exit-on-eos). Every query is evaluated at one instant, after
// the summary has been scraped twice; range selectors ([5m]) give the raw
// samples of every scrape, each scrape's samples sharing one timestamp.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "prometheus.h"
#include "system_process.h"

using vmafexact::test::kMonitorPath;
using vmafexact::test::kSourceRoot;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
using vmafexact::system_test::PrometheusApi;
using vmafexact::system_test::PrometheusServer;
using vmafexact::system_test::SystemProcess;
using vmafexact::system_test::unix_now;

// A live pair at 25 frames per second: a test pattern and its JPEG-compressed
// copy, through the element named v, for `frames` frames. (Windows of 1 s then
// hold 25 frames, enough for their 1st and 5th percentiles to differ.)
std::string live_pipeline(int frames, const std::string& pattern, int quality) {
  const std::string caps = "video/x-raw,format=I420,width=160,height=90,framerate=25/1";
  return "videotestsrc is-live=true num-buffers=" + std::to_string(frames) + " pattern=" + pattern +
         " horizontal-speed=2 ! " + caps + " ! tee name=t t. ! queue ! v.ref_sink t. ! queue !" +
         " jpegenc quality=" + std::to_string(quality) + " ! jpegdec ! videoconvert !" +
         " video/x-raw,format=I420 ! v.dist_sink vmafexact name=v ! fakesink sync=false";
}

// The frame message's fields that are not scores.
const std::set<std::string> kFrameFields = {"index", "pts", "running-time", "stream-time",
                                            "duration"};
// The score kinds of the exposition (docs/live-monitoring.md, "Metrics").
const std::string kKinds = "(vmaf|psnr_decibels|feature)";
// A summary's quantile label as the messages name it.
const std::map<std::string, std::string> kQuantileStats = {
    {"0", "min"}, {"0.01", "p1"}, {"0.05", "p5"}, {"0.5", "p50"}, {"1", "max"}};
const std::map<std::string, std::string> kLowMeanStats = {{"0.01", "low1_mean"},
                                                          {"0.05", "low5_mean"}};

std::vector<Json> read_json_lines(const fs::path& path) {
  std::vector<Json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;  // a line still being written
    lines.push_back(Json::parse(line));
  }
  return lines;
}

// The lines of one channel and message ("vmafexact-frame", ...).
std::vector<const Json*> messages(const std::vector<Json>& lines, const std::string& channel,
                                  const std::string& name) {
  std::vector<const Json*> found;
  for (const Json& line : lines)
    if (line.value("channel", "") == channel && line.at("message") == name) found.push_back(&line);
  return found;
}

// One series of a query's result, its samples in time order.
struct Series {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<double, double>> samples;  // Unix time, value
  std::string name() const { return labels.contains("__name__") ? labels.at("__name__") : ""; }
};

// Prometheus writes a value as a string, the shortest that reads back as the
// same double (Go's strconv 'f', -1): strtod gives the stored bits.
double value_of(const Json& pair) {
  return std::strtod(pair.at(1).get<std::string>().c_str(), nullptr);
}

// The labels that tell a family's series apart (score, quantile, input, ...).
std::string own_labels(const Series& series) {
  std::string text;
  for (const auto& [label, value] : series.labels)
    if (label != "__name__" && label != "job" && label != "instance" && label != "channel")
      text += (text.empty() ? "" : ",") + label + "=\"" + value + "\"";
  return "{" + text + "}";
}

std::vector<Series> series_of(const Json& data) {
  std::vector<Series> all;
  for (const Json& item : data.at("result")) {
    Series series;
    for (const auto& [label, value] : item.at("metric").items())
      series.labels[label] = value.get<std::string>();
    if (item.contains("values"))
      for (const Json& pair : item.at("values"))
        series.samples.emplace_back(pair.at(0).get<double>(), value_of(pair));
    else
      series.samples.emplace_back(item.at("value").at(0).get<double>(), value_of(item.at("value")));
    all.push_back(std::move(series));
  }
  return all;
}

// The same double, bit for bit (any NaN for any NaN); a JSON null is a
// non-finite value the JSON line could not hold.
::testing::AssertionResult same_double(double scraped, const Json& expected) {
  if (expected.is_null())
    return std::isfinite(scraped) ? ::testing::AssertionFailure()
                                        << scraped << " scraped, null (non-finite) in the JSON line"
                                  : ::testing::AssertionSuccess();
  const double wanted = expected.get<double>();
  if ((std::isnan(scraped) && std::isnan(wanted)) ||
      std::bit_cast<std::uint64_t>(scraped) == std::bit_cast<std::uint64_t>(wanted))
    return ::testing::AssertionSuccess();
  char text[100];
  std::snprintf(text, sizeof text, "%.17g scraped, %.17g in the JSON line", scraped, wanted);
  return ::testing::AssertionFailure() << text;
}

// The values that differ in one comparison of many, reported once as their
// count and the first few (a broken exposition would otherwise print
// thousands of failures).
class Mismatches {
 public:
  void check(const ::testing::AssertionResult& same, const std::string& what) {
    ++checked_;
    if (same) return;
    if (count_ < 8) first_ += "\n  " + what + ": " + same.message();
    ++count_;
  }
  std::size_t checked() const { return checked_; }
  ::testing::AssertionResult none() const {
    if (count_ == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << count_ << " of " << checked_ << " values differ, the first:" << first_;
  }

 private:
  std::size_t checked_ = 0, count_ = 0;
  std::string first_;
};

double seconds_of(const Json& nanoseconds) {
  return static_cast<double>(nanoseconds.get<std::uint64_t>()) / 1e9;
}

// What the suite runs, started once (Prometheus' first scrape costs ~5 s).
struct Station {
  fs::path dir;
  std::unique_ptr<SystemProcess> station_monitor, single_monitor;
  std::unique_ptr<PrometheusServer> prometheus;
  double start_time = 0;  // when both targets were first up
  double end_time = 0;    // the instant every query is evaluated at
  std::vector<Json> station_lines, single_lines;

  ~Station() {
    // Prometheus first (it would log failed scrapes), then the monitors.
    prometheus.reset();
    station_monitor.reset();
    single_monitor.reset();
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  const PrometheusApi& api() const { return prometheus->api(); }
  std::vector<Series> query(const std::string& expression) const {
    return series_of(api().query(expression, end_time));
  }
  // The only series of `expression` (an error when there are more or none).
  Series one(const std::string& expression) const {
    std::vector<Series> all = query(expression);
    if (all.size() != 1)
      throw std::runtime_error(expression + ": " + std::to_string(all.size()) + " series, not one");
    return all.front();
  }
  std::string diagnostics() const {
    std::string text =
        "\n--- prometheus log:\n" + (prometheus ? prometheus->log() : "") +
        "\n--- station monitor:\n" + (station_monitor ? station_monitor->error_output() : "") +
        "\n--- single-channel monitor:\n" + (single_monitor ? single_monitor->error_output() : "");
    return text;
  }
};

using Deadline = std::chrono::steady_clock::time_point;

// Whole seconds left until `deadline`, at least one.
std::chrono::seconds seconds_left(Deadline deadline) {
  return std::max(
      1s, std::chrono::ceil<std::chrono::seconds>(deadline - std::chrono::steady_clock::now()));
}

// "serving http://127.0.0.1:PORT/metrics" on the monitor's standard error.
int wait_port(SystemProcess& monitor, Deadline deadline) {
  static const std::regex serving("serving http://127\\.0\\.0\\.1:([0-9]+)/metrics");
  while (std::chrono::steady_clock::now() < deadline && monitor.running()) {
    std::smatch m;
    const std::string text = monitor.error_output();
    if (std::regex_search(text, m, serving)) return std::stoi(m[1]);
    SystemProcess::pump(50ms);
  }
  throw std::runtime_error("vmafexact-monitor did not report its address:\n" +
                           monitor.error_output());
}

// Polls `done` every 200 ms until it holds or `deadline` has passed; false then.
template <typename Done>
bool wait_until(Done done, Deadline deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    SystemProcess::pump(200ms);
  }
  return done();
}

// Everything up and the single channel's end scraped, in 50 s at most (about
// 16 s here), so that the suite ends within a minute whatever happens.
std::unique_ptr<Station> start_station(const std::string& prometheus_program) {
  const Deadline deadline = std::chrono::steady_clock::now() + 50s;
  auto station = std::make_unique<Station>();
  char templ[] = "/tmp/vmafexact-prometheus-XXXXXX";
  if (!g_mkdtemp(templ)) throw std::runtime_error("cannot make a temporary folder");
  station->dir = templ;
  const fs::path& dir = station->dir;

  // The station: two channels that score throughout, and one whose inputs are
  // missing files (URIs, so that the error comes at run time, as a source's
  // would), restarted every second at most (the rules' restart alert fires).
  std::ofstream(dir / "station.conf")
      << "[monitor]\n"
         "restart-delay=200ms\n"
         "restart-delay-max=1s\n"
         "property.threads=1\n"
         "property.window=1s\n"
         "\n[channel long]\n"
         "pipeline="
      << live_pipeline(1500, "smpte", 40)
      << "\n"
         "property.features=psnr\n"
         "property.alert=vmaf<1000\n"
         "\n[channel other]\n"
         "pipeline="
      << live_pipeline(1500, "circular", 60)
      << "\n"
         "property.features=psnr\n"
         "property.alert=vmaf<1000\n"
         "\n[channel broken]\n"
         "ref="
      << "file://" << (dir / "missing-ref.y4m").string() << "\ndist=file://"
      << (dir / "missing-dist.y4m").string() << "\n";
  station->station_monitor = std::make_unique<SystemProcess>(
      std::vector<std::string>{kMonitorPath, "--config", (dir / "station.conf").string(),
                               "--listen", "127.0.0.1:0", "--jsonl",
                               (dir / "station.jsonl").string()},
      dir / "station.stderr");
  // One channel ("main") that ends: its summary stays served.
  station->single_monitor = std::make_unique<SystemProcess>(
      std::vector<std::string>{kMonitorPath, "--pipeline", live_pipeline(300, "ball", 20),
                               "--listen", "127.0.0.1:0", "--jsonl",
                               (dir / "single.jsonl").string(), "--no-exit-on-eos", "--set",
                               "threads=1", "--set", "window=1s", "--set", "features=psnr", "--set",
                               "alert=vmaf<1000", "--set", "max-lateness=-1"},
      dir / "single.stderr");
  const int station_port = wait_port(*station->station_monitor, deadline);
  const int single_port = wait_port(*station->single_monitor, deadline);

  // Rules as shipped; the rule groups inherit evaluation_interval.
  std::string rule_files;
  const fs::path rules_dir = fs::path(kSourceRoot) / "deploy" / "prometheus";
  if (fs::is_directory(rules_dir))
    for (const auto& entry : fs::directory_iterator(rules_dir))
      if (entry.path().filename().string().ends_with(".rules.yml"))
        rule_files += "  - " + entry.path().string() + "\n";
  const std::string config =
      "global:\n"
      "  scrape_interval: 1s\n"
      "  scrape_timeout: 1s\n"
      "  evaluation_interval: 1s\n" +
      (rule_files.empty() ? "" : "rule_files:\n" + rule_files) +
      "scrape_configs:\n"
      "  - job_name: vmafexact\n"  // as deploy/prometheus/prometheus.yml: the rules select it
      "    static_configs:\n"
      "      - targets: ['127.0.0.1:" +
      std::to_string(station_port) + "', '127.0.0.1:" + std::to_string(single_port) + "']\n";
  station->prometheus =
      std::make_unique<PrometheusServer>(prometheus_program, dir, config, seconds_left(deadline));
  const PrometheusApi& api = station->api();

  const auto targets_up = [&] {
    const Json targets = api.get("/api/v1/targets?state=active").at("activeTargets");
    return targets.size() == 2 && std::all_of(targets.begin(), targets.end(),
                                              [](const Json& t) { return t.at("health") == "up"; });
  };
  if (!wait_until(targets_up, deadline))
    throw std::runtime_error("Prometheus' targets are not up within 50 s of the start: " +
                             api.get("/api/v1/targets").dump());
  station->start_time = unix_now();

  // The single channel's end of stream, scraped, then two more scrapes.
  double seen_end = 0;
  const auto ended = [&] {
    const Json result =
        api.query("timestamp(vmafexact_end_of_stream{channel=\"main\"} == 1)", unix_now())
            .at("result");
    if (result.empty()) return false;
    if (seen_end == 0) seen_end = value_of(result.at(0).at("value"));
    return value_of(result.at(0).at("value")) >= seen_end + 2;
  };
  if (!wait_until(ended, deadline))
    throw std::runtime_error(
        "Prometheus has not scraped the single channel's end of stream twice within 50 s of the "
        "start");
  station->end_time = unix_now();
  station->station_lines = read_json_lines(dir / "station.jsonl");
  station->single_lines = read_json_lines(dir / "single.jsonl");
  return station;
}

class PrometheusTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    gchar* program = g_find_program_in_path("prometheus");
    if (!program) {
      const char* ci = g_getenv("CI");
      (ci && *ci ? setup_error_ : skip_reason_) =
          std::string("prometheus is not in PATH") + (ci && *ci ? " (CI is set: it must be)" : "") +
          "; scripts/install-deps.sh installs it (Debian's package prometheus)";
      return;
    }
    const std::string prometheus_program = program;
    g_free(program);
    try {
      station_ = start_station(prometheus_program);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
      station_.reset();
    }
  }
  static void TearDownTestSuite() { station_.reset(); }

 protected:
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(station_);
  }
  void TearDown() override {
    if (HasFailure() && station_) std::cerr << station_->diagnostics() << "\n";
  }

  static const Station& station() { return *station_; }
  static const std::vector<Json>& lines_of(const std::string& channel) {
    return channel == "main" ? station_->single_lines : station_->station_lines;
  }

  static std::unique_ptr<Station> station_;
  static std::string setup_error_, skip_reason_;
};
std::unique_ptr<Station> PrometheusTest::station_;
std::string PrometheusTest::setup_error_, PrometheusTest::skip_reason_;

// Each scrape's frame scores are those of the frame message whose index the
// same scrape carries, every score of it, in the family of its kind.
TEST_F(PrometheusTest, FrameScoresEqualTheJsonLines) {
  for (const std::string channel : {"long", "other", "main"}) {
    SCOPED_TRACE("channel " + channel);
    const std::string selector = "{channel=\"" + channel + "\"}[5m]";
    std::map<std::uint64_t, const Json*> frames;
    for (const Json* line : messages(lines_of(channel), channel, "vmafexact-frame"))
      frames[line->at("fields").at("index").get<std::uint64_t>()] = &line->at("fields");
    ASSERT_FALSE(frames.empty());

    std::map<double, std::uint64_t> index_at;  // scrape time -> frame index
    for (const auto& [time, value] : station().one("vmafexact_last_frame_index" + selector).samples)
      index_at[time] = static_cast<std::uint64_t>(value);
    const auto frame_at = [&](double time) -> const Json& { return *frames.at(index_at.at(time)); };

    std::map<double, std::set<std::string>> scores_at;
    Mismatches scores;
    for (const Series& series :
         station().query("{__name__=~\"vmafexact_frame_.+\"," + selector.substr(1))) {
      const std::string score = series.labels.at("score");
      EXPECT_TRUE(std::regex_match(series.name(), std::regex("vmafexact_frame_" + kKinds)))
          << series.name();
      static const std::map<std::string, std::string> kind_of = {
          {"vmaf", "vmafexact_frame_vmaf"},
          {"psnr_y", "vmafexact_frame_psnr_decibels"},
          {"integer_adm2", "vmafexact_frame_feature"}};
      if (kind_of.contains(score)) {
        EXPECT_EQ(series.name(), kind_of.at(score));
      }
      for (const auto& [time, value] : series.samples) {
        ASSERT_TRUE(index_at.contains(time)) << series.name() << " scraped without the index";
        const Json& frame = frame_at(time);
        ASSERT_TRUE(frame.contains(score)) << score << " not in frame " << index_at.at(time);
        scores.check(same_double(value, frame.at(score)),
                     score + " of frame " + std::to_string(index_at.at(time)));
        scores_at[time].insert(score);
      }
    }
    // Every score of the frame, in every scrape.
    std::set<std::uint64_t> indices;
    for (const auto& [time, index] : index_at) {
      std::set<std::string> expected;
      for (const auto& [name, value] : frame_at(time).items())
        if (!kFrameFields.contains(name)) expected.insert(name);
      EXPECT_EQ(scores_at[time], expected) << "frame " << index;
      EXPECT_TRUE(expected.contains("vmaf") && expected.contains("psnr_y"));
      indices.insert(index);
    }
    // The running time and the frame counter of the same scrapes.
    for (const auto& [time, value] :
         station().one("vmafexact_last_frame_running_time_seconds" + selector).samples)
      EXPECT_TRUE(same_double(value, seconds_of(frame_at(time).at("running-time"))));
    // The media scored: the running time from the first frame to this one
    // (a channel that never restarted), in nanoseconds, then in seconds.
    const auto first_running_time = frames.begin()->second->at("running-time").get<std::uint64_t>();
    for (const auto& [time, value] :
         station().one("vmafexact_media_scored_seconds_total" + selector).samples)
      if (index_at.contains(time)) {
        const auto running_time = frame_at(time).at("running-time").get<std::uint64_t>();
        EXPECT_TRUE(
            same_double(value, static_cast<double>(running_time - first_running_time) / 1e9))
            << "media scored at frame " << index_at.at(time);
      }
    for (const auto& [time, value] :
         station().one("vmafexact_frames_scored_total" + selector).samples)
      if (index_at.contains(time)) {
        EXPECT_EQ(value, index_at.at(time) + 1.0);
      }
    EXPECT_TRUE(scores.none());
    std::cout << "[prometheus] " << channel << ": " << scores.checked() << " scores of "
              << indices.size() << " frames (" << index_at.size() << " scrapes) compared\n";
    EXPECT_GE(indices.size(), 3u) << "too few distinct frames scraped to compare";
  }
}

// The expected value of one sample of a window family, from its window message.
std::optional<Json> window_value(const Series& series, const Json& window) {
  const std::string name = series.name();
  const auto label = [&](const char* key) { return series.labels.at(key); };
  if (name == "vmafexact_window_frames") return window.at("frames");
  if (name == "vmafexact_window_frames_skipped_late") return window.at("frames-skipped-late");
  if (name == "vmafexact_window_frames_unpaired")
    return window.at(label("input") == "reference" ? "frames-unpaired-ref"
                                                   : "frames-unpaired-dist");
  if (name == "vmafexact_window_end_seconds") return Json(seconds_of(window.at("window-end")));
  std::smatch m;
  static const std::regex statistic("vmafexact_window_" + kKinds +
                                    "(_count|_mean|_harmonic_mean|_low_mean)?");
  if (!std::regex_match(name, m, statistic)) return std::nullopt;
  const std::string suffix = m[2];
  if (suffix == "_count") return window.at("frames");
  const Json& stats = window.at(label("score"));
  if (suffix.empty()) return stats.at(kQuantileStats.at(label("quantile")));
  if (suffix == "_low_mean") return stats.at(kLowMeanStats.at(label("share")));
  return stats.at(suffix.substr(1));
}

// Each scrape's window figures are those of the window message whose end the
// same scrape carries.
TEST_F(PrometheusTest, WindowsEqualTheJsonLines) {
  for (const std::string channel : {"long", "other", "main"}) {
    SCOPED_TRACE("channel " + channel);
    const std::string selector = "{channel=\"" + channel + "\"}[5m]";
    std::map<double, const Json*> windows;  // by their end, in seconds as exposed
    for (const Json* line : messages(lines_of(channel), channel, "vmafexact-window"))
      windows[seconds_of(line->at("fields").at("window-end"))] = &line->at("fields");
    std::map<double, double> end_at;
    for (const auto& [time, value] :
         station().one("vmafexact_window_end_seconds" + selector).samples)
      end_at[time] = value;

    std::set<double> ends;
    Mismatches figures;
    for (const Series& series :
         station().query("{__name__=~\"vmafexact_window_.+\"," + selector.substr(1))) {
      for (const auto& [time, value] : series.samples) {
        ASSERT_TRUE(end_at.contains(time)) << series.name() << " scraped without the window end";
        ASSERT_TRUE(windows.contains(end_at.at(time))) << "no window ends at " << end_at.at(time);
        const Json& window = *windows.at(end_at.at(time));
        const std::optional<Json> expected = window_value(series, window);
        ASSERT_TRUE(expected) << series.name() << ": a window family this test does not know";
        figures.check(same_double(value, *expected), series.name() + " " + own_labels(series) +
                                                         " at " + std::to_string(end_at.at(time)));
        ends.insert(end_at.at(time));
      }
    }
    EXPECT_TRUE(figures.none());
    std::cout << "[prometheus] " << channel << ": " << figures.checked() << " window figures of "
              << ends.size() << " windows compared\n";
    EXPECT_GE(ends.size(), 2u) << "too few windows scraped to compare";
  }
}

// The single channel, ended: its summary and counters as its last messages say.
TEST_F(PrometheusTest, SummaryAndCountersEqualTheJsonLines) {
  const std::vector<const Json*> summaries =
      messages(lines_of("main"), "main", "vmafexact-summary");
  ASSERT_EQ(summaries.size(), 1u);
  const Json& summary = summaries.front()->at("fields");
  const std::size_t frames = messages(lines_of("main"), "main", "vmafexact-frame").size();
  EXPECT_EQ(frames, 300u);  // max-lateness=-1: none skipped, however busy the machine

  std::size_t expected_figures = 0;  // each score's statistics in the message
  for (const auto& [score, stats] : summary.items())
    if (stats.is_object())
      for (const auto& item : stats.items()) {
        // A named reference, not a structured binding: the lambdas capture
        // it, which clang before 16 refuses.
        const std::string& stat = item.key();
        if (std::any_of(kQuantileStats.begin(), kQuantileStats.end(),
                        [&](const auto& q) { return q.second == stat; }) ||
            std::any_of(kLowMeanStats.begin(), kLowMeanStats.end(),
                        [&](const auto& q) { return q.second == stat; }) ||
            stat == "mean" || stat == "harmonic_mean")
          ++expected_figures;
      }
  Mismatches figures, aggregates;
  static const std::regex statistic("vmafexact_run_" + kKinds +
                                    "(_mean|_harmonic_mean|_low_mean)?");
  static const std::regex aggregate("vmafexact_run_aggregate_" + kKinds);
  for (const Series& series :
       station().query("{__name__=~\"vmafexact_run_.+\",channel=\"main\"}")) {
    const std::string name = series.name();
    const std::string score = series.labels.at("score");
    const double value = series.samples.at(0).second;
    std::smatch m;
    if (std::regex_match(name, aggregate)) {
      ASSERT_TRUE(summary.contains(score)) << name << " " << score << ": not in the summary";
      aggregates.check(same_double(value, summary.at(score)), name + " " + score);
      continue;
    }
    ASSERT_TRUE(std::regex_match(name, m, statistic)) << name << ": not known to this test";
    const std::string suffix = m[2];
    const Json& stats = summary.at(score);
    const std::string stat = suffix.empty() ? kQuantileStats.at(series.labels.at("quantile"))
                             : suffix == "_low_mean" ? kLowMeanStats.at(series.labels.at("share"))
                                                     : suffix.substr(1);
    figures.check(same_double(value, stats.at(stat)), name + " " + score + " " + stat);
  }
  EXPECT_TRUE(figures.none());
  EXPECT_TRUE(aggregates.none());
  EXPECT_EQ(figures.checked(), expected_figures)
      << "the summary's figures and the run families differ";
  EXPECT_GT(figures.checked(), 9u * 3);  // vmaf, psnr_y, the features: every statistic
  std::cout << "[prometheus] main: " << figures.checked() << " summary figures and "
            << aggregates.checked() << " aggregates compared\n";

  const auto at_end = [&](const std::string& expression) {
    return station().one(expression).samples.at(0).second;
  };
  EXPECT_EQ(at_end("vmafexact_frames_scored_total{channel=\"main\"}"), frames);
  EXPECT_EQ(at_end("vmafexact_frames_scored_total{channel=\"main\"}"),
            summary.at("frames-scored").get<double>());
  EXPECT_EQ(at_end("vmafexact_frames_unpaired_total{channel=\"main\",input=\"reference\"}"),
            summary.at("frames-unpaired-ref").get<double>());
  EXPECT_EQ(at_end("vmafexact_frames_unpaired_total{channel=\"main\",input=\"distorted\"}"),
            summary.at("frames-unpaired-dist").get<double>());
  EXPECT_EQ(at_end("vmafexact_frames_skipped_late_total{channel=\"main\"}"),
            summary.at("frames-skipped-late").get<double>());
  EXPECT_EQ(at_end("vmafexact_end_of_stream{channel=\"main\"}"), 1);
  EXPECT_EQ(at_end("vmafexact_channel_up{channel=\"main\"}"), 0);
  EXPECT_EQ(at_end("sum(vmafexact_channel_restarts_total{channel=\"main\"})"), 0);
  // The media scored: from the first frame's running time to the last one's.
  const std::vector<const Json*> frame_lines =
      messages(lines_of("main"), "main", "vmafexact-frame");
  const auto running_time = [](const Json* line) {
    return line->at("fields").at("running-time").get<std::uint64_t>();
  };
  EXPECT_TRUE(same_double(
      at_end("vmafexact_media_scored_seconds_total{channel=\"main\"}"),
      static_cast<double>(running_time(frame_lines.back()) - running_time(frame_lines.front())) /
          1e9));
}

// The running channels' counters at every scrape, and the failing one's restarts.
TEST_F(PrometheusTest, CountersOfTheStationAreConsistent) {
  const auto values = [&](const std::string& expression) {
    return station().one(expression).samples;
  };
  for (const std::string channel : {"long", "other"}) {
    SCOPED_TRACE("channel " + channel);
    const std::string labels = "{channel=\"" + channel + "\"}";
    // Never down, rising while the channel plays, never past the frames written.
    const auto scored = values("vmafexact_frames_scored_total" + labels + "[5m]");
    ASSERT_GE(scored.size(), 3u);
    for (std::size_t i = 1; i < scored.size(); ++i)
      EXPECT_GE(scored[i].second, scored[i - 1].second);
    EXPECT_GT(scored.back().second, scored.front().second);
    EXPECT_LE(scored.back().second, messages(lines_of(channel), channel, "vmafexact-frame").size());
    const auto media = values("vmafexact_media_scored_seconds_total" + labels + "[5m]");
    for (std::size_t i = 1; i < media.size(); ++i) EXPECT_GE(media[i].second, media[i - 1].second);
    EXPECT_GT(media.back().second, media.front().second);
    EXPECT_EQ(values("vmafexact_channel_up" + labels).at(0).second, 1);
    EXPECT_EQ(values("vmafexact_end_of_stream" + labels).at(0).second, 0);
    EXPECT_EQ(values("sum(vmafexact_channel_restarts_total" + labels + ")").at(0).second, 0);
  }

  // The broken channel: down, restarted for its errors, and every reason written.
  EXPECT_EQ(values("vmafexact_channel_up{channel=\"broken\"}").at(0).second, 0);
  EXPECT_GE(
      values("vmafexact_channel_restarts_total{channel=\"broken\",reason=\"error\"}").at(0).second,
      3);
  EXPECT_EQ(station().query("vmafexact_channel_restarts_total{channel=\"broken\"}").size(), 3u);

  // Alerts: raised as often as the messages say, with their value and threshold.
  for (const std::string channel : {"long", "other", "main"}) {
    SCOPED_TRACE("channel " + channel);
    const std::vector<const Json*> alerts = messages(lines_of(channel), channel, "vmafexact-alert");
    ASSERT_FALSE(alerts.empty());
    const Json& last = alerts.back()->at("fields");
    const std::string labels = "{channel=\"" + channel + "\",alert=\"vmaf<1000\"}";
    EXPECT_EQ(values("vmafexact_alert_active" + labels).at(0).second,
              last.at("state") == "raised" ? 1 : 0);
    EXPECT_EQ(values("vmafexact_alert_raised_total" + labels).at(0).second,
              std::count_if(alerts.begin(), alerts.end(), [](const Json* line) {
                return line->at("fields").at("state") == "raised";
              }));
    EXPECT_TRUE(
        same_double(values("vmafexact_alert_value" + labels).at(0).second, last.at("value")));
    EXPECT_TRUE(same_double(values("vmafexact_alert_threshold" + labels).at(0).second,
                            last.at("threshold")));
  }
  // Every channel's info, and the monitors' build.
  EXPECT_EQ(station().query("vmafexact_channel_info{channel=~\"long|other|main\"}").size(), 3u);
  EXPECT_EQ(station().query("vmafexact_build_info").size(), 2u);
}

// Prometheus took every scrape as it came: both targets up without an error
// at the end, and no sample refused (duplicates, out of order or bounds) in
// any scrape, by Prometheus' own counters.
TEST_F(PrometheusTest, EveryScrapeWasTakenWhole) {
  // Held here: a range-for over get(...).at(...) would outlive get's answer.
  const Json targets = station().api().get("/api/v1/targets?state=active").at("activeTargets");
  EXPECT_EQ(targets.size(), 2u);
  for (const Json& target : targets) {
    EXPECT_EQ(target.at("health"), "up") << target.dump();
    EXPECT_EQ(target.at("lastError"), "") << target.dump();
  }
  const vmafexact::system_test::HttpResponse own =
      vmafexact::system_test::http_get(station().api().port(), "/metrics");
  ASSERT_EQ(own.status, 200u);
  std::size_t counters = 0;
  std::istringstream lines(own.body);
  for (std::string line; std::getline(lines, line);) {
    static const std::regex refused(
        "prometheus_target_scrapes_(sample_duplicate_timestamp|sample_out_of_order|"
        "sample_out_of_bounds|exceeded_sample_limit|exceeded_body_size_limit)_total (.+)");
    std::smatch m;
    if (!std::regex_match(line, m, refused)) continue;
    ++counters;
    EXPECT_EQ(m[2].str(), "0") << line;
  }
  EXPECT_EQ(counters, 5u) << "Prometheus' own counters of refused samples not found";
}

// ---------------------------------------------------------------- deploy/

// Grafana's variables as a dashboard over this test's data would set them:
// $__rate_interval is 4 scrape intervals and more, $__range the data's span.
std::map<std::string, std::string> grafana_builtins(double range_seconds) {
  const long range = std::lround(std::ceil(range_seconds));
  return {{"__rate_interval", "5s"},
          {"__interval", "2s"},
          {"__interval_ms", "2000"},
          {"__range", std::to_string(range) + "s"},
          {"__range_s", std::to_string(range)},
          {"__range_ms", std::to_string(range * 1000)}};
}

// `expression` with $name, ${name}, ${name:format} and [[name]] replaced;
// throws on a variable `values` does not have.
std::string substituted(const std::string& expression,
                        const std::map<std::string, std::string>& values) {
  static const std::regex variable(
      R"(\$\{([A-Za-z0-9_]+)(:[^}]*)?\}|\[\[([A-Za-z0-9_]+)(:[^\]]*)?\]\]|\$([A-Za-z0-9_]+))");
  std::string result;
  auto from = expression.cbegin();
  for (std::sregex_iterator it(expression.begin(), expression.end(), variable), end; it != end;
       ++it) {
    const std::smatch& m = *it;
    const std::string name = m[1].matched ? m[1] : m[3].matched ? m[3] : m[5];
    if (!values.contains(name))
      throw std::runtime_error("unknown variable $" + name + " in " + expression);
    result.append(from, m[0].first).append(values.at(name));
    from = m[0].second;
  }
  return result.append(from, expression.cend());
}

struct PanelQuery {
  std::string panel, expression;
  bool instant = false;
};

// Every target's expr, in panels and in rows' panels.
void collect_queries(const Json& node, std::vector<PanelQuery>& queries) {
  if (node.is_object()) {
    if (node.contains("targets") && node.at("targets").is_array())
      for (const Json& target : node.at("targets"))
        if (target.contains("expr") && target.at("expr").is_string())
          queries.push_back({node.value("title", "?"), target.at("expr").get<std::string>(),
                             target.value("instant", false)});
    for (const auto& [key, value] : node.items()) collect_queries(value, queries);
  } else if (node.is_array()) {
    for (const Json& value : node) collect_queries(value, queries);
  }
}

// The values of a query variable (label_values(METRIC, LABEL) or
// label_values(LABEL)) over the data, as Grafana would list them.
std::set<std::string> variable_values(const Station& station, const std::string& query) {
  static const std::regex label_values(
      R"(\s*label_values\((?:(.+),)?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*)");
  std::smatch m;
  if (!std::regex_match(query, m, label_values))
    throw std::runtime_error("a variable query this test does not know: " + query);
  const std::string label = m[2];
  const std::string series = m[1].matched ? m[1].str() : "{" + label + "!=\"\"}";
  std::set<std::string> values;
  for (const Series& found : station.query("count by (" + label + ") (" + series + ")"))
    values.insert(found.labels.at(label));
  return values;
}

// Every query of the shipped dashboard, the channel variable set to each
// channel in turn: no error for any, data for at least one.
TEST_F(PrometheusTest, DashboardQueriesReturnData) {
  const fs::path folder = fs::path(kSourceRoot) / "deploy" / "grafana";
  std::vector<fs::path> dashboards;
  if (fs::is_directory(folder))
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().extension() == ".json") dashboards.push_back(entry.path());
  ASSERT_FALSE(dashboards.empty()) << "no dashboard in " << folder;
  const double range = station().end_time - station().start_time;
  for (const fs::path& path : dashboards) {
    SCOPED_TRACE(path.filename().string());
    const Json dashboard = Json::parse(std::ifstream(path));
    std::map<std::string, std::string> values = grafana_builtins(range);
    std::set<std::string> channels;
    for (const Json& variable : dashboard.at("templating").at("list")) {
      const std::string name = variable.at("name");
      const std::string type = variable.value("type", "");
      if (type == "datasource") continue;
      if (type == "query") {
        const Json& query = variable.at("query");
        const std::string text =
            query.is_object() ? query.at("query").get<std::string>() : query.get<std::string>();
        const std::set<std::string> found = variable_values(station(), text);
        EXPECT_FALSE(found.empty()) << "variable " << name << ": " << text << " found nothing";
        if (name == "channel") {
          channels = found;
          for (const char* expected : {"long", "other", "broken", "main"})
            EXPECT_TRUE(found.contains(expected)) << "$channel does not list " << expected;
        } else if (!found.empty()) {
          values[name] = *found.begin();
        }
        continue;
      }
      // custom, constant, textbox, interval: the value the dashboard is saved with.
      Json current = variable.value("current", Json::object()).value("value", Json());
      if (current.is_array()) current = current.empty() ? Json() : current.at(0);
      ASSERT_TRUE(current.is_string()) << "variable " << name << " has no current value";
      values[name] = current == "$__all" ? ".+" : current.get<std::string>();
    }
    ASSERT_FALSE(channels.empty()) << "the dashboard has no $channel variable";

    std::vector<PanelQuery> queries;
    collect_queries(dashboard, queries);
    EXPECT_GE(queries.size(), 5u);
    for (const PanelQuery& query : queries) {
      SCOPED_TRACE("panel \"" + query.panel + "\": " + query.expression);
      std::vector<std::string> with_data;
      for (const std::string& channel : channels) {
        values["channel"] = channel;
        std::string expression;
        ASSERT_NO_THROW(expression = substituted(query.expression, values));
        try {
          const bool instant_data = !station().query(expression).empty();
          // A time-series panel asks for the range (step: $__interval).
          const bool range_data = query.instant || !series_of(station().api().query_range(
                                                                  expression, station().start_time,
                                                                  station().end_time, 2))
                                                        .empty();
          if (instant_data && range_data) with_data.push_back(channel);
        } catch (const std::runtime_error& e) {
          ADD_FAILURE() << "channel " << channel << ": " << e.what();
        }
      }
      EXPECT_FALSE(with_data.empty()) << "no data for any channel";
    }
    std::cout << "[prometheus] " << path.filename().string() << ": " << queries.size()
              << " queries x " << channels.size() << " channels evaluated\n";
  }
}

// The shipped rules, loaded by Prometheus and evaluated every second on the
// data: none in error; every recording rule's expression returns data and its
// recorded series exists; every alerting rule's expression evaluates.
TEST_F(PrometheusTest, RulesEvaluateOnTheData) {
  std::set<std::string> files;
  const fs::path folder = fs::path(kSourceRoot) / "deploy" / "prometheus";
  if (fs::is_directory(folder))
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().filename().string().ends_with(".rules.yml"))
        files.insert(entry.path().string());
  ASSERT_FALSE(files.empty()) << "no *.rules.yml in " << folder;

  const Json groups = station().api().get("/api/v1/rules").at("groups");
  std::set<std::string> loaded;
  std::size_t recording = 0, alerting = 0;
  for (const Json& group : groups) {
    loaded.insert(group.at("file").get<std::string>());
    for (const Json& rule : group.at("rules")) {
      const std::string name = rule.at("name"), expression = rule.at("query");
      SCOPED_TRACE(group.at("name").get<std::string>() + "/" + name + ": " + expression);
      EXPECT_NE(rule.at("health"), "err") << rule.value("lastError", "");
      EXPECT_EQ(rule.value("lastError", ""), "");
      std::vector<Series> result;
      ASSERT_NO_THROW(result = station().query(expression));
      if (rule.at("type") == "recording") {
        ++recording;
        EXPECT_FALSE(result.empty()) << "no data";
        EXPECT_FALSE(station().query(name).empty()) << "Prometheus recorded nothing";
      } else {
        ++alerting;
      }
    }
  }
  EXPECT_EQ(loaded, files);
  EXPECT_GE(recording, 1u);
  EXPECT_GE(alerting, 1u);
  // The failing channel restarts every second: the restart alert fires at
  // once (it has no `for`), as an operator's Prometheus would show it.
  EXPECT_FALSE(station().query("ALERTS{alertstate=\"firing\",channel=\"broken\"}").empty());
  std::cout << "[prometheus] rules: " << recording << " recording, " << alerting
            << " alerting evaluated\n";
}

}  // namespace
