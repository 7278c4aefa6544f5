// vmafexact-monitor: runs a vmafexact pipeline per channel for as long as the
// program runs and serves the elements' scores on /metrics (Prometheus' text
// format or OpenMetrics), and optionally as JSON lines for log shippers.
// Reference: docs/live-monitoring.md.
//
//   vmafexact-monitor --ref URI --dist URI [OPTIONS]
//   vmafexact-monitor --pipeline "... vmafexact name=v ..." [OPTIONS]
//   vmafexact-monitor --config FILE [OPTIONS]
//
// The command line's one channel and a station's channels (--config) run the
// same code: one Channel (channel.h) each. They differ in what an ended
// pipeline means: the command line's ends the program (at end of stream by
// default, with status 1 on an error), a station's is restarted after a
// backoff. The program talks to the element only through its properties and
// its bus messages (vmafexact-frame, -window, -alert, -summary). Everything
// runs on one GLib main loop: the bus watches, the HTTP server, the timers and
// the signal handlers, so the figures need no lock; only the pipelines' state
// changes and the EOS a signal sends run on threads of their own. Its parts:
// the command line (options.h), the station file (config.h), a channel's
// pipeline (channel_pipeline.h) and its life (channel.h), the figures read
// from the messages (figures.h), their exposition (exposition.h), the HTTP
// server (monitor_http.h); this file is the program that joins them.

#include <glib-unix.h>
#include <gst/gst.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "channel.h"
#include "common/error.h"
#include "config.h"
#include "exposition.h"
#include "figures.h"
#include "monitor_http.h"
#include "options.h"
#include "output/output_file.h"
#include "support/handles.h"
#include "support/message_json.h"
#include "vmafexact_config.h"

namespace {

namespace tools = vmafexact::tools;
namespace monitor_http = vmafexact::monitor_http;
using tools::GCharPtr;
using tools::GObjectPtr;
using tools::LoopPtr;
using namespace vmafexact::monitor_tool;
using namespace std::chrono_literals;

// How long the exit waits for the pipelines to stop (going to NULL writes
// the element's log), before it leaves a stuck one behind.
constexpr auto kStopTimeout = 10s;

// "1.5s" for a duration in nanoseconds.
std::string signed_seconds_text(gint64 duration) {
  char text[64];
  g_ascii_formatd(text, sizeof text, "%g", static_cast<double>(duration) / GST_SECOND);
  return std::string(text) + "s";
}

std::string seconds_text(GstClockTime duration) {
  return signed_seconds_text(static_cast<gint64>(std::min<GstClockTime>(duration, G_MAXINT64)));
}

// --check-config's report: what the file sets, each channel on its lines.
void print_config(const std::string& path, const MonitorConfig& config) {
  std::printf("%s: %zu channel%s\n", path.c_str(), config.channels.size(),
              config.channels.size() == 1 ? "" : "s");
  std::printf(
      "[monitor] listen=%s jsonl=%s restart-delay=%s restart-delay-max=%s "
      "stall-timeout=%s\n",
      config.listen.value_or(std::string(kDefaultListen) + " (default)").c_str(),
      config.jsonl.value_or("(none)").c_str(), seconds_text(config.restart_delay).c_str(),
      seconds_text(config.restart_delay_max).c_str(),
      config.stall_timeout ? seconds_text(config.stall_timeout).c_str() : "0 (never)");
  for (const ChannelConfig& channel : config.channels) {
    std::printf("[channel %s]", channel.name.c_str());
    if (channel.pipeline.empty())
      std::printf(" ref=%s dist=%s scale-flags=%s", channel.ref.c_str(), channel.dist.c_str(),
                  channel.scale_flags.c_str());
    else
      std::printf(" pipeline=%s", channel.pipeline.c_str());
    if (channel.ref_offset)
      std::printf(" ref-offset=%s", signed_seconds_text(channel.ref_offset).c_str());
    if (channel.dist_offset)
      std::printf(" dist-offset=%s", signed_seconds_text(channel.dist_offset).c_str());
    std::printf("\n");
    for (const auto& [name, value] : channel.properties)
      std::printf("  property.%s=%s\n", name.c_str(), value.c_str());
  }
}

// The command line's one channel, as a station file would describe it.
ChannelConfig command_line_channel(const Options& options) {
  ChannelConfig channel;
  channel.name = options.channel;
  channel.ref = options.ref_uri;
  channel.dist = options.dist_uri;
  channel.pipeline = options.pipeline;
  channel.ref_offset = options.ref_offset;
  channel.dist_offset = options.dist_offset;
  channel.properties = options.properties;
  return channel;
}

class MonitorProgram final : public ChannelHost {
 public:
  explicit MonitorProgram(Options options) : options_(std::move(options)) {}
  int run();

