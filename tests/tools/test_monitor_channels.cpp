// vmafexact-monitor's station (--config): several channels in one program,
// each restarted with backoff when its source fails or stalls while the others
// score on, reloaded on SIGHUP, ended together on SIGTERM; the restart policy
// and the shared CUDA context on their own (tools/monitor/channel.h).
// The program is run as test_monitor.cpp runs it, its /metrics read over HTTP.

#include <fcntl.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../common/build_paths.h"
#include "../common/loopback.h"
#include "channel.h"
#include "child_process.h"

using vmafexact::test::free_loopback_port;
using vmafexact::test::kMonitorPath;
using vmafexact::test::loopback_address;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;
namespace monitor_tool = vmafexact::monitor_tool;

// ---------------------------------------------------------------- the restart policy

TEST(RestartBackoff, DoublesUpToTheCapAndStartsAgainAfterAHealthyRun) {
  monitor_tool::RestartBackoff backoff(1 * GST_SECOND, 8 * GST_SECOND);
  GstClockTime now = 100 * GST_SECOND;
  // Runs that fail at once: 1, 2, 4, 8, 8 s.
  std::vector<GstClockTime> delays;
  for (int i = 0; i < 5; ++i) {
    delays.push_back(backoff.delay_after_failure(now, now + GST_SECOND / 10));
    now += 20 * GST_SECOND;
  }
  EXPECT_EQ(delays, (std::vector<GstClockTime>{1 * GST_SECOND, 2 * GST_SECOND, 4 * GST_SECOND,
                                               8 * GST_SECOND, 8 * GST_SECOND}));
  // A run just under the cap is not yet healthy; one as long as the cap is.
  EXPECT_EQ(backoff.delay_after_failure(now, now + 8 * GST_SECOND - 1), 8 * GST_SECOND);
  EXPECT_EQ(backoff.delay_after_failure(now, now + 8 * GST_SECOND), 1 * GST_SECOND);
  EXPECT_EQ(backoff.delay_after_failure(now, now + 1), 2 * GST_SECOND);
  backoff.reset();
  EXPECT_EQ(backoff.delay_after_failure(now, now + 1), 1 * GST_SECOND);
}

TEST(RestartBackoff, NeverExceedsTheCapNorOverflows) {
  // A first delay above the cap waits the cap.
  monitor_tool::RestartBackoff above(10 * GST_SECOND, 3 * GST_SECOND);
  EXPECT_EQ(above.delay_after_failure(0, 1), 3 * GST_SECOND);
  // A cap near the clock's range: doubling stops there, without wrapping.
  const GstClockTime huge = G_MAXUINT64 / 2 + 12345;
  monitor_tool::RestartBackoff wide(GST_SECOND, huge);
  GstClockTime previous = 0;
  for (int i = 0; i < 80; ++i) {
    const GstClockTime delay = wide.delay_after_failure(0, 1);
    EXPECT_GE(delay, previous);
    EXPECT_LE(delay, huge);
    previous = delay;
  }
  EXPECT_EQ(previous, huge);
}

// ---------------------------------------------------------------- the shared GPU context

using ElementPtr = vmafexact::tools::GstObjectPtr<GstElement>;

// A pipeline holding one identity element, watched by `contexts`.
struct WatchedPipeline {
  ElementPtr pipeline;
  GstElement* element = nullptr;  // owned by the pipeline
  explicit WatchedPipeline(monitor_tool::SharedContexts& contexts) {
    pipeline.reset(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new(nullptr))));
    element = gst_element_factory_make("identity", nullptr);
    gst_bin_add(GST_BIN(pipeline.get()), element);
    GstBus* bus = gst_element_get_bus(pipeline.get());
    contexts.watch(bus);
    gst_object_unref(bus);
  }
  void post_have_context(GstContext* context) {
    gst_element_post_message(element, gst_message_new_have_context(GST_OBJECT(element), context));
  }
  void post_need_context(const char* type) {
    gst_element_post_message(element, gst_message_new_need_context(GST_OBJECT(element), type));
  }
  // The element's context of `type` (set on it), with a reference, or null.
  GstContext* context(const char* type) { return gst_element_get_context(element, type); }
};

TEST(SharedContexts, EveryPipelineGetsTheFirstCudaContextPosted) {
  monitor_tool::SharedContexts contexts;
  constexpr const char* kCuda = monitor_tool::SharedContexts::kCudaContextType;
  WatchedPipeline first(contexts), second(contexts), third(contexts);

  // Before any pipeline has one, a need is left to GStreamer (a new context).
  second.post_need_context(kCuda);
  EXPECT_EQ(second.context(kCuda), nullptr);

  GstContext* cuda = gst_context_new(kCuda, TRUE);
  first.post_have_context(gst_context_ref(cuda));
  // A later context (another pipeline made its own meanwhile) does not replace it.
  third.post_have_context(gst_context_new(kCuda, TRUE));
  // Another type is not shared.
  first.post_have_context(gst_context_new("gst.gl.GLDisplay", TRUE));

  second.post_need_context(kCuda);
  GstContext* answered = second.context(kCuda);
  EXPECT_EQ(answered, cuda);
  if (answered) gst_context_unref(answered);
  second.post_need_context("gst.gl.GLDisplay");
  EXPECT_EQ(second.context("gst.gl.GLDisplay"), nullptr);
  GstContext* kept = contexts.context(kCuda);
  EXPECT_EQ(kept, cuda);
  if (kept) gst_context_unref(kept);
  gst_context_unref(cuda);
}

