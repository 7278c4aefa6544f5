// vmafexact-monitor: runs a vmafexact pipeline for as long as its inputs live and
// serves the element's scores as OpenMetrics (Prometheus) on /metrics, and
// optionally as JSON lines for log shippers. Reference: docs/live-monitoring.md.
//
//   vmafexact-monitor --ref URI --dist URI [OPTIONS]
//   vmafexact-monitor --pipeline "... vmafexact name=v ..." [OPTIONS]
//
// It talks to the element only through its properties (--set) and its bus
// messages (vmafexact-frame, -window, -alert, -summary). Everything runs on one
// GLib main loop: the bus watch, the HTTP server and the signal handlers, so the
// figures need no lock. Its parts: the command line (options.h), the figures
// read from the messages (figures.h), their OpenMetrics text (exposition.h),
// the HTTP server (monitor_http.h); this file is the program that joins them.

#include <glib-unix.h>
#include <gst/gst.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "common/error.h"
#include "exposition.h"
#include "figures.h"
#include "monitor_http.h"
#include "options.h"
#include "output/output_file.h"
#include "support/decoded_video.h"
#include "support/handles.h"
#include "support/message_json.h"
#include "vmafexact_config.h"

namespace {

namespace tools = vmafexact::tools;
namespace monitor_http = vmafexact::monitor_http;
using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GObjectPtr;
using tools::GstObjectPtr;
using tools::LoopPtr;
using namespace vmafexact::monitor_tool;

// One channel's monitor: the pipeline, its figures, the HTTP server that
// serves them, the --jsonl output and the signals that end it. (The element's
// own monitoring, windows and alerts, is gst/monitor.h's Monitor.)
class MonitorProgram {
 public:
  explicit MonitorProgram(Options options) : options_(std::move(options)) { channel_.name = "main"; }
  int run();

 private:
  bool build_pipeline();
  bool build_from_uris();
  bool set_properties();
  bool open_jsonl();
  void reopen_jsonl();
  bool start_server();
  void write_json_line(const GstStructure* structure);
  gboolean on_bus_message(GstMessage* message);
  void on_signal(const char* name);
  void on_eos_timeout();
  bool stop_pipeline();
  void quit(int status) {
    status_ = status;
    g_main_loop_quit(loop_.get());
  }

  static gboolean bus_callback(GstBus*, GstMessage* message, gpointer self) {
    return static_cast<MonitorProgram*>(self)->on_bus_message(message);
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
    static_cast<MonitorProgram*>(self)->reopen_jsonl();
    return G_SOURCE_CONTINUE;
  }
  static gboolean eos_timeout_callback(gpointer self) {
    static_cast<MonitorProgram*>(self)->on_eos_timeout();
    return G_SOURCE_REMOVE;
  }