  void write_json_line(const Channel& channel, const GstStructure* structure) override;
  void on_channel_ended(Channel& channel, EndReason reason) override;

 private:
  bool station() const { return !options_.config.empty(); }
  std::string property_option() const { return station() ? "property." : "--set "; }
  int load_station();
  bool prepare_channels(std::vector<PreparedPipeline>& prepared);
  std::string jsonl_path() const;
  bool open_jsonl(const std::string& path);
  void reopen_jsonl();
  bool start_server();
  void on_signal(const char* name);
  void on_eos_timeout();
  void reload();
  bool all_ended() const;
  int stop_channels();
  void quit(int status) {
    status_ = status;
    g_main_loop_quit(loop_.get());
  }

  static gboolean sigint_callback(gpointer self) {
    static_cast<MonitorProgram*>(self)->on_signal("SIGINT");
    return G_SOURCE_CONTINUE;
  }
  static gboolean sigterm_callback(gpointer self) {
    static_cast<MonitorProgram*>(self)->on_signal("SIGTERM");
    return G_SOURCE_CONTINUE;
  }
  static gboolean sighup_callback(gpointer self) {
    auto* program = static_cast<MonitorProgram*>(self);
    if (program->station())
      program->reload();
    else
      program->reopen_jsonl();
    return G_SOURCE_CONTINUE;
  }
  static gboolean eos_timeout_callback(gpointer self) {
    static_cast<MonitorProgram*>(self)->on_eos_timeout();
    return G_SOURCE_REMOVE;
  }

  Options options_;
  // The station as it runs: the file's settings, and the channels that run
  // (a channel a reload could not start is not among them).
  MonitorConfig config_;
  RestartSettings settings_;
  std::string version_ = VMAFEXACT_VERSION;
  LoopPtr loop_{g_main_loop_new(nullptr, FALSE)};
  // Declared before the channels, which use them to their end.
  SharedContexts contexts_;
  PipelineWorkers workers_;
  std::vector<std::unique_ptr<Channel>> channels_;  // in the file's order
  std::unique_ptr<monitor_http::MetricsServer> server_;
  std::string listen_;
  std::string jsonl_open_path_;  // the --jsonl file open now ("" none)
  std::ofstream jsonl_file_;
  std::optional<vmafexact::output::OutputFile> jsonl_stream_;  // a device, FIFO or socket
  std::ostream* jsonl_ = nullptr;
  bool shutdown_requested_ = false;
  bool failed_while_stopping_ = false;
  int status_ = 0;
};

// The station file at start: its problems are a malformed input, status 2.
int MonitorProgram::load_station() {
  try {
    config_ = load_config(options_.config);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "vmafexact-monitor: %s\n", error.what());
    return kExitUsage;
  }
  settings_.restart = true;
  settings_.restart_delay = config_.restart_delay;
  settings_.restart_delay_max = config_.restart_delay_max;
  settings_.stall_timeout = config_.stall_timeout;
  return 0;
}

// Every channel built and its properties set before anything is served: a
// channel that cannot be is named, and the program exits 1.
bool MonitorProgram::prepare_channels(std::vector<PreparedPipeline>& prepared) {
  for (const ChannelConfig& channel : config_.channels) {
    try {
      prepared.push_back(prepare_pipeline(channel, property_option()));
    } catch (const std::exception& error) {
      if (station())
        std::fprintf(stderr, "vmafexact-monitor: channel %s: %s\n", channel.name.c_str(),
                     error.what());
      else
        std::fprintf(stderr, "%s\n", error.what());
      return false;
    }
  }
  return true;
}

// The command line's --jsonl wins over the file's.
std::string MonitorProgram::jsonl_path() const {
  if (!options_.jsonl.empty()) return options_.jsonl;
  return config_.jsonl.value_or("");
}

