// vmafexact-monitor, run as a program: its /metrics scraped over HTTP (plain sockets),
// read with a strict OpenMetrics parser, and compared with the element's own
// messages as the program's --jsonl wrote them.

#include <fcntl.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../common/build_paths.h"
#include "../common/loopback.h"
#include "child_process.h"
#include "exposition.h"
#include "figures.h"
#include "monitor_http_request.h"

using vmafexact::test::kMonitorPath;

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

using vmafexact::test::read_text;

// ---------------------------------------------------------------- OpenMetrics and text

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Family {
  std::string type;
  std::string help;
  std::string unit;
  std::vector<Sample> samples;
};

struct Exposition {
  std::map<std::string, Family> families;

  const Sample* find(const std::string& name,
                     const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& [family_name, family] : families)
      for (const Sample& sample : family.samples)
        if (sample.name == name && sample.labels == labels) return &sample;
    return nullptr;
  }
  // The sample of `channel` (its label added to `labels`).
  const Sample* of(const std::string& channel, const std::string& name,
                   std::map<std::string, std::string> labels = {}) const {
    labels.emplace("channel", channel);
    return find(name, labels);
  }
  // Every sample, by name and labels: the same figures in either format
  // compare equal.
  std::map<std::pair<std::string, std::map<std::string, std::string>>, double> samples() const {
    std::map<std::pair<std::string, std::map<std::string, std::string>>, double> all;
    for (const auto& [family_name, family] : families)
      for (const Sample& sample : family.samples) all[{sample.name, sample.labels}] = sample.value;
    return all;
  }
};

[[noreturn]] void reject(std::size_t line_number, const std::string& line, const std::string& why) {
  throw std::runtime_error("line " + std::to_string(line_number) + " '" + line + "': " + why);
}

enum class Format { kOpenMetrics, kText };

const std::regex kMetricName("[a-zA-Z_:][a-zA-Z0-9_:]*");
const std::regex kLabelName("[a-zA-Z_][a-zA-Z0-9_]*");
const std::regex kNumber("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]Inf|NaN");
const std::set<std::string> kOpenMetricsTypes = {"counter",  "gauge", "histogram", "gaugehistogram",
                                                 "stateset", "info",  "summary",   "unknown"};
const std::set<std::string> kTextTypes = {"counter", "gauge", "histogram", "summary", "untyped"};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), std::string::npos, suffix) == 0;
}

// The sample names a family of this type may have (histograms, which the
// monitor does not write, are refused rather than half-checked). The text
// format names a counter's family as its samples (x_total).
bool sample_belongs(Format format, const std::string& family, const std::string& type,
                    const std::string& name) {
  if (type == "counter")
    return format == Format::kText ? name == family
                                   : name == family + "_total" || name == family + "_created";
  if (type == "info") return name == family + "_info";
  if (type == "summary")
    return name == family || name == family + "_count" || name == family + "_sum" ||
           (format == Format::kOpenMetrics && name == family + "_created");
  if (type == "gauge" || type == "stateset" || type == "unknown" || type == "untyped")
    return name == family;
  return false;
}

// A strict reader of the OpenMetrics 1.0 text format and of Prometheus' text
// format 0.0.4, for what the monitor writes: metadata (TYPE required, HELP,
// UNIT in OpenMetrics only) before a family's samples, families contiguous and
// not repeated, label syntax and escapes, HELP escapes (\" in OpenMetrics
// only), numbers, no timestamps, counter and info suffixes and values, summary
// quantiles (a number in [0, 1]) and counts, unique samples, no empty line;
// "# EOF" last in OpenMetrics, absent in the text format.
Exposition parse_exposition(const std::string& text, Format format) {
  const bool openmetrics = format == Format::kOpenMetrics;
  Exposition exposition;
  if (text.empty()) throw std::runtime_error("empty exposition");
  if (text.back() != '\n') throw std::runtime_error("the exposition does not end with a line end");
  std::vector<std::string> lines;
  std::stringstream stream(text.substr(0, text.size() - 1));
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  std::size_t sample_lines = lines.size();
  if (openmetrics) {
    if (lines.empty() || lines.back() != "# EOF")
      throw std::runtime_error("the exposition does not end with '# EOF'");
    --sample_lines;
  }
  std::string current;  // the family whose lines are being read
  std::set<std::string> closed;
  std::set<std::pair<std::string, std::map<std::string, std::string>>> seen;
  for (std::size_t i = 0; i < sample_lines; ++i) {
    const std::string& line = lines[i];
    const std::size_t number = i + 1;
    if (line.empty()) reject(number, line, "empty line");
    if (line[0] == '#') {
      std::smatch m;
      static const std::regex om_meta("# (TYPE|HELP|UNIT) ([^ ]+)( (.*))?");
      static const std::regex text_meta("# (TYPE|HELP) ([^ ]+)( (.*))?");
      if (!std::regex_match(line, m, openmetrics ? om_meta : text_meta))
        reject(number, line, openmetrics ? "not TYPE, HELP or UNIT" : "not TYPE or HELP");
      const std::string kind = m[1], name = m[2], value = m[4];
      if (!std::regex_match(name, kMetricName)) reject(number, line, "bad metric name");
      if (name != current) {
        if (closed.count(name) || exposition.families.count(name))
          reject(number, line, "family " + name + " appears twice or is not contiguous");
        if (!current.empty()) closed.insert(current);
        current = name;
        exposition.families[name];
      }
      Family& family = exposition.families[name];
      if (!family.samples.empty()) reject(number, line, "metadata after the family's samples");
      if (kind == "TYPE") {
        if (!family.type.empty()) reject(number, line, "second TYPE");
        if (!(openmetrics ? kOpenMetricsTypes : kTextTypes).count(value))
          reject(number, line, "unknown type");
        family.type = value;
      } else if (kind == "HELP") {
        if (!family.help.empty()) reject(number, line, "second HELP");
        for (std::size_t at = 0; at < value.size(); ++at)
          if (value[at] == '\\' &&
              (++at == value.size() ||
               !(value[at] == '\\' || value[at] == 'n' || (openmetrics && value[at] == '"'))))
            reject(number, line, "bad escape in HELP");
        family.help = value.empty() ? " " : value;
      } else {
        if (!family.unit.empty()) reject(number, line, "second UNIT");
        if (value.empty() || !ends_with(name, "_" + value))
          reject(number, line, "the family name does not end with _UNIT");
        family.unit = value;
      }
      continue;
    }
    // A sample: name, optional labels, one space, a number; nothing else.
    std::size_t at = 0;
    while (at < line.size() && line[at] != '{' && line[at] != ' ') ++at;
    Sample sample;
    sample.name = line.substr(0, at);
    if (!std::regex_match(sample.name, kMetricName)) reject(number, line, "bad sample name");
    if (current.empty() || exposition.families[current].type.empty())
      reject(number, line, "sample before its family's TYPE");
    Family& family = exposition.families[current];
    if (!sample_belongs(format, current, family.type, sample.name))
      reject(number, line,
             "sample name does not belong to the " + family.type + " family " + current);
    if (at < line.size() && line[at] == '{') {
      ++at;
      while (at < line.size() && line[at] != '}') {
        std::size_t name_end = line.find('=', at);
        if (name_end == std::string::npos) reject(number, line, "label without '='");
        const std::string label = line.substr(at, name_end - at);
        if (!std::regex_match(label, kLabelName)) reject(number, line, "bad label name");
        at = name_end + 1;
        if (at >= line.size() || line[at] != '"') reject(number, line, "label value not quoted");
        ++at;
        std::string value;
        for (;; ++at) {
          if (at >= line.size()) reject(number, line, "unterminated label value");
          if (line[at] == '"') break;
          if (line[at] == '\\') {
            ++at;
            if (at >= line.size()) reject(number, line, "unterminated escape");
            if (line[at] == 'n')
              value += '\n';
            else if (line[at] == '\\' || line[at] == '"')
              value += line[at];
            else
              reject(number, line, "bad escape in a label value");
          } else {
            value += line[at];
          }
        }
        ++at;  // the closing quote
        if (!g_utf8_validate(value.data(), static_cast<gssize>(value.size()), nullptr))
          reject(number, line, "a label value that is not UTF-8");
        if (!sample.labels.emplace(label, value).second)
          reject(number, line, "label " + label + " twice");
        if (at < line.size() && line[at] == ',') {
          ++at;
          if (at < line.size() && line[at] == '}') reject(number, line, "trailing comma");
        } else if (at >= line.size() || line[at] != '}') {
          reject(number, line, "expected ',' or '}' after a label");
        }
      }
      if (at >= line.size()) reject(number, line, "unterminated labels");
      ++at;  // '}'
    }
    if (at >= line.size() || line[at] != ' ') reject(number, line, "no space before the value");
    const std::string value = line.substr(at + 1);
    if (!std::regex_match(value, kNumber))
      reject(number, line, "value '" + value + "' is not a number (or has a timestamp)");
    sample.value = std::strtod(value.c_str(), nullptr);
    const bool counts =
        family.type == "counter" || (family.type == "summary" && sample.name == current + "_count");
    if (counts && (std::isnan(sample.value) || sample.value < 0))
      reject(number, line, "a counter or count must be a non-negative number");
    if (family.type == "summary") {
      const auto quantile = sample.labels.find("quantile");
      if (sample.name == current) {
        if (quantile == sample.labels.end()) reject(number, line, "a quantile without its label");
        if (!std::regex_match(quantile->second, kNumber) ||
            !(std::strtod(quantile->second.c_str(), nullptr) >= 0 &&
              std::strtod(quantile->second.c_str(), nullptr) <= 1))
          reject(number, line, "a quantile label that is not a number in [0, 1]");
      } else if (quantile != sample.labels.end()) {
        reject(number, line, "a summary's count or sum with a quantile label");
      }
    }
    if ((family.type == "info" || (!openmetrics && ends_with(sample.name, "_info"))) &&
        sample.value != 1)
      reject(number, line, "an info value must be 1");
    if (!seen.emplace(sample.name, sample.labels).second)
      reject(number, line, "the same sample twice");
    family.samples.push_back(std::move(sample));
  }
  for (const auto& [name, family] : exposition.families) {
    if (family.type.empty()) throw std::runtime_error("family " + name + " without a TYPE");
    if (family.type == "counter" && openmetrics && ends_with(name, "_total"))
      throw std::runtime_error("counter family " + name + " ends in _total (its samples do)");
    if (family.type == "counter" && !openmetrics && !ends_with(name, "_total"))
      throw std::runtime_error("counter " + name + " does not end in _total");
  }
  return exposition;
}

Exposition parse_openmetrics(const std::string& text) {
  return parse_exposition(text, Format::kOpenMetrics);
}
Exposition parse_text_format(const std::string& text) {
  return parse_exposition(text, Format::kText);
}

// ---------------------------------------------------------------- processes

// vmafexact-monitor, with the port it reports.
class MonitorProcess : public vmafexact::test::ChildProcess {
 public:
  // Under `ulimit -n max_descriptors` when that is above 0; its standard
  // output in `stdout_path` when given.
  MonitorProcess(const std::vector<std::string>& arguments, const fs::path& stderr_path,
                 int max_descriptors = 0, const fs::path& stdout_path = {})
      : ChildProcess(with_program(arguments, max_descriptors), stderr_path, stdout_path) {}

  // The port the program reports ("serving http://127.0.0.1:PORT/metrics").
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

 private:
  static std::vector<std::string> with_program(std::vector<std::string> arguments,
                                               int max_descriptors) {
    arguments.insert(arguments.begin(), kMonitorPath);
    // A shell sets the limit and execs the program, which keeps its process id.
    if (max_descriptors > 0)
      arguments.insert(arguments.begin(),
                       {"/bin/sh", "-c",
                        "ulimit -n " + std::to_string(max_descriptors) + " && exec \"$0\" \"$@\""});
    return arguments;
  }
};

// A TCP connection to the monitor, made as curl or Prometheus make theirs:
// plain socket calls, closed by this side when it goes.
class Connection {
 public:
  explicit Connection(int port) : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    const timeval timeout{5, 0};  // a monitor that stopped answering fails the test soon
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const sockaddr_in address = vmafexact::test::loopback_address(port);
    if (connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      const std::string reason = std::strerror(errno);
      close(fd_);
      throw std::runtime_error("connect: " + reason);
    }
  }
  ~Connection() { close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // False when the monitor closed or reset the connection first.
  bool send_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t sent = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }
  int fd() const { return fd_; }
  bool readable(std::chrono::milliseconds timeout) {
    pollfd watched{fd_, POLLIN, 0};
    return poll(&watched, 1, static_cast<int>(timeout.count())) > 0;
  }
  // One response: its head, and as much body as its Content-Length says
  // (none after HEAD). Empty when the monitor closed or did not answer.
  std::string read_response(bool head_request = false) {
    std::string text;
    std::size_t head_end = std::string::npos;
    std::size_t expected = std::string::npos;
    while (expected == std::string::npos || text.size() < expected) {
      char buffer[16384];
      const ssize_t got = recv(fd_, buffer, sizeof buffer, 0);
      if (got <= 0) return expected == std::string::npos ? "" : text;
      text.append(buffer, static_cast<std::size_t>(got));
      if (head_end == std::string::npos &&
          (head_end = text.find("\r\n\r\n")) != std::string::npos) {
        static const std::regex length("\r\nContent-Length: ([0-9]+)\r\n", std::regex::icase);
        std::smatch m;
        const std::string head = text.substr(0, head_end + 2);
        const std::size_t body =
            head_request || !std::regex_search(head, m, length) ? 0 : std::stoul(m[1]);
        expected = head_end + 4 + body;
      }
    }
    return text;
  }
  // Waits for the monitor to close the connection (reading and dropping what
  // it says before): true when it did by `deadline`.
  bool closed_within(std::chrono::milliseconds timeout) {
    return closed_by(std::chrono::steady_clock::now() + timeout);
  }
  bool closed_by(std::chrono::steady_clock::time_point deadline) {
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !readable(left)) return false;
      char buffer[4096];
      if (recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) <= 0) return true;
    }
  }

 private:
  int fd_;
};

