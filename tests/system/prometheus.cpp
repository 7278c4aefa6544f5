#include "prometheus.h"

#include "../common/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace vmafexact::system_test {

namespace {

using vmafexact::test::free_loopback_port;
using namespace std::chrono_literals;

std::string error_text(GError* error) {
  std::string text = error ? error->message : "?";
  g_clear_error(&error);
  return text;
}

std::string seconds_text(double seconds) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

}  // namespace

HttpResponse http_get(int port, const std::string& target, std::chrono::seconds timeout) {
  const std::string where = "GET http://127.0.0.1:" + std::to_string(port) + target;
  GObjectPtr<GSocketClient> client(g_socket_client_new());
  // Also the socket's timeout for every read and write once connected.
  g_socket_client_set_timeout(client.get(), static_cast<guint>(timeout.count()));
  GError* error = nullptr;
  GObjectPtr<GSocketConnection> connection(g_socket_client_connect_to_host(
      client.get(), "127.0.0.1", static_cast<guint16>(port), nullptr, &error));
  if (!connection) throw std::runtime_error(where + ": " + error_text(error));
  const std::string request =
      "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n";
  GOutputStream* out = g_io_stream_get_output_stream(G_IO_STREAM(connection.get()));
  if (!g_output_stream_write_all(out, request.data(), request.size(), nullptr, nullptr, &error))
    throw std::runtime_error(where + ": " + error_text(error));
  GInputStream* in = g_io_stream_get_input_stream(G_IO_STREAM(connection.get()));
  std::string text;
  for (;;) {
    char buffer[65536];
    const gssize got = g_input_stream_read(in, buffer, sizeof buffer, nullptr, &error);
    if (got < 0) throw std::runtime_error(where + ": " + error_text(error));
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  const std::size_t head_end = text.find("\r\n\r\n");
  unsigned status = 0;
  if (head_end == std::string::npos || std::sscanf(text.c_str(), "HTTP/1.%*d %u", &status) != 1)
    throw std::runtime_error(where + ": not an HTTP response: \"" + text.substr(0, 80) + "\"");
  return {status, text.substr(head_end + 4)};
}

std::string url_encoded(const std::string& text) {
  gchar* escaped = g_uri_escape_string(text.c_str(), nullptr, FALSE);
  std::string result = escaped;
  g_free(escaped);
  return result;
}

double unix_now() { return static_cast<double>(g_get_real_time()) / G_USEC_PER_SEC; }

nlohmann::json PrometheusApi::get(const std::string& path_and_query) const {
  const HttpResponse response = http_get(port_, path_and_query);
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(response.body);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("Prometheus " + path_and_query + ": HTTP " +
                             std::to_string(response.status) + ", not JSON (" + e.what() +
                             "): " + response.body.substr(0, 200));
  }
  if (answer.value("status", "") != "success")
    throw std::runtime_error("Prometheus " + path_and_query + ": HTTP " +
                             std::to_string(response.status) + ", " +
                             answer.value("errorType", "?") + ": " + answer.value("error", "?"));
  return answer.at("data");
}

nlohmann::json PrometheusApi::query(const std::string& expression, double time) const {
  return get("/api/v1/query?query=" + url_encoded(expression) + "&time=" + seconds_text(time));
}

nlohmann::json PrometheusApi::query_range(const std::string& expression, double start, double end,
                                          double step_seconds) const {
  return get("/api/v1/query_range?query=" + url_encoded(expression) +
             "&start=" + seconds_text(start) + "&end=" + seconds_text(end) +
             "&step=" + seconds_text(step_seconds));
}

PrometheusServer::PrometheusServer(const std::string& program, const std::filesystem::path& dir,
                                   const std::string& config_yaml, std::chrono::seconds timeout) {
  const std::filesystem::path config = dir / "prometheus.yml";
  std::ofstream(config) << config_yaml;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // The port was free when chosen; another program may take it before
  // Prometheus does: then it exits at once and is started on another.
  for (int attempt = 1;; ++attempt) {
    const int port = free_loopback_port();
    process_ = std::make_unique<SystemProcess>(
        std::vector<std::string>{program, "--config.file=" + config.string(),
                                 "--storage.tsdb.path=" + (dir / "tsdb").string(),
                                 "--web.listen-address=127.0.0.1:" + std::to_string(port),
                                 "--log.level=warn"},
        dir / "prometheus.log");
    api_ = PrometheusApi(port);
    while (process_->running() && std::chrono::steady_clock::now() < deadline) {
      try {
        if (http_get(port, "/-/ready", 2s).status == 200) return;
      } catch (const std::runtime_error&) {
        // not listening yet
      }
      SystemProcess::pump(50ms);
    }
    const std::string log = process_->error_output();
    if (!process_->running() && attempt < 3 &&
        log.find("address already in use") != std::string::npos)
      continue;
    const std::string why = process_->running() ? "did not become ready within " +
                                                      std::to_string(timeout.count()) + " s"
                                                : "exited before it was ready";
    process_.reset();
    throw std::runtime_error(program + " on 127.0.0.1:" + std::to_string(port) + " " + why +
                             "; its log:\n" + log);
  }
}

PrometheusServer::~PrometheusServer() = default;

}  // namespace vmafexact::system_test