// ---------------------------------------------------------------- the program

// vmafexact-monitor, with the port it reports.
class MonitorProcess : public vmafexact::test::ChildProcess {
 public:
  MonitorProcess(std::vector<std::string> arguments, const fs::path& stderr_path,
                 const fs::path& stdout_path = {})
      : ChildProcess(with_program(std::move(arguments)), stderr_path, stdout_path) {}

  std::optional<int> wait_port(std::chrono::seconds timeout) {
    static const std::regex serving("serving http://127\\.0\\.0\\.1:([0-9]+)/metrics");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      std::smatch m;
      const std::string text = error_output();
      if (std::regex_search(text, m, serving)) return std::stoi(m[1]);
      if (!running()) return std::nullopt;
      pump(50ms);
    }
    return std::nullopt;
  }

  // Waits until standard error holds `text`; false at the timeout.
  bool wait_for_error_text(const std::string& text, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (error_output().find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() >= deadline || !running()) return false;
      pump(50ms);
    }
    return true;
  }

 private:
  static std::vector<std::string> with_program(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), kMonitorPath);
    return arguments;
  }
};

// GET /metrics (no Accept header: the text format) on a connection of its
// own; its body, or nothing when the monitor does not answer within 5 s.
std::optional<std::string> scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  const timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  const sockaddr_in address = loopback_address(port);
  std::string text;
  const std::string request =
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buffer[16384];
    for (ssize_t got; (got = recv(fd, buffer, sizeof buffer, 0)) > 0;)
      text.append(buffer, static_cast<std::size_t>(got));
  }
  close(fd);
  const std::size_t body = text.find("\r\n\r\n");
  if (text.compare(0, 12, "HTTP/1.1 200") != 0 || body == std::string::npos) return std::nullopt;
  return text.substr(body + 4);
}

// The samples of one scrape: "name{label="value",...}" (labels sorted) -> value.
using Samples = std::map<std::string, double>;

std::string key(const std::string& name, std::map<std::string, std::string> labels) {
  std::string text = name;
  if (labels.empty()) return text;
  text += '{';
  bool first = true;
  for (const auto& [label, value] : labels) {
    text += (first ? "" : ",") + label + "=\"" + value + "\"";
    first = false;
  }
  return text + '}';
}

Samples parse_samples(const std::string& body) {
  Samples samples;
  static const std::regex line_pattern("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
  static const std::regex label_pattern("([a-zA-Z_][a-zA-Z0-9_]*)=\"((\\\\.|[^\"\\\\])*)\",?");
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (line.empty() || line[0] == '#' || !std::regex_match(line, m, line_pattern)) continue;
    std::map<std::string, std::string> labels;
    const std::string label_text = m[3];
    for (std::sregex_iterator it(label_text.begin(), label_text.end(), label_pattern), end;
         it != end; ++it)
      labels[(*it)[1]] = (*it)[2];
    samples[key(m[1], labels)] = std::strtod(std::string(m[4]).c_str(), nullptr);
  }
  return samples;
}

std::optional<double> value(const Samples& samples, const std::string& name,
                            const std::map<std::string, std::string>& labels) {
  const auto found = samples.find(key(name, labels));
  return found == samples.end() ? std::nullopt : std::optional<double>(found->second);
}

double frames(const Samples& samples, const std::string& channel) {
  return value(samples, "vmafexact_frames_scored_total", {{"channel", channel}}).value_or(-1);
}
double up(const Samples& samples, const std::string& channel) {
  return value(samples, "vmafexact_channel_up", {{"channel", channel}}).value_or(-1);
}
double restarts(const Samples& samples, const std::string& channel) {
  double sum = 0;
  for (const char* reason : {"error", "eos", "stall"})
    sum += value(samples, "vmafexact_channel_restarts_total",
                 {{"channel", channel}, {"reason", reason}})
               .value_or(0);
  return sum;
}

// Scrapes until `done` holds for a scrape (returned), or the deadline (then
// the last scrape, the failure reported by the caller's check).
Samples scrape_until(MonitorProcess& monitor, int port, std::chrono::seconds timeout,
                     const std::function<bool(const Samples&)>& done) {
  Samples samples;
  for (auto deadline = std::chrono::steady_clock::now() + timeout;
       std::chrono::steady_clock::now() < deadline && monitor.running();) {
    if (const auto body = scrape(port)) {
      samples = parse_samples(*body);
      if (done(samples)) break;
    }
    MonitorProcess::pump(100ms);
  }
  return samples;
}