unsigned status_of(const std::string& response) {
  return response.size() > 12 && response.compare(0, 9, "HTTP/1.1 ") == 0
             ? static_cast<unsigned>(std::stoul(response.substr(9, 3)))
             : 0;
}

struct Response {
  guint status = 0;
  std::string content_type;
  std::string vary;
  std::string body;
};

// What Prometheus 2.42 (Debian 12) sends.
const std::string kPrometheusAccept =
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
const std::string kOpenMetricsType = "application/openmetrics-text; version=1.0.0; charset=utf-8";
const std::string kTextType = "text/plain; version=0.0.4; charset=utf-8";

// GET `path` on a connection of its own, closed after the response, with an
// Accept field when `accept` is given; throws when the monitor does not
// answer (within 5 s) or cannot be reached.
Response http_get(int port, const std::string& path,
                  const std::optional<std::string>& accept = std::nullopt) {
  Connection connection(port);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                              (accept ? "Accept: " + *accept + "\r\n" : "") +
                              "Connection: close\r\n\r\n";
  const std::string text = connection.send_all(request) ? connection.read_response() : "";
  const std::size_t head_end = text.find("\r\n\r\n");
  if (status_of(text) == 0 || head_end == std::string::npos)
    throw std::runtime_error("GET " + path + " on port " + std::to_string(port) +
                             " failed: no response (\"" + text.substr(0, 80) + "\")");
  Response response;
  response.status = status_of(text);
  static const std::regex type("\r\nContent-Type: ([^\r]*)\r\n", std::regex::icase);
  const std::string head = text.substr(0, head_end + 2);
  if (std::smatch m; std::regex_search(head, m, type)) response.content_type = m[1];
  static const std::regex vary("\r\nVary: ([^\r]*)\r\n", std::regex::icase);
  if (std::smatch m; std::regex_search(head, m, vary)) response.vary = m[1];
  response.body = text.substr(head_end + 4);
  return response;
}

// /metrics as Prometheus asks for it (OpenMetrics) or as curl does (the text
// format), checked for its type and read strictly; throws if it is not.
Exposition scrape_metrics(int port, Format format = Format::kText) {
  const Response response =
      http_get(port, "/metrics",
               format == Format::kOpenMetrics ? std::optional(kPrometheusAccept) : std::nullopt);
  const std::string& expected = format == Format::kOpenMetrics ? kOpenMetricsType : kTextType;
  if (response.status != 200 || response.content_type != expected)
    throw std::runtime_error("/metrics answered " + std::to_string(response.status) + " with '" +
                             response.content_type + "', not 200 with '" + expected + "'");
  return parse_exposition(response.body, format);
}

std::vector<Json> read_json_lines(const fs::path& path) {
  std::vector<Json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

bool has_message(const std::vector<Json>& lines, const std::string& name) {
  for (const Json& line : lines)
    if (line.at("message") == name) return true;
  return false;
}

// The --jsonl file's lines once they hold the summary (the monitor, run with
// --no-exit-on-eos, serves on after it), or at the timeout or the monitor's exit.
std::vector<Json> wait_for_summary(const fs::path& jsonl, const MonitorProcess& monitor,
                                   std::chrono::seconds timeout) {
  std::vector<Json> lines;
  for (auto deadline = std::chrono::steady_clock::now() + timeout;
       std::chrono::steady_clock::now() < deadline && monitor.running();) {
    lines = read_json_lines(jsonl);
    if (has_message(lines, "vmafexact-summary")) break;
    MonitorProcess::pump(100ms);
  }
  return lines;
}

void run_to_eos(const std::string& description) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_TRUE(pipeline) << (error ? error->message : "?");
  g_clear_error(&error);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const bool ended = message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  ASSERT_TRUE(ended) << "could not write the test streams: " << description;
}

class MonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/vmafexact-monitor-XXXXXX";
    ASSERT_TRUE(g_mkdtemp(templ));
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Two small y4m files: a test pattern and a JPEG-compressed copy of it.
  void write_streams(int frames) {
    const std::string caps = "video/x-raw,format=I420,width=160,height=90,framerate=25/1";
    run_to_eos(
        "videotestsrc num-buffers=" + std::to_string(frames) +
        " pattern=smpte horizontal-speed=2 ! " + caps +
        " ! tee name=t t. ! queue ! y4menc ! filesink location=" + (dir_ / "ref.y4m").string() +
        " t. ! queue ! jpegenc quality=30 ! jpegdec ! videoconvert ! video/x-raw,format=I420"
        " ! y4menc ! filesink location=" +
        (dir_ / "dist.y4m").string());
  }

  // Runs the monitor on write_streams(10)'s files with `arguments`, which shift
  // the reference by one frame (-40 ms) against the distorted input and set no
  // model and psnr: each distorted frame pairs with the next reference frame,
  // and one frame of each input stays unpaired.
  void expect_shifted_pairs(const std::vector<std::string>& arguments, const fs::path& jsonl) {
    MonitorProcess monitor(arguments, dir_ / "stderr.txt");
    const auto port = monitor.wait_port(30s);
    ASSERT_TRUE(port) << monitor.error_output();
    EXPECT_TRUE(has_message(wait_for_summary(jsonl, monitor, 60s), "vmafexact-summary"))
        << monitor.error_output();
    const Exposition metrics = scrape_metrics(*port);
    EXPECT_EQ(metrics.of("main", "vmafexact_frames_scored_total")->value, 9)
        << monitor.error_output();
    EXPECT_EQ(
        metrics.of("main", "vmafexact_frames_unpaired_total", {{"input", "reference"}})->value, 1);
    EXPECT_EQ(
        metrics.of("main", "vmafexact_frames_unpaired_total", {{"input", "distorted"}})->value, 1);
    EXPECT_EQ(metrics.families.at("vmafexact_channel_info").samples.at(0).labels.at("model"), "");
    monitor.send_signal(SIGINT);
    EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
  }

  fs::path dir_;
};

// ---------------------------------------------------------------- tests

TEST(OpenMetricsParser, RejectsWhatIsNotOpenMetrics) {
  const std::string good =
      "# TYPE a counter\n# HELP a help\na_total 1\n"
      "# TYPE b_seconds gauge\n# UNIT b_seconds seconds\nb_seconds{x=\"1\",y=\"a\\\"\\n\"} 2.5\n"
      "# TYPE c info\nc_info{v=\"1\"} 1\n# TYPE d gauge\nd +Inf\nd{a=\"\"} NaN\n# EOF\n";
  EXPECT_NO_THROW(parse_openmetrics(good));
  const char* bad[] = {
      "# TYPE a counter\na_total 1\n",                         // no # EOF
      "# TYPE a counter\na_total 1\n# EOF\n# TYPE b gauge\n",  // EOF not last
      "a 1\n# EOF\n",                                          // no TYPE
      "# TYPE a counter\na 1\n# EOF\n",                        // counter without _total
      "# TYPE a_total counter\na_total_total 1\n# EOF\n",      // family named _total
      "# TYPE a counter\na_total -1\n# EOF\n",                 // negative counter
      "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\n# EOF\n",  // a twice
      "# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n# EOF\n",                      // label twice
      "# TYPE a gauge\na{x=1} 1\n# EOF\n",                                  // unquoted label
      "# TYPE a gauge\na{x=\"\\t\"} 1\n# EOF\n",                            // bad escape
      "# TYPE a gauge\na{1x=\"\"} 1\n# EOF\n",                              // bad label name
      "# TYPE a gauge\na inf\n# EOF\n",                                     // +Inf spelt wrong
      "# TYPE a gauge\na 1\na 2\n# EOF\n",                                  // same sample twice
      "# TYPE a gauge\na 1\n# HELP a late\n# EOF\n",           // metadata after samples
      "# TYPE a gauge\n# UNIT a seconds\na 1\n# EOF\n",        // unit not a suffix
      "# TYPE a info\na_info{v=\"1\"} 2\n# EOF\n",             // info value not 1
      "# TYPE a gauge\n\na 1\n# EOF\n",                        // empty line
      "# TYPE a summary\na 1\n# EOF\n",                        // quantile without its label
      "# TYPE a summary\na{quantile=\"2\"} 1\n# EOF\n",        // quantile above 1
      "# TYPE a summary\na_count -1\n# EOF\n",                 // negative count
      "# TYPE a summary\na_count{quantile=\"0\"} 1\n# EOF\n",  // count with a quantile
      "# TYPE a gauge\na 1 1700000000\n# EOF\n",               // a timestamp
      "# TYPE a gauge\n# HELP a x \\q\na 1\n# EOF\n",          // bad HELP escape
  };
  for (const char* text : bad) EXPECT_THROW(parse_openmetrics(text), std::runtime_error) << text;
}

TEST(TextFormatParser, RejectsWhatIsNotTheTextFormat) {
  const std::string good =
      "# HELP a_total help \\\\ and \\n\n# TYPE a_total counter\na_total 1\n"
      "# TYPE b_seconds gauge\nb_seconds{x=\"1\",y=\"a\\\"\\n\"} 2.5\n"
      "# TYPE c_info gauge\nc_info{v=\"1\"} 1\n# TYPE d gauge\nd +Inf\nd{a=\"\"} NaN\n"
      "# TYPE e summary\ne{quantile=\"0.5\"} 3\ne_count 4\n";
  EXPECT_NO_THROW(parse_text_format(good));
  const char* bad[] = {
      "# TYPE a gauge\na 1\n# EOF\n",          // # EOF is OpenMetrics'
      "# TYPE a gauge\na 1",                   // no line end
      "a 1\n",                                 // no TYPE
      "# TYPE a counter\na 1\n",               // counter not named _total
      "# TYPE a counter\na_total 1\n",         // sample not named as its family
      "# TYPE a_total counter\na_total -1\n",  // negative counter
      "# TYPE a info\na_info 1\n",             // no info type
      "# TYPE a_seconds gauge\n# UNIT a_seconds seconds\na_seconds 1\n",  // no UNIT
      "# HELP a say \\\"x\\\"\n# TYPE a gauge\na 1\n",               // \" is no HELP escape here
      "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# TYPE a gauge\n",  // a twice
      "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n",                // same sample twice
      "# TYPE a gauge\na 1 1700000000\n",                            // a timestamp
      "# TYPE a gauge\n\na 1\n",                                     // empty line
      "# TYPE a_info gauge\na_info 2\n",                             // info value not 1
      "# TYPE a summary\na{quantile=\"x\"} 1\n",                     // quantile not a number
      "# TYPE a summary\na_created 1\n",                             // _created is OpenMetrics'
  };
  for (const char* text : bad) EXPECT_THROW(parse_text_format(text), std::runtime_error) << text;
}

// ---------------------------------------------------------------- figures and exposition
//
// tools/monitor/figures.h and exposition.h on their own: messages built here,
// the text read back with the strict parser above.

namespace monitor_tool = vmafexact::monitor_tool;

using StructureHandle = std::unique_ptr<GstStructure, decltype(&gst_structure_free)>;

StructureHandle structure(const char* name) {
  return StructureHandle(gst_structure_new_empty(name), &gst_structure_free);
}

