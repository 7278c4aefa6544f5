// Fuzz target: vmafexact-monitor's HTTP request reader (tools/monitor/
// monitor_http_request.h), fed as the server feeds it: the bytes received so
// far, one request after another on a keep-alive connection, each answered.
// Beyond not crashing it checks what the server relies on:
//  - a complete head lies within the bytes and the head limit;
//  - a refusal is final: no shorter prefix of a complete head is refused,
//    and none is complete;
//  - the answer's Content-Length is its body's size, and HEAD has no body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "monitor_http_request.h"

namespace http = vmafexact::monitor_http;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

void check_prefixes_wait(std::string_view bytes, std::size_t head_size,
                         const http::RequestLimits& limits) {
  for (const std::size_t size : {head_size / 2, head_size - 1}) {
    const http::ParsedHead prefix = http::parse_request_head(bytes.substr(0, size), limits);
    check(prefix.state == http::HeadState::kIncomplete);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // A small limit too, so that the fuzzer reaches it.
  for (const http::RequestLimits limits : {http::RequestLimits{}, http::RequestLimits{64, 4}}) {
    std::string_view rest = bytes;
    for (int request = 0; request < 64 && !rest.empty(); ++request) {
      const http::ParsedHead head = http::parse_request_head(rest, limits);
      if (head.state == http::HeadState::kIncomplete) {
        check(rest.size() < limits.max_head_bytes);
        break;
      }
      if (head.state == http::HeadState::kRefused)
        check(head.status == 400 || head.status == 414 || head.status == 431 || head.status == 505);
      if (head.state == http::HeadState::kComplete) {
        check(head.head_size > 0 && head.head_size <= rest.size() &&
              head.head_size <= limits.max_head_bytes);
        check(!head.request.method.empty() && !head.request.target.empty());
        check_prefixes_wait(rest, head.head_size, limits);
      }
      const http::Response response = http::respond(
          head, [](std::string_view) { return http::Rendered{"text/plain", "m 1\n"}; });
      const bool head_only =
          head.state == http::HeadState::kComplete && head.request.method == "HEAD";
      const std::string text = http::serialize(response, head_only, "fuzz", std::time_t{0});
      const std::string length = "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
      check(text.find(length) != std::string::npos);
      const auto end = text.find("\r\n\r\n");
      check(end != std::string::npos);
      check(text.size() - (end + 4) == (head_only ? 0 : response.body.size()));
      if (response.close) break;  // the server reads nothing more
      rest.remove_prefix(head.head_size);
    }
  }
  return 0;
}