bool MonitorProgram::open_jsonl(const std::string& path) {
  jsonl_file_.close();
  jsonl_file_.clear();
  jsonl_stream_.reset();
  jsonl_ = nullptr;
  jsonl_open_path_.clear();
  if (path.empty()) return true;
  if (path == "-") {
    jsonl_ = &std::cout;
    jsonl_open_path_ = path;
    return true;
  }
  // A device, FIFO or socket is written in place (a FIFO without a reader is
  // an error at once, not a wait); a file is appended to, as logrotate expects.
  try {
    if (vmafexact::output::resolve_output(path).kind ==
        vmafexact::output::OutputTarget::Kind::kStream) {
      jsonl_stream_.emplace(path);
      jsonl_ = &jsonl_stream_->stream();
      jsonl_open_path_ = path;
      return true;
    }
  } catch (const vmafexact::Error& error) {
    std::fprintf(stderr, "--jsonl: %s\n", error.what());
    return false;
  }
  jsonl_file_.open(path, std::ios::out | std::ios::app);
  if (!jsonl_file_) {
    std::fprintf(stderr, "--jsonl %s: cannot open the file for appending: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  jsonl_ = &jsonl_file_;
  jsonl_open_path_ = path;
  return true;
}

// SIGHUP: after logrotate moved the file away, write to a new one of the same
// name (or of the name a reloaded station file gives).
void MonitorProgram::reopen_jsonl() {
  const std::string path = jsonl_path();
  if (path == "-" && jsonl_open_path_ == "-") return;
  if (!open_jsonl(path)) quit(1);
}

void MonitorProgram::write_json_line(const Channel& channel, const GstStructure* structure) {
  if (!jsonl_) return;
  // {"wallclock":...,"message":NAME,"fields":{...}}: the channel goes before
  // the fields (its name needs no escaping: [A-Za-z0-9_.-]).
  std::string line = tools::json_line(structure);
  const std::size_t fields = line.find(",\"fields\":");
  if (fields != std::string::npos) line.insert(fields, ",\"channel\":\"" + channel.name() + "\"");
  *jsonl_ << line << '\n';
  jsonl_->flush();
  if (!*jsonl_) {
    std::fprintf(stderr, "--jsonl %s: write failed: %s\n", jsonl_open_path_.c_str(),
                 std::strerror(errno));
    quit(1);
  }
}

bool MonitorProgram::start_server() {
  listen_ = options_.listen.value_or(config_.listen.value_or(kDefaultListen));
  std::string problem;
  const GObjectPtr<GSocketAddress> address = parse_listen_address(listen_, problem);
  if (!address) {
    std::fprintf(stderr, "--listen %s: %s.\n", listen_.c_str(), problem.c_str());
    return false;
  }
  server_ = std::make_unique<monitor_http::MetricsServer>(
      "vmafexact-monitor/" VMAFEXACT_VERSION, [this](std::string_view accept) {
        std::vector<const ChannelFigures*> figures;
        figures.reserve(channels_.size());
        for (const auto& channel : channels_) figures.push_back(&channel->figures());
        return render_metrics(figures, version_, negotiate_format(accept));
      });
  if (!server_->listen(address.get(), problem)) {
    std::fprintf(stderr, "--listen %s: cannot listen there: %s\n", listen_.c_str(),
                 problem.c_str());
    return false;
  }
  // With port 0 the system picks one: say which, for scripts and tests.
  std::fprintf(stderr, "vmafexact-monitor: serving %s\n", server_->metrics_url().c_str());
  return true;
}

bool MonitorProgram::all_ended() const {
  for (const auto& channel : channels_)
    if (!channel->ended()) return false;
  return true;
}

void MonitorProgram::on_channel_ended(Channel& channel, EndReason reason) {
  if (!shutdown_requested_) {
    // The command line's channel (a station's restart): the program's end.
    if (reason == EndReason::kError) {
      quit(1);
    } else if (options_.exit_on_eos) {
      quit(0);
    } else {
      std::fprintf(stderr,
                   "vmafexact-monitor: %send of stream; still serving /metrics until SIGINT or "
                   "SIGTERM.\n",
                   channel.prefix().c_str());
    }
    return;
  }
  // A station's channel that was down or starting when the signal came
  // (restarting after failures) may fail once more while it stops: only one
  // that was scoring and then failed to drain makes the exit code 1.
  if (reason == EndReason::kError && (!channel.restarts() || channel.up_when_ending()))
    failed_while_stopping_ = true;
  if (all_ended()) quit(failed_while_stopping_ ? 1 : 0);
}

void MonitorProgram::on_signal(const char* name) {
  if (!shutdown_requested_ && all_ended()) {
    // Ended before (--no-exit-on-eos): nothing left to wait for.
    quit(status_);
    return;
  }
  if (shutdown_requested_) {
    std::fprintf(stderr, "vmafexact-monitor: %s again: stopping without the summary.\n", name);
    quit(1);
    return;
  }
  shutdown_requested_ = true;
  std::fprintf(stderr,
               "vmafexact-monitor: %s: ending the streams (EOS); waiting for the summary.\n", name);
  // The timer first: it must fire even if no EOS ever gets through.
  if (options_.eos_timeout_s > 0)
    g_timeout_add_seconds(options_.eos_timeout_s, eos_timeout_callback, this);
  // A channel that was down has ended at once (on_channel_ended may quit).
  for (const auto& channel : channels_) channel->end_stream();
  if (all_ended()) quit(failed_while_stopping_ ? 1 : 0);
}

void MonitorProgram::on_eos_timeout() {
  if (all_ended()) return;
  std::string waiting;
  for (const auto& channel : channels_)
    if (!channel->ended()) waiting += (waiting.empty() ? "" : ", ") + channel->name();
  std::fprintf(stderr,
               "vmafexact-monitor: no end of stream %u s after the signal%s%s%s: stopping without "
               "the summary (raise --eos-timeout if the pipeline needs longer).\n",
               options_.eos_timeout_s, station() ? " (channels " : "",
               station() ? waiting.c_str() : "", station() ? ")" : "");
  quit(1);
}

// SIGHUP with --config: the file again. Only the channels whose description
// changed are touched; a file that cannot be used changes nothing.
void MonitorProgram::reload() {
  if (shutdown_requested_) return;
  MonitorConfig next;
  try {
    next = load_config(options_.config);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "vmafexact-monitor: SIGHUP: %s; refused, the running channels go on.\n",
                 error.what());
    reopen_jsonl();
    return;
  }
  if (!options_.listen && next.listen.value_or(kDefaultListen) != listen_)
    std::fprintf(stderr,
                 "vmafexact-monitor: SIGHUP: listen=%s takes effect at the next start; still "
                 "serving %s.\n",
                 next.listen.value_or(kDefaultListen).c_str(), listen_.c_str());
  const bool settings_changed = next.restart_delay != settings_.restart_delay ||
                                next.restart_delay_max != settings_.restart_delay_max ||
                                next.stall_timeout != settings_.stall_timeout;
  settings_.restart_delay = next.restart_delay;
  settings_.restart_delay_max = next.restart_delay_max;
  settings_.stall_timeout = next.stall_timeout;
  if (settings_changed)
    for (const auto& channel : channels_) channel->settings_changed();

  const ConfigChanges changes = diff_channels(config_, next);
  auto find = [this](const std::string& name) {
    return std::find_if(channels_.begin(), channels_.end(), [&](const auto& channel) {
      return channel && channel->name() == name;  // null: moved into the new order below
    });
  };
  auto config_of = [&next](const std::string& name) -> const ChannelConfig& {
    return *std::find_if(next.channels.begin(), next.channels.end(),
                         [&](const ChannelConfig& channel) { return channel.name == name; });
  };
  for (const std::string& name : changes.removed)
    if (auto channel = find(name); channel != channels_.end()) channels_.erase(channel);
  std::vector<std::string> kept_as_before;  // changed, but the change could not be started
  for (const std::string& name : changes.changed) {
    const ChannelConfig& channel_config = config_of(name);
    try {
      PreparedPipeline prepared = prepare_pipeline(channel_config, property_option());
      (*find(name))->replace(channel_config, std::move(prepared));
    } catch (const std::exception& error) {
      std::fprintf(stderr,
                   "vmafexact-monitor: SIGHUP: channel %s: %s; the channel runs on as before.\n",
                   name.c_str(), error.what());
      kept_as_before.push_back(name);
    }
  }
  std::vector<std::string> not_started;
  for (const std::string& name : changes.added) {
    const ChannelConfig& channel_config = config_of(name);
    try {
      PreparedPipeline prepared = prepare_pipeline(channel_config, property_option());
      channels_.push_back(
          std::make_unique<Channel>(channel_config, settings_, *this, contexts_, workers_));
      channels_.back()->start(std::move(prepared));
    } catch (const std::exception& error) {
      std::fprintf(stderr, "vmafexact-monitor: SIGHUP: channel %s: %s; not started.\n",
                   name.c_str(), error.what());
      not_started.push_back(name);
    }
  }
  // What runs now, in the new file's order.
  MonitorConfig running = next;
  running.channels.clear();
  std::vector<std::unique_ptr<Channel>> ordered;
  for (const ChannelConfig& channel_config : next.channels) {
    const auto channel = find(channel_config.name);
    if (channel == channels_.end()) continue;
    running.channels.push_back((*channel)->config());
    ordered.push_back(std::move(*channel));
  }
  channels_ = std::move(ordered);
  config_ = std::move(running);
  std::fprintf(stderr,
               "vmafexact-monitor: SIGHUP: %s read again: %zu channel%s running (%zu added, %zu "
               "removed, %zu changed, %zu not started).\n",
               options_.config.c_str(), channels_.size(), channels_.size() == 1 ? "" : "s",
               changes.added.size() - not_started.size(), changes.removed.size(),
               changes.changed.size() - kept_as_before.size(),
               not_started.size() + kept_as_before.size());
  reopen_jsonl();
}

// At exit: every pipeline to NULL (the elements write their logs), except one
// whose EOS is still blocked in a source: going to NULL would block as well.
// Exits at once, with this program's outputs flushed, when a pipeline cannot
// be stopped; else returns the status.
int MonitorProgram::stop_channels() {
  std::string blocked;
  for (const auto& channel : channels_) {
    // Waited for a moment only when the stream ended: its sender then returns at once.
    if (channel->eos_blocked(channel->ended() ? 1000ms : 0ms)) {
      std::fprintf(stderr,
                   "vmafexact-monitor: %sthe pipeline is still blocked taking the EOS (a "
                   "streaming thread does not return); exiting without stopping it.\n",
                   channel->prefix().c_str());
      blocked += channel->name();
    } else {
      channel->stop();
    }
  }
  std::string stuck;
  const bool stopped = workers_.wait_all(kStopTimeout, stuck);
  if (!stopped)
    std::fprintf(stderr,
                 "vmafexact-monitor: the pipeline of %s did not stop within %lld s (a streaming "
                 "thread does not return); exiting without it.\n",
                 stuck.c_str(), static_cast<long long>(kStopTimeout.count()));
  if (blocked.empty() && stopped) return status_;
  if (jsonl_) jsonl_->flush();
  std::fflush(nullptr);
  std::_Exit(!blocked.empty() && status_ == 0 ? 1 : status_);
}

int MonitorProgram::run() {
  if (station()) {
    if (const int status = load_station(); status != 0) return status;
    if (options_.check_config) {
      print_config(options_.config, config_);
      return 0;
    }
  } else {
    config_.channels.push_back(command_line_channel(options_));
  }
  if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
    // What the build_info metric reports.
    if (GstPlugin* plugin = gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(factory))) {
      version_ = gst_plugin_get_version(plugin);
      gst_object_unref(plugin);
    }
    gst_object_unref(factory);
  } else {
    std::fprintf(stderr,
                 "The vmafexact element is not installed. Point GStreamer at the build, e.g.\n"
                 "  GST_PLUGIN_PATH=$PWD/build/gst vmafexact-monitor ...\n");
    return 1;
  }
  std::vector<PreparedPipeline> prepared;
  if (!prepare_channels(prepared) || !open_jsonl(jsonl_path()) || !start_server()) return 1;
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    channels_.push_back(
        std::make_unique<Channel>(config_.channels[i], settings_, *this, contexts_, workers_));
    channels_.back()->start(std::move(prepared[i]));
  }

  const guint sigint = g_unix_signal_add(SIGINT, sigint_callback, this);
  const guint sigterm = g_unix_signal_add(SIGTERM, sigterm_callback, this);
  const guint sighup = g_unix_signal_add(SIGHUP, sighup_callback, this);
  g_main_loop_run(loop_.get());
  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(sighup);

  const int status = stop_channels();
  channels_.clear();
  server_.reset();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine command;
  try {
    command = parse_command_line(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
    std::fprintf(stderr, "Run %s --help for the options.\n", argv[0]);
    return kExitUsage;
  }
  if (command.version) {
    GCharPtr gstreamer(gst_version_string());  // "GStreamer 1.22.0"
    std::printf("%s\n%s\n", version_text().c_str(), gstreamer.get());
    return 0;
  }
  MonitorProgram program(std::move(command.options));
  return program.run();
}