TEST(MonitorExposition, FiguresFromMessagesAreWrittenAsStrictOpenMetrics) {
  monitor_tool::ChannelFigures channel;
  channel.name = "news";
  channel.model = "vmaf_v0.6.1";
  channel.backend = "cpu";
  monitor_tool::Figures& figures = channel.run;

  // A frame: its doubles are its scores, in order; NaN and infinities written
  // as OpenMetrics spells them, every other value with every bit.
  StructureHandle frame = structure("vmafexact-frame");
  gst_structure_set(frame.get(), "index", G_TYPE_UINT64, guint64{4}, "running-time", G_TYPE_UINT64,
                    guint64{160'000'000}, "vmaf", G_TYPE_DOUBLE, 0.1 + 0.2, "psnr_y", G_TYPE_DOUBLE,
                    std::numeric_limits<double>::infinity(), "ssim", G_TYPE_DOUBLE,
                    std::numeric_limits<double>::quiet_NaN(), nullptr);
  monitor_tool::take_frame(figures, frame.get());

  // Two tumbling windows, then one overlapping the second: only the tumbling
  // ones add to the unpaired counter.
  for (const auto& [start, end, unpaired] :
       {std::tuple{0u, 10u, 2u}, std::tuple{10u, 20u, 3u}, std::tuple{15u, 25u, 7u}}) {
    StructureHandle window = structure("vmafexact-window");
    GstStructure* vmaf =
        gst_structure_new("vmaf", "mean", G_TYPE_DOUBLE, 80.5, "min", G_TYPE_DOUBLE, 70.0, nullptr);
    gst_structure_set(window.get(), "frames", G_TYPE_UINT64, guint64{10}, "frames-unpaired-ref",
                      G_TYPE_UINT64, guint64{unpaired}, "window-start", G_TYPE_UINT64,
                      guint64{start} * GST_SECOND, "window-end", G_TYPE_UINT64,
                      guint64{end} * GST_SECOND, "vmaf", GST_TYPE_STRUCTURE, vmaf, nullptr);
    gst_structure_free(vmaf);
    monitor_tool::take_window(figures, window.get());
  }

  // An alert whose expression needs escaping, raised, cleared, raised again;
  // one without a state is ignored.
  const std::string expression = "vmaf<60:on=\"a\\b\"\nx";
  for (const char* state : {"raised", "cleared", "raised"}) {
    StructureHandle alert = structure("vmafexact-alert");
    gst_structure_set(alert.get(), "alert", G_TYPE_STRING, expression.c_str(), "state",
                      G_TYPE_STRING, state, "value", G_TYPE_DOUBLE, 55.25, "threshold",
                      G_TYPE_DOUBLE, 60.0, nullptr);
    monitor_tool::take_alert(figures, alert.get());
  }
  StructureHandle stateless = structure("vmafexact-alert");
  gst_structure_set(stateless.get(), "alert", G_TYPE_STRING, "psnr_y<30", nullptr);
  monitor_tool::take_alert(figures, stateless.get());

  // A summary that counts fewer frames than the frame messages did: the
  // counter does not go down.
  StructureHandle summary = structure("vmafexact-summary");
  gst_structure_set(summary.get(), "frames-scored", G_TYPE_UINT64, guint64{3}, nullptr);
  monitor_tool::take_summary(figures, summary.get());

  const monitor_tool::Rendered rendered = monitor_tool::render_metrics(
      {&channel}, "0.1.0", monitor_tool::ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(rendered.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  const std::string& text = rendered.body;
  Exposition metrics;
  ASSERT_NO_THROW(metrics = parse_openmetrics(text)) << text;
  const auto& info = metrics.families.at("vmafexact_channel").samples.at(0).labels;
  EXPECT_EQ(info.at("backend"), "cpu");
  EXPECT_EQ(info.at("model"), "vmaf_v0.6.1");
  const std::map<std::string, std::string> news{{"channel", "news"}};
  const auto labels = [&](std::map<std::string, std::string> more) {
    more.emplace("channel", "news");
    return more;
  };
  EXPECT_EQ(metrics.find("vmafexact_frame_vmaf", labels({{"score", "vmaf"}}))->value, 0.1 + 0.2);
  EXPECT_EQ(metrics.find("vmafexact_frame_psnr_decibels", labels({{"score", "psnr_y"}}))->value,
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(
      std::isnan(metrics.find("vmafexact_frame_feature", labels({{"score", "ssim"}}))->value));
  EXPECT_EQ(metrics.find("vmafexact_last_frame_index", news)->value, 4);
  EXPECT_EQ(metrics.find("vmafexact_last_frame_running_time_seconds", news)->value, 0.16);
  EXPECT_EQ(metrics.find("vmafexact_frames_scored_total", news)->value, 5);
  EXPECT_EQ(
      metrics.find("vmafexact_frames_unpaired_total", labels({{"input", "reference"}}))->value, 5);
  EXPECT_EQ(
      metrics.find("vmafexact_window_frames_unpaired", labels({{"input", "reference"}}))->value, 7);
  EXPECT_EQ(metrics.find("vmafexact_window_vmaf_mean", labels({{"score", "vmaf"}}))->value, 80.5);
  EXPECT_EQ(
      metrics.find("vmafexact_window_vmaf", labels({{"score", "vmaf"}, {"quantile", "0"}}))->value,
      70);
  EXPECT_EQ(metrics.find("vmafexact_window_end_seconds", news)->value, 25);
  EXPECT_EQ(metrics.find("vmafexact_alert_active", labels({{"alert", expression}}))->value, 1);
  EXPECT_EQ(metrics.find("vmafexact_alert_raised_total", labels({{"alert", expression}}))->value,
            2);
  EXPECT_EQ(metrics.find("vmafexact_alert_value", labels({{"alert", expression}}))->value, 55.25);
  EXPECT_EQ(metrics.families.at("vmafexact_alert_active").samples.size(), 1u);
  EXPECT_EQ(metrics.find("vmafexact_end_of_stream", news)->value, 0);
}

// A nested score structure of a window or summary message.
void set_stats(GstStructure* message, const char* score, const char* structure_name,
               const std::vector<std::pair<const char*, double>>& stats) {
  GstStructure* nested = gst_structure_new_empty(structure_name);
  for (const auto& [stat, value] : stats)
    gst_structure_set(nested, stat, G_TYPE_DOUBLE, value, nullptr);
  gst_structure_set(message, score, GST_TYPE_STRUCTURE, nested, nullptr);
  gst_structure_free(nested);
}

std::vector<std::pair<const char*, double>> every_stat(double base) {
  return {{"min", base},
          {"max", base + 9},
          {"mean", base + 4.5},
          {"harmonic_mean", base + 4},
          {"p1", base + 0.25},
          {"p5", base + 0.5},
          {"p50", base + 4.25},
          {"low1_mean", base + 0.125},
          {"low5_mean", base + 0.375}};
}

// Two channels with every kind of figure: several models (one of them a
// bootstrap collection, one renamed), PSNR and other features, windows,
// alerts (one on an input), a summary with aggregates, restarts; the second
// channel restarted once and scoring again.
std::vector<monitor_tool::ChannelFigures> station() {
  std::vector<monitor_tool::ChannelFigures> channels(2);
  channels[0].name = "news-hd";
  channels[1].name = "sport.4k";
  const char* models =
      "vmaf=vmaf_b_v0.6.3, vmaf_v0.6.1neg=vmaf_v0.6.1neg, quality=vmaf (/srv/models/a, b=c.json)";
  for (monitor_tool::ChannelFigures& channel : channels) {
    channel.model = "vmaf_b_v0.6.3,vmaf_v0.6.1neg,/srv/models/a, b=c.json:name=quality";
    channel.backend = "cpu";
    channel.up = true;
    StructureHandle frame = structure("vmafexact-frame");
    gst_structure_set(frame.get(), "index", G_TYPE_UINT64, guint64{7}, "running-time",
                      G_TYPE_UINT64, guint64{280'000'000}, "integer_adm2", G_TYPE_DOUBLE, 0.97,
                      "VMAF_integer_feature_motion_sad_score", G_TYPE_DOUBLE, 4.4, "psnr_y",
                      G_TYPE_DOUBLE, 31.5, "psnr_cb", G_TYPE_DOUBLE, 40.25, "float_ssim",
                      G_TYPE_DOUBLE, 0.99, "psnr_hvs", G_TYPE_DOUBLE, 29.0, "integer_motion2",
                      G_TYPE_DOUBLE, 4.4, "vmaf", G_TYPE_DOUBLE, 93.0 + 1e-13, "vmaf_0001",
                      G_TYPE_DOUBLE, 92.5, "vmaf_bagging", G_TYPE_DOUBLE, 92.75, "vmaf_stddev",
                      G_TYPE_DOUBLE, 0.5, "vmaf_ci_p95_lo", G_TYPE_DOUBLE, 91.0, "vmaf_ci_p95_hi",
                      G_TYPE_DOUBLE, 94.0, "vmaf_v0.6.1neg", G_TYPE_DOUBLE, 90.0, "quality",
                      G_TYPE_DOUBLE, 88.0, nullptr);
    monitor_tool::take_frame(channel.run, frame.get());
    gst_structure_set(frame.get(), "index", G_TYPE_UINT64, guint64{8}, "running-time",
                      G_TYPE_UINT64, guint64{320'000'000}, nullptr);
    monitor_tool::take_frame(channel.run, frame.get());
    StructureHandle window = structure("vmafexact-window");
    gst_structure_set(window.get(), "frames", G_TYPE_UINT64, guint64{9}, "frames-unpaired-ref",
                      G_TYPE_UINT64, guint64{1}, "frames-unpaired-dist", G_TYPE_UINT64, guint64{0},
                      "frames-skipped-late", G_TYPE_UINT64, guint64{2}, "window-start",
                      G_TYPE_UINT64, guint64{0}, "window-end", G_TYPE_UINT64, guint64{360'000'000},
                      "models", G_TYPE_STRING, models, nullptr);
    set_stats(window.get(), "vmaf", "window", every_stat(90));
    set_stats(window.get(), "quality", "window", every_stat(80));
    set_stats(window.get(), "psnr_y", "window", every_stat(30));
    set_stats(window.get(), "integer_adm2", "window", every_stat(0.5));
    monitor_tool::take_window(channel.run, window.get());
    for (const auto& [alert, input] : {std::pair<const char*, const char*>{"vmaf<95", nullptr},
                                       {"input-stalled", "reference"}}) {
      StructureHandle message = structure("vmafexact-alert");
      gst_structure_set(message.get(), "alert", G_TYPE_STRING, alert, "state", G_TYPE_STRING,
                        "raised", "models", G_TYPE_STRING, models, nullptr);
      if (input)
        gst_structure_set(message.get(), "input", G_TYPE_STRING, input, nullptr);
      else
        gst_structure_set(message.get(), "score", G_TYPE_STRING, "vmaf", "value", G_TYPE_DOUBLE,
                          93.0, "threshold", G_TYPE_DOUBLE, 95.0, nullptr);
      monitor_tool::take_alert(channel.run, message.get());
    }
  }
  channels[1].model = "/srv/mod\xe8les/latin1.json";  // a path not in UTF-8
  // The first channel ended; the second restarted after an error and scores again.
  StructureHandle summary = structure("vmafexact-summary");
  gst_structure_set(summary.get(), "frames-scored", G_TYPE_UINT64, guint64{9}, "models",
                    G_TYPE_STRING, models, "apsnr_y", G_TYPE_DOUBLE, 33.75, "apsnr_cb",
                    G_TYPE_DOUBLE, -std::numeric_limits<double>::infinity(), nullptr);
  set_stats(summary.get(), "vmaf", "pooled", every_stat(91));
  set_stats(summary.get(), "psnr_y", "pooled", every_stat(31));
  set_stats(summary.get(), "integer_adm2", "pooled", every_stat(0.25));
  monitor_tool::take_summary(channels[0].run, summary.get());
  channels[0].run.end_of_stream = true;
  channels[0].up = false;
  channels[0].restarts["eos"] = 0;
  channels[1].restarts["error"] = 1;
  channels[1].new_run();
  StructureHandle frame = structure("vmafexact-frame");
  gst_structure_set(frame.get(), "index", G_TYPE_UINT64, guint64{0}, "running-time", G_TYPE_UINT64,
                    guint64{0}, "vmaf", G_TYPE_DOUBLE, 50.0, "psnr_y", G_TYPE_DOUBLE, 20.0,
                    nullptr);
  monitor_tool::take_frame(channels[1].run, frame.get());
  return channels;
}

std::vector<const monitor_tool::ChannelFigures*> pointers(
    const std::vector<monitor_tool::ChannelFigures>& channels) {
  std::vector<const monitor_tool::ChannelFigures*> result;
  for (const auto& channel : channels) result.push_back(&channel);
  return result;
}

TEST(MonitorExposition, ScoresAreClassifiedByKind) {
  using monitor_tool::ScoreKind;
  const std::vector<std::string> none;
  const std::vector<std::string> keys = {"vmaf", "motion_model", "psnr_like"};
  const std::pair<const char*, ScoreKind> names[] = {
      {"vmaf", ScoreKind::kVmaf},
      {"vmaf_v0.6.1neg", ScoreKind::kVmaf},
      {"vmaf_bagging", ScoreKind::kVmaf},
      {"vmaf_ci_p95_lo", ScoreKind::kVmaf},
      {"vmaf_0017", ScoreKind::kVmaf},
      {"quality", ScoreKind::kVmaf},
      {"psnr_y", ScoreKind::kPsnrDecibels},
      {"psnr_cb", ScoreKind::kPsnrDecibels},
      {"psnr_hvs_cr", ScoreKind::kPsnrDecibels},
      {"psnr_hvs", ScoreKind::kPsnrDecibels},
      {"apsnr_y", ScoreKind::kPsnrDecibels},
      {"float_psnr", ScoreKind::kPsnrDecibels},
      {"float_anpsnr", ScoreKind::kPsnrDecibels},
      {"integer_adm2", ScoreKind::kFeature},
      {"integer_adm2_egl_1", ScoreKind::kFeature},
      {"VMAF_integer_feature_motion_sad_score", ScoreKind::kFeature},
      {"integer_motion2", ScoreKind::kFeature},
      {"float_ssim", ScoreKind::kFeature},
      {"mse_y", ScoreKind::kFeature},
      {"ciede2000", ScoreKind::kFeature},
      {"cambi", ScoreKind::kFeature},
      {"motion2", ScoreKind::kFeature},
      {"adm_scale0", ScoreKind::kFeature},
      {"aim", ScoreKind::kFeature},
      {"vif_scale3", ScoreKind::kFeature},
      {"speed_chroma_uv", ScoreKind::kFeature},
  };
  for (const auto& [name, kind] : names) {
    EXPECT_EQ(monitor_tool::score_kind(name, none), kind) << name;
    EXPECT_EQ(monitor_tool::score_kind(name, keys), kind) << name;
  }
  // A model named like a feature is a model once the messages have said so.
  EXPECT_EQ(monitor_tool::score_kind("motion_model", keys), ScoreKind::kVmaf);
  EXPECT_EQ(monitor_tool::score_kind("psnr_like_bagging", keys), ScoreKind::kVmaf);
  EXPECT_EQ(monitor_tool::score_kind("psnr_like_0001", keys), ScoreKind::kVmaf);
  EXPECT_EQ(monitor_tool::score_kind("psnr_like_other", keys), ScoreKind::kPsnrDecibels);

  EXPECT_EQ(monitor_tool::model_keys_of(""), none);
  EXPECT_EQ(monitor_tool::model_keys_of("vmaf=vmaf_v0.6.1"), std::vector<std::string>{"vmaf"});
  EXPECT_EQ(monitor_tool::model_keys_of(
                "vmaf=vmaf_b_v0.6.3, neg=vmaf_v0.6.1neg, q.2=vmaf (/a, b=c (d).json), "
                "last=vmaf (/x)"),
            (std::vector<std::string>{"vmaf", "neg", "q.2", "last"}));
  EXPECT_EQ(monitor_tool::named_model_keys("vmaf_v0.6.1:name=psnr_model,/a/b.json:disable_clip:"
                                           "name=motion_q,vmaf_v0.6.1neg:name="),
            (std::vector<std::string>{"psnr_model", "motion_q"}));

  // A renamed model is a model from the first frame on: before a window
  // names it, the model property does.
  monitor_tool::ChannelFigures channel;
  channel.name = "c";
  channel.model = "vmaf_v0.6.1:name=psnr_model";
  StructureHandle frame = structure("vmafexact-frame");
  gst_structure_set(frame.get(), "index", G_TYPE_UINT64, guint64{0}, "psnr_model", G_TYPE_DOUBLE,
                    77.0, "psnr_y", G_TYPE_DOUBLE, 30.0, nullptr);
  monitor_tool::take_frame(channel.run, frame.get());
  const Exposition metrics = parse_openmetrics(
      monitor_tool::render_metrics({&channel}, "1", monitor_tool::ExpositionFormat::kOpenMetrics)
          .body);
  const Sample* model = metrics.of("c", "vmafexact_frame_vmaf", {{"score", "psnr_model"}});
  ASSERT_TRUE(model) << "psnr_model is not in vmafexact_frame_vmaf";
  EXPECT_EQ(model->value, 77);
  EXPECT_TRUE(metrics.of("c", "vmafexact_frame_psnr_decibels", {{"score", "psnr_y"}}));
}

TEST(MonitorExposition, CountersCarryOverRestarts) {
  monitor_tool::ChannelFigures channel;
  channel.name = "a";
  const auto frame = [&](guint64 index, guint64 running_time_ms) {
    StructureHandle message = structure("vmafexact-frame");
    gst_structure_set(message.get(), "index", G_TYPE_UINT64, index, "running-time", G_TYPE_UINT64,
                      running_time_ms * GST_MSECOND, "vmaf", G_TYPE_DOUBLE, 90.0, nullptr);
    monitor_tool::take_frame(channel.run, message.get());
  };
  const auto alert = [&](const char* state) {
    StructureHandle message = structure("vmafexact-alert");
    gst_structure_set(message.get(), "alert", G_TYPE_STRING, "vmaf<95", "state", G_TYPE_STRING,
                      state, nullptr);
    monitor_tool::take_alert(channel.run, message.get());
  };
  for (guint64 index = 0; index < 5; ++index) frame(index, 1000 + 40 * index);
  alert("raised");
  StructureHandle window = structure("vmafexact-window");
  gst_structure_set(window.get(), "frames-unpaired-dist", G_TYPE_UINT64, guint64{3},
                    "frames-skipped-late", G_TYPE_UINT64, guint64{2}, nullptr);
  monitor_tool::take_window(channel.run, window.get());
  EXPECT_EQ(channel.frames_scored(), 5u);
  EXPECT_DOUBLE_EQ(channel.media_seconds(), 0.16);  // 4 steps of 40 ms
  channel.new_run();
  // The new pipeline starts at index 0 and running time 0 again.
  for (guint64 index = 0; index < 3; ++index) frame(index, 40 * index);
  alert("cleared");
  alert("raised");
  EXPECT_EQ(channel.frames_scored(), 8u);
  EXPECT_EQ(channel.unpaired_dist(), 3u);
  EXPECT_EQ(channel.skipped_late(), 2u);
  EXPECT_DOUBLE_EQ(channel.media_seconds(), 0.24);
  EXPECT_EQ(channel.alert_raised({"vmaf<95", ""}), 2u);
  channel.new_run();
  const Exposition metrics = parse_openmetrics(
      monitor_tool::render_metrics({&channel}, "1", monitor_tool::ExpositionFormat::kOpenMetrics)
          .body);
  EXPECT_EQ(metrics.of("a", "vmafexact_frames_scored_total")->value, 8);
  EXPECT_EQ(metrics.of("a", "vmafexact_frames_unpaired_total", {{"input", "distorted"}})->value, 3);
  EXPECT_EQ(metrics.of("a", "vmafexact_frames_skipped_late_total")->value, 2);
  EXPECT_DOUBLE_EQ(metrics.of("a", "vmafexact_media_scored_seconds_total")->value, 0.24);
  // An alert of an earlier run keeps its count though this run has not posted it.
  EXPECT_EQ(metrics.of("a", "vmafexact_alert_raised_total", {{"alert", "vmaf<95"}})->value, 2);
  EXPECT_FALSE(metrics.of("a", "vmafexact_alert_active", {{"alert", "vmaf<95"}}));
  EXPECT_FALSE(metrics.of("a", "vmafexact_last_frame_index"));
}

TEST(MonitorExposition, ContentNegotiation) {
  using monitor_tool::ExpositionFormat;
  const std::pair<const char*, ExpositionFormat> headers[] = {
      // Prometheus 2.42 (Debian 12), and with native histograms on.
      {"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
       "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
       ExpositionFormat::kOpenMetrics},
      {"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding="
       "delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/"
       "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
       ExpositionFormat::kOpenMetrics},
      {"Application/OpenMetrics-Text ; version=1.0.0", ExpositionFormat::kOpenMetrics},
      {"text/plain;version=0.0.4", ExpositionFormat::kText},
      {"*/*", ExpositionFormat::kText},  // curl
      {"", ExpositionFormat::kText},     // no Accept field
      {"application/openmetrics-text;q=0, text/plain", ExpositionFormat::kText},
      {"application/openmetrics-text; q=0.0", ExpositionFormat::kText},
      {"application/json", ExpositionFormat::kText},
      {"application/openmetrics-textual", ExpositionFormat::kText},
  };
  for (const auto& [accept, format] : headers)
    EXPECT_EQ(monitor_tool::negotiate_format(accept), format) << accept;
}

TEST(MonitorExposition, BothFormatsHoldTheSameSamplesStrictly) {
  const std::vector<monitor_tool::ChannelFigures> channels = station();
  const monitor_tool::Rendered openmetrics = monitor_tool::render_metrics(
      pointers(channels), "0.1.0", monitor_tool::ExpositionFormat::kOpenMetrics);
  const monitor_tool::Rendered text = monitor_tool::render_metrics(
      pointers(channels), "0.1.0", monitor_tool::ExpositionFormat::kText);
  EXPECT_EQ(openmetrics.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(text.content_type, "text/plain; version=0.0.4; charset=utf-8");
  Exposition om, plain;
  ASSERT_NO_THROW(om = parse_openmetrics(openmetrics.body)) << openmetrics.body;
  ASSERT_NO_THROW(plain = parse_text_format(text.body)) << text.body;
  EXPECT_EQ(om.samples(), plain.samples());

  // Every sample has its channel, but the build's.
  for (const auto& [key, value] : om.samples())
    EXPECT_EQ(key.second.count("channel"), key.first == "vmafexact_build_info" ? 0u : 1u)
        << key.first;
  // One family per kind, with its unit; counters, summaries and infos typed.
  EXPECT_EQ(om.families.at("vmafexact_frame_psnr_decibels").unit, "decibels");
  EXPECT_EQ(om.families.at("vmafexact_window_psnr_decibels").type, "summary");
  EXPECT_EQ(om.families.at("vmafexact_run_vmaf").type, "summary");
  EXPECT_EQ(om.families.at("vmafexact_media_scored_seconds").unit, "seconds");
  EXPECT_EQ(om.families.at("vmafexact_channel_restarts").type, "counter");
  EXPECT_EQ(om.families.at("vmafexact_build").type, "info");
  EXPECT_EQ(plain.families.at("vmafexact_build_info").type, "gauge");
  EXPECT_EQ(plain.families.at("vmafexact_frames_scored_total").type, "counter");
  EXPECT_EQ(plain.families.at("vmafexact_window_vmaf").type, "summary");
  const std::set<std::string> models = {"vmaf",           "vmaf_0001",      "vmaf_bagging",
                                        "vmaf_stddev",    "vmaf_ci_p95_lo", "vmaf_ci_p95_hi",
                                        "vmaf_v0.6.1neg", "quality"};
  const std::set<std::string> decibels = {"psnr_y", "psnr_cb", "psnr_hvs"};
  const std::set<std::string> features = {"integer_adm2", "VMAF_integer_feature_motion_sad_score",
                                          "float_ssim", "integer_motion2"};
  for (const auto& [family, scores] : {std::pair{"vmafexact_frame_vmaf", models},
                                       {"vmafexact_frame_psnr_decibels", decibels},
                                       {"vmafexact_frame_feature", features}}) {
    std::set<std::string> written;
    for (const Sample& sample : om.families.at(family).samples)
      if (sample.labels.at("channel") == "news-hd") written.insert(sample.labels.at("score"));
    EXPECT_EQ(written, scores) << family;
  }
  // Every bit of a value.
  EXPECT_EQ(om.of("news-hd", "vmafexact_frame_vmaf", {{"score", "vmaf"}})->value, 93.0 + 1e-13);
  // The window's summary: quantiles 0 (min) ... 1 (max), the frames as its count.
  const std::pair<const char*, double> quantiles[] = {
      {"0", 30}, {"0.01", 30.25}, {"0.05", 30.5}, {"0.5", 34.25}, {"1", 39}};
  for (const auto& [quantile, value] : quantiles)
    EXPECT_EQ(om.of("news-hd", "vmafexact_window_psnr_decibels",
                    {{"score", "psnr_y"}, {"quantile", quantile}})
                  ->value,
              value)
        << quantile;
  EXPECT_EQ(om.of("news-hd", "vmafexact_window_psnr_decibels_count", {{"score", "psnr_y"}})->value,
            9);
  EXPECT_EQ(om.of("news-hd", "vmafexact_window_vmaf_mean", {{"score", "quality"}})->value, 84.5);
  EXPECT_EQ(om.of("news-hd", "vmafexact_window_feature_harmonic_mean", {{"score", "integer_adm2"}})
                ->value,
            4.5);
  EXPECT_EQ(
      om.of("news-hd", "vmafexact_window_vmaf_low_mean", {{"score", "vmaf"}, {"share", "0.05"}})
          ->value,
      90.375);
  EXPECT_EQ(om.of("news-hd", "vmafexact_run_vmaf", {{"score", "vmaf"}, {"quantile", "0.5"}})->value,
            95.25);
  EXPECT_EQ(om.of("news-hd", "vmafexact_run_feature_low_mean",
                  {{"score", "integer_adm2"}, {"share", "0.01"}})
                ->value,
            0.375);
  EXPECT_EQ(
      om.of("news-hd", "vmafexact_run_aggregate_psnr_decibels", {{"score", "apsnr_y"}})->value,
      33.75);
  EXPECT_EQ(
      om.of("news-hd", "vmafexact_run_aggregate_psnr_decibels", {{"score", "apsnr_cb"}})->value,
      -std::numeric_limits<double>::infinity());
  // The restarted channel: counters carried, the new run's figures only.
  EXPECT_EQ(om.of("sport.4k", "vmafexact_frames_scored_total")->value, 10);
  EXPECT_EQ(om.of("sport.4k", "vmafexact_channel_restarts_total", {{"reason", "error"}})->value, 1);
  EXPECT_EQ(om.of("sport.4k", "vmafexact_channel_restarts_total", {{"reason", "stall"}})->value, 0);
  EXPECT_DOUBLE_EQ(om.of("sport.4k", "vmafexact_media_scored_seconds_total")->value, 0.04);
  EXPECT_EQ(om.of("sport.4k", "vmafexact_last_frame_index")->value, 0);
  EXPECT_EQ(om.of("sport.4k", "vmafexact_alert_raised_total",
                  {{"alert", "input-stalled"}, {"input", "reference"}})
                ->value,
            1);
  EXPECT_FALSE(om.of("sport.4k", "vmafexact_window_frames"));
  EXPECT_EQ(om.of("sport.4k", "vmafexact_channel_up")->value, 1);
  EXPECT_EQ(om.of("news-hd", "vmafexact_channel_up")->value, 0);
  EXPECT_EQ(om.of("news-hd", "vmafexact_end_of_stream")->value, 1);
  const Sample* info = om.of("news-hd", "vmafexact_channel_info",
                             {{"model", channels[0].model}, {"backend", "cpu"}});
  ASSERT_TRUE(info);
  EXPECT_TRUE(om.of("sport.4k", "vmafexact_channel_info",
                    {{"model", "/srv/mod\xef\xbf\xbdles/latin1.json"}, {"backend", "cpu"}}));
}

// promtool with `arguments`, `input` on its standard input: its complaints
// (output and status), empty when it succeeded.
std::string promtool_complaints(const std::vector<std::string>& arguments,
                                const std::string& input = "") {
  std::vector<const char*> argv = {"promtool"};
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  argv.push_back(nullptr);
  GError* error = nullptr;
  GSubprocess* process = g_subprocess_newv(
      argv.data(),
      static_cast<GSubprocessFlags>(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                    G_SUBPROCESS_FLAGS_STDERR_MERGE),
      &error);
  if (!process) {
    const std::string problem = error->message;
    g_error_free(error);
    return "could not run promtool: " + problem;
  }
  gchar* output = nullptr;
  const bool ran =
      g_subprocess_communicate_utf8(process, input.c_str(), nullptr, &output, nullptr, &error);
  std::string complaints;
  if (!ran) {
    complaints = std::string("promtool: ") + error->message;
    g_error_free(error);
  } else if (!g_subprocess_get_successful(process)) {
    complaints = std::string(output ? output : "") + "\npromtool exited with status " +
                 std::to_string(g_subprocess_get_exit_status(process));
  } else if (arguments.at(0) == "check") {
    complaints = output ? output : "";  // lint problems, if any, with status 0 or 3
  }
  g_free(output);
  g_object_unref(process);
  return complaints;
}

// The text format through promtool check metrics (its parser and linter).
std::string promtool_check_metrics(const std::string& text) {
  return promtool_complaints({"check", "metrics"}, text);
}

// An OpenMetrics exposition through Prometheus' own OpenMetrics parser:
// promtool check metrics reads only the text format (Prometheus 2.42), so the
// body goes through promtool's backfill, which parses OpenMetrics as a scrape
// does and needs a timestamp on each sample (added here).
std::string promtool_check_openmetrics(const std::string& openmetrics, const fs::path& dir) {
  std::istringstream lines(openmetrics);
  std::string stamped;
  for (std::string line; std::getline(lines, line);)
    stamped += line + (line.empty() || line[0] == '#' ? "\n" : " 1700000000\n");
  const fs::path input = dir / "openmetrics.txt";
  std::ofstream(input) << stamped;
  return promtool_complaints(
      {"tsdb", "create-blocks-from", "openmetrics", input.string(), (dir / "blocks").string()});
}

// promtool is in CI (scripts/install-deps.sh); elsewhere, a test without it is skipped.
bool have_promtool() {
  gchar* path = g_find_program_in_path("promtool");
  g_free(path);
  return path != nullptr;
}

#define REQUIRE_PROMTOOL()                                                            \
  do {                                                                                \
    if (!have_promtool()) {                                                           \
      ASSERT_EQ(std::getenv("CI"), nullptr) << "CI has no promtool: install-deps.sh " \
                                               "installs Debian's prometheus";        \
      GTEST_SKIP() << "promtool is not installed (apt-get install prometheus)";       \
    }                                                                                 \
  } while (false)

TEST(MonitorExposition, BothFormatsPassPromtoolCheckMetrics) {
  REQUIRE_PROMTOOL();
  const std::vector<monitor_tool::ChannelFigures> channels = station();
  const std::string text = monitor_tool::render_metrics(pointers(channels), "0.1.0",
                                                        monitor_tool::ExpositionFormat::kText)
                               .body;
  EXPECT_EQ(promtool_check_metrics(text), "") << text;
  const std::string openmetrics =
      monitor_tool::render_metrics(pointers(channels), "0.1.0",
                                   monitor_tool::ExpositionFormat::kOpenMetrics)
          .body;
  char templ[] = "/tmp/vmafexact-promtool-XXXXXX";
  ASSERT_TRUE(g_mkdtemp(templ));
  EXPECT_EQ(promtool_check_openmetrics(openmetrics, templ), "") << openmetrics;
  // The checks can fail: a counter named without _total (lint), OpenMetrics
  // without its # EOF, and the text format given as OpenMetrics.
  EXPECT_NE(promtool_check_metrics("# HELP a x\n# TYPE a counter\na 1\n"), "");
  EXPECT_NE(promtool_check_openmetrics(openmetrics.substr(0, openmetrics.rfind("# EOF")), templ),
            "");
  EXPECT_NE(promtool_check_metrics(openmetrics), "");
  fs::remove_all(templ);
}

// Whether this build's vmafexact has a property (windows and alerts come from
// another part of the element; the test uses them where they exist).
bool element_has_property(const char* name) {
  GstElement* element = gst_element_factory_make("vmafexact", nullptr);
  if (!element) return false;
  gst_object_ref_sink(element);
  const bool has = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name) != nullptr;
  gst_object_unref(element);
  return has;
}

TEST_F(MonitorTest, MetricsEqualTheElementsMessages) {
  write_streams(20);
  const fs::path jsonl = dir_ / "scores.jsonl";
  std::vector<std::string> arguments = {"--ref",
                                        (dir_ / "ref.y4m").string(),
                                        "--dist",
                                        (dir_ / "dist.y4m").string(),
                                        "--listen",
                                        "127.0.0.1:0",
                                        "--jsonl",
                                        jsonl.string(),
                                        "--no-exit-on-eos",
                                        "--set",
                                        "features=psnr=enable_apsnr=true",
                                        "--set",
                                        "threads=1"};
  // Tumbling windows of 6 frames (the last one partial); an alert raised at
  // once and one never raised.
  const bool windows = element_has_property("window") && element_has_property("alert");
  if (windows)
    arguments.insert(arguments.end(),
                     {"--set", "window=6f", "--set", "alert=vmaf<1000;psnr_y<0:on=window"});
  MonitorProcess monitor(arguments, dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();

  // Wait for the summary: the program keeps serving after the end of stream.
  const std::vector<Json> lines = wait_for_summary(jsonl, monitor, 120s);
  ASSERT_TRUE(has_message(lines, "vmafexact-summary")) << monitor.error_output();

  // Both formats, as Prometheus and as curl ask: the same samples, each
  // promtool-clean.
  const Response response = http_get(*port, "/metrics", kPrometheusAccept);
  ASSERT_EQ(response.status, 200u);
  EXPECT_EQ(response.content_type, kOpenMetricsType);
  EXPECT_EQ(response.vary, "Accept");
  Exposition metrics;
  ASSERT_NO_THROW(metrics = parse_openmetrics(response.body)) << response.body;
  const Response text = http_get(*port, "/metrics");
  ASSERT_EQ(text.status, 200u);
  EXPECT_EQ(text.content_type, kTextType);
  Exposition text_metrics;
  ASSERT_NO_THROW(text_metrics = parse_text_format(text.body)) << text.body;
  EXPECT_EQ(metrics.samples(), text_metrics.samples());
  if (have_promtool()) {
    EXPECT_EQ(promtool_check_metrics(text.body), "") << text.body;
    EXPECT_EQ(promtool_check_openmetrics(response.body, dir_), "") << response.body;
  } else {
    EXPECT_EQ(std::getenv("CI"), nullptr) << "CI has no promtool";
  }

  EXPECT_EQ(metrics.families.at("vmafexact_frame_vmaf").type, "gauge");
  EXPECT_EQ(metrics.families.at("vmafexact_frame_psnr_decibels").unit, "decibels");
  EXPECT_EQ(metrics.families.at("vmafexact_window_vmaf").type, "summary");
  EXPECT_EQ(metrics.families.at("vmafexact_run_vmaf").type, "summary");
  EXPECT_EQ(metrics.families.at("vmafexact_alert_active").type, "gauge");
  EXPECT_EQ(metrics.families.at("vmafexact_frames_scored").type, "counter");
  EXPECT_EQ(metrics.families.at("vmafexact_frames_unpaired").type, "counter");
  EXPECT_EQ(metrics.families.at("vmafexact_media_scored_seconds").type, "counter");
  ASSERT_EQ(metrics.families.at("vmafexact_build").type, "info");
  const Sample& build = metrics.families.at("vmafexact_build").samples.at(0);
  EXPECT_EQ(build.labels.at("version"), VMAFEXACT_VERSION);
  EXPECT_EQ(build.labels.at("libvmaf"), "3.2.0");
  EXPECT_EQ(build.labels.count("channel"), 0u);
  const Sample* info =
      metrics.of("main", "vmafexact_channel_info", {{"model", "vmaf_v0.6.1"}, {"backend", "auto"}});
  EXPECT_TRUE(info) << response.body;
  for (const auto& [key, value] : metrics.samples()) {
    if (key.first != "vmafexact_build_info") {
      EXPECT_EQ(key.second.at("channel"), "main") << key.first;
    }
  }

  // Each score is in exactly one kind's family: these, known.
  const std::map<std::string, std::string> kind_of = {{"vmaf", "vmaf"},
                                                      {"psnr_y", "psnr_decibels"},
                                                      {"psnr_cb", "psnr_decibels"},
                                                      {"integer_adm2", "feature"},
                                                      {"integer_motion2", "feature"}};
  const auto find_score = [&](const std::string& prefix, const std::string& suffix,
                              const std::string& score,
                              std::map<std::string, std::string> labels) -> const Sample* {
    labels["score"] = score;
    const Sample* found = nullptr;
    for (const char* kind : {"vmaf", "psnr_decibels", "feature"}) {
      const Sample* sample = metrics.of("main", prefix + kind + suffix, labels);
      if (!sample) continue;
      EXPECT_FALSE(found) << score << " in two kinds' families";
      if (kind_of.count(score)) {
        EXPECT_EQ(kind_of.at(score), kind) << score;
      }
      found = sample;
    }
    return found;
  };

  // The last frame's scores, every one, with every bit.
  std::vector<const Json*> frames;
  const Json* summary = nullptr;
  const Json* last_window = nullptr;
  std::map<std::pair<std::string, std::string>, std::string> alert_states;
  for (const Json& line : lines) {
    const std::string name = line.at("message");
    if (name == "vmafexact-frame") frames.push_back(&line);
    if (name == "vmafexact-summary") summary = &line;
    if (name == "vmafexact-window") last_window = &line;
    if (name == "vmafexact-alert")
      alert_states[{line["fields"].at("alert"), line["fields"].value("input", "")}] =
          line["fields"].at("state");
  }
  ASSERT_EQ(frames.size(), 20u);
  const Json& last = frames.back()->at("fields");
  const std::set<std::string> frame_fields = {"index", "pts", "running-time", "stream-time",
                                              "duration"};
  std::size_t scores = 0;
  for (const auto& [name, value] : last.items()) {
    if (frame_fields.count(name)) continue;
    ++scores;
    const Sample* sample = find_score("vmafexact_frame_", "", name, {});
    ASSERT_TRUE(sample) << name;
    EXPECT_EQ(sample->value, value.get<double>()) << name;
  }
  EXPECT_GE(scores, 4u);  // vmaf, psnr_y, ...
  EXPECT_EQ(metrics.families.at("vmafexact_frame_vmaf").samples.size() +
                metrics.families.at("vmafexact_frame_psnr_decibels").samples.size() +
                metrics.families.at("vmafexact_frame_feature").samples.size(),
            scores);
  ASSERT_TRUE(metrics.of("main", "vmafexact_frame_vmaf", {{"score", "vmaf"}}));
  ASSERT_TRUE(metrics.of("main", "vmafexact_frame_psnr_decibels", {{"score", "psnr_y"}}));
  EXPECT_EQ(metrics.of("main", "vmafexact_last_frame_index")->value,
            last.at("index").get<double>());
  // Running time from the first frame message to the last.
  EXPECT_EQ(metrics.of("main", "vmafexact_media_scored_seconds_total")->value,
            (last.at("running-time").get<double>() -
             frames.front()->at("fields").at("running-time").get<double>()) /
                1e9);

  // Counters: as many frames as messages and as the summary says.
  const Json& totals = summary->at("fields");
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_scored_total")->value, 20);
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_scored_total")->value,
            totals.at("frames-scored").get<double>());
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_unpaired_total", {{"input", "reference"}})->value,
            totals.at("frames-unpaired-ref").get<double>());
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_unpaired_total", {{"input", "distorted"}})->value,
            totals.at("frames-unpaired-dist").get<double>());
  ASSERT_TRUE(metrics.of("main", "vmafexact_frames_skipped_late_total"));
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_skipped_late_total")->value,
            totals.at("frames-skipped-late").get<double>());
  EXPECT_EQ(metrics.of("main", "vmafexact_end_of_stream")->value, 1);
  EXPECT_EQ(metrics.of("main", "vmafexact_channel_up")->value, 0);  // ended

  // A window's or the summary's figures of every score, with every bit: the
  // summary's quantiles, the means beside it.
  const std::map<std::string, std::pair<std::string, std::map<std::string, std::string>>>
      families_of_stat = {
          {"min", {"", {{"quantile", "0"}}}},
          {"p1", {"", {{"quantile", "0.01"}}}},
          {"p5", {"", {{"quantile", "0.05"}}}},
          {"p50", {"", {{"quantile", "0.5"}}}},
          {"max", {"", {{"quantile", "1"}}}},
          {"mean", {"_mean", {}}},
          {"harmonic_mean", {"_harmonic_mean", {}}},
          {"low1_mean", {"_low_mean", {{"share", "0.01"}}}},
          {"low5_mean", {"_low_mean", {{"share", "0.05"}}}},
      };
  const auto expect_statistics = [&](const std::string& scope, const Json& message) {
    std::size_t figures = 0;
    for (const auto& [score, stats] : message.items()) {
      if (!stats.is_object()) continue;
      for (const auto& [stat, value] : stats.items()) {
        if (!families_of_stat.count(stat)) {
          ADD_FAILURE() << "unknown figure " << stat;
          continue;
        }
        const auto& [suffix, labels] = families_of_stat.at(stat);
        const Sample* sample = find_score(scope, suffix, score, labels);
        if (!sample) {
          ADD_FAILURE() << scope << " " << score << " " << stat << " not written";
          continue;
        }
        if (value.is_null())
          EXPECT_TRUE(std::isnan(sample->value) || std::isinf(sample->value));
        else
          EXPECT_EQ(sample->value, value.get<double>()) << scope << score << " " << stat;
        ++figures;
      }
    }
    std::size_t written = 0;
    for (const char* kind : {"vmaf", "psnr_decibels", "feature"})
      for (const char* suffix : {"", "_mean", "_harmonic_mean", "_low_mean"})
        for (const Sample& sample : metrics.families.at(scope + kind + suffix).samples)
          written += sample.name == scope + kind + suffix;
    EXPECT_EQ(written, figures) << scope;
    return figures;
  };
  EXPECT_GE(expect_statistics("vmafexact_run_", totals), 4u * 9);
  // The summary's aggregates (apsnr_y, ...: -inf, null in JSON, for a plane
  // not scored).
  std::size_t aggregates = 0;
  for (const auto& [name, value] : totals.items()) {
    if (name.rfind("apsnr_", 0) != 0) continue;
    ++aggregates;
    const Sample* sample = find_score("vmafexact_run_aggregate_", "", name, {});
    if (!sample) {
      ADD_FAILURE() << name << " not written";
      continue;
    }
    if (value.is_null())
      EXPECT_TRUE(std::isinf(sample->value)) << name;
    else
      EXPECT_EQ(sample->value, value.get<double>()) << name;
  }
  EXPECT_EQ(aggregates, 3u);
  EXPECT_EQ(metrics.families.at("vmafexact_run_aggregate_psnr_decibels").samples.size(), 3u);

  // Windows and alerts only where the element posted them.
  std::cout << "[monitor] windows and alerts: "
            << (windows ? "set and checked" : "not in this element, not checked") << "\n";
  if (windows) {
    ASSERT_TRUE(last_window) << "window=6f posted no vmafexact-window message";
    ASSERT_EQ(alert_states.size(), 1u) << "alert=vmaf<1000 was not raised";
  }
  if (last_window) {
    const Json& window = last_window->at("fields");
    EXPECT_EQ(metrics.of("main", "vmafexact_window_frames")->value,
              window.at("frames").get<double>());
    ASSERT_TRUE(metrics.of("main", "vmafexact_window_frames_skipped_late"));
    EXPECT_EQ(metrics.of("main", "vmafexact_window_frames_skipped_late")->value,
              window.at("frames-skipped-late").get<double>());
    expect_statistics("vmafexact_window_", window);
    EXPECT_EQ(metrics.of("main", "vmafexact_window_vmaf_count", {{"score", "vmaf"}})->value,
              window.at("frames").get<double>());
  } else {
    EXPECT_TRUE(metrics.families.at("vmafexact_window_vmaf").samples.empty());
  }
  EXPECT_EQ(metrics.families.at("vmafexact_alert_active").samples.size(), alert_states.size());
  for (const auto& [key, state] : alert_states) {
    std::map<std::string, std::string> labels{{"alert", key.first}};
    if (!key.second.empty()) labels["input"] = key.second;
    const Sample* sample = metrics.of("main", "vmafexact_alert_active", labels);
    ASSERT_TRUE(sample) << key.first;
    EXPECT_EQ(sample->value, state == "raised" ? 1 : 0) << key.first;
  }

  EXPECT_EQ(http_get(*port, "/other").status, 404u);

  // After the end of stream the server answers until a signal ends the program.
  ASSERT_TRUE(monitor.running()) << monitor.error_output();
  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
}