std::vector<Json> read_json_lines(const fs::path& path) {
  std::vector<Json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

constexpr const char* kCaps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";

// A channel scoring a live test pattern against itself, cheaply: PSNR only.
std::string live_pipeline(const std::string& pattern = "ball", const std::string& extra = "") {
  return "videotestsrc is-live=true pattern=" + pattern + " ! " + kCaps +
         " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v "
         "model=\"\" features=psnr threads=1 " +
         extra + " ! fakesink";
}

// True once something accepts connections on 127.0.0.1:port, so that a
// test starts the monitor only after its sender listens (a refused first
// connection would count as a restart the test did not cause).
bool wait_tcp_listening(int port, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const sockaddr_in address = loopback_address(port);
    const bool accepted =
        connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    if (accepted) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class MonitorChannelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/vmafexact-channels-XXXXXX";
    ASSERT_TRUE(g_mkdtemp(templ));
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_config(const std::string& text, const std::string& name = "station.conf") {
    const fs::path path = dir_ / name;
    // Replaced as an editor saving it would: a new file renamed over the old.
    std::ofstream(dir_ / (name + ".new")) << text;
    fs::rename(dir_ / (name + ".new"), path);
    return path;
  }

  fs::path dir_;
};

constexpr const char* kQuickRestarts =
    "[monitor]\n"
    "restart-delay=100ms\n"
    "restart-delay-max=1s\n"
    "stall-timeout=3s\n";

// The issue's "Done when": two channels; one's source is killed; it is
// reported down, restarted (counted) and up again once the source is back,
// while the other channel's frame count keeps rising throughout.
TEST_F(MonitorChannelsTest, AKilledSourceIsRestartedWhileTheOtherChannelScoresOn) {
  const int port = free_loopback_port();
  const std::vector<std::string> sender_arguments = {"gst-launch-1.0",
                                                     "-q",
                                                     "videotestsrc",
                                                     "is-live=true",
                                                     "pattern=smpte",
                                                     "!",
                                                     std::string(kCaps),
                                                     "!",
                                                     "gdppay",
                                                     "!",
                                                     "tcpserversink",
                                                     "host=127.0.0.1",
                                                     "port=" + std::to_string(port),
                                                     "sync=false"};
  auto sender =
      std::make_unique<vmafexact::test::ChildProcess>(sender_arguments, dir_ / "sender.txt");
  ASSERT_TRUE(wait_tcp_listening(port, 20s)) << sender->error_output();
  const std::string fed =
      "tcpclientsrc host=127.0.0.1 port=" + std::to_string(port) +
      " ! gdpdepay ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink "
      "vmafexact name=v model=\"\" features=psnr threads=1 ! fakesink";
  const fs::path config =
      write_config(std::string(kQuickRestarts) + "[channel fed]\npipeline=" + fed +
                   "\n[channel steady]\npipeline=" + live_pipeline() + "\n");
  const fs::path jsonl = dir_ / "station.jsonl";
  MonitorProcess monitor(
      {"--config", config.string(), "--listen", "127.0.0.1:0", "--jsonl", jsonl.string()},
      dir_ / "stderr.txt");
  const auto http_port = monitor.wait_port(30s);
  ASSERT_TRUE(http_port) << monitor.error_output();

  Samples samples = scrape_until(monitor, *http_port, 30s, [](const Samples& s) {
    return up(s, "fed") == 1 && up(s, "steady") == 1 && frames(s, "fed") >= 5;
  });
  ASSERT_EQ(up(samples, "fed"), 1) << monitor.error_output() << sender->error_output();
  ASSERT_EQ(up(samples, "steady"), 1) << monitor.error_output();
  const double fed_before = frames(samples, "fed");
  EXPECT_EQ(restarts(samples, "fed"), 0);

  // The source is killed: the channel goes down and is restarted (its
  // reconnections refused, with backoff, while the sender is away).
  sender->send_signal(SIGKILL);
  ASSERT_TRUE(sender->wait_exit(10s));
  samples = scrape_until(monitor, *http_port, 20s, [](const Samples& s) {
    return up(s, "fed") == 0 && restarts(s, "fed") >= 2;
  });
  EXPECT_EQ(up(samples, "fed"), 0) << monitor.error_output();
  EXPECT_GE(restarts(samples, "fed"), 2) << monitor.error_output();
  const double steady_while_down = frames(samples, "steady");

  // The other channel scores on meanwhile, never restarted.
  samples = scrape_until(monitor, *http_port, 20s, [&](const Samples& s) {
    return frames(s, "steady") >= steady_while_down + 10;
  });
  EXPECT_GE(frames(samples, "steady"), steady_while_down + 10) << monitor.error_output();
  EXPECT_EQ(up(samples, "steady"), 1);
  EXPECT_EQ(restarts(samples, "steady"), 0);

  // The source is back: the next restart reaches it; counters carried over.
  sender = std::make_unique<vmafexact::test::ChildProcess>(sender_arguments, dir_ / "sender.txt");
  samples = scrape_until(monitor, *http_port, 30s, [&](const Samples& s) {
    return up(s, "fed") == 1 && frames(s, "fed") > fed_before + 5;
  });
  EXPECT_EQ(up(samples, "fed"), 1) << monitor.error_output();
  EXPECT_GT(frames(samples, "fed"), fed_before + 5) << monitor.error_output();
  EXPECT_NE(monitor.error_output().find("channel fed: down ("), std::string::npos)
      << monitor.error_output();

  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
  // Every line names its channel; both channels ended with their summary.
  std::set<std::string> summaries;
  for (const Json& line : read_json_lines(jsonl)) {
    ASSERT_TRUE(line.contains("channel")) << line.dump();
    if (line.at("message") == "vmafexact-summary") summaries.insert(line.at("channel"));
  }
  EXPECT_EQ(summaries, (std::set<std::string>{"fed", "steady"}));
}

// A channel that never scores a frame (its reference input never sends) is
// a stall from its start: restarted, counted as such, never up.
TEST_F(MonitorChannelsTest, AChannelThatScoresNothingIsRestartedAsStalled) {
  const fs::path config = write_config(
      "[monitor]\nrestart-delay=100ms\nrestart-delay-max=200ms\nstall-timeout=500ms\n"
      "[channel silent]\npipeline=udpsrc port=0 address=127.0.0.1 caps=\"" +
      std::string(kCaps) + "\" ! v.ref_sink videotestsrc is-live=true ! " + kCaps +
      " ! v.dist_sink vmafexact name=v model=\"\" features=psnr threads=1 ! fakesink\n");
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                         dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  const Samples samples = scrape_until(monitor, *port, 20s, [](const Samples& s) {
    return value(s, "vmafexact_channel_restarts_total",
                 {{"channel", "silent"}, {"reason", "stall"}})
               .value_or(0) >= 2;
  });
  EXPECT_GE(value(samples, "vmafexact_channel_restarts_total",
                  {{"channel", "silent"}, {"reason", "stall"}})
                .value_or(0),
            2)
      << monitor.error_output();
  EXPECT_EQ(up(samples, "silent"), 0);
  EXPECT_NE(monitor.error_output().find("channel silent: no frame scored for"), std::string::npos)
      << monitor.error_output();
  // SIGTERM ends it whether it is down or starting again.
  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

// What /proc says of a process: resident memory, threads, descriptors.
struct ProcessUse {
  long rss_kib = -1;
  long threads = -1;
  long descriptors = -1;
};
ProcessUse process_use(const std::string& pid) {
  ProcessUse use;
  std::ifstream status("/proc/" + pid + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) use.rss_kib = std::stol(line.substr(6));
    if (line.rfind("Threads:", 0) == 0) use.threads = std::stol(line.substr(8));
  }
  std::error_code error;
  use.descriptors = 0;
  for (fs::directory_iterator it("/proc/" + pid + "/fd", error), end; !error && it != end;
       it.increment(error))
    ++use.descriptors;
  return use;
}

// Months of a failing input, compressed: two channels restart about ten times
// a second each (one whose input cannot be opened, one whose input ends after
// five frames). Nothing a restart makes may stay behind: threads and
// descriptors stay at their level, and memory grows by far less than one
// pipeline per restart would (a leaked pipeline is hundreds of KiB).
TEST_F(MonitorChannelsTest, EndlessRestartsLeaveThreadsDescriptorsAndMemoryFlat) {
  const fs::path config = write_config(
      "[monitor]\nrestart-delay=50ms\nrestart-delay-max=50ms\nstall-timeout=2s\n"
      "[channel missing]\nref=file://" + (dir_ / "none-ref.mkv").string() +
      "\ndist=file://" + (dir_ / "none-dist.mkv").string() +
      "\n[channel ends]\npipeline=videotestsrc num-buffers=5 ! " + kCaps +
      " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v "
      "model=\"\" features=psnr threads=1 ! fakesink sync=false\n");
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                         dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  auto total_restarts = [&] {
    const auto body = scrape(*port);
    if (!body) return -1.0;
    const Samples samples = parse_samples(*body);
    return restarts(samples, "missing") + restarts(samples, "ends");
  };
  // Warmed up: GStreamer's plugins loaded, malloc's arenas made.
  const auto warm_deadline = std::chrono::steady_clock::now() + 30s;
  while (total_restarts() < 40 && std::chrono::steady_clock::now() < warm_deadline &&
         monitor.running())
    MonitorProcess::pump(100ms);
  const double restarts_before = total_restarts();
  ASSERT_GE(restarts_before, 40) << monitor.error_output();
  ProcessUse first = process_use(monitor.pid()), most = first, last = first;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  double restarts_now = restarts_before;
  while (restarts_now < restarts_before + 300 && std::chrono::steady_clock::now() < deadline &&
         monitor.running()) {
    MonitorProcess::pump(200ms);
    last = process_use(monitor.pid());
    most.threads = std::max(most.threads, last.threads);
    most.descriptors = std::max(most.descriptors, last.descriptors);
    restarts_now = total_restarts();
  }
  ASSERT_GE(restarts_now, restarts_before + 300) << monitor.error_output();
  std::printf("over %.0f restarts: RSS %ld -> %ld KiB, threads %ld -> %ld, descriptors %ld -> %ld\n",
              restarts_now - restarts_before, first.rss_kib,
              last.rss_kib, first.threads, most.threads, first.descriptors,
              most.descriptors);
  // A stop in flight holds a worker thread and a pipeline's few threads and
  // descriptors for a moment: the levels may wobble by that, not grow with
  // the 300 restarts.
  EXPECT_LE(most.threads, first.threads + 12) << "threads " << first.threads << " -> " << most.threads;
  EXPECT_LE(most.descriptors, first.descriptors + 12)
      << "descriptors " << first.descriptors << " -> " << most.descriptors;
#if !defined(__SANITIZE_ADDRESS__)
  // Unsanitized, 300 restarts grow RSS by 0.2-0.4 MiB. Under ASan RSS measures
  // the sanitizer too: its stack depot and thread records keep about 25 KiB a
  // restart (7-8 MiB here), and LeakSanitizer checks the leaks at exit instead.
  EXPECT_LT(last.rss_kib - first.rss_kib, 8 * 1024)
      << "RSS " << first.rss_kib << " KiB -> " << last.rss_kib << " KiB over "
      << restarts_now - restarts_before << " restarts";
#endif
  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

// SIGTERM while a station's channel is down and restarting (its input still
// missing): its start failing once more while the station stops is no
// failure of the shutdown, so the exit status is 0 (systemd would otherwise
// mark the unit failed on every stop). The signal lands at a random point of
// the channel's restart cycle (waiting, or starting, when the failure comes
// after the signal): eight runs, each must exit 0.
TEST_F(MonitorChannelsTest, SigtermWhileAChannelRestartsExitsZero) {
  const fs::path config = write_config(
      "[monitor]\nrestart-delay=10ms\nrestart-delay-max=10ms\nstall-timeout=0\n"
      "[channel missing]\nref=file://" + (dir_ / "none-ref.mkv").string() +
      "\ndist=file://" + (dir_ / "none-dist.mkv").string() +
      "\n[channel steady]\npipeline=" + live_pipeline() + "\n");
  for (int run = 0; run < 8; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                           dir_ / ("stderr" + std::to_string(run) + ".txt"));
    const auto port = monitor.wait_port(30s);
    ASSERT_TRUE(port) << monitor.error_output();
    ASSERT_GE(frames(scrape_until(monitor, *port, 30s,
                                  [](const Samples& s) { return frames(s, "steady") >= 2; }),
                     "steady"),
              2)
        << monitor.error_output();
    // A few milliseconds more each run: another point of the restart cycle.
    MonitorProcess::pump(std::chrono::milliseconds(3 * run));
    monitor.send_signal(SIGTERM);
    EXPECT_EQ(monitor.wait_exit(20s), std::optional<int>(0)) << monitor.error_output();
  }
}

// A FIFO the test holds open and never writes to: a filesrc reading it blocks
// in read() until the test closes it, and so does its pipeline's change to
// NULL (filesrc cannot interrupt the read) and an EOS sent into it.
class SilentFifo {
 public:
  explicit SilentFifo(const fs::path& path) : path_(path) {
    if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
    writer_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);  // no reader waits for a writer
  }
  ~SilentFifo() { close(); }
  const fs::path& path() const { return path_; }
  // Its readers get end of file: their reads, and the pipelines, return.
  void close() {
    if (writer_ >= 0) ::close(writer_);
    writer_ = -1;
  }
  // A channel whose reference is the FIFO (no frame ever scored) and whose
  // distorted input, not live, blocks in the element waiting for a partner.
  std::string pipeline() const {
    return "filesrc location=" + path_.string() + " ! v.ref_sink videotestsrc ! " + kCaps +
           " ! v.dist_sink vmafexact name=v model=\"\" features=psnr threads=1 ! fakesink";
  }

 private:
  fs::path path_;
  int writer_ = -1;
};

