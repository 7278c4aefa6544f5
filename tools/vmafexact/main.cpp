// vmafexact: scores a distorted video against its reference from the command
// line with the vmafexact GStreamer element. Reference: docs/tool.md.
//
//   vmafexact [OPTIONS] REF DIST
//
// main() learns what the inputs hold, lines the distorted video up with the
// reference (scaling, sample format, frame rate, delay), runs the pipeline on
// a GLib main loop (bus messages, SIGINT/SIGTERM/SIGHUP/SIGQUIT, the progress
// line) and puts the outputs in place; every failure ends as a CliError with
// its exit code.

#include <fcntl.h>
#include <glib-unix.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "errors.h"
#include "inputs.h"
#include "options.h"
#include "outputs.h"
#include "pipeline.h"
#include "progress.h"
#include "support/handles.h"

namespace vmafexact::cli {
namespace {

using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GstObjectPtr;
using tools::LoopPtr;

// Finds the vmafexact element. Run from the build tree, the tool falls back to
// the plugin built beside it when GStreamer has none registered; installed,
// it relies on GStreamer's own search.
void ensure_element() {
  if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
    gst_object_unref(factory);
    return;
  }
#ifdef VMAFEXACT_BUILD_ROOT
  std::error_code error;
  const auto executable = std::filesystem::canonical("/proc/self/exe", error);
  const auto build_root = std::filesystem::canonical(VMAFEXACT_BUILD_ROOT, error);
  if (!error && executable.string().rfind(build_root.string() + "/", 0) == 0) {
    gst_registry_scan_path(gst_registry_get(), VMAFEXACT_BUILD_PLUGIN_DIR);
    if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
      gst_object_unref(factory);
      return;
    }
  }
#endif
  throw CliError(kExitScoring, "the vmafexact GStreamer element is not installed",
                 "Install the project (meson install -C build), or point GStreamer at the built "
                 "plugin: GST_PLUGIN_PATH=/path/to/build/gst vmafexact ...");
}

std::optional<guint64> expected_pairs(const VideoInput& ref, const VideoInput& dist,
                                      const Alignment& alignment) {
  if (ref.framerate.num <= 0 || !GST_CLOCK_TIME_IS_VALID(ref.duration)) return std::nullopt;
  GstClockTime span = ref.duration > alignment.ref_skip ? ref.duration - alignment.ref_skip : 0;
  if (GST_CLOCK_TIME_IS_VALID(dist.duration)) {
    const GstClockTime dist_span =
        dist.duration > alignment.dist_skip ? dist.duration - alignment.dist_skip : 0;
    span = std::min(span, dist_span);
  }
  return gst_util_uint64_scale_round(span, ref.framerate.num,
                                     GST_SECOND * static_cast<guint64>(ref.framerate.den));
}

class Run {
 public:
  Run(const Options& options, const VideoInput& ref, const VideoInput& dist,
      const Alignment& alignment, Outputs& outputs, ScoringPipeline& pipeline)
      : options_(options),
        ref_(ref),
        dist_(dist),
        outputs_(outputs),
        pipeline_(pipeline),
        progress_(
            options.progress == ProgressMode::kOn || (options.progress == ProgressMode::kAuto &&
                                                      !options.quiet && isatty(STDERR_FILENO)),
            expected_pairs(ref, dist, alignment)) {}

  ExitCode run();