TEST_F(MonitorTest, RefOffsetShiftsThePairsAndTheUnpairedAreCounted) {
  write_streams(10);
  const fs::path jsonl = dir_ / "scores.jsonl";
  expect_shifted_pairs(
      {"--ref", (dir_ / "ref.y4m").string(), "--dist", (dir_ / "dist.y4m").string(), "--listen",
       "127.0.0.1:0", "--jsonl", jsonl.string(), "--no-exit-on-eos", "--ref-offset", "-40ms",
       "--set", "model=\"\"", "--set", "features=psnr"},
      jsonl);
}

// The same with every option that takes a value given as --opt=value (the
// shift split between both offsets); before GOption, --ref=... was refused as
// an unknown argument.
TEST_F(MonitorTest, EveryOptionTakesItsValueAfterAnEqualsSign) {
  write_streams(10);
  const fs::path jsonl = dir_ / "scores.jsonl";
  expect_shifted_pairs(
      {"--ref=" + (dir_ / "ref.y4m").string(), "--dist=" + (dir_ / "dist.y4m").string(),
       "--listen=127.0.0.1:0", "--jsonl=" + jsonl.string(), "--no-exit-on-eos",
       "--ref-offset=-20ms", "--dist-offset=20ms", "--set=model=\"\"", "--set=features=psnr",
       "--eos-timeout=5"},
      jsonl);
}

