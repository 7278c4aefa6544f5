// vmafexact-monitor's HTTP/1.1 requests: a strict reader of a request's head
// (request line and header fields) and the answer the endpoint gives to it.
// Pure functions over bytes, without I/O, so that they are fuzzed like the
// project's other parsers (tests/fuzz/fuzz_monitor_http.cpp). The server that
// feeds them is monitor_http.h; docs/live-monitoring.md gives the limits.
//
// The endpoint serves one resource: GET or HEAD /metrics. It never reads a
// request body: a request that declares one is answered at once, after its
// head, and the connection closed.
#pragma once

#include <cstddef>
#include <ctime>
#include <functional>
#include <string>
#include <string_view>

namespace vmafexact::monitor_http {

struct RequestLimits {
  // The request line and the header fields with their line ends; beyond it,
  // 414 (request line) or 431 (fields).
  std::size_t max_head_bytes = 8192;
  std::size_t max_fields = 100;  // beyond it, 431
};

struct Request {
  std::string method;
  std::string target;          // as sent
  std::string path;            // the target up to its query ('?')
  bool keep_alive = false;     // HTTP/1.1 without "Connection: close" (HTTP/1.0 always closes)
  bool declares_body = false;  // a Content-Length above 0 or any Transfer-Encoding
  std::string accept;          // the Accept fields' values, joined by ", " ("" without one)
};

enum class HeadState {
  kIncomplete,  // valid so far; read more
  kComplete,    // `request` and `head_size` hold it
  kRefused,     // `status` and `problem` say why; answer and close
};

struct ParsedHead {
  HeadState state = HeadState::kIncomplete;
  Request request;
  std::size_t head_size = 0;  // complete: the bytes the head took, up to its empty line
  unsigned status = 0;        // refused: 400, 414, 431 or 505
  std::string problem;        // refused: why, in words
};

// Reads the request head at the start of `bytes` (the bytes received so far).
// Leading empty lines are skipped; a line ends in CRLF or in LF alone.
ParsedHead parse_request_head(std::string_view bytes, const RequestLimits& limits = {});

// A resource's body and its Content-Type.
struct Rendered {
  std::string content_type;
  std::string body;
};
// Writes /metrics in the format the request's Accept header asks for.
using Renderer = std::function<Rendered(std::string_view accept)>;

struct Response {
  unsigned status = 200;
  std::string content_type;
  std::string body;
  bool allow_header = false;  // 405: "Allow: GET, HEAD"
  bool vary_accept = false;   // "Vary: Accept": the body depends on the Accept header
  bool close = true;          // "Connection: close", then the server closes
};

// The answer to a parsed head (complete or refused): the metrics that
// `render_metrics` writes for GET or HEAD /metrics, given the request's Accept
// header, else an error whose body says what the endpoint serves.
Response respond(const ParsedHead& head, const Renderer& render_metrics);

// The response's bytes: status line, header fields, and the body unless
// `head_only` (a HEAD request).
std::string serialize(const Response& response, bool head_only, std::string_view server_name,
                      std::time_t now);

// RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT", whatever the locale.
std::string http_date(std::time_t time);

// ASCII case-insensitive equality, as HTTP compares field names and tokens.
bool equals_ignoring_case(std::string_view a, std::string_view b);
// `text` without the spaces and tabs (OWS) around it.
std::string_view trim_whitespace(std::string_view text);

}  // namespace vmafexact::monitor_http