// A channel whose pipeline cannot stop (a streaming thread that never
// returns) is stopped on a thread of its own: the loop goes on serving
// /metrics, the other channel scores on, the stuck channel is restarted
// (and, on SIGHUP, removed) all the same. Before, going to NULL on the main
// loop would have stopped all of it.
TEST_F(MonitorChannelsTest, AStuckPipelineHoldsNeitherTheLoopNorTheOtherChannels) {
  SilentFifo fifo(dir_ / "silent.fifo");
  const std::string head =
      "[monitor]\nrestart-delay=100ms\nrestart-delay-max=200ms\nstall-timeout=500ms\n";
  const std::string steady = "[channel steady]\npipeline=" + live_pipeline() + "\n";
  const fs::path config =
      write_config(head + steady + "[channel stuck]\npipeline=" + fifo.pipeline() + "\n");
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                         dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  auto stalls = [](const Samples& s) {
    return value(s, "vmafexact_channel_restarts_total", {{"channel", "stuck"}, {"reason", "stall"}})
        .value_or(0);
  };
  // Each scrape answers within 5 s or counts as none: a blocked loop fails here.
  Samples samples = scrape_until(monitor, *port, 30s, [&](const Samples& s) {
    return stalls(s) >= 3 && frames(s, "steady") >= 10;
  });
  ASSERT_GE(stalls(samples), 3) << monitor.error_output();
  const double steady_before = frames(samples, "steady");

  // Removed while its last pipeline is stuck too.
  write_config(head + steady);
  monitor.send_signal(SIGHUP);
  ASSERT_TRUE(monitor.wait_for_error_text("read again", 10s)) << monitor.error_output();
  samples = scrape_until(monitor, *port, 20s, [&](const Samples& s) {
    return frames(s, "steady") >= steady_before + 10 &&
           !value(s, "vmafexact_channel_up", {{"channel", "stuck"}});
  });
  EXPECT_GE(frames(samples, "steady"), steady_before + 10) << monitor.error_output();
  EXPECT_EQ(up(samples, "steady"), 1);
  EXPECT_FALSE(value(samples, "vmafexact_channel_up", {{"channel", "stuck"}}));

  // The reads end: the stopped pipelines get to NULL, and the program ends cleanly.
  fifo.close();
  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

// SIGTERM ends every channel; --eos-timeout counts for all of them: a channel
// whose EOS is blocked stops the program at the timeout (status 1, the
// channel named) while the other channel's summary was written, and /metrics
// answers throughout.
TEST_F(MonitorChannelsTest, SigtermEndsEveryChannelWithinOneEosTimeout) {
  SilentFifo fifo(dir_ / "silent.fifo");
  const fs::path config =
      write_config("[monitor]\nstall-timeout=0\n[channel steady]\npipeline=" + live_pipeline() +
                   "\n[channel blocked]\npipeline=" + fifo.pipeline() + "\n");
  const fs::path jsonl = dir_ / "station.jsonl";
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0", "--jsonl",
                          jsonl.string(), "--eos-timeout", "2"},
                         dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  ASSERT_GE(frames(scrape_until(monitor, *port, 30s,
                                [](const Samples& s) { return frames(s, "steady") >= 5; }),
                   "steady"),
            5)
      << monitor.error_output();
  ASSERT_TRUE(monitor.wait_blocked_reading({fifo.path()}, 30s)) << monitor.error_output();
  monitor.send_signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  ASSERT_TRUE(monitor.wait_for_error_text("SIGTERM: ending the streams", 10s))
      << monitor.error_output();
  EXPECT_TRUE(scrape(*port)) << "/metrics stopped answering";
  EXPECT_EQ(monitor.wait_exit(10s), std::optional<int>(1)) << monitor.error_output();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 2s + 3s);
  EXPECT_NE(monitor.error_output().find("no end of stream 2 s after the signal (channels blocked)"),
            std::string::npos)
      << monitor.error_output();
  std::set<std::string> summaries;
  for (const Json& line : read_json_lines(jsonl))
    if (line.at("message") == "vmafexact-summary") summaries.insert(line.at("channel"));
  EXPECT_EQ(summaries, std::set<std::string>{"steady"});
}