 private:
  static gboolean on_bus(GstBus*, GstMessage* message, gpointer self) {
    static_cast<Run*>(self)->handle(message);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sigint(gpointer self) {
    static_cast<Run*>(self)->interrupt(SIGINT);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sigterm(gpointer self) {
    static_cast<Run*>(self)->interrupt(SIGTERM);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sighup(gpointer self) {
    static_cast<Run*>(self)->interrupt(SIGHUP);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_sigquit(gint fd, GIOCondition, gpointer self) {
    char bytes[16];
    while (read(fd, bytes, sizeof bytes) > 0) {
    }
    static_cast<Run*>(self)->stop_at_once(SIGQUIT);
    return G_SOURCE_CONTINUE;
  }
  static gboolean on_tick(gpointer self) {
    static_cast<Run*>(self)->progress_.draw();
    return G_SOURCE_CONTINUE;
  }
  void handle(GstMessage* message);
  void interrupt(int signal);
  void stop_at_once(int signal);
  void fail(const GstMessage* message);
  void check_outputs();
  void quit() { g_main_loop_quit(loop_.get()); }

  const Options& options_;
  const VideoInput& ref_;
  const VideoInput& dist_;
  Outputs& outputs_;
  ScoringPipeline& pipeline_;
  Progress progress_;
  LoopPtr loop_{g_main_loop_new(nullptr, FALSE)};
  std::optional<CliError> failure_;
  std::string missing_plugin_;
  int signal_ = 0;        // the first SIGINT/SIGTERM/SIGHUP
  bool aborted_ = false;  // a second one, or SIGQUIT
  std::thread ender_;     // sends EOS into vmafexact after the first signal
};

void Run::handle(GstMessage* message) {
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure* s = gst_message_get_structure(message);
      if (gst_is_missing_plugin_message(message)) {
        GCharPtr description(gst_missing_plugin_message_get_description(message));
        if (description) missing_plugin_ = description.get();
        break;
      }
      if (GST_MESSAGE_SRC(message) != GST_OBJECT(pipeline_.vmafexact())) break;
      if (gst_structure_has_name(s, "vmafexact-frame")) {
        outputs_.on_frame(s);
        progress_.on_frame(s);
      } else if (gst_structure_has_name(s, "vmafexact-summary")) {
        outputs_.on_summary(s);
      }
      check_outputs();
      break;
    }
    case GST_MESSAGE_WARNING: {
      // After an interrupt the streams end early on purpose: their "ended
      // first" and unpaired-frame warnings would only confuse.
      if (signal_ != 0) break;
      GError* raw_error = nullptr;
      gst_message_parse_warning(message, &raw_error, nullptr);
      ErrorPtr error(raw_error);
      progress_.print(std::string("vmafexact: warning: ") + (error ? error->message : "?"));
      break;
    }
    case GST_MESSAGE_ERROR:
      if (!failure_) fail(message);
      quit();
      break;
    case GST_MESSAGE_EOS:
      quit();
      break;
    default:
      break;
  }
}

// The first error decides the exit code: an input's element (demuxer,
// decoder, parser) failing means the input cannot be read; vmafexact's own
// errors are bad settings, an unwritable log, or a scoring failure.
void Run::fail(const GstMessage* message) {
  GError* raw_error = nullptr;
  gchar* raw_debug = nullptr;
  gst_message_parse_error(const_cast<GstMessage*>(message), &raw_error, &raw_debug);
  ErrorPtr error(raw_error);
  GCharPtr debug(raw_debug);
  // The element writes its log to a scratch file: its messages name the log.
  std::string text = outputs_.with_log_name(error ? error->message : "unknown error");
  if (!text.empty() && text.back() == '.') text.pop_back();
  // GStreamer's debug text starts with where the error was posted
  // ("file.c(123): function (): /GstPipeline:...:"); the advice follows.
  std::string details = outputs_.with_log_name(debug ? debug.get() : "");
  if (const auto newline = details.find('\n');
      newline != std::string::npos && newline > 0 && details[newline - 1] == ':')
    details.erase(0, newline + 1);
  GstObject* source = GST_MESSAGE_SRC(message);
  if (source == GST_OBJECT(pipeline_.vmafexact())) {
    ExitCode code = kExitScoring;
    if (error && error->domain == GST_LIBRARY_ERROR && error->code == GST_LIBRARY_ERROR_SETTINGS)
      code = kExitUsage;
    else if (error && error->domain == GST_RESOURCE_ERROR &&
             (error->code == GST_RESOURCE_ERROR_OPEN_WRITE ||
              error->code == GST_RESOURCE_ERROR_WRITE))
      code = kExitOutput;
    failure_.emplace(code, text, details);
    return;
  }
  if (const VideoInput* input = pipeline_.input_of(source)) {
    if (!missing_plugin_.empty())
      failure_.emplace(kExitInput,
                       "cannot decode the " + input->role + " " + input->path +
                           ": GStreamer has no " + missing_plugin_,
                       "Install GStreamer's plugins for it (Debian: gstreamer1.0-libav; also "
                       "gstreamer1.0-plugins-good, -bad and -ugly).");
    else
      failure_.emplace(kExitInput,
                       "cannot decode the " + input->role + " " + input->path + ": " + text,
                       details);
    return;
  }
  failure_.emplace(kExitScoring, text, details);
}

// A JSON line that could not be written (standard output closed or full, a
// FIFO's reader gone): the run stops with that error.
void Run::check_outputs() {
  if (!outputs_.write_error() || failure_) return;
  failure_ = *outputs_.write_error();
  quit();
}

// SIGQUIT, or a second interrupt: no outputs written, temporary files removed.
void Run::stop_at_once(int signal) {
  if (signal_ == 0) signal_ = signal;
  aborted_ = true;
  quit();
}

void Run::interrupt(int signal) {
  if (signal_ != 0) {
    progress_.print("vmafexact: interrupted again: stopping without writing the outputs");
    stop_at_once(signal);
    return;
  }
  signal_ = signal;
  progress_.print(
      "vmafexact: interrupted: scoring what has been read, then writing the "
      "outputs (interrupt again to stop at once)");
  // EOS into vmafexact's pads: the inputs stop, the element scores what it
  // holds, posts its summary and writes its log. The pads' stream locks may
  // be held by a streaming thread, so not on the main loop.
  ender_ = std::thread([pipeline = &pipeline_] { pipeline->end_inputs(); });
}

// SIGQUIT's handler: GLib's signal sources do not take SIGQUIT, so it wakes
// the main loop through a pipe.
int quit_pipe[2] = {-1, -1};
extern "C" void on_sigquit_signal(int) {
  const int saved = errno;
  const char byte = 0;
  [[maybe_unused]] const ssize_t written = write(quit_pipe[1], &byte, 1);
  errno = saved;
}

ExitCode Run::run() {
  outputs_.start();
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline_.pipeline()));
  const guint watch = gst_bus_add_watch(bus.get(), on_bus, this);
  const guint sigint = g_unix_signal_add(SIGINT, on_sigint, this);
  const guint sigterm = g_unix_signal_add(SIGTERM, on_sigterm, this);
  const guint sighup = g_unix_signal_add(SIGHUP, on_sighup, this);
  guint sigquit = 0;
  if (quit_pipe[0] < 0 && pipe2(quit_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
    struct sigaction action {};
    action.sa_handler = on_sigquit_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGQUIT, &action, nullptr);
  }
  if (quit_pipe[0] >= 0) sigquit = g_unix_fd_add(quit_pipe[0], G_IO_IN, on_sigquit, this);
  const guint tick = g_timeout_add(250, on_tick, this);

