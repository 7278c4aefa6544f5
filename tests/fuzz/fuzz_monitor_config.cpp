// Fuzz target: vmafexact-monitor's station file (tools/monitor/config.h).
// Any bytes either parse or throw ConfigError, nothing else (an escaping
// exception ends the program, which libFuzzer reports). Beyond not crashing
// it checks what the monitor relies on:
//  - an accepted file has at least one channel, names that are valid and
//    unique, ref and dist both set or neither and then a pipeline, and
//    restart-delay within (0, restart-delay-max];
//  - an error is one line naming the file;
//  - GLib logs no warning or critical (each aborts: GLib 2.74's
//    g_key_file_get_string warned on some values);
//  - the reload diff of a file against itself is empty, and against no
//    channels removes them all.
#include <glib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "config.h"

namespace monitor = vmafexact::monitor_tool;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool fatal_warnings = [] {
    g_log_set_always_fatal(static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL));
    return true;
  }();
  (void)fatal_warnings;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  monitor::MonitorConfig config;
  try {
    config = monitor::parse_config(text, "fuzz.conf");
  } catch (const monitor::ConfigError& error) {
    const std::string_view message = error.what();
    check(message.starts_with("fuzz.conf"));
    check(message.find('\n') == std::string_view::npos);
    return 0;
  }
  check(!config.channels.empty());
  check(config.restart_delay > 0 && config.restart_delay <= config.restart_delay_max);
  std::set<std::string> names;
  for (const monitor::ChannelConfig& channel : config.channels) {
    check(!channel.name.empty() && channel.name.size() <= 64);
    check(names.insert(channel.name).second);
    check(channel.ref.empty() == channel.dist.empty());
    check(channel.ref.empty() != channel.pipeline.empty());
  }
  check(monitor::diff_channels(config, config) == monitor::ConfigChanges{});
  const monitor::ConfigChanges emptied = monitor::diff_channels(config, monitor::MonitorConfig{});
  check(emptied.removed.size() == config.channels.size() && emptied.added.empty() &&
        emptied.changed.empty());
  return 0;
}