  Options options_;
  LoopPtr loop_{g_main_loop_new(nullptr, FALSE)};
  GstObjectPtr<GstElement> pipeline_;
  GstObjectPtr<GstElement> vmafexact_;
  std::unique_ptr<monitor_http::MetricsServer> server_;
  std::ofstream jsonl_file_;
  std::optional<vmafexact::output::OutputFile> jsonl_stream_;  // a device, FIFO or socket
  std::ostream* jsonl_ = nullptr;
  // One channel, "main", until the channels helper's rewrite (issue 42).
  ChannelFigures channel_;
  std::string version_;
  bool shutdown_requested_ = false;
  bool reached_eos_ = false;
  int status_ = 0;
  // The EOS a signal sends, from a thread of its own: gst_element_send_event()
  // blocks while a source's streaming thread is stuck downstream (it takes
  // the source's stream lock, holding the pipeline's state lock), and the
  // loop must go on serving /metrics and counting --eos-timeout meanwhile.
  std::thread eos_sender_;
  std::future<void> eos_sent_;
};

// A URI as given, or a path turned into a file:// URI.
std::optional<std::string> uri_of(const std::string& text, const char* option) {
  if (gst_uri_is_valid(text.c_str())) return text;
  ErrorPtr error;
  GError* raw_error = nullptr;
  GCharPtr uri(gst_filename_to_uri(text.c_str(), &raw_error));
  error.reset(raw_error);
  if (!uri || !g_file_test(text.c_str(), G_FILE_TEST_EXISTS)) {
    std::fprintf(stderr, "%s '%s' is neither a URI (scheme://...) nor an existing file.\n", option,
                 text.c_str());
    return std::nullopt;
  }
  return std::string(uri.get());
}

bool MonitorProgram::build_from_uris() {
  const auto ref_uri = uri_of(options_.ref_uri, "--ref");
  const auto dist_uri = uri_of(options_.dist_uri, "--dist");
  if (!ref_uri || !dist_uri) return false;
  pipeline_.reset(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("monitor"))));
  GstElement* vmafexact = gst_element_factory_make("vmafexact", "v");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  if (!vmafexact || !sink) {
    std::fprintf(stderr, "Could not make the vmafexact or fakesink element.\n");
    if (vmafexact) gst_object_unref(gst_object_ref_sink(vmafexact));
    if (sink) gst_object_unref(gst_object_ref_sink(sink));
    return false;
  }
  // Scores come as fast as the inputs allow; a live source sets the pace itself.
  g_object_set(sink, "sync", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(pipeline_.get()), vmafexact, sink, nullptr);
  if (!gst_element_link(vmafexact, sink)) {
    std::fprintf(stderr, "Could not link vmafexact to fakesink.\n");
    return false;
  }
  const std::pair<const std::string*, const char*> inputs[] = {{&*ref_uri, "ref"},
                                                               {&*dist_uri, "dist"}};
  for (const auto& [uri, side] : inputs) {
    const std::string prefix = side;
    GstElement* decoder = gst_element_factory_make("uridecodebin", (prefix + "_decoder").c_str());
    GstElement* queue = gst_element_factory_make("queue", (prefix + "_queue").c_str());
    GstElement* convert = gst_element_factory_make("videoconvert", (prefix + "_convert").c_str());
    if (!decoder || !queue || !convert) {
      std::fprintf(stderr,
                   "Could not make uridecodebin, queue or videoconvert (install "
                   "gstreamer1.0-plugins-base).\n");
      for (GstElement* made : {decoder, queue, convert})
        if (made) gst_object_unref(gst_object_ref_sink(made));
      return false;
    }
    g_object_set(decoder, "uri", uri->c_str(), nullptr);
    gst_bin_add_many(GST_BIN(pipeline_.get()), decoder, queue, convert, nullptr);
    const std::string pad = prefix + "_sink";
    if (!gst_element_link(queue, convert) ||
        !gst_element_link_pads(convert, "src", vmafexact, pad.c_str())) {
      std::fprintf(stderr, "Could not link the %s branch to vmafexact's %s.\n", side, pad.c_str());
      return false;
    }
    tools::link_decoded_video(decoder, queue);
  }
  vmafexact_.reset(static_cast<GstElement*>(gst_object_ref(vmafexact)));
  return true;
}

bool MonitorProgram::build_pipeline() {
  if (!options_.pipeline.empty()) {
    GError* raw_error = nullptr;
    GstElement* pipeline = gst_parse_launch_full(options_.pipeline.c_str(), nullptr,
                                                 GST_PARSE_FLAG_FATAL_ERRORS, &raw_error);
    ErrorPtr error(raw_error);
    if (pipeline) pipeline_.reset(static_cast<GstElement*>(gst_object_ref_sink(pipeline)));
    if (!pipeline || error) {
      std::fprintf(stderr, "Could not build the pipeline: %s\n",
                   error ? error->message : "unknown error");
      return false;
    }
    if (!GST_IS_BIN(pipeline_.get())) {
      std::fprintf(stderr, "The pipeline has no vmafexact element named v.\n");
      return false;
    }
    vmafexact_.reset(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "v"));
    if (!vmafexact_) {
      std::fprintf(stderr,
                   "The pipeline has no element named v: write the element as "
                   "'vmafexact name=v'.\n");
      return false;
    }
    GstElementFactory* factory = gst_element_get_factory(vmafexact_.get());
    if (!factory || std::string_view(GST_OBJECT_NAME(factory)) != "vmafexact") {
      std::fprintf(stderr, "The element named v is a %s, not a vmafexact.\n",
                   factory ? GST_OBJECT_NAME(factory) : "?");
      return false;
    }
    return true;
  }
  return build_from_uris();
}

