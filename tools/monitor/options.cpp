#include "options.h"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "vmafexact_config.h"

namespace vmafexact::monitor_tool {
namespace {

using tools::ErrorPtr;
using tools::GObjectPtr;

// GOptionContext writes into these; each is owned here and freed with them.
// The values are FILENAME arguments: their bytes as given, not converted from
// the locale's character set (paths, URIs and pipeline descriptions may hold
// any), and checked below once --version had its say.
struct RawArguments {
  gchar* ref = nullptr;
  gchar* dist = nullptr;
  gchar* pipeline = nullptr;
  gchar** set = nullptr;
  gchar* listen = nullptr;
  gchar* jsonl = nullptr;
  gchar* ref_offset = nullptr;
  gchar* dist_offset = nullptr;
  gchar* eos_timeout = nullptr;
  gchar* config = nullptr;
  gchar* channel = nullptr;
  gboolean check_config = FALSE;
  gboolean version = FALSE;
  gchar** remaining = nullptr;
  bool exit_on_eos = true;  // the last of --exit-on-eos and --no-exit-on-eos wins
  const char* exit_on_eos_option = nullptr;  // that last one, if any

  RawArguments() = default;
  RawArguments(const RawArguments&) = delete;
  RawArguments& operator=(const RawArguments&) = delete;
  ~RawArguments() {
    for (gchar* text :
         {ref, dist, pipeline, listen, jsonl, ref_offset, dist_offset, eos_timeout, config, channel})
      g_free(text);
    g_strfreev(set);
    g_strfreev(remaining);
  }
};

// --exit-on-eos and --no-exit-on-eos, in the order given. Neither takes a
// value: they are declared with an optional one only to refuse it, where a
// flag would drop it silently (--exit-on-eos=false meaning true).
gboolean on_exit_on_eos(const gchar* option_name, const gchar* value, gpointer arguments,
                        GError** error) {
  if (value) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s takes no value, not '%s'",
                option_name, value);
    return FALSE;
  }
  auto* raw = static_cast<RawArguments*>(arguments);
  raw->exit_on_eos = std::string_view(option_name) == "--exit-on-eos";
  raw->exit_on_eos_option = raw->exit_on_eos ? "--exit-on-eos" : "--no-exit-on-eos";
  return TRUE;
}

constexpr const char* kSummary =
    "  vmafexact-monitor --ref URI --dist URI [OPTIONS]\n"
    "  vmafexact-monitor --pipeline \"DESCRIPTION with vmafexact name=v\" [OPTIONS]\n"
    "  vmafexact-monitor --config FILE [--check-config] [OPTIONS]\n"
    "Runs a vmafexact pipeline per channel and serves their scores on http://ADDRESS/metrics\n"
    "(Prometheus' text format or OpenMetrics, as the scraper asks).\n"
    "Every option takes its value as --opt value or --opt=value.";

constexpr const char* kDescription =
    "SIGINT/SIGTERM send EOS (to every channel), wait for the summaries and exit 0; a second\n"
    "one stops at once. SIGHUP reopens the --jsonl file (after a log rotation) and, with\n"
    "--config, reads the file again: removed channels stop, added ones start, changed ones\n"
    "restart, the others run on; a bad file is refused and the running channels kept.\n"
    "With --config a channel whose pipeline fails, ends or stalls restarts after a backoff.\n"
    "Exit status: 0 the stream ended (or a signal ended it with the summary); 1 the\n"
    "pipeline, the address or an output failed; 2 a malformed command line.\n"
    "\n"
    "Full reference: docs/live-monitoring.md.";

}  // namespace

std::string version_text() {
  return "vmafexact-monitor " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
}

bool is_channel_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name)
    if (!g_ascii_isalnum(c) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

std::optional<gint64> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double number = g_ascii_strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(number)) return std::nullopt;
  const std::string_view unit = end;
  double scale = 0;
  if (unit.empty() || unit == "ns")
    scale = 1;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else
    return std::nullopt;
  const double nanoseconds = std::round(number * scale);
  if (std::fabs(nanoseconds) > 1e18) return std::nullopt;  // about 31 years
  return static_cast<gint64>(nanoseconds);
}