TEST_F(MonitorTest, SigtermEndsALivePipelineWithItsSummary) {
  const fs::path jsonl = dir_ / "live.jsonl";
  MonitorProcess monitor(
      {"--pipeline",
       "videotestsrc is-live=true pattern=ball ! "
       "video/x-raw,format=I420,width=96,height=64,framerate=25/1 ! tee name=t "
       "t. ! queue ! v.ref_sink t. ! queue ! jpegenc quality=50 ! jpegdec ! videoconvert ! "
       "video/x-raw,format=I420 ! v.dist_sink vmafexact name=v latency=200000000 ! fakesink",
       "--listen", "127.0.0.1:0", "--jsonl", jsonl.string(), "--set", "threads=1"},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  // Scrape while it runs, until frames have been scored.
  double scored = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       scored < 3 && std::chrono::steady_clock::now() < deadline && monitor.running();) {
    const Exposition metrics = scrape_metrics(*port, Format::kOpenMetrics);
    scored = metrics.of("main", "vmafexact_frames_scored_total")->value;
    EXPECT_EQ(metrics.of("main", "vmafexact_end_of_stream")->value, 0);
    MonitorProcess::pump(100ms);
  }
  ASSERT_GE(scored, 3) << monitor.error_output();

  // SIGHUP after a rotation: the lines go on in a new file of the same name.
  const fs::path rotated = dir_ / "live.jsonl.1";
  fs::rename(jsonl, rotated);
  monitor.send_signal(SIGHUP);
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       read_json_lines(jsonl).empty() && std::chrono::steady_clock::now() < deadline;)
    MonitorProcess::pump(50ms);
  EXPECT_FALSE(read_json_lines(jsonl).empty()) << monitor.error_output();
  EXPECT_FALSE(read_json_lines(rotated).empty());

  monitor.send_signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(30s), 0) << monitor.error_output();
  const std::vector<Json> lines = read_json_lines(jsonl);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().at("message"), "vmafexact-summary");
  EXPECT_GE(lines.back()["fields"].at("frames-scored").get<double>(), scored);
  EXPECT_NE(monitor.error_output().find("SIGTERM"), std::string::npos);
}