// --set NAME=VALUE: the value is read as gst-launch-1.0 reads it, for the
// property's type; an unknown property or an unreadable value is an error.
bool MonitorProgram::set_properties() {
  GObjectClass* element_class = G_OBJECT_GET_CLASS(vmafexact_.get());
  for (const auto& [name, text] : options_.properties) {
    GParamSpec* spec = g_object_class_find_property(element_class, name.c_str());
    if (!spec || !(spec->flags & G_PARAM_WRITABLE)) {
      std::string names;
      guint count = 0;
      GParamSpec** specs = g_object_class_list_properties(element_class, &count);
      for (guint i = 0; i < count; ++i)
        if ((specs[i]->flags & G_PARAM_WRITABLE) && std::string_view(specs[i]->name) != "name" &&
            std::string_view(specs[i]->name) != "parent")
          names += std::string(names.empty() ? "" : ", ") + specs[i]->name;
      g_free(specs);
      std::fprintf(stderr, "--set %s=%s: vmafexact has no property '%s' (it has: %s).\n",
                   name.c_str(), text.c_str(), name.c_str(), names.c_str());
      return false;
    }
    GValue value = G_VALUE_INIT;
    g_value_init(&value, spec->value_type);
    const bool read = gst_value_deserialize_with_pspec(&value, text.c_str(), spec);
    if (read) g_object_set_property(G_OBJECT(vmafexact_.get()), name.c_str(), &value);
    g_value_unset(&value);
    if (!read) {
      std::fprintf(stderr, "--set %s=%s: '%s' is not a value of type %s for this property.\n",
                   name.c_str(), text.c_str(), text.c_str(), g_type_name(spec->value_type));
      return false;
    }
  }
  // Shift an input's running times, so that frames that belong together pair.
  for (const auto& [pad_name, offset] :
       {std::pair{"ref_sink", options_.ref_offset}, std::pair{"dist_sink", options_.dist_offset}}) {
    if (offset == 0) continue;
    GstObjectPtr<GstPad> pad(gst_element_get_static_pad(vmafexact_.get(), pad_name));
    if (pad) gst_pad_set_offset(pad.get(), offset);
  }
  // What the build_info metric reports.
  GstPlugin* plugin =
      gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(gst_element_get_factory(vmafexact_.get())));
  version_ = plugin ? gst_plugin_get_version(plugin) : VMAFEXACT_VERSION;
  if (plugin) gst_object_unref(plugin);
  GCharPtr model;
  g_object_get(vmafexact_.get(), "model", &model, nullptr);
  channel_.model = model ? model.get() : "";
  GValue backend = G_VALUE_INIT;
  if (g_object_class_find_property(element_class, "backend")) {
    g_value_init(&backend, g_object_class_find_property(element_class, "backend")->value_type);
    g_object_get_property(G_OBJECT(vmafexact_.get()), "backend", &backend);
    GEnumValue* nick =
        G_VALUE_HOLDS_ENUM(&backend)
            ? g_enum_get_value(static_cast<GEnumClass*>(g_type_class_peek(G_VALUE_TYPE(&backend))),
                               g_value_get_enum(&backend))
            : nullptr;
    channel_.backend = nick ? nick->value_nick : "";
    g_value_unset(&backend);
  }
  return true;
}