  if (gst_element_set_state(pipeline_.pipeline(), GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    // The reason is on the bus: the loop reads it and quits.
  }
  g_main_loop_run(loop_.get());

  // Signals from here on are held (GLib's sources gone, SIGQUIT's pipe
  // unread): the outputs are written or removed whole.
  g_source_remove(tick);
  if (sigquit) g_source_remove(sigquit);
  g_source_remove(sighup);
  g_source_remove(sigterm);
  g_source_remove(sigint);
  gst_element_set_state(pipeline_.pipeline(), GST_STATE_NULL);
  if (ender_.joinable()) ender_.join();
  g_source_remove(watch);
  progress_.clear();

  const auto interrupted = static_cast<ExitCode>(128 + signal_);
  if (aborted_) return interrupted;
  if (failure_) throw *failure_;
  const GstStructure* summary = outputs_.summary();
  guint64 scored = 0;
  if (summary) gst_structure_get_uint64(summary, "frames-scored", &scored);
  if (scored == 0) {
    if (signal_) return interrupted;
    std::string why = "the reference is " + duration_text(ref_.duration) +
                      " long, the distorted video " + duration_text(dist_.duration);
    if (options_.dist_delay != 0) {
      char delay[64];
      std::snprintf(delay, sizeof delay, ", --dist-delay %g s", options_.dist_delay);
      why += delay;
    }
    throw CliError(
        kExitNothingToCompare,
        "no frame pair was scored: the inputs have no frames at the same time (" + why + ")",
        "Check --dist-delay and that both videos have frames; frames pair by their "
        "timestamps.");
  }
  outputs_.finish();
  if (!options_.quiet) print_summary_table(outputs_.jsonl_on_stdout() ? stderr : stdout, summary);
  return signal_ ? interrupted : kExitOk;
}

void note(const Options& options, const std::string& line) {
  if (!options.quiet) std::fprintf(stderr, "%s\n", line.c_str());
}

ExitCode run(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  gst_pb_utils_init();
  ensure_element();
  VideoInput ref = discover_input(options.ref, "reference");
  if (options.dists.size() > 1 || options.start || options.frames || options.duration)
    throw CliError(kExitUsage, "several DISTs and frame ranges are not scored yet",
                   "Give one DIST without --start, --frames or --duration.");
  VideoInput dist = discover_input(options.dists.front(), "distorted video");
  settle_raw_framerates(ref, dist, options.ref, options.dists.front());
  const Alignment alignment = align(options, ref, dist);
  Outputs outputs(options, ref, dist);

  note(options, "reference: " + ref.path + " (" + ref.description() + ")");
  note(options, "distorted: " + dist.path + " (" + dist.description() + ")");
  std::string lining_up;
  if (alignment.scale)
    lining_up += "scaled to " + std::to_string(ref.width) + "x" + std::to_string(ref.height) +
                 " (videoscale method " + videoscale_method(options) + ")";
  if (alignment.convert_rate)
    lining_up += std::string(lining_up.empty() ? "" : ", ") + "frame rate converted to " +
                 std::to_string(ref.framerate.num) + "/" + std::to_string(ref.framerate.den) +
                 " (videorate drops or repeats frames)";
  if (options.dist_delay != 0) {
    char delay[96];
    std::snprintf(delay, sizeof delay, "the first %g s of the %s skipped",
                  std::fabs(options.dist_delay),
                  options.dist_delay > 0 ? "distorted video" : "reference");
    lining_up += std::string(lining_up.empty() ? "" : ", ") + delay;
  }
  if (!lining_up.empty()) note(options, "distorted video " + lining_up);
  outputs.describe_run(ref.path + " vs " + dist.path,
                       {{"reference", ref.path + " (" + ref.description() + ")"},
                        {"distorted", dist.path + " (" + dist.description() + ")" +
                                          (lining_up.empty() ? "" : ", " + lining_up)},
                        {"scored in", gst_video_format_to_string(alignment.format)}});

  ScoringPipeline pipeline(options, ref, dist, alignment, outputs.element_log_location(),
                           outputs.element_log_format());
  Run scoring(options, ref, dist, alignment, outputs, pipeline);
  return scoring.run();
}

}  // namespace
}  // namespace vmafexact::cli

int main(int argc, char** argv) {
  using namespace vmafexact::cli;
  // A closed standard descriptor (`>&-`) is taken by /dev/null, read-only:
  // no file opened later lands on it, and writes to it fail (--jsonl -
  // reports that) instead of going into that file.
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int null_fd = open("/dev/null", O_RDONLY);
      if (null_fd >= 0 && null_fd != fd) {
        dup2(null_fd, fd);
        close(null_fd);
      }
    }
  try {
    return run(argc, argv);
  } catch (const CliError& error) {
    std::fprintf(stderr, "vmafexact: %s\n", error.what());
    if (!error.advice().empty()) std::fprintf(stderr, "  %s\n", error.advice().c_str());
    return error.code();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "vmafexact: internal error: %s\n", error.what());
    return kExitScoring;
  }
}
