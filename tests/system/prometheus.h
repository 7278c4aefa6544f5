// Debian's Prometheus, run by a test: started on the loopback on a free port
// with a configuration the test writes, and asked through its HTTP API
// (https://prometheus.io/docs/prometheus/latest/querying/api/).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "system_process.h"

namespace vmafexact::system_test {

struct HttpResponse {
  unsigned status = 0;
  std::string body;
};

// GET `target` ("/path?query") from 127.0.0.1:`port` as HTTP/1.0 (so the
// answer is the bytes up to the close: no chunks), through GIO's sockets.
// Throws when the server cannot be reached or does not answer within `timeout`.
HttpResponse http_get(int port, const std::string& target,
                      std::chrono::seconds timeout = std::chrono::seconds(10));

// `text` with every character but A-Z a-z 0-9 -._~ percent-encoded.
std::string url_encoded(const std::string& text);

// Seconds since the Unix epoch, as Prometheus' API takes them.
double unix_now();

// The API's answers. Each throws std::runtime_error with Prometheus' errorType
// and error (a PromQL syntax error, ...) when the status is not "success".
class PrometheusApi {
 public:
  explicit PrometheusApi(int port) : port_(port) {}
  int port() const { return port_; }

  // The answer's "data".
  nlohmann::json get(const std::string& path_and_query) const;
  // An instant query at `time` (Unix seconds): {"resultType": ..., "result": [...]}.
  nlohmann::json query(const std::string& expression, double time) const;
  // A range query from `start` to `end` every `step_seconds`.
  nlohmann::json query_range(const std::string& expression, double start, double end,
                             double step_seconds) const;

 private:
  int port_;
};

class PrometheusServer {
 public:
  // Starts `program` with `config_yaml` (written into `dir`, whose tsdb/ holds
  // the storage) on a free loopback port, and waits (at most `timeout`) until
  // it answers /-/ready. Throws with its log when it does not come up.
  PrometheusServer(const std::string& program, const std::filesystem::path& dir,
                   const std::string& config_yaml, std::chrono::seconds timeout);
  ~PrometheusServer();  // kills it (SystemProcess)
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  const PrometheusApi& api() const { return api_; }
  std::string log() const { return process_ ? process_->error_output() : ""; }
  bool running() const { return process_ && process_->running(); }

 private:
  std::unique_ptr<SystemProcess> process_;
  PrometheusApi api_{0};
};

}  // namespace vmafexact::system_test