bool MonitorProgram::open_jsonl() {
  if (options_.jsonl.empty()) return true;
  if (options_.jsonl == "-") {
    jsonl_ = &std::cout;
    return true;
  }
  // A device, FIFO or socket is written in place (a FIFO without a reader is
  // an error at once, not a wait); a file is appended to, as logrotate expects.
  try {
    if (vmafexact::output::resolve_output(options_.jsonl).kind ==
        vmafexact::output::OutputTarget::Kind::kStream) {
      jsonl_stream_.emplace(options_.jsonl);
      jsonl_ = &jsonl_stream_->stream();
      return true;
    }
  } catch (const vmafexact::Error& error) {
    std::fprintf(stderr, "--jsonl: %s\n", error.what());
    return false;
  }
  jsonl_file_.open(options_.jsonl, std::ios::out | std::ios::app);
  if (!jsonl_file_) {
    std::fprintf(stderr, "--jsonl %s: cannot open the file for appending: %s\n",
                 options_.jsonl.c_str(), std::strerror(errno));
    return false;
  }
  jsonl_ = &jsonl_file_;
  return true;
}

// SIGHUP: after logrotate moved the file away, write to a new one of the same name.
void MonitorProgram::reopen_jsonl() {
  if (options_.jsonl.empty() || options_.jsonl == "-") return;
  jsonl_file_.close();
  jsonl_file_.clear();
  jsonl_stream_.reset();
  jsonl_ = nullptr;
  if (!open_jsonl()) quit(1);
}

void MonitorProgram::write_json_line(const GstStructure* structure) {
  if (!jsonl_) return;
  *jsonl_ << tools::json_line(structure) << '\n';
  jsonl_->flush();
  if (!*jsonl_) {
    std::fprintf(stderr, "--jsonl %s: write failed: %s\n", options_.jsonl.c_str(),
                 std::strerror(errno));
    quit(1);
  }
}

bool MonitorProgram::start_server() {
  std::string problem;
  const GObjectPtr<GSocketAddress> address = parse_listen_address(options_.listen, problem);
  if (!address) {
    std::fprintf(stderr, "--listen %s: %s.\n", options_.listen.c_str(), problem.c_str());
    return false;
  }
  server_ = std::make_unique<monitor_http::MetricsServer>(
      "vmafexact-monitor/" VMAFEXACT_VERSION, [this](std::string_view accept) {
        return render_metrics({&channel_}, version_, negotiate_format(accept));
      });
  if (!server_->listen(address.get(), problem)) {
    std::fprintf(stderr, "--listen %s: cannot listen there: %s\n", options_.listen.c_str(),
                 problem.c_str());
    return false;
  }
  // With port 0 the system picks one: say which, for scripts and tests.
  std::fprintf(stderr, "vmafexact-monitor: serving %s\n", server_->metrics_url().c_str());
  return true;
}