CommandLine parse_command_line(int argc, char** argv) {
  RawArguments raw;
  const GOptionEntry entries[] = {
      {"ref", 0, 0, G_OPTION_ARG_FILENAME, &raw.ref,
       "The reference input: anything uridecodebin opens (file:///..., rtsp://, srt://, "
       "udp://, ...; a plain path is a file)",
       "URI"},
      {"dist", 0, 0, G_OPTION_ARG_FILENAME, &raw.dist, "The distorted input, as --ref", "URI"},
      {"pipeline", 0, 0, G_OPTION_ARG_FILENAME, &raw.pipeline,
       "A gst-launch-1.0 description instead, with a vmafexact named v", "DESCRIPTION"},
      {"set", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.set,
       "Set a vmafexact property (repeatable), e.g. --set features=psnr", "NAME=VALUE"},
      {"listen", 0, 0, G_OPTION_ARG_FILENAME, &raw.listen,
       "The HTTP server's address (default 127.0.0.1:9464; port 0: any free port)", "HOST:PORT"},
      {"jsonl", 0, 0, G_OPTION_ARG_FILENAME, &raw.jsonl,
       "Also write one JSON line per frame, window, alert and summary message (- for standard "
       "output), flushed line by line",
       "FILE|-"},
      {"exit-on-eos", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
       reinterpret_cast<gpointer>(on_exit_on_eos), "Exit once the pipeline has ended (the default)",
       nullptr},
      {"no-exit-on-eos", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
       reinterpret_cast<gpointer>(on_exit_on_eos),
       "Keep serving /metrics after the end of the stream, until SIGINT or SIGTERM", nullptr},
      {"ref-offset", 0, 0, G_OPTION_ARG_FILENAME, &raw.ref_offset,
       "Add DURATION (250ms, 1.5s, -40ms) to the reference's running times before pairing, e.g. "
       "the delay of the encoder chain when the reference is captured before it",
       "DURATION"},
      {"dist-offset", 0, 0, G_OPTION_ARG_FILENAME, &raw.dist_offset,
       "The same for the distorted input", "DURATION"},
      {"eos-timeout", 0, 0, G_OPTION_ARG_FILENAME, &raw.eos_timeout,
       "After SIGINT/SIGTERM, how long to wait for the end of the stream before stopping without "
       "it (default 10; 0: for ever)",
       "SECONDS"},
      {"config", 0, 0, G_OPTION_ARG_FILENAME, &raw.config,
       "Run the channels of this key file (one [channel NAME] group each) instead of one from "
       "the command line",
       "FILE"},
      {"check-config", 0, 0, G_OPTION_ARG_NONE, &raw.check_config,
       "Read --config's file, print its channels and exit (0; 2 when the file is not valid)",
       nullptr},
      {"channel", 0, 0, G_OPTION_ARG_FILENAME, &raw.channel,
       "The channel label of the command line's channel (default main)", "NAME"},
      {"version", 0, 0, G_OPTION_ARG_NONE, &raw.version,
       "Print vmafexact-monitor's, libvmaf's and GStreamer's versions", nullptr},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.remaining, nullptr, nullptr},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr},
  };

  // The main group carries `raw` to the callbacks.
  GOptionGroup* group = g_option_group_new(nullptr, nullptr, nullptr, &raw, nullptr);
  g_option_group_add_entries(group, entries);
  GOptionContext* context = g_option_context_new(nullptr);
  g_option_context_set_main_group(context, group);
  g_option_context_set_summary(context, kSummary);
  g_option_context_set_description(context, kDescription);
  g_option_context_add_group(context, gst_init_get_option_group());
  GError* raw_error = nullptr;
  const bool parsed = g_option_context_parse(context, &argc, &argv, &raw_error);
  g_option_context_free(context);
  const ErrorPtr error(raw_error);
  if (!parsed) throw UsageError(error ? error->message : "cannot read the command line");

  CommandLine command;
  if (raw.version) {
    command.version = true;
    return command;
  }
  Options& options = command.options;
  if (raw.remaining && *raw.remaining)
    throw UsageError("unknown argument '" + std::string(*raw.remaining) + "'");
  if (raw.ref) options.ref_uri = raw.ref;
  if (raw.dist) options.dist_uri = raw.dist;
  if (raw.pipeline) options.pipeline = raw.pipeline;
  for (gchar** set = raw.set; set && *set; ++set) {
    const std::string assignment = *set;
    const auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UsageError("--set takes NAME=VALUE (e.g. --set features=psnr), not '" + assignment +
                       "'");
    options.properties.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
  }
  if (raw.listen) options.listen = std::string(raw.listen);
  if (raw.jsonl) {
    options.jsonl = raw.jsonl;
    if (options.jsonl.empty()) throw UsageError("--jsonl needs a file name or -");
  }
  options.exit_on_eos = raw.exit_on_eos;
  if (raw.channel) {
    options.channel = raw.channel;
    if (!is_channel_name(options.channel))
      throw UsageError("--channel takes 1 to 64 of A-Z a-z 0-9 _ . - (e.g. --channel news-hd), "
                       "not '" +
                       options.channel + "'");
  }
  if (raw.config) {
    options.config = raw.config;
    if (options.config.empty()) throw UsageError("--config needs a file name");
  }
  options.check_config = raw.check_config;
  for (const auto& [option, text, offset] :
       {std::tuple{"--ref-offset", raw.ref_offset, &options.ref_offset},
        std::tuple{"--dist-offset", raw.dist_offset, &options.dist_offset}}) {
    if (!text) continue;
    const auto duration = parse_duration(text);
    if (!duration)
      throw UsageError(std::string(option) +
                       " takes a duration such as 250ms, 1.5s or -40ms, not '" + text + "'");
    *offset = *duration;
  }
  if (raw.eos_timeout) {
    const std::string text = raw.eos_timeout;
    char* end = nullptr;
    const unsigned long seconds = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end || text[0] == '-' || seconds > 86400)
      throw UsageError("--eos-timeout takes a number of seconds (0 to 86400), not '" + text + "'");
    options.eos_timeout_s = static_cast<unsigned>(seconds);
  }

  const bool uris = !options.ref_uri.empty() || !options.dist_uri.empty();
  if (options.check_config && options.config.empty())
    throw UsageError("--check-config checks the file --config FILE names: give --config");
  if (!options.config.empty()) {
    // The channels, their properties and offsets are in the file.
    const std::pair<bool, const char*> channel_options[] = {
        {uris, "--ref/--dist"},
        {!options.pipeline.empty(), "--pipeline"},
        {!options.properties.empty(), "--set"},
        {raw.ref_offset || raw.dist_offset, "--ref-offset/--dist-offset"},
        {raw.channel != nullptr, "--channel"},
    };
    for (const auto& [given, option] : channel_options)
      if (given)
        throw UsageError(std::string(option) +
                         " describes the command line's one channel; with --config each "
                         "channel is described in the file (its [channel NAME] group)");
    if (raw.exit_on_eos_option)
      throw UsageError(std::string(raw.exit_on_eos_option) +
                       " is for the command line's one channel; with --config a channel that "
                       "ends is restarted");
    return command;
  }
  if (uris && !options.pipeline.empty())
    throw UsageError("give either --ref and --dist, or --pipeline, not both");
  if (!uris && options.pipeline.empty())
    throw UsageError("give --ref URI and --dist URI, or --pipeline DESCRIPTION, or --config FILE");
  if (uris && (options.ref_uri.empty() || options.dist_uri.empty()))
    throw UsageError("give both --ref URI and --dist URI");
  return command;
}