TEST_F(MonitorTest, RefusesABadListenAddress) {
  for (const char* address : {"nonsense", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:port",
                              "1.2.3:80", "::1:9464", "example.com:80", "127.0.0.1:"}) {
    MonitorProcess monitor({"--pipeline", "videotestsrc ! vmafexact name=v", "--listen", address},
                           dir_ / "stderr.txt");
    const auto status = monitor.wait_exit(30s);
    ASSERT_TRUE(status) << address;
    EXPECT_NE(*status, 0) << address;
    const std::string output = monitor.error_output();
    EXPECT_NE(output.find(std::string("--listen ") + address + ":"), std::string::npos) << output;
    EXPECT_EQ(output.find("serving"), std::string::npos) << output;
  }
}

TEST_F(MonitorTest, RefusesAPortInUse) {
  const std::string pipeline =
      "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=64 ! tee name=t "
      "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v";
  MonitorProcess first({"--pipeline", pipeline, "--listen", "127.0.0.1:0", "--no-exit-on-eos"},
                       dir_ / "first.txt");
  const auto port = first.wait_port(30s);
  ASSERT_TRUE(port) << first.error_output();
  const std::string address = "127.0.0.1:" + std::to_string(*port);
  MonitorProcess second({"--pipeline", pipeline, "--listen", address}, dir_ / "second.txt");
  const auto status = second.wait_exit(30s);
  ASSERT_TRUE(status);
  EXPECT_NE(*status, 0);
  EXPECT_NE(second.error_output().find("--listen " + address + ": cannot listen there"),
            std::string::npos)
      << second.error_output();
  EXPECT_EQ(http_get(*port, "/metrics").status, 200u);  // the first one still answers
}

// --jsonl naming a FIFO (issue 39): written in place, never replaced by a
// file; without a reader an error at once, not a wait for ever in open().
TEST_F(MonitorTest, JsonlToAFifoReachesItsReaderOrFailsAtOnceWithoutOne) {
  const std::string pipeline =
      "videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=64,height=48 ! tee name=t "
      "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v features=psnr "
      "model=\"\" ! fakesink";
  const fs::path fifo = dir_ / "scores.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  {
    MonitorProcess monitor(
        {"--pipeline", pipeline, "--listen", "127.0.0.1:0", "--jsonl", fifo.string()},
        dir_ / "no-reader.txt");
    const auto status = monitor.wait_exit(30s);
    ASSERT_TRUE(status) << "still waiting for a reader";
    EXPECT_NE(*status, 0);
    EXPECT_NE(monitor.error_output().find("no process reads the FIFO"), std::string::npos)
        << monitor.error_output();
  }
  // A reader first; the lines of ten frames fit in the pipe's buffer.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  MonitorProcess monitor(
      {"--pipeline", pipeline, "--listen", "127.0.0.1:0", "--jsonl", fifo.string()},
      dir_ / "reader.txt");
  const auto status = monitor.wait_exit(30s);
  ASSERT_TRUE(status);
  EXPECT_EQ(*status, 0) << monitor.error_output();
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(reader);
  EXPECT_NE(text.find("vmafexact-summary"), std::string::npos) << text;
  struct stat status_of_fifo {};
  ASSERT_EQ(::lstat(fifo.c_str(), &status_of_fifo), 0);
  EXPECT_TRUE(S_ISFIFO(status_of_fifo.st_mode));
}

TEST_F(MonitorTest, RefusesABadUriWithItsReason) {
  write_streams(2);
  const std::string dist = (dir_ / "dist.y4m").string();
  const std::pair<std::string, std::string> cases[] = {
      {"nosuch://stream", "No URI handler implemented for \"nosuch\""},
      {(dir_ / "missing.y4m").string(), "is neither a URI"},
      {"file://" + (dir_ / "missing.y4m").string(), "Resource not found"},
  };
  for (const auto& [uri, reason] : cases) {
    MonitorProcess monitor({"--ref", uri, "--dist", dist, "--listen", "127.0.0.1:0"},
                           dir_ / "stderr.txt");
    const auto status = monitor.wait_exit(30s);
    ASSERT_TRUE(status) << uri;
    EXPECT_NE(*status, 0) << uri;
    EXPECT_NE(monitor.error_output().find(reason), std::string::npos)
        << uri << ": " << monitor.error_output();
  }
}

TEST_F(MonitorTest, RefusesAnUnknownPropertyOrValue) {
  const std::pair<const char*, const char*> cases[] = {
      {"no-such-property=1", "vmafexact has no property 'no-such-property'"},
      {"threads=many", "'many' is not a value"},
      {"model=vmaf_foo", "unknown built-in model 'vmaf_foo'"},
  };
  for (const auto& [assignment, reason] : cases) {
    MonitorProcess monitor(
        {"--pipeline",
         "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=64 ! "
         "tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v",
         "--listen", "127.0.0.1:0", "--set", assignment},
        dir_ / "stderr.txt");
    const auto status = monitor.wait_exit(30s);
    ASSERT_TRUE(status) << assignment;
    EXPECT_NE(*status, 0) << assignment;
    EXPECT_NE(monitor.error_output().find(reason), std::string::npos)
        << assignment << ": " << monitor.error_output();
  }
}

// ---------------------------------------------------------------- the endpoint's limits

// The request reader on its own (tools/monitor/monitor_http_request.h; fuzzed by
// tests/fuzz/fuzz_monitor_http.cpp).
TEST(MonitorHttpRequest, ReadsStrictHeadsAndRefusesEarly) {
  namespace http = vmafexact::monitor_http;
  const auto parse = [](std::string_view bytes) { return http::parse_request_head(bytes); };
  const std::string get = "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n";
  const http::ParsedHead head = parse(get + "GET /next");  // pipelined: the rest is left
  ASSERT_EQ(head.state, http::HeadState::kComplete);
  EXPECT_EQ(head.head_size, get.size());
  EXPECT_EQ(head.request.path, "/metrics");
  EXPECT_TRUE(head.request.keep_alive);
  EXPECT_FALSE(head.request.declares_body);
  for (std::size_t size = 0; size < get.size(); ++size)
    EXPECT_EQ(parse(std::string_view(get).substr(0, size)).state, http::HeadState::kIncomplete)
        << size;
  // Bare LF and leading empty lines; HTTP/1.0 closes.
  const http::ParsedHead old = parse("\r\n\nHEAD /metrics HTTP/1.0\n\n");
  ASSERT_EQ(old.state, http::HeadState::kComplete);
  EXPECT_FALSE(old.request.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n")
                  .request.keep_alive == false);
  EXPECT_TRUE(parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                  .request.declares_body);
  EXPECT_FALSE(
      parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 000\r\n\r\n").request.declares_body);
  const std::pair<std::string, unsigned> refused[] = {
      {"\x16\x03\x01\x02\x00", 400},           // a TLS handshake, refused before any line end
      {"GET /metrics HTTP/1.1\r\n\r\n", 400},  // no Host
      {"GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},  // two
      {"GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400},  // obs-fold
      {"GET /metrics HTTP/1.1\r\nHost : a\r\n\r\n", 400},            // space before ':'
      {"GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
      {"GET /me\rtrics HTTP/1.1\r\n", 400},
      {"GET  /metrics HTTP/1.1\r\n", 400},
      {"GET /metrics\r\n", 400},  // HTTP/0.9
      {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
      {"GET /" + std::string(9000, 'a'), 414},
      {"GET / HTTP/1.1\r\nHost: a\r\nX: " + std::string(9000, 'a'), 431},
  };
  for (const auto& [bytes, status] : refused) {
    const http::ParsedHead refusal = parse(bytes);
    EXPECT_EQ(refusal.state, http::HeadState::kRefused) << bytes.substr(0, 60);
    EXPECT_EQ(refusal.status, status) << bytes.substr(0, 60);
  }
  std::string many_fields = "GET / HTTP/1.1\r\nHost: a\r\n";
  for (int field = 0; field < 100; ++field) many_fields += "X: 1\r\n";
  EXPECT_EQ(parse(many_fields).status, 431u);
  // Accept fields, several joined as one list; none is "".
  EXPECT_EQ(parse(get).request.accept, "");
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nAccept: text/plain\r\nHost: a\r\naccept:  a/b;q=1 \r\n"
                  "Accept:\r\n\r\n")
                .request.accept,
            "text/plain, a/b;q=1");
  // The answer's type and body are the renderer's, for the request's Accept.
  const auto render = [](std::string_view accept) {
    return http::Rendered{"x/" + std::string(accept), "body"};
  };
  const http::Response answer =
      http::respond(parse("GET /metrics HTTP/1.1\r\nHost: a\r\nAccept: y\r\n\r\n"), render);
  EXPECT_EQ(answer.content_type, "x/y");
  const std::string bytes = http::serialize(answer, false, "s", 0);
  EXPECT_NE(bytes.find("\r\nContent-Type: x/y\r\nVary: Accept\r\n"), std::string::npos) << bytes;
  EXPECT_EQ(http::respond(parse("GET /other HTTP/1.1\r\nHost: a\r\n\r\n"), render).vary_accept,
            false);
}

std::string metrics_request(const std::string& method = "GET") {
  return method +
         " /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n";
}

// One request for /metrics on a new connection, as curl makes it (keep-alive,
// closed by this side after the response): the response, empty when the
// monitor closed the connection first or did not answer.
std::string scrape(int port, const std::string& method = "GET") {
  Connection connection(port);
  return connection.send_all(metrics_request(method)) ? connection.read_response(method == "HEAD")
                                                      : "";
}

std::size_t open_descriptors(const MonitorProcess& monitor) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       fs::directory_iterator("/proc/" + monitor.pid() + "/fd"))
    ++count;
  return count;
}

long resident_kib(const MonitorProcess& monitor) {
  std::ifstream status("/proc/" + monitor.pid() + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Waits until `done()`, pumping the main loop; false at the timeout.
template <typename Done>
bool wait_until(Done done, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    MonitorProcess::pump(20ms);
  }
  return true;
}

class MonitorEndpointTest : public MonitorTest {
 protected:
  // A monitor whose two-frame stream has ended and which serves on until
  // SIGINT: its descriptors and memory change only with its connections.
  std::optional<int> start(int max_descriptors = 0) {
    monitor_ = std::make_unique<MonitorProcess>(
        std::vector<std::string>{
            "--pipeline",
            "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=64 ! tee name=t "
            "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v threads=1",
            "--listen", "127.0.0.1:0", "--no-exit-on-eos"},
        dir_ / "stderr.txt", max_descriptors);
    const auto port = monitor_->wait_port(30s);
    if (!port) return std::nullopt;
    if (!wait_until(
            [&] { return monitor_->error_output().find("still serving") != std::string::npos; },
            30s))
      return std::nullopt;
    return port;
  }
  void TearDown() override {
    if (monitor_ && monitor_->running()) {
      monitor_->send_signal(SIGINT);
      EXPECT_EQ(monitor_->wait_exit(20s), 0) << monitor_->error_output();
    }
    monitor_.reset();
    MonitorTest::TearDown();
  }
  std::unique_ptr<MonitorProcess> monitor_;
};

// curl's way, 10,000 times: a keep-alive request on a new connection, which
// the client closes after the response. Under ulimit -n 64 libsoup 3.2 kept
// each in CLOSE-WAIT and stopped answering after about 52.
TEST_F(MonitorEndpointTest, TenThousandScrapesUnderSixtyFourDescriptors) {
  const auto port = start(64);
  ASSERT_TRUE(port) << monitor_->error_output();
  const std::size_t baseline = open_descriptors(*monitor_);
  for (int count = 0; count < 10000; ++count) {
    const std::string response = scrape(*port);
    ASSERT_EQ(status_of(response), 200u)
        << "scrape " << count << ": '" << response.substr(0, 200) << "'\n"
        << monitor_->error_output();
    ASSERT_NE(response.find("vmafexact_frames_scored_total{channel=\"main\"} 2\n"),
              std::string::npos);
  }
  EXPECT_TRUE(wait_until([&] { return open_descriptors(*monitor_) <= baseline; }, 5s))
      << open_descriptors(*monitor_) << " descriptors open, " << baseline << " before";
  // Idle connections beyond the descriptors left are closed to make room.
  std::vector<std::unique_ptr<Connection>> idle;
  for (int connection = 0; connection < 100; ++connection)
    idle.push_back(std::make_unique<Connection>(*port));
  EXPECT_EQ(status_of(scrape(*port)), 200u) << monitor_->error_output();
}

// A GET or HEAD /metrics on a connection of its own with these Accept
// fields: the response's head and body.
std::pair<std::string, std::string> metrics_with_accept(int port,
                                                        const std::vector<std::string>& accept,
                                                        const std::string& method = "GET") {
  std::string request = method + " /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const std::string& field : accept) request += "Accept: " + field + "\r\n";
  request += "Connection: close\r\n\r\n";
  Connection connection(port);
  const std::string response =
      connection.send_all(request) ? connection.read_response(method == "HEAD") : "";
  const std::size_t head_end = response.find("\r\n\r\n");
  if (status_of(response) != 200 || head_end == std::string::npos)
    throw std::runtime_error("no 200 answer: '" + response.substr(0, 200) + "'");
  return {response.substr(0, head_end + 2), response.substr(head_end + 4)};
}

// The scraper picks the format: Prometheus (which lists OpenMetrics first)
// gets OpenMetrics, curl (*/*) and a client without Accept the text format;
// both are answered with Vary: Accept, HEAD with GET's head.
TEST_F(MonitorEndpointTest, ContentNegotiationFollowsTheAcceptHeader) {
  const auto port = start();
  ASSERT_TRUE(port) << monitor_->error_output();
  const std::string openmetrics = "Content-Type: " + kOpenMetricsType + "\r\n";
  const std::string text = "Content-Type: " + kTextType + "\r\n";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{kPrometheusAccept}, openmetrics},
      {{"*/*"}, text},
      {{}, text},
      {{"text/plain;version=0.0.4"}, text},
      {{"text/plain", "application/openmetrics-text"}, openmetrics},  // fields joined
      {{"application/openmetrics-text;q=0,text/plain"}, text},
  };
  for (const auto& [accept, type] : cases) {
    const auto [head, body] = metrics_with_accept(*port, accept);
    EXPECT_NE(head.find("\r\n" + type), std::string::npos) << head;
    EXPECT_NE(head.find("\r\nVary: Accept\r\n"), std::string::npos) << head;
    if (type == openmetrics) {
      EXPECT_NO_THROW(parse_openmetrics(body)) << body;
    } else {
      EXPECT_NO_THROW(parse_text_format(body)) << body;
    }
    const auto [head_only, no_body] = metrics_with_accept(*port, accept, "HEAD");
    EXPECT_EQ(no_body, "");
    EXPECT_NE(head_only.find("\r\n" + type), std::string::npos) << head_only;
    EXPECT_NE(head_only.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n"),
              std::string::npos)
        << head_only;
  }
}

