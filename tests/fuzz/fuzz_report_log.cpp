// Fuzz target: a vmafexact JSON log as `vmafexact report LOG.json` reads it
// (tools/report/log_reader.h), then the page built from it. A refusal is a
// std::runtime_error naming the log; anything else escaping (nlohmann's own
// exceptions included) is a bug (libFuzzer reports it as a crash).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "report/log_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<vmafexact::report::LogContent> logs;
    logs.push_back(vmafexact::report::read_log(text, "fuzz.json"));
    vmafexact::report::Report report = vmafexact::report::report_from_logs(logs, 5);
    // Small logs only: drawing is not what is fuzzed, and large ones take long.
    if (size < 4096) vmafexact::report::render_html(report);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