// Names other than localhost are refused rather than resolved: the address is
// where the scores are exposed, so it must be the one the user meant.
GObjectPtr<GSocketAddress> parse_listen_address(const std::string& text, std::string& problem) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    problem = "expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:9464 or 0.0.0.0:9464";
    return {};
  }
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos) {
    problem = "write an IPv6 address in brackets, e.g. [::1]:9464";
    return {};
  }
  char* end = nullptr;
  const unsigned long port = std::strtoul(port_text.c_str(), &end, 10);
  if (*end || port_text[0] == '-' || port_text[0] == '+' || port > 65535) {
    const std::string shown_port = printable(port_text);
    problem = "the port '" + shown_port + "' is not a number from 0 to 65535";
    return {};
  }
  if (host == "localhost") host = "127.0.0.1";
  GObjectPtr<GInetAddress> address(g_inet_address_new_from_string(host.c_str()));
  if (!address) {
    const std::string shown_host = printable(host);
    problem = "'" + shown_host + "' is not an IP address (use e.g. 127.0.0.1, 0.0.0.0, [::1] or [::])";
    return {};
  }
  return GObjectPtr<GSocketAddress>(
      g_inet_socket_address_new(address.get(), static_cast<guint16>(port)));
}

}  // namespace vmafexact::monitor_tool