// The value of the sample written as `series` ("name{labels}") in `body`.
std::optional<double> sample_value(const std::string& body, const std::string& series) {
  const std::size_t at = body.find("\n" + series + " ");
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(body.c_str() + at + series.size() + 2, nullptr);
}

// A station: three live channels in one monitor (--config), scraped 10,000
// times as Prometheus does (one keep-alive connection, OpenMetrics), as curl
// does (a new keep-alive connection each time, closed by the client, the text
// format) and with Connection: close (closed by the monitor), while 200 idle
// connections are held open (reopened when the idle timeout closes them).
// Every scrape is answered with every channel, the channels score on, and the
// descriptors come back to where they were.
TEST_F(MonitorEndpointTest, TenThousandScrapesOfAStationWithTwoHundredIdleConnections) {
  const std::vector<std::string> channels = {"news-hd", "sport.4k", "kids_1"};
  std::string config = "[monitor]\nstall-timeout=0\n";
  for (const std::string& channel : channels)
    config += "[channel " + channel +
              "]\npipeline=videotestsrc is-live=true pattern=ball ! "
              "video/x-raw,format=I420,width=64,height=48,framerate=10/1 ! tee name=t t. ! queue "
              "! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v model=\"\" features=psnr "
              "threads=1 ! fakesink\n";
  const fs::path config_path = dir_ / "station.conf";
  std::ofstream(config_path) << config;
  monitor_ = std::make_unique<MonitorProcess>(
      std::vector<std::string>{"--config", config_path.string(), "--listen", "127.0.0.1:0"},
      dir_ / "stderr.txt", 1024);
  const auto port = monitor_->wait_port(30s);
  ASSERT_TRUE(port) << monitor_->error_output();
  const auto frames_of = [&](const std::string& body, const std::string& channel) {
    return sample_value(body, "vmafexact_frames_scored_total{channel=\"" + channel + "\"}");
  };
  std::string first;
  ASSERT_TRUE(wait_until(
      [&] {
        first = http_get(*port, "/metrics").body;
        for (const std::string& channel : channels)
          if (frames_of(first, channel).value_or(0) < 1) return false;
        return true;
      },
      30s))
      << first << monitor_->error_output();
  const std::size_t baseline = open_descriptors(*monitor_);

  std::vector<std::unique_ptr<Connection>> idle;
  const auto hold_idle = [&] {
    for (auto& connection : idle) {
      char byte;
      if (connection->readable(0ms) && recv(connection->fd(), &byte, 1, MSG_DONTWAIT) <= 0)
        connection.reset();  // closed at the idle timeout
    }
    std::erase(idle, nullptr);
    while (idle.size() < 200) idle.push_back(std::make_unique<Connection>(*port));
  };
  hold_idle();
  auto kept = std::make_unique<Connection>(*port);
  std::size_t most_descriptors = 0;
  std::string last;
  for (int count = 0; count < 10000; ++count) {
    std::string response;
    if (count % 3 == 0) {  // Prometheus: its connection kept
      const std::string request =
          "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: " + kPrometheusAccept + "\r\n\r\n";
      response = kept->send_all(request) ? kept->read_response() : "";
    } else if (count % 3 == 1) {  // curl
      response = scrape(*port);
    } else {  // closed by the monitor
      Connection connection(*port);
      if (connection.send_all(
              "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        response = connection.read_response();
      ASSERT_TRUE(connection.closed_within(5000ms)) << "scrape " << count;
    }
    ASSERT_EQ(status_of(response), 200u)
        << "scrape " << count << ": '" << response.substr(0, 200) << "'\n"
        << monitor_->error_output();
    for (const std::string& channel : channels)
      ASSERT_TRUE(frames_of(response, channel)) << "scrape " << count << " lacks " << channel;
    last = std::move(response);
    if (count % 250 == 0) {
      hold_idle();
      most_descriptors = std::max(most_descriptors, open_descriptors(*monitor_));
    }
  }
  std::cout << "[monitor] station of " << channels.size()
            << " channels, 10000 scrapes: " << baseline << " descriptors before, at most "
            << most_descriptors << " with 200 idle connections held\n";
  // 200 idle connections, the kept one and the one being answered.
  EXPECT_LE(most_descriptors, baseline + 200 + 2);
  EXPECT_GE(most_descriptors, baseline + 150) << "the idle connections were not held";
  for (const std::string& channel : channels)
    EXPECT_GT(frames_of(last, channel).value_or(0), frames_of(first, channel).value_or(0))
        << channel << " stopped scoring";
  idle.clear();
  kept.reset();
  EXPECT_TRUE(wait_until([&] { return open_descriptors(*monitor_) <= baseline; }, 10s))
      << open_descriptors(*monitor_) << " descriptors open, " << baseline << " before";
}

// Under ulimit -n 64 the monitor keeps about 25 connections; with all of
// them in the middle of a request head, a new one is answered 503 and closed,
// and the descriptors stay under the limit. Once they go, it answers again.
TEST_F(MonitorEndpointTest, ConnectionsBeyondTheCapAreAnswered503WhenNoneIsIdle) {
  const auto port = start(64);
  ASSERT_TRUE(port) << monitor_->error_output();
  std::vector<std::unique_ptr<Connection>> busy;
  std::size_t refused = 0;
  for (int connection = 0; connection < 60; ++connection) {
    busy.push_back(std::make_unique<Connection>(*port));
    ASSERT_TRUE(busy.back()->send_all("GET /metrics HTTP/1.1\r\n"));
    if (busy.back()->readable(100ms)) {
      const std::string response = busy.back()->read_response();
      EXPECT_EQ(status_of(response), 503u) << response;
      EXPECT_TRUE(busy.back()->closed_within(3s));
      ++refused;
    }
  }
  EXPECT_GE(refused, 20u);
  EXPECT_LT(open_descriptors(*monitor_), 64u);
  busy.clear();
  EXPECT_TRUE(wait_until([&] { return status_of(scrape(*port)) == 200; }, 5s));
}

// 200 connections left idle, half of them after a keep-alive response: the
// monitor answers meanwhile and closes them all after its idle timeout (5 s).
TEST_F(MonitorEndpointTest, IdleConnectionsAreClosedAfterTheIdleTimeout) {
  const auto port = start();
  ASSERT_TRUE(port) << monitor_->error_output();
  const std::size_t baseline = open_descriptors(*monitor_);
  std::vector<std::unique_ptr<Connection>> idle;
  for (int connection = 0; connection < 200; ++connection) {
    idle.push_back(std::make_unique<Connection>(*port));
    if (connection % 2 == 0) continue;
    ASSERT_TRUE(idle.back()->send_all(metrics_request()));
    ASSERT_EQ(status_of(idle.back()->read_response()), 200u);
  }
  EXPECT_TRUE(wait_until([&] { return open_descriptors(*monitor_) >= baseline + 200; }, 5s));
  const auto opened = std::chrono::steady_clock::now();
  const std::string response = scrape(*port, "HEAD");
  EXPECT_EQ(status_of(response), 200u);
  EXPECT_EQ(response.substr(response.size() - 4), "\r\n\r\n");  // HEAD: no body
  std::size_t closed = 0;
  for (auto& connection : idle) closed += connection->closed_by(opened + 10s);
  EXPECT_EQ(closed, idle.size());
  EXPECT_GE(std::chrono::steady_clock::now() - opened, 3s);  // not before the timeout
  EXPECT_TRUE(wait_until([&] { return open_descriptors(*monitor_) <= baseline + 1; }, 5s))
      << open_descriptors(*monitor_) << " descriptors open, " << baseline << " before";
}

// A 300 MB POST: answered 405 after its head, its body discarded as it comes,
// never held (libsoup 3.2 read it all, 641 MB resident, before answering).
TEST_F(MonitorEndpointTest, ALargePostIsRefusedWithoutHoldingItsBody) {
  const auto port = start();
  ASSERT_TRUE(port) << monitor_->error_output();
  const long resident_before = resident_kib(*monitor_);
  constexpr std::size_t kBodySize = 300u << 20;
  Connection connection(*port);
  const auto begun = std::chrono::steady_clock::now();
  ASSERT_TRUE(connection.send_all("POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                                  std::to_string(kBodySize) + "\r\n\r\n"));
  const std::string chunk(1 << 16, 'x');
  std::size_t sent = 0;
  while (sent < kBodySize && !connection.readable(0ms) && connection.send_all(chunk))
    sent += chunk.size();
  const std::string response = connection.read_response();
  EXPECT_EQ(status_of(response), 405u) << response;
  EXPECT_NE(response.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << response;
  EXPECT_NE(response.find("\r\nConnection: close\r\n"), std::string::npos) << response;
  EXPECT_LT(std::chrono::steady_clock::now() - begun, 10s);
  const long resident_after = resident_kib(*monitor_);
  EXPECT_LT(resident_after - resident_before, 4096)
      << resident_before << " KiB resident before, " << resident_after << " after; " << sent
      << " body bytes sent";
  // A GET with a body is refused too, and the monitor answers on.
  Connection with_body(*port);
  ASSERT_TRUE(with_body.send_all(
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello"));
  EXPECT_EQ(status_of(with_body.read_response()), 413u);
  EXPECT_EQ(status_of(scrape(*port)), 200u);
}

// Heads too large or malformed: refused with their status, the connection
// closed; the monitor answers on.
TEST_F(MonitorEndpointTest, OversizedAndMalformedHeadsAreRefused) {
  const auto port = start();
  ASSERT_TRUE(port) << monitor_->error_output();
  const std::pair<std::string, unsigned> cases[] = {
      {"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + std::string(16 << 10, 'c') +
           "\r\n\r\n",
       431},
      {"GET /" + std::string(16 << 10, 'm') + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414},
      {"GET /metrics HTTP/1.1\r\n\r\n", 400},
      {std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), 400},
      {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
      {"GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 404},
  };
  for (const auto& [request, status] : cases) {
    Connection connection(*port);
    connection.send_all(request);  // the monitor may answer and close before it all went
    const std::string response = connection.read_response();
    EXPECT_EQ(status_of(response), status) << request.substr(0, 40) << ": " << response;
    EXPECT_TRUE(connection.closed_within(3s)) << request.substr(0, 40);
  }
  EXPECT_EQ(status_of(scrape(*port)), 200u);
}

// A slowloris (a header byte every half second) is cut at the request
// timeout, 10 s after its first byte, with a 408.
TEST_F(MonitorEndpointTest, ASlowlorisIsCutAtTheRequestTimeout) {
  const auto port = start();
  ASSERT_TRUE(port) << monitor_->error_output();
  Connection connection(*port);
  const auto begun = std::chrono::steady_clock::now();
  bool open = connection.send_all("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  // Waiting on the socket paces the bytes: the monitor's answer ends the loop.
  while (open && std::chrono::steady_clock::now() - begun < 20s && !connection.readable(500ms))
    open = connection.send_all("a");
  const auto cut = std::chrono::steady_clock::now() - begun;
  EXPECT_GE(cut, 9s);
  EXPECT_LT(cut, 13s);
  EXPECT_EQ(status_of(connection.read_response()), 408u);
  EXPECT_TRUE(connection.closed_within(3s));
}

// ---------------------------------------------------------------- shutdown
//
// Issue 39: SIGTERM while an input never sends. The EOS the signal sent
// blocked the main loop in gst_element_send_event(): /metrics stopped
// answering, --eos-timeout never fired, a second SIGTERM was ignored.

// The status of GET /metrics, or nothing if it does not answer within 5 s.
std::optional<guint> metrics_status(int port) {
  try {
    const guint status = http_get(port, "/metrics").status;
    return status;
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

// Waits until the program's standard error holds `text`; false at the timeout.
bool wait_for_error_text(const MonitorProcess& monitor, const std::string& text,
                         std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (monitor.error_output().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline || !monitor.running()) return false;
    MonitorProcess::pump(20ms);
  }
  return true;
}

constexpr const char* kShutdownCaps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";

class MonitorShutdownTest : public MonitorTest {
 protected:
  // A pipeline whose sources cannot take an EOS: two filesrcs blocked reading
  // FIFOs that this test holds open and never writes to.
  std::string blocked_pipeline() {
    std::string pipeline;
    for (const char* name : {"ref", "dist"}) {
      const fs::path fifo = dir_ / (std::string(name) + ".fifo");
      EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
      // O_RDWR: the open does not wait for a reader.
      fifo_writers_.push_back(::open(fifo.c_str(), O_RDWR | O_CLOEXEC));
      EXPECT_GE(fifo_writers_.back(), 0);
      fifos_.push_back(fifo);
      pipeline += "filesrc location=" + fifo.string() + " ! v." + name + "_sink ";
    }
    return pipeline + "vmafexact name=v model=\"\" features=psnr ! fakesink";
  }

  void TearDown() override {
    for (const int writer : fifo_writers_)
      if (writer >= 0) ::close(writer);
    MonitorTest::TearDown();
  }

  std::vector<int> fifo_writers_;
  std::vector<fs::path> fifos_;
};

TEST_F(MonitorShutdownTest, SigtermWithASilentLiveInputEndsWithTheSummary) {
  // The issue's pipeline: a udpsrc nobody sends to, a live test source, no
  // queue. The element lets the live frames go unpaired and ends on the EOS.
  const fs::path jsonl = dir_ / "silent.jsonl";
  MonitorProcess monitor(
      {"--pipeline",
       "udpsrc port=0 address=127.0.0.1 caps=\"" + std::string(kShutdownCaps) +
           "\" ! v.ref_sink videotestsrc is-live=true ! " + kShutdownCaps +
           " ! v.dist_sink vmafexact name=v model=\"\" features=psnr ! fakesink",
       "--listen", "127.0.0.1:0", "--jsonl", jsonl.string(), "--eos-timeout", "10"},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  // The live frames reach the element and go unpaired (before the fix they
  // stuck in its pad, and the EOS with them).
  EXPECT_TRUE(wait_for_error_text(monitor, "has no reference frame", 10s))
      << monitor.error_output();
  monitor.send_signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  EXPECT_EQ(monitor.wait_exit(15s), 0) << monitor.error_output();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 12s);
  const std::vector<Json> lines = read_json_lines(jsonl);
  ASSERT_FALSE(lines.empty()) << monitor.error_output();
  EXPECT_EQ(lines.back().at("message"), "vmafexact-summary");
}

TEST_F(MonitorShutdownTest, SigtermKeepsServingAndStopsAtTheEosTimeoutWhenTheEosIsBlocked) {
  // --eos-timeout=2: the value after an equals sign, read as the 2 s below.
  MonitorProcess monitor(
      {"--pipeline", blocked_pipeline(), "--listen", "127.0.0.1:0", "--eos-timeout=2"},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  ASSERT_TRUE(monitor.wait_blocked_reading(fifos_, 30s)) << monitor.error_output();
  EXPECT_EQ(metrics_status(*port), std::optional<guint>(200u));
  monitor.send_signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_for_error_text(monitor, "SIGTERM: ending the streams", 10s))
      << monitor.error_output();
  // The EOS is stuck in the sources; the loop still answers.
  EXPECT_EQ(metrics_status(*port), std::optional<guint>(200u)) << "/metrics stopped answering";
  const auto status = monitor.wait_exit(10s);
  EXPECT_EQ(status, std::optional<int>(1)) << monitor.error_output();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 2s + 3s);
  EXPECT_NE(monitor.error_output().find("no end of stream 2 s after the signal"), std::string::npos)
      << monitor.error_output();
}

TEST_F(MonitorShutdownTest, ASecondSigtermStopsAtOnceWhenTheEosIsBlocked) {
  MonitorProcess monitor(
      {"--pipeline", blocked_pipeline(), "--listen", "127.0.0.1:0", "--eos-timeout", "600"},
      dir_ / "stderr.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  ASSERT_TRUE(monitor.wait_blocked_reading(fifos_, 30s)) << monitor.error_output();
  monitor.send_signal(SIGTERM);
  ASSERT_TRUE(wait_for_error_text(monitor, "SIGTERM: ending the streams", 10s))
      << monitor.error_output();
  EXPECT_EQ(metrics_status(*port), std::optional<guint>(200u)) << "/metrics stopped answering";
  monitor.send_signal(SIGTERM);
  const auto signalled = std::chrono::steady_clock::now();
  EXPECT_EQ(monitor.wait_exit(10s), std::optional<int>(1)) << monitor.error_output();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 3s);
  EXPECT_NE(monitor.error_output().find("SIGTERM again"), std::string::npos)
      << monitor.error_output();
}

// ---------------------------------------------------------------- the command line
//
// GOption (options.cpp), as the vmafexact tool's: --opt=value as well as
// --opt value, --version, and refusals that name the option and the fix.

constexpr const char* kTwoFramePipeline =
    "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=64 ! tee name=t "
    "t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafexact name=v threads=1";

struct Finished {
  std::optional<int> status;  // nothing: still running after 30 s
  std::string output;
  std::string errors;
};

class MonitorCommandLineTest : public MonitorTest {
 protected:
  // Runs the monitor on `arguments` to its exit.
  Finished run(const std::vector<std::string>& arguments) {
    MonitorProcess monitor(arguments, dir_ / "stderr.txt", 0, dir_ / "stdout.txt");
    Finished finished;
    finished.status = monitor.wait_exit(30s);
    finished.output = monitor.output();
    finished.errors = monitor.error_output();
    return finished;
  }
};

std::string joined(const std::vector<std::string>& arguments) {
  std::string text;
  for (const std::string& argument : arguments) text += (text.empty() ? "" : " ") + argument;
  return text;
}

// Served on the address given as --listen=..., scraped; --pipeline=... as
// well; --jsonl - (a value that starts with '-') still writes to standard
// output; of --exit-on-eos and --no-exit-on-eos the last one counts.
TEST_F(MonitorCommandLineTest, ListenAfterAnEqualsSignIsServedAndScraped) {
  MonitorProcess monitor({"--pipeline=" + std::string(kTwoFramePipeline), "--listen=127.0.0.1:0",
                          "--jsonl", "-", "--exit-on-eos", "--no-exit-on-eos"},
                         dir_ / "stderr.txt", 0, dir_ / "stdout.txt");
  const auto port = monitor.wait_port(30s);
  ASSERT_TRUE(port) << monitor.error_output();
  ASSERT_TRUE(wait_for_error_text(monitor, "still serving", 30s)) << monitor.error_output();
  Exposition metrics;
  ASSERT_NO_THROW(metrics = scrape_metrics(*port));
  EXPECT_EQ(metrics.of("main", "vmafexact_frames_scored_total")->value, 2);
  EXPECT_EQ(metrics.of("main", "vmafexact_end_of_stream")->value, 1);
  monitor.send_signal(SIGINT);
  EXPECT_EQ(monitor.wait_exit(20s), 0) << monitor.error_output();
  EXPECT_NE(monitor.output().find("\"vmafexact-summary\""), std::string::npos) << monitor.output();
}

TEST_F(MonitorCommandLineTest, VersionPrintsTheVersionsAloneAndWithOtherOptions) {
  const std::string first_line = "vmafexact-monitor " VMAFEXACT_VERSION " (libvmaf 3.2.0)\n";
  const std::regex gstreamer_line("\nGStreamer [0-9]+\\.[0-9]+\\.[0-9]+[^\n]*\n$");
  const std::vector<std::string> command_lines[] = {
      {"--version"},
      {"--listen=127.0.0.1:0", "--version"},
      {"--version", "--pipeline", kTwoFramePipeline, "--listen", "127.0.0.1:0"},
      // A command line refused without --version: one input, a bad timeout.
      {"--ref", "only-one-input", "--eos-timeout=soon", "--version"},
  };
  for (const auto& arguments : command_lines) {
    const Finished finished = run(arguments);
    EXPECT_EQ(finished.status, std::optional<int>(0)) << joined(arguments) << finished.errors;
    EXPECT_EQ(finished.output.rfind(first_line, 0), 0u) << joined(arguments) << finished.output;
    EXPECT_TRUE(std::regex_search(finished.output, gstreamer_line))
        << joined(arguments) << finished.output;
    EXPECT_EQ(finished.errors.find("serving"), std::string::npos) << finished.errors;
  }
}

TEST_F(MonitorCommandLineTest, HelpListsEveryOption) {
  for (const char* help : {"--help", "-h"}) {
    const Finished finished = run({help});
    EXPECT_EQ(finished.status, std::optional<int>(0)) << finished.errors;
    for (const char* option :
         {"--ref=URI", "--dist=URI", "--pipeline=DESCRIPTION", "--set=NAME=VALUE",
          "--listen=HOST:PORT", "--jsonl=FILE|-", "--exit-on-eos", "--no-exit-on-eos",
          "--ref-offset=DURATION", "--dist-offset=DURATION", "--eos-timeout=SECONDS", "--version"})
      EXPECT_NE(finished.output.find(option), std::string::npos) << option << "\n"
                                                                 << finished.output;
  }
}

// Unknown options and stray arguments: exit status 2, the problem named and
// --help pointed to; nothing served.
TEST_F(MonitorCommandLineTest, UnknownOptionsAndArgumentsAreRefusedWithTheFix) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--pipeline=" + std::string(kTwoFramePipeline), "--listen=127.0.0.1:0", "--no-such-option"},
       "--no-such-option"},
      {{"--pipeline", kTwoFramePipeline, "--listen=127.0.0.1:0", "--no-such-option=1"},
       "--no-such-option"},
      {{"--pipeline", kTwoFramePipeline, "--listen=127.0.0.1:0", "stray"},
       "unknown argument 'stray'"},
  };
  for (const auto& [arguments, problem] : cases) {
    const Finished finished = run(arguments);
    EXPECT_EQ(finished.status, std::optional<int>(2)) << joined(arguments);
    EXPECT_NE(finished.errors.find(problem), std::string::npos) << finished.errors;
    EXPECT_NE(finished.errors.find(" --help for the options"), std::string::npos)
        << finished.errors;
    EXPECT_EQ(finished.errors.find("serving"), std::string::npos) << finished.errors;
  }
}

// An option that takes a value, given last without one: exit status 2, that
// option named (not the --listen=... before it) and --help pointed to.
TEST_F(MonitorCommandLineTest, AMissingValueIsNamedWithTheFix) {
  for (const std::string option : {"--ref", "--dist", "--pipeline", "--set", "--listen", "--jsonl",
                                   "--ref-offset", "--dist-offset", "--eos-timeout"}) {
    const Finished finished = run({"--listen=127.0.0.1:0", option});
    EXPECT_EQ(finished.status, std::optional<int>(2)) << option << ": " << finished.errors;
    EXPECT_TRUE(std::regex_search(finished.errors, std::regex(option + "(?![-=])")))
        << option << ": " << finished.errors;
    EXPECT_NE(finished.errors.find(" --help for the options"), std::string::npos)
        << finished.errors;
  }
}

// Values after an equals sign are checked as those after a space, with the
// same messages and exit statuses.
TEST_F(MonitorCommandLineTest, BadValuesAfterAnEqualsSignAreRefusedWithTheFix) {
  struct Case {
    std::string argument;
    int status;
    std::string message;
  };
  const Case cases[] = {
      {"--eos-timeout=abc", 2, "--eos-timeout takes a number of seconds (0 to 86400), not 'abc'"},
      {"--ref-offset=soon", 2, "--ref-offset takes a duration such as 250ms, 1.5s or -40ms"},
      {"--dist-offset=1h", 2, "--dist-offset takes a duration such as 250ms, 1.5s or -40ms"},
      {"--set=threads", 2, "--set takes NAME=VALUE (e.g. --set features=psnr), not 'threads'"},
      {"--jsonl=", 2, "--jsonl needs a file name or -"},
      // A flag refuses a value rather than drop it (true for "false").
      {"--exit-on-eos=false", 2, "--exit-on-eos takes no value, not 'false'"},
      {"--listen=nonsense", 1, "--listen nonsense: expected HOST:PORT"},
  };
  for (const auto& [argument, status, message] : cases) {
    const Finished finished = run({"--pipeline", kTwoFramePipeline, argument});
    EXPECT_EQ(finished.status, std::optional<int>(status)) << argument << ": " << finished.errors;
    EXPECT_NE(finished.errors.find(message), std::string::npos)
        << argument << ": " << finished.errors;
  }
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
