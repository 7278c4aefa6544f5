// Fuzz target: the element's live monitoring properties (gst/monitor.h): the
// alert list (SCORE OP VALUE[:for=..][:clear=..][:on=..];...) and the window,
// window-step and input-timeout spans (10s, 500ms, 300f). Every input either
// parses or throws vmafexact::Error; then the parsed alerts and a window run
// on a few frames, so that whatever parses also runs, and the span runs as
// the step of a 100ms (100f) window.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "pooling/rolling.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto alerts = vmafexact::parse_alerts(text);
    for (const auto& alert : alerts) {
      vmafexact::AlertState state(alert);
      for (int i = 0; i < 4; ++i) state.update(alert.threshold + i - 2, i * 10u, i * 10u + 10, 1);
    }
  } catch (const vmafexact::Error&) {
  }
  try {
    if (const auto span = vmafexact::parse_span(text, "window")) {
      vmafexact::RollingWindows windows(*span, *span);
      for (std::uint64_t i = 0; i < 8; ++i) windows.add_frame(i * 1'000'000'000u, 1'000'000'000u, {1.0 * i});
      windows.finish();
      // The span as the step of a longer window: a tiny step is refused at
      // construction, never run for ever.
      const bool timed = span->unit == vmafexact::Span::Unit::kTime;
      vmafexact::RollingWindows sliding({span->unit, timed ? 100'000'000u : 100u}, *span);
      for (std::uint64_t i = 0; i < 8; ++i) sliding.add_frame(i * 40'000'000u, 40'000'000u, {1.0 * i});
      sliding.finish();
    }
  } catch (const vmafexact::Error&) {
  }
  return 0;
}