// SIGHUP: the removed channel stops, the added one starts, the changed one
// restarts, the unchanged one runs on untouched (its frame index, which a new
// pipeline would start again from 0, keeps rising).
TEST_F(MonitorChannelsTest, SighupStartsStopsAndRestartsOnlyTheChannelsThatChanged) {
  const std::string head = std::string(kQuickRestarts);
  const fs::path config =
      write_config(head + "[channel same]\npipeline=" + live_pipeline("ball") +
                   "\n[channel gone]\npipeline=" + live_pipeline("snow") +
                   "\n[channel edited]\npipeline=" + live_pipeline("smpte") + "\n");
  const fs::path jsonl = dir_ / "station.jsonl";
  MonitorProcess monitor(
      {"--config", config.string(), "--listen", "127.0.0.1:0", "--jsonl", jsonl.string()},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  auto index = [](const Samples& s, const std::string& channel) {
    return value(s, "vmafexact_last_frame_index", {{"channel", channel}}).value_or(-1);
  };
  Samples samples = scrape_until(monitor, *port, 30s, [&](const Samples& s) {
    return index(s, "same") >= 30 && index(s, "edited") >= 30 && up(s, "gone") == 1;
  });
  ASSERT_GE(index(samples, "same"), 30) << monitor.error_output();
  ASSERT_GE(index(samples, "edited"), 30) << monitor.error_output();

  write_config(head + "[channel same]\npipeline=" + live_pipeline("ball") +
               "\n[channel edited]\npipeline=" + live_pipeline("smpte", "window=1s") +
               "\n[channel added]\npipeline=" + live_pipeline("pinwheel") + "\n");
  const double same_before =
      index(scrape_until(monitor, *port, 5s, [](auto&) { return true; }), "same");
  // After a log rotation: the lines go on in a new file of the same name.
  fs::rename(jsonl, dir_ / "station.jsonl.1");
  monitor.send_signal(SIGHUP);
  ASSERT_TRUE(monitor.wait_for_error_text("read again", 10s)) << monitor.error_output();
  samples = scrape_until(monitor, *port, 30s, [&](const Samples& s) {
    return up(s, "added") == 1 && up(s, "edited") == 1 && index(s, "edited") < 25 &&
           index(s, "edited") >= 0;
  });
  EXPECT_EQ(up(samples, "added"), 1) << monitor.error_output();
  EXPECT_EQ(up(samples, "edited"), 1) << monitor.error_output();
  // The edited channel runs a new pipeline (its index started again), its
  // counter carried over.
  EXPECT_LT(index(samples, "edited"), 25) << monitor.error_output();
  EXPECT_GE(frames(samples, "edited"), 30);
  EXPECT_EQ(restarts(samples, "edited"), 0);  // a reload is not a failure
  EXPECT_FALSE(value(samples, "vmafexact_channel_up", {{"channel", "gone"}}))
      << "the removed channel is still exposed";
  EXPECT_GT(index(samples, "same"), same_before) << monitor.error_output();
  EXPECT_EQ(up(samples, "same"), 1);
  std::set<std::string> reopened;
  for (const Json& line : read_json_lines(jsonl)) reopened.insert(line.at("channel"));
  EXPECT_EQ(reopened, (std::set<std::string>{"same", "edited", "added"}));

  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

// A reload file that cannot be used changes nothing: the message names the
// problem, the channels run on. A channel whose property the element refuses
// is not started, and the rest of the reload goes on.
TEST_F(MonitorChannelsTest, ABadReloadIsRefusedAndTheChannelsRunOn) {
  const std::string head = std::string(kQuickRestarts);
  const fs::path config = write_config(head + "[channel one]\npipeline=" + live_pipeline() +
                                       "\n[channel two]\npipeline=" + live_pipeline("snow") + "\n");
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                         dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  Samples samples = scrape_until(monitor, *port, 30s, [](const Samples& s) {
    return frames(s, "one") >= 5 && frames(s, "two") >= 5;
  });
  ASSERT_GE(frames(samples, "two"), 5) << monitor.error_output();

  // Not a valid file: an unknown key.
  write_config(head + "[channel one]\npipeline=" + live_pipeline() + "\nno-such-key=1\n");
  monitor.send_signal(SIGHUP);
  ASSERT_TRUE(monitor.wait_for_error_text("refused, the running channels go on", 10s))
      << monitor.error_output();
  EXPECT_NE(monitor.error_output().find("no-such-key"), std::string::npos)
      << monitor.error_output();
  const double two_before = frames(samples, "two");
  samples = scrape_until(monitor, *port, 20s, [&](const Samples& s) {
    return frames(s, "two") >= two_before + 10 && frames(s, "one") >= 10;
  });
  EXPECT_GE(frames(samples, "two"), two_before + 10) << monitor.error_output();

  // A valid file whose new channel's property the element refuses.
  write_config(head + "[channel one]\npipeline=" + live_pipeline() +
               "\n[channel two]\npipeline=" + live_pipeline("snow") +
               "\n[channel bad]\npipeline=" + live_pipeline() + "\nproperty.no-such-property=1\n");
  monitor.send_signal(SIGHUP);
  ASSERT_TRUE(monitor.wait_for_error_text("not started", 10s)) << monitor.error_output();
  EXPECT_NE(monitor.error_output().find(
                "channel bad: property.no-such-property=1: vmafexact has no property"),
            std::string::npos)
      << monitor.error_output();
  const double one_before = frames(samples, "one");
  samples = scrape_until(monitor, *port, 20s,
                         [&](const Samples& s) { return frames(s, "one") >= one_before + 10; });
  EXPECT_GE(frames(samples, "one"), one_before + 10) << monitor.error_output();
  EXPECT_FALSE(value(samples, "vmafexact_channel_up", {{"channel", "bad"}}));

  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

// At start a channel whose property the element refuses stops everything
// before anything is served: status 1, the channel and the property named.
TEST_F(MonitorChannelsTest, ABadPropertyAtStartExitsBeforeServing) {
  const fs::path config =
      write_config("[channel good]\npipeline=" + live_pipeline() +
                   "\n[channel wrong]\npipeline=" + live_pipeline() + "\nproperty.threads=many\n");
  MonitorProcess monitor({"--config", config.string(), "--listen", "127.0.0.1:0"},
                         dir_ / "stderr.txt");
  EXPECT_EQ(monitor.wait_exit(30s), std::optional<int>(1));
  const std::string errors = monitor.error_output();
  EXPECT_NE(errors.find("channel wrong: property.threads=many: 'many' is not a value"),
            std::string::npos)
      << errors;
  EXPECT_EQ(errors.find("serving"), std::string::npos) << errors;
}

TEST_F(MonitorChannelsTest, CheckConfigPrintsTheChannelsOrTheProblem) {
  const fs::path config = write_config(
      "[monitor]\nstall-timeout=0\n[channel a-1]\nref=file:///a.ts\ndist=udp://@239.1.1.1:5000\n"
      "ref-offset=40ms\nproperty.threads=1\n[channel b]\npipeline=" +
      live_pipeline() + "\n");
  {
    MonitorProcess check({"--config", config.string(), "--check-config"}, dir_ / "stderr.txt",
                         dir_ / "stdout.txt");
    EXPECT_EQ(check.wait_exit(20s), std::optional<int>(0)) << check.error_output();
    const std::string output = check.output();
    EXPECT_NE(output.find("2 channels"), std::string::npos) << output;
    EXPECT_NE(output.find("[channel a-1] ref=file:///a.ts dist=udp://@239.1.1.1:5000"),
              std::string::npos)
        << output;
    EXPECT_NE(output.find("ref-offset=0.04s"), std::string::npos) << output;
    EXPECT_NE(output.find("  property.threads=1"), std::string::npos) << output;
    EXPECT_NE(output.find("[channel b] pipeline=videotestsrc"), std::string::npos) << output;
    EXPECT_EQ(check.error_output().find("serving"), std::string::npos);
  }
  const fs::path bad = write_config("[channel a]\nref=x\n", "bad.conf");
  MonitorProcess check({"--config", bad.string(), "--check-config"}, dir_ / "stderr.txt",
                       dir_ / "stdout.txt");
  EXPECT_EQ(check.wait_exit(20s), std::optional<int>(2));
  EXPECT_NE(check.error_output().find("bad.conf"), std::string::npos) << check.error_output();
  // --check-config needs --config; channel options do not go with --config.
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"--check-config"},
        std::vector<std::string>{"--config", config.string(), "--set", "threads=1"},
        std::vector<std::string>{"--config", config.string(), "--pipeline", live_pipeline()},
        std::vector<std::string>{"--config", config.string(), "--no-exit-on-eos"}}) {
    MonitorProcess refused(arguments, dir_ / "stderr.txt");
    EXPECT_EQ(refused.wait_exit(20s), std::optional<int>(2)) << refused.error_output();
    EXPECT_NE(refused.error_output().find("--help for the options"), std::string::npos);
  }
}

