// vmafexact-monitor's HTTP endpoint on the GLib main loop. See monitor_http.h.
//
// Each connection is a small state machine on a non-blocking socket, with one
// socket watch and one timer at a time:
//   reading   -> the request head arrives (bounded; idle and request timeouts)
//   writing   -> the response goes out (write timeout), then reading again for
//                a keep-alive request, or
//   lingering -> after a final answer: our side shut down, what the client
//                still sends (a body we refused) discarded until it closes or
//                the linger timeout, so that it reads the answer rather than a
//                reset.

#include "monitor_http.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <utility>

#include "support/open_files.h"

namespace vmafexact::monitor_http {

namespace {

using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GObjectPtr;

constexpr gsize kReadChunk = 16384;
constexpr int kDrainChunksPerWakeup = 64;  // 1 MiB, then the other connections' turn
constexpr int kAcceptsPerWakeup = 64;
constexpr guint kAcceptPauseMs = 100;  // out of descriptors: try again after
constexpr gint64 kWarningIntervalUs = 60 * G_USEC_PER_SEC;

SourcePtr attach_timeout(guint milliseconds, GSourceFunc callback, gpointer data) {
  GSource* source = g_timeout_source_new(milliseconds);
  g_source_set_callback(source, callback, data, nullptr);
  g_source_attach(source, nullptr);
  return SourcePtr(source);
}

SourcePtr attach_socket_watch(GSocket* socket, GIOCondition condition, GSocketSourceFunc callback,
                              gpointer data) {
  GSource* source = g_socket_create_source(socket, condition, nullptr);
  g_source_set_callback(source, G_SOURCE_FUNC(callback), data, nullptr);
  g_source_attach(source, nullptr);
  return SourcePtr(source);
}

bool would_block(const GError* error) {
  return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
}

std::string seconds_text(guint milliseconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", milliseconds / 1000.0);
  return text;
}

}  // namespace

class MetricsServer::Connection {
 public:
  Connection(MetricsServer& server, GObjectPtr<GSocket> socket)
      : server_(server), socket_(std::move(socket)) {}
  ~Connection() {
    watch_.reset();
    timer_.reset();
    g_socket_close(socket_.get(), nullptr);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start(Connections::iterator self) {
    self_ = self;
    wait_for_request();
    advance();
  }
  // Waiting for a request that has not begun: what may be closed to make room.
  bool idle() const { return state_ == State::kReading && received_.empty(); }
  gint64 waiting_since() const { return waiting_since_; }

 private:
  enum class State { kReading, kWriting, kLingering };
  enum class Progress { kDone, kWaiting, kClosed };

  static gboolean socket_callback(GSocket*, GIOCondition, gpointer self) {
    static_cast<Connection*>(self)->on_socket_ready();
    return G_SOURCE_CONTINUE;
  }
  static gboolean timeout_callback(gpointer self) {
    static_cast<Connection*>(self)->on_timeout();
    return G_SOURCE_REMOVE;
  }

  // Destroys *this: return at once after it.
  void close() { server_.remove(self_); }

  void watch(GIOCondition condition) {
    if (watch_ && watched_ == condition) return;
    watched_ = condition;
    watch_ = attach_socket_watch(socket_.get(), condition, socket_callback, this);
  }
  void set_timer(guint milliseconds) {
    timer_ = attach_timeout(milliseconds, timeout_callback, this);
  }

  void wait_for_request() {
    state_ = State::kReading;
    waiting_since_ = g_get_monotonic_time();
    // Pipelined bytes already here have begun the next request.
    set_timer(received_.empty() ? server_.limits_.idle_timeout_ms
                                : server_.limits_.request_timeout_ms);
  }

  // Answers every complete request received, until it must wait for the
  // socket or has closed.
  void advance() {
    while (true) {
      if (state_ == State::kReading) {
        const ParsedHead head = parse_request_head(received_, server_.limits_.request);
        if (head.state == HeadState::kIncomplete) {
          watch(G_IO_IN);
          return;
        }
        answer(head);
      }
      if (send_pending() != Progress::kDone) return;
      if (close_after_response_) {
        linger();
        return;
      }
      wait_for_request();
    }
  }

  void answer(const ParsedHead& head) {
    const Response response = respond(head, server_.render_metrics_);
    const bool head_only = head.state == HeadState::kComplete && head.request.method == "HEAD";
    response_ = serialize(response, head_only, server_.server_name_, std::time(nullptr));
    written_ = 0;
    close_after_response_ = response.close;
    if (response.close)
      received_ = std::string();
    else
      received_.erase(0, head.head_size);
    state_ = State::kWriting;
    set_timer(server_.limits_.write_timeout_ms);
  }

  Progress send_pending() {
    while (written_ < response_.size()) {
      GError* raw_error = nullptr;
      const gssize sent = g_socket_send(socket_.get(), response_.data() + written_,
                                        response_.size() - written_, nullptr, &raw_error);
      const ErrorPtr error(raw_error);
      if (sent < 0 && would_block(error.get())) {
        watch(G_IO_OUT);
        return Progress::kWaiting;
      }
      if (sent <= 0) {
        close();
        return Progress::kClosed;
      }
      written_ += static_cast<std::size_t>(sent);
    }
    response_ = std::string();  // free it: idle connections hold no response
    return Progress::kDone;
  }

  void linger() {
    state_ = State::kLingering;
    received_ = std::string();
    if (!g_socket_shutdown(socket_.get(), FALSE, TRUE, nullptr)) {
      close();
      return;
    }
    set_timer(server_.limits_.linger_timeout_ms);
    watch(G_IO_IN);
  }

  void on_socket_ready() {
    switch (state_) {
      case State::kReading:
        receive();
        return;
      case State::kWriting:
        advance();
        return;
      case State::kLingering:
        discard();
        return;
    }
  }

  void receive() {
    // Never more than one byte past the head limit: the parser refuses then.
    const std::size_t room = server_.limits_.request.max_head_bytes + 1 - received_.size();
    char buffer[kReadChunk];
    GError* raw_error = nullptr;
    const gssize got =
        g_socket_receive(socket_.get(), buffer, std::min(room, sizeof buffer), nullptr, &raw_error);
    const ErrorPtr error(raw_error);
    if (got < 0 && would_block(error.get())) return;
    if (got <= 0) {  // the client closed, or the connection failed
      close();
      return;
    }
    if (received_.empty()) set_timer(server_.limits_.request_timeout_ms);
    received_.append(buffer, static_cast<std::size_t>(got));
    advance();
  }

  void discard() {
    char buffer[kReadChunk];
    for (int chunk = 0; chunk < kDrainChunksPerWakeup; ++chunk) {
      GError* raw_error = nullptr;
      const gssize got =
          g_socket_receive(socket_.get(), buffer, sizeof buffer, nullptr, &raw_error);
      const ErrorPtr error(raw_error);
      if (got < 0 && would_block(error.get())) return;
      if (got <= 0) {
        close();
        return;
      }
    }
  }

  void on_timeout() {
    if (state_ == State::kReading && !received_.empty()) {
      // A request head still incomplete (a slowloris): say why, if the
      // socket takes it now, and close.
      Response response;
      response.status = 408;
      response.content_type = "text/plain; charset=utf-8";
      response.body = "the request head did not arrive within " +
                      seconds_text(server_.limits_.request_timeout_ms) + " s\n";
      const std::string text = serialize(response, false, server_.server_name_, std::time(nullptr));
      g_socket_send(socket_.get(), text.data(), text.size(), nullptr, nullptr);
    }
    close();
  }

  MetricsServer& server_;
  Connections::iterator self_;
  GObjectPtr<GSocket> socket_;
  SourcePtr watch_;
  GIOCondition watched_ = G_IO_IN;
  SourcePtr timer_;
  State state_ = State::kReading;
  gint64 waiting_since_ = 0;
  std::string received_;  // at most the head limit and one byte
  std::string response_;
  std::size_t written_ = 0;
  bool close_after_response_ = false;
};

MetricsServer::MetricsServer(std::string server_name, Renderer render_metrics, ServerLimits limits)
    : server_name_(std::move(server_name)),
      render_metrics_(std::move(render_metrics)),
      limits_(limits),
      connection_cap_(limits.max_connections) {}

MetricsServer::~MetricsServer() {
  connections_.clear();
  accept_source_.reset();
  resume_timer_.reset();
  if (listener_) g_socket_close(listener_.get(), nullptr);
}

bool MetricsServer::listen(GSocketAddress* address, std::string& problem) {
  GError* raw_error = nullptr;
  GObjectPtr<GSocket> socket(g_socket_new(g_socket_address_get_family(address),
                                          G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &raw_error));
  ErrorPtr error(raw_error);
  if (socket) {
    g_socket_set_blocking(socket.get(), FALSE);
    g_socket_set_listen_backlog(socket.get(), 128);
    if (g_socket_bind(socket.get(), address, TRUE, &raw_error) &&
        g_socket_listen(socket.get(), &raw_error))
      listener_ = std::move(socket);
    error.reset(raw_error);
  }
  if (!listener_) {
    problem = error ? error->message : "unknown error";
    return false;
  }
  // Connections never take more than half the descriptors left now, so that
  // the pipeline keeps what it needs (ulimit -n 64 leaves a few dozen).
  if (const std::size_t limit = tools::open_file_limit(); limit != SIZE_MAX) {
    const std::size_t open = tools::open_descriptors();
    const std::size_t left = limit > open ? limit - open : 0;
    connection_cap_ = std::clamp<std::size_t>(left / 2, 1, limits_.max_connections);
  }
  watch_listener();
  return true;
}

std::string MetricsServer::metrics_url() const {
  const GObjectPtr<GSocketAddress> local(g_socket_get_local_address(listener_.get(), nullptr));
  if (!local || !G_IS_INET_SOCKET_ADDRESS(local.get())) return "http://?/metrics";
  auto* inet = G_INET_SOCKET_ADDRESS(local.get());
  GInetAddress* host = g_inet_socket_address_get_address(inet);
  const GCharPtr host_text(g_inet_address_to_string(host));
  const bool ipv6 = g_inet_address_get_family(host) == G_SOCKET_FAMILY_IPV6;
  return std::string("http://") + (ipv6 ? "[" : "") + host_text.get() + (ipv6 ? "]" : "") + ':' +
         std::to_string(g_inet_socket_address_get_port(inet)) + "/metrics";
}

void MetricsServer::watch_listener() {
  accept_source_ = attach_socket_watch(listener_.get(), G_IO_IN, accept_callback, this);
}

gboolean MetricsServer::accept_callback(GSocket*, GIOCondition, gpointer self) {
  static_cast<MetricsServer*>(self)->accept_pending();
  return G_SOURCE_CONTINUE;
}

gboolean MetricsServer::resume_callback(gpointer self) {
  auto* server = static_cast<MetricsServer*>(self);
  server->resume_timer_.reset();
  server->watch_listener();
  return G_SOURCE_REMOVE;
}

void MetricsServer::accept_pending() {
  for (int accepted = 0; accepted < kAcceptsPerWakeup; ++accepted) {
    GError* raw_error = nullptr;
    GObjectPtr<GSocket> socket(g_socket_accept(listener_.get(), nullptr, &raw_error));
    const ErrorPtr error(raw_error);
    if (socket) {
      add(std::move(socket));
      continue;
    }
    if (would_block(error.get())) return;
    // Out of descriptors: make room by closing the connection idle the
    // longest; when none is, pause rather than spin on a listener that stays
    // readable.
    if (g_error_matches(error.get(), G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES) &&
        close_longest_idle())
      continue;
    pause_accepting(error ? error->message : "unknown error");
    return;
  }
}

void MetricsServer::pause_accepting(const char* why) {
  accept_source_.reset();
  resume_timer_ = attach_timeout(kAcceptPauseMs, resume_callback, this);
  const gint64 now = g_get_monotonic_time();
  if (last_accept_warning_ == 0 || now - last_accept_warning_ >= kWarningIntervalUs) {
    last_accept_warning_ = now;
    std::fprintf(stderr,
                 "vmafexact-monitor: cannot accept HTTP connections (%s; %zu open): trying "
                 "again every %u ms\n",
                 why, connections_.size(), kAcceptPauseMs);
  }
}

void MetricsServer::add(GObjectPtr<GSocket> socket) {
  g_socket_set_blocking(socket.get(), FALSE);
  if (connections_.size() >= connection_cap_ && !close_longest_idle()) {
    // Every connection is busy with a request: say so, if the socket takes it
    // now, and close.
    Response busy;
    busy.status = 503;
    busy.content_type = "text/plain; charset=utf-8";
    busy.body = "vmafexact-monitor is at its limit of " + std::to_string(connection_cap_) +
                " connections; try again\n";
    const std::string text = serialize(busy, false, server_name_, std::time(nullptr));
    g_socket_send(socket.get(), text.data(), text.size(), nullptr, nullptr);
    g_socket_close(socket.get(), nullptr);
    return;
  }
  connections_.push_back(std::make_unique<Connection>(*this, std::move(socket)));
  connections_.back()->start(std::prev(connections_.end()));
}

bool MetricsServer::close_longest_idle() {
  auto longest = connections_.end();
  for (auto it = connections_.begin(); it != connections_.end(); ++it)
    if ((*it)->idle() &&
        (longest == connections_.end() || (*it)->waiting_since() < (*longest)->waiting_since()))
      longest = it;
  if (longest == connections_.end()) return false;
  connections_.erase(longest);
  return true;
}

void MetricsServer::remove(Connections::iterator connection) { connections_.erase(connection); }

}  // namespace vmafexact::monitor_http
