// vmafexact-monitor's HTTP endpoint: a small HTTP/1.1 server for GET and HEAD
// /metrics on the GLib main loop, which owns every limit a server running for
// months needs (docs/live-monitoring.md):
//  - a connection is closed when its client closes it, when it has waited
//    idle for a request, when a request head takes too long (slowloris) and
//    when the client does not take the response;
//  - request heads are bounded (monitor_http_request.h) and request bodies are
//    never read: the answer comes after the head, and what the client still
//    sends is read into a small buffer and discarded until the connection
//    closes;
//  - connections are counted: at the cap (also kept under half the
//    descriptors left when it starts listening), a new one closes the
//    connection idle the longest, or is answered 503 when none is idle; when
//    the process is out of descriptors, idle ones are closed likewise and
//    accepting pauses a moment instead of spinning.
// libsoup 3.2 (Debian 12) could not give these: it keeps a keep-alive
// connection its client closed in CLOSE-WAIT for ever (fixed in 3.3.0,
// libsoup d20c6601 and 6308303e), times nothing out and reads a request's
// whole body into memory before the handler runs.
#pragma once

#include <gio/gio.h>

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <string>

#include "monitor_http_request.h"
#include "support/handles.h"

namespace vmafexact::monitor_http {

// An attached GSource: detached and released together.
inline void destroy_source(GSource* source) {
  g_source_destroy(source);
  g_source_unref(source);
}
using SourcePtr = std::unique_ptr<GSource, tools::Releaser<GSource, destroy_source>>;

struct ServerLimits {
  RequestLimits request;
  std::size_t max_connections = 256;
  guint idle_timeout_ms = 5000;      // a connection waiting for a request's first byte
  guint request_timeout_ms = 10000;  // from a request's first byte to its head's end
  guint write_timeout_ms = 10000;    // for the client to take the response
  guint linger_timeout_ms = 2000;    // discarding what the client sends after a final answer
};

class MetricsServer {
 public:
  using Renderer = monitor_http::Renderer;

  // `render_metrics` writes the metrics for each GET or HEAD /metrics, in the
  // format the request's Accept header asks for (exposition.h's negotiate_format).
  MetricsServer(std::string server_name, Renderer render_metrics, ServerLimits limits = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Listens on `address` (port 0: one the system picks) and serves from the
  // default main context; false with the reason in `problem`.
  bool listen(GSocketAddress* address, std::string& problem);
  // "http://HOST:PORT/metrics" with the port it listens on.
  std::string metrics_url() const;
  // How many connections it keeps open at most.
  std::size_t connection_cap() const { return connection_cap_; }

 private:
  class Connection;
  using Connections = std::list<std::unique_ptr<Connection>>;

  static gboolean accept_callback(GSocket*, GIOCondition, gpointer self);
  static gboolean resume_callback(gpointer self);
  void accept_pending();
  void add(tools::GObjectPtr<GSocket> socket);
  bool close_longest_idle();
  void remove(Connections::iterator connection);
  void watch_listener();
  void pause_accepting(const char* why);

  std::string server_name_;
  Renderer render_metrics_;
  ServerLimits limits_;
  std::size_t connection_cap_ = 0;
  tools::GObjectPtr<GSocket> listener_;
  SourcePtr accept_source_;  // while accepting
  SourcePtr resume_timer_;   // while accepting is paused
  gint64 last_accept_warning_ = 0;
  Connections connections_;
};

}  // namespace vmafexact::monitor_http