TEST_F(MonitorChannelsTest, HelpListsTheStationOptions) {
  MonitorProcess help({"--help"}, dir_ / "stderr.txt", dir_ / "stdout.txt");
  EXPECT_EQ(help.wait_exit(20s), std::optional<int>(0));
  for (const char* option : {"--config=FILE", "--check-config", "--channel=NAME"})
    EXPECT_NE(help.output().find(option), std::string::npos) << option << "\n" << help.output();
}

// The command line's one channel is a channel too: labelled "main", or as
// --channel says, in /metrics and in every JSON line.
TEST_F(MonitorChannelsTest, TheCommandLineChannelIsLabelledByChannel) {
  const fs::path jsonl = dir_ / "one.jsonl";
  MonitorProcess monitor(
      {"--pipeline",
       "videotestsrc num-buffers=5 ! " + std::string(kCaps) +
           " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v "
           "model=\"\" features=psnr threads=1 ! fakesink",
       "--listen", "127.0.0.1:0", "--jsonl", jsonl.string(), "--channel", "studio-1",
       "--no-exit-on-eos"},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  ASSERT_TRUE(monitor.wait_for_error_text("still serving", 30s)) << monitor.error_output();
  const auto body = scrape(*port);
  ASSERT_TRUE(body);
  EXPECT_EQ(frames(parse_samples(*body), "studio-1"), 5) << *body;
  const std::vector<Json> lines = read_json_lines(jsonl);
  ASSERT_FALSE(lines.empty());
  for (const Json& line : lines) EXPECT_EQ(line.value("channel", ""), "studio-1") << line.dump();
  // Written right after the message's name, before its fields.
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);)
    EXPECT_NE(line.find(R"(","channel":"studio-1","fields":{)"), std::string::npos) << line;
  monitor.send_signal(SIGINT);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