gboolean MonitorProgram::on_bus_message(GstMessage* message) {
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ELEMENT: {
      if (GST_MESSAGE_SRC(message) != GST_OBJECT(vmafexact_.get())) break;
      const GstStructure* s = gst_message_get_structure(message);
      if (gst_structure_has_name(s, "vmafexact-frame")) {
        take_frame(channel_.run, s);
        channel_.up = true;
      } else if (gst_structure_has_name(s, "vmafexact-window")) {
        take_window(channel_.run, s);
      } else if (gst_structure_has_name(s, "vmafexact-alert")) {
        take_alert(channel_.run, s);
        const gchar* alert = gst_structure_get_string(s, "alert");
        const gchar* state = gst_structure_get_string(s, "state");
        const gchar* input = gst_structure_get_string(s, "input");
        std::fprintf(stderr, "alert %s%s%s: %s\n", alert ? alert : "?", input ? " on " : "",
                     input ? input : "", state ? state : "?");
      } else if (gst_structure_has_name(s, "vmafexact-summary")) {
        take_summary(channel_.run, s);
      } else {
        break;
      }
      write_json_line(s);
      break;
    }
    case GST_MESSAGE_WARNING: {
      GError* raw_error = nullptr;
      gchar* raw_debug = nullptr;
      gst_message_parse_warning(message, &raw_error, &raw_debug);
      ErrorPtr error(raw_error);
      GCharPtr debug(raw_debug);
      std::fprintf(stderr, "WARNING from %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                   error->message);
      if (debug) std::fprintf(stderr, "  %s\n", debug.get());
      break;
    }
    case GST_MESSAGE_ERROR: {
      GError* raw_error = nullptr;
      gchar* raw_debug = nullptr;
      gst_message_parse_error(message, &raw_error, &raw_debug);
      ErrorPtr error(raw_error);
      GCharPtr debug(raw_debug);
      std::fprintf(stderr, "ERROR from %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                   error->message);
      if (debug) std::fprintf(stderr, "  %s\n", debug.get());
      quit(1);
      break;
    }
    case GST_MESSAGE_EOS:
      reached_eos_ = true;
      channel_.run.end_of_stream = true;
      channel_.up = false;
      if (options_.exit_on_eos || shutdown_requested_) {
        quit(0);
      } else {
        std::fprintf(stderr,
                     "vmafexact-monitor: end of stream; still serving /metrics until SIGINT or "
                     "SIGTERM.\n");
      }
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

void MonitorProgram::on_signal(const char* name) {
  if (reached_eos_) {
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
  // The timer first: it must fire even if the EOS never gets through.
  if (options_.eos_timeout_s > 0)
    g_timeout_add_seconds(options_.eos_timeout_s, eos_timeout_callback, this);
  std::promise<void> sent;
  eos_sent_ = sent.get_future();
  eos_sender_ = std::thread([pipeline = GstObjectPtr<GstElement>(
                                 static_cast<GstElement*>(gst_object_ref(pipeline_.get()))),
                             sent = std::move(sent)]() mutable {
    gst_element_send_event(pipeline.get(), gst_event_new_eos());
    sent.set_value();
  });
}

void MonitorProgram::on_eos_timeout() {
  if (reached_eos_) return;
  std::fprintf(stderr,
               "vmafexact-monitor: no end of stream %u s after the signal: stopping without the "
               "summary (raise --eos-timeout if the pipeline needs longer).\n",
               options_.eos_timeout_s);
  quit(1);
}

// Sets the pipeline to NULL, which writes the element's log if the stream did
// not end (docs/element.md); false, without touching it, while the EOS a
// signal sent is still blocked (waited for a moment only when the stream
// ended: its sender then returns at once).
bool MonitorProgram::stop_pipeline() {
  if (eos_sender_.joinable()) {
    const auto wait = reached_eos_ ? std::chrono::seconds(1) : std::chrono::seconds(0);
    if (eos_sent_.wait_for(wait) != std::future_status::ready) return false;
    eos_sender_.join();
  }
  gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
  return true;
}

int MonitorProgram::run() {
  if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
    gst_object_unref(factory);
  } else {
    std::fprintf(stderr,
                 "The vmafexact element is not installed. Point GStreamer at the build, e.g.\n"
                 "  GST_PLUGIN_PATH=$PWD/build/gst vmafexact-monitor ...\n");
    return 1;
  }
  if (!build_pipeline() || !set_properties() || !open_jsonl() || !start_server()) return 1;

  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline_.get()));
  const guint watch = gst_bus_add_watch(bus.get(), bus_callback, this);
  const guint sigint = g_unix_signal_add(SIGINT, sigint_callback, this);
  const guint sigterm = g_unix_signal_add(SIGTERM, sigterm_callback, this);
  const guint sighup = g_unix_signal_add(SIGHUP, sighup_callback, this);

  // A failed state change has its reason on the bus, which the loop reads.
  gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING);
  g_main_loop_run(loop_.get());

  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(sighup);
  if (!stop_pipeline()) {
    // The EOS is still blocked in a source, holding the pipeline's state lock:
    // going to NULL would block as well. Exit with what this program wrote
    // flushed; the status says the pipeline did not end cleanly.
    std::fprintf(stderr,
                 "vmafexact-monitor: the pipeline is still blocked taking the EOS (a streaming "
                 "thread does not return); exiting without stopping it.\n");
    if (jsonl_) jsonl_->flush();
    std::fflush(nullptr);
    std::_Exit(status_ != 0 ? status_ : 1);
  }
  g_source_remove(watch);
  server_.reset();
  return status_;
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
