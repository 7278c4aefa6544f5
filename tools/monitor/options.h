// vmafexact-monitor's command line, parsed with GLib's GOptionContext (as the
// vmafexact tool's, tools/vmafexact/options.h): every option takes its value
// as `--opt value` or `--opt=value`. Reference: docs/live-monitoring.md.
#pragma once

#include <gio/gio.h>
#include <gst/gst.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/handles.h"
#include "support/printable.h"

namespace vmafexact::monitor_tool {

// The exit status of a malformed command line (anything else that fails: 1).
constexpr int kExitUsage = 2;

constexpr const char* kDefaultListen = "127.0.0.1:9464";

constexpr const char* kDefaultChannel = "main";

// One channel on the command line (--ref/--dist or --pipeline, --set, the
// offsets, --channel), or a station's channels from --config FILE.
struct Options {
  std::string ref_uri;
  std::string dist_uri;
  std::string pipeline;
  std::vector<std::pair<std::string, std::string>> properties;  // --set NAME=VALUE, in order
  std::string channel = kDefaultChannel;                        // --channel NAME
  std::string config;         // --config FILE; "" for the command line's one channel
  bool check_config = false;  // --check-config: read --config's file, print it, exit
  std::optional<std::string> listen;  // as given; else the file's, else kDefaultListen
  std::string jsonl;                  // "" none (or the file's), "-" stdout
  bool exit_on_eos = true;            // one channel only: --config's channels restart
  unsigned eos_timeout_s = 10;
  gint64 ref_offset = 0;   // ns added to the running times on ref_sink
  gint64 dist_offset = 0;  // and on dist_sink
};

// What the command line asks for: the version, or a run with `options`.
struct CommandLine {
  bool version = false;  // --version, whatever else was given
  Options options;
};

// A malformed command line: what() names the problem; the caller adds the fix
// (see --help) and exits kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses and checks the command line; --help prints the options and exits 0.
// GStreamer's own options (--gst-debug, ...) are taken too, and GStreamer is
// initialised. Throws UsageError.
CommandLine parse_command_line(int argc, char** argv);

// "vmafexact-monitor 0.1.0 (libvmaf 3.2.0)".
std::string version_text();

// A channel's name: 1 to 64 of [A-Za-z0-9_.-] (it is a label value, a key
// file group's name and part of log lines).
bool is_channel_name(std::string_view name);

// "250ms", "1.5s", "40000us", "-2s" or plain nanoseconds.
std::optional<gint64> parse_duration(const std::string& text);

// Outside text as a message shows it (a station file's value, where GKeyFile
// turns "\n" into a newline; --listen's argument): support/printable.h.
using tools::printable;

// --listen's HOST:PORT, HOST an IP address literal ([...] for IPv6) or
// "localhost"; null with `problem` set when it is not one.
tools::GObjectPtr<GSocketAddress> parse_listen_address(const std::string& text,
                                                       std::string& problem);

}  // namespace vmafexact::monitor_tool
