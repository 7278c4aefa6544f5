// A strict reader of HTTP/1.1 request heads (RFC 9112) for vmafexact-monitor's
// endpoint, and its answers. See monitor_http_request.h.

#include "monitor_http_request.h"

#include <cstdio>
#include <cstring>
#include <optional>

namespace vmafexact::monitor_http {

namespace {
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trim_whitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

namespace {

// RFC 9110's tchar: the bytes of a method or a field name.
bool is_tchar(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (const unsigned char c : text)
    if (!is_tchar(c)) return false;
  return true;
}

// A field value's bytes: HTAB, SP, visible ASCII and obs-text; no other control.
bool is_field_value_byte(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); }

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

ParsedHead refuse(unsigned status, std::string problem) {
  ParsedHead head;
  head.state = HeadState::kRefused;
  head.status = status;
  head.problem = std::move(problem);
  return head;
}

// What the header fields said, checked once the head is complete.
struct Fields {
  std::size_t count = 0;
  bool host = false;
  std::optional<std::string> content_length;  // digits, leading zeros removed
  bool transfer_encoding = false;
  bool close = false;
  std::string accept;  // RFC 9110 5.3: several fields are one list, joined by commas
};

// METHOD SP TARGET SP HTTP/1.x; refused when it is not.
std::optional<ParsedHead> read_request_line(std::string_view line, Request& request,
                                            int& minor_version) {
  constexpr const char* kForm =
      "a request line is METHOD TARGET HTTP/1.1, e.g. GET /metrics HTTP/1.1";
  const auto first_space = line.find(' ');
  if (first_space == std::string_view::npos) return refuse(400, kForm);
  const std::string_view method = line.substr(0, first_space);
  const std::string_view rest = line.substr(first_space + 1);
  const auto second_space = rest.find(' ');
  if (second_space == std::string_view::npos) return refuse(400, kForm);
  const std::string_view target = rest.substr(0, second_space);
  const std::string_view version = rest.substr(second_space + 1);
  if (!is_token(method)) return refuse(400, kForm);
  if (target.empty()) return refuse(400, kForm);
  for (const unsigned char c : target)
    if (c <= 0x20 || c >= 0x7f)
      return refuse(400, "the request target has a byte that is not visible ASCII");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
    return refuse(400, kForm);
  if (version[5] != '1') return refuse(505, "this endpoint speaks HTTP/1.1 and HTTP/1.0 only");
  request.method = method;
  request.target = target;
  request.path = target.substr(0, target.find('?'));
  minor_version = version[7] - '0';
  return std::nullopt;
}

// NAME ":" OWS VALUE OWS; refused when it is not.
std::optional<ParsedHead> read_field(std::string_view line, Fields& fields) {
  if (line.front() == ' ' || line.front() == '\t')
    return refuse(400, "a header line starts with white space (obs-fold is not accepted)");
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return refuse(400, "a header line without ':'");
  const std::string_view name = line.substr(0, colon);
  if (!is_token(name)) return refuse(400, "a header field name that is not a token");
  const std::string_view value = trim_whitespace(line.substr(colon + 1));
  for (const unsigned char c : value)
    if (!is_field_value_byte(c)) return refuse(400, "a control character in a header field value");

  if (equals_ignoring_case(name, "Host")) {
    if (fields.host) return refuse(400, "two Host fields");
    fields.host = true;
  } else if (equals_ignoring_case(name, "Content-Length")) {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos)
      return refuse(400, "Content-Length is not a number");
    const auto significant = value.find_first_not_of('0');
    std::string length(significant == std::string_view::npos ? "" : value.substr(significant));
    if (fields.content_length && *fields.content_length != length)
      return refuse(400, "two different Content-Length fields");
    fields.content_length = std::move(length);
  } else if (equals_ignoring_case(name, "Transfer-Encoding")) {
    fields.transfer_encoding = true;
  } else if (equals_ignoring_case(name, "Accept")) {
    if (!fields.accept.empty() && !value.empty()) fields.accept += ", ";
    fields.accept += value;
  } else if (equals_ignoring_case(name, "Connection")) {
    std::string_view options = value;
    while (!options.empty()) {
      const auto comma = options.find(',');
      if (equals_ignoring_case(trim_whitespace(options.substr(0, comma)), "close"))
        fields.close = true;
      options = comma == std::string_view::npos ? std::string_view{} : options.substr(comma + 1);
    }
  }
  return std::nullopt;
}

const char* reason_phrase(unsigned status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

}  // namespace

ParsedHead parse_request_head(std::string_view bytes, const RequestLimits& limits) {
  const std::string_view window = bytes.substr(0, limits.max_head_bytes);
  Request request;
  int minor_version = 1;
  bool have_request_line = false;
  Fields fields;
  std::size_t at = 0;
  while (true) {
    const auto end = window.find('\n', at);
    if (end == std::string_view::npos) {
      // A line still arriving: refuse it now if no more bytes can make it valid
      // (a TLS handshake, binary noise), rather than at the timeout.
      for (const unsigned char c : window.substr(at))
        if (is_control(c) && c != '\t' && c != '\r')
          return refuse(400, "a control character in the request head");
      if (bytes.size() < limits.max_head_bytes) return {};
      if (!have_request_line)
        return refuse(414, "the request line is longer than " +
                               std::to_string(limits.max_head_bytes) + " bytes");
      return refuse(431, "the request head is longer than " +
                             std::to_string(limits.max_head_bytes) + " bytes");
    }
    std::string_view line = window.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (const unsigned char c : line)
      if (is_control(c) && c != '\t') return refuse(400, "a control character in the request head");

    if (!have_request_line) {
      if (line.empty()) continue;  // RFC 9112 2.2: empty lines before a request are ignored
      if (auto refused = read_request_line(line, request, minor_version)) return *refused;
      have_request_line = true;
      continue;
    }
    if (!line.empty()) {
      if (++fields.count > limits.max_fields)
        return refuse(431, "more than " + std::to_string(limits.max_fields) + " header fields");
      if (auto refused = read_field(line, fields)) return *refused;
      continue;
    }

    // The empty line that ends the head.
    if (minor_version >= 1 && !fields.host)
      return refuse(400, "an HTTP/1.1 request needs a Host field");
    request.declares_body =
        fields.transfer_encoding || (fields.content_length && !fields.content_length->empty());
    request.keep_alive = minor_version >= 1 && !fields.close;
    request.accept = std::move(fields.accept);
    ParsedHead head;
    head.state = HeadState::kComplete;
    head.request = std::move(request);
    head.head_size = at;
    return head;
  }
}

Response respond(const ParsedHead& head, const Renderer& render_metrics) {
  constexpr const char* kText = "text/plain; charset=utf-8";
  constexpr const char* kServes = "vmafexact-monitor serves GET and HEAD /metrics";
  Response response;
  if (head.state != HeadState::kComplete) {
    response.status = head.state == HeadState::kRefused ? head.status : 400;
    response.content_type = kText;
    response.body = head.problem + "\n";
    return response;
  }
  const Request& request = head.request;
  response.content_type = kText;
  if (request.method != "GET" && request.method != "HEAD") {
    response.status = 405;
    response.allow_header = true;
    response.body = std::string(kServes) + ", not " + request.method + "\n";
  } else if (request.declares_body) {
    response.status = 413;
    response.body = std::string(kServes) + ", without a request body\n";
  } else if (request.target.front() != '/') {
    response.status = 400;
    response.body = std::string(kServes) + ": give the path, e.g. GET /metrics HTTP/1.1\n";
  } else if (request.path != "/metrics") {
    response.status = 404;
    response.body = std::string(kServes) + "\n";
    response.close = !request.keep_alive;
  } else {
    response.status = 200;
    Rendered metrics = render_metrics(request.accept);
    response.content_type = std::move(metrics.content_type);
    response.body = std::move(metrics.body);
    response.vary_accept = true;
    response.close = !request.keep_alive;
  }
  return response;
}

std::string serialize(const Response& response, bool head_only, std::string_view server_name,
                      std::time_t now) {
  std::string text =
      "HTTP/1.1 " + std::to_string(response.status) + ' ' + reason_phrase(response.status) + "\r\n";
  text += "Date: " + http_date(now) + "\r\n";
  text += "Server: " + std::string(server_name) + "\r\n";
  if (response.allow_header) text += "Allow: GET, HEAD\r\n";
  if (!response.content_type.empty()) text += "Content-Type: " + response.content_type + "\r\n";
  if (response.vary_accept) text += "Vary: Accept\r\n";
  text += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  if (response.close) text += "Connection: close\r\n";
  text += "\r\n";
  if (!head_only) text += response.body;
  return text;
}

std::string http_date(std::time_t time) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm utc{};
  if (!gmtime_r(&time, &utc)) return "Thu, 01 Jan 1970 00:00:00 GMT";
  char text[40];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[utc.tm_wday % 7],
                utc.tm_mday, kMonths[utc.tm_mon % 12], utc.tm_year + 1900, utc.tm_hour, utc.tm_min,
                utc.tm_sec);
  return text;
}

}  // namespace vmafexact::monitor_http
