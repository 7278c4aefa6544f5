// vmafexact: scores a distorted video against its reference from the command
// line with the vmafexact GStreamer element. Reference: docs/tool.md.
//
//   vmafexact [OPTIONS] REF DIST [DIST...]
//
// main() learns what the inputs hold, lines each distorted video (encode) up
// with the reference (scaling, sample format, frame rate, delay, frame range),
// runs one pipeline for all of them (REF decoded once) on
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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "align_auto.h"
#include "batch.h"
#include "build_tree.h"
#include "errors.h"
#include "inputs.h"
#include "ladder.h"
#include "merge.h"
#include "options.h"
#include "outputs.h"
#include "pipeline.h"
#include "progress.h"
#include "report_command.h"
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
  std::error_code error;
  const auto executable = std::filesystem::canonical("/proc/self/exe", error);
  const auto build_root = std::filesystem::canonical(kBuildRoot, error);
  if (!error && executable.string().rfind(build_root.string() + "/", 0) == 0) {
    gst_registry_scan_path(gst_registry_get(), kBuildPluginDir);
    if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
      gst_object_unref(factory);
      return;
    }
  }
  throw CliError(kExitScoring, "the vmafexact GStreamer element is not installed",
                 "Install the project (meson install -C build), or point GStreamer at the built "
                 "plugin: GST_PLUGIN_PATH=/path/to/build/gst vmafexact ...");
}

// One distorted video (encode) and what is made for it.
struct Encode {
  VideoInput dist;
  std::string name;  // {name}: --names', else the file name without its extension
  Alignment alignment;
  tools::StructurePtr provenance;  // the element's extra-provenance
  std::unique_ptr<Outputs> outputs;
};

std::optional<guint64> expected_pairs(const VideoInput& ref, const FrameWindow& window,
                                      const std::vector<Encode>& encodes) {
  if (window.frames) return window.frames;
  if (ref.framerate.num <= 0 || !GST_CLOCK_TIME_IS_VALID(ref.duration)) return std::nullopt;
  GstClockTime slowest = GST_CLOCK_TIME_NONE;
  for (const Encode& encode : encodes) {
    const Alignment& alignment = encode.alignment;
    GstClockTime span = ref.duration > alignment.ref_skip ? ref.duration - alignment.ref_skip : 0;
    if (GST_CLOCK_TIME_IS_VALID(encode.dist.duration)) {
      const GstClockTime dist_span = encode.dist.duration > alignment.dist_skip
                                         ? encode.dist.duration - alignment.dist_skip
                                         : 0;
      span = std::min(span, dist_span);
    }
    span = span > window.begin ? span - window.begin : 0;
    if (GST_CLOCK_TIME_IS_VALID(window.end)) span = std::min(span, window.end - window.begin);
    slowest = GST_CLOCK_TIME_IS_VALID(slowest) ? std::max(slowest, span) : span;
  }
  if (!GST_CLOCK_TIME_IS_VALID(slowest)) return std::nullopt;
  return gst_util_uint64_scale_round(slowest, ref.framerate.num,
                                     GST_SECOND * static_cast<guint64>(ref.framerate.den));
}

class Run {
 public:
  Run(const Options& options, const VideoInput& ref, const FrameWindow& window,
      std::vector<Encode>& encodes, const RunProvenance& provenance, ScoringPipeline& pipeline)
      : options_(options),
        ref_(ref),
        encodes_(encodes),
        provenance_(provenance),
        pipeline_(pipeline),
        progress_(
            options.progress == ProgressMode::kOn || (options.progress == ProgressMode::kAuto &&
                                                      !options.quiet && isatty(STDERR_FILENO)),
            expected_pairs(ref, window, encodes), encodes.size()) {}

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
  void check_outputs(const Outputs& outputs);
  void quit() { g_main_loop_quit(loop_.get()); }

  const Options& options_;
  const VideoInput& ref_;
  std::vector<Encode>& encodes_;
  const RunProvenance& provenance_;
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
      const auto encode = pipeline_.encode_of(GST_MESSAGE_SRC(message));
      if (!encode) break;
      Outputs& outputs = *encodes_[*encode].outputs;
      if (gst_structure_has_name(s, "vmafexact-frame")) {
        outputs.on_frame(s);
        progress_.on_frame(s, *encode);
      } else if (gst_structure_has_name(s, "vmafexact-summary")) {
        outputs.on_summary(s);
      }
      check_outputs(outputs);
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
  const auto encode = pipeline_.encode_of(GST_MESSAGE_SRC(message));
  auto with_log_name = [&](std::string text) {
    return encode ? encodes_[*encode].outputs->with_log_name(std::move(text)) : text;
  };
  std::string text = with_log_name(error ? error->message : "unknown error");
  if (!text.empty() && text.back() == '.') text.pop_back();
  // GStreamer's debug text starts with where the error was posted
  // ("file.c(123): function (): /GstPipeline:...:"); the advice follows.
  std::string details = with_log_name(debug ? debug.get() : "");
  if (const auto newline = details.find('\n');
      newline != std::string::npos && newline > 0 && details[newline - 1] == ':')
    details.erase(0, newline + 1);
  GstObject* source = GST_MESSAGE_SRC(message);
  if (encode) {
    if (encodes_.size() > 1) text = encodes_[*encode].dist.path + ": " + text;
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
    else if (tools::posted_by_decoder(source, input->nvdec))
      // NVDEC may refuse a stream feature, or have no decoder session free
      // (a demuxer's or parser's error is the input's, as on the CPU).
      failure_.emplace(kExitInput,
                       "cannot decode the " + input->role + " " + input->path + " with " +
                           input->nvdec.description() + ": " + text,
                       "Score it with --backend cpu, which decodes on the CPU." +
                           (details.empty() ? "" : " (" + details + ")"));
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
void Run::check_outputs(const Outputs& outputs) {
  if (!outputs.write_error() || failure_) return;
  failure_ = *outputs.write_error();
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
  for (Encode& encode : encodes_) encode.outputs->start();
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
  // With GST_DEBUG_DUMP_DOT_DIR set, the pipeline as it ran, for a look at
  // its elements (and tests: one decoder for the reference).
  GST_DEBUG_BIN_TO_DOT_FILE(GST_BIN(pipeline_.pipeline()), GST_DEBUG_GRAPH_SHOW_ALL, "vmafexact");

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
  for (const Encode& encode : encodes_) {
    const GstStructure* summary = encode.outputs->summary();
    guint64 scored = 0;
    if (summary) gst_structure_get_uint64(summary, "frames-scored", &scored);
    if (scored > 0) continue;
    if (signal_) return interrupted;
    std::string why = "the reference is " + duration_text(ref_.duration) +
                      " long, the distorted video " + duration_text(encode.dist.duration);
    if (!encode.alignment.description.empty()) why += ", " + encode.alignment.description;
    if (options_.start) why += ", --start " + duration_text(static_cast<GstClockTime>(
                                                   std::llround(*options_.start * GST_SECOND)));
    throw CliError(kExitNothingToCompare,
                   "no frame pair was scored for " + encode.dist.path +
                       ": the inputs have no frames at the same time (" + why + ")",
                   "Check --dist-delay, --start and that both videos have frames; frames pair "
                   "by their timestamps.");
  }
  std::vector<const Outputs*> outputs;
  for (Encode& encode : encodes_) {
    encode.outputs->finish();
    outputs.push_back(encode.outputs.get());
  }
  write_run_report(options_, ref_, outputs, provenance_);
  if (!options_.quiet) {
    std::FILE* to = encodes_.front().outputs->jsonl_on_stdout() ? stderr : stdout;
    if (encodes_.size() == 1)
      print_summary_table(to, encodes_.front().outputs->summary());
    else
      print_encode_table(to, outputs, !options_.names.empty());
    print_bd_rates(to, run_ladders(options_, outputs));
  }
  return signal_ ? interrupted : kExitOk;
}

void note(const Options& options, const std::string& line) {
  if (!options.quiet) std::fprintf(stderr, "%s\n", line.c_str());
}

// The command line as typed, each argument quoted for a shell where it needs it.
std::string command_line_of(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789-_./=:,+@%") ==
                                           std::string_view::npos;
    GCharPtr quoted(plain ? g_strdup(argv[i]) : g_shell_quote(argv[i]));
    line += std::string(i ? " " : "") + quoted.get();
  }
  return line;
}

std::string now_iso8601() {
  GDateTime* now = g_date_time_new_now_utc();
  GCharPtr text(g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ"));
  g_date_time_unref(now);
  return text.get();
}

std::string decimal(double number, const char* format) {
  if (!std::isfinite(number)) return "unknown";
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  return g_ascii_formatd(text, sizeof text, format, number);
}

// The agreed provenance keys (docs/tool.md) of one input, as `prefix`_...
void add_input_provenance(GstStructure* provenance, const std::string& prefix,
                          const VideoInput& input) {
  const double bytes = file_size_bytes(input.path);
  const double seconds = GST_CLOCK_TIME_IS_VALID(input.duration)
                             ? static_cast<double>(input.duration) / GST_SECOND
                             : NAN;
  const double bitrate = seconds > 0 ? bytes * 8 / seconds : NAN;
  gst_structure_set(provenance, prefix.c_str(), G_TYPE_STRING, input.path.c_str(),
                    (prefix + "_size_bytes").c_str(), G_TYPE_STRING, decimal(bytes, "%.0f").c_str(),
                    (prefix + "_duration_s").c_str(), G_TYPE_STRING,
                    decimal(seconds, "%.6f").c_str(), (prefix + "_codec").c_str(), G_TYPE_STRING,
                    input.codec.empty() ? "unknown" : input.codec.c_str(),
                    (prefix + "_bitrate_bps").c_str(), G_TYPE_STRING,
                    decimal(bitrate, "%.0f").c_str(), nullptr);
}

ExitCode run(int argc, char** argv) {
  RunProvenance run_provenance;
  run_provenance.command_line = command_line_of(argc, argv);
  run_provenance.date = now_iso8601();
  const Options options = prepare_ladders(parse_options(argc, argv));
  if (options.align_auto && options.dist_delay != 0)
    throw CliError(kExitUsage, "--align auto and --dist-delay both say where DIST starts",
                   "Give one of them: --align auto finds the offset, --dist-delay states it.");
  gst_pb_utils_init();
  ensure_element();
  VideoInput ref = discover_input(options.ref, "reference");
  choose_decoders(options, ref);
  std::vector<Encode> encodes(options.dists.size());
  for (std::size_t i = 0; i < encodes.size(); ++i) {
    Encode& encode = encodes[i];
    encode.dist = discover_input(options.dists[i], "distorted video");
    choose_decoders(options, encode.dist);
    encode.name = options.names.empty() ? encode_name(encode.dist.path) : options.names[i];
    // A raw REF without a rate takes the first DIST's; the others' settle
    // against REF without changing it.
    VideoInput ref_copy = ref;
    settle_raw_framerates(i == 0 ? ref : ref_copy, encode.dist, options.ref, options.dists[i]);
  }
  const FrameWindow window = frame_window(options, ref);
  std::vector<const VideoInput*> inputs = {&ref};
  for (const Encode& encode : encodes) inputs.push_back(&encode.dist);
  note(options, "reference: " + ref.path + " (" + ref.description() + ")");
  // --align auto: REF's thumbnails decoded once, for every DIST.
  std::optional<AutoAligner> aligner;
  if (options.align_auto) aligner.emplace(ref, options.align_range);
  for (Encode& encode : encodes) {
    const VideoInput& dist = encode.dist;
    encode.alignment = align(options, ref, dist);
    // The reference stays on the GPU in the format its CPU decoder gives it;
    // should the CPU's disagree with what the stream's caps said, the CPU decodes it.
    if (ref.nvdec.chosen() && ref.nvdec.cpu_format != encode.alignment.format) {
      ref.nvdec.why_not = std::string("its CPU decoder delivers ") +
                          gst_video_format_to_string(encode.alignment.format) + ", not " +
                          gst_video_format_to_string(ref.nvdec.cpu_format);
      ref.nvdec.decoder.clear();
      note(options,
           "vmafexact: note: " + ref.path + ": " + ref.nvdec.why_not + "; decoding on the CPU");
    }
    if (aligner) {
      // The offset found from the pictures, applied as --dist-delay with that
      // many frames would be (tools/vmafexact/align_auto.h).
      const AutoAlignment found = aligner->align(dist);
      note(options, dist.path + ": aligned automatically: " + alignment_summary(found));
      if (const std::string warning = alignment_warning(found, options.align_range);
          !warning.empty())
        std::fprintf(stderr, "vmafexact: warning: %s: %s\n", dist.path.c_str(), warning.c_str());
      Options delayed = options;
      delayed.dist_delay = found.dist_delay;
      encode.alignment = align(delayed, ref, dist);
      encode.alignment.description = alignment_provenance(found);
    }
    if (options.start && GST_CLOCK_TIME_IS_VALID(dist.duration) &&
        window.begin + encode.alignment.dist_skip >= dist.duration)
      throw CliError(kExitNothingToCompare,
                     "--start " + duration_text(window.first) + " lies beyond the end of the " +
                         dist.role + " " + dist.path + " (" + duration_text(dist.duration) +
                         " long" +
                         (encode.alignment.dist_skip > 0 ? ", less its skipped start" : "") + ")",
                     "Give a --start within every video.");
    encode.outputs = std::make_unique<Outputs>(options, ref, dist, encode.name, inputs);
    const std::string scaler = scaler_description(options, encode.alignment);
    if (encode.alignment.scale && run_provenance.scaler.empty()) run_provenance.scaler = scaler;

    note(options, "distorted: " + dist.path + " (" + dist.description() + ")");
    std::string lining_up;
    if (encode.alignment.scale)
      lining_up += "scaled to " + std::to_string(ref.width) + "x" + std::to_string(ref.height) +
                   " (" + scaler + ")";
    if (encode.alignment.convert_rate)
      lining_up += std::string(lining_up.empty() ? "" : ", ") + "frame rate converted to " +
                   std::to_string(ref.framerate.num) + "/" + std::to_string(ref.framerate.den) +
                   " (videorate drops or repeats frames)";
    for (const auto& [skip, what] : {std::pair{encode.alignment.dist_skip, "distorted video"},
                                     std::pair{encode.alignment.ref_skip, "reference"}})
      if (skip > 0) {
        char text[96];
        std::snprintf(text, sizeof text, "the first %g s of the %s skipped",
                      static_cast<double>(skip) / GST_SECOND, what);
        lining_up += std::string(lining_up.empty() ? "" : ", ") + text;
      }
    if (!lining_up.empty()) note(options, "distorted video " + lining_up);
    encode.outputs->describe({{"reference", ref.path + " (" + ref.description() + ")"},
                              {"distorted", dist.path + " (" + dist.description() + ")" +
                                                (lining_up.empty() ? "" : ", " + lining_up)},
                              {"scored in", gst_video_format_to_string(encode.alignment.format)}});

    // The run's provenance, in each element's logs and messages.
    encode.provenance.reset(gst_structure_new_empty("vmafexact-run"));
    GstStructure* provenance = encode.provenance.get();
    gst_structure_set(provenance, "date", G_TYPE_STRING, run_provenance.date.c_str(),
                      "command_line", G_TYPE_STRING, run_provenance.command_line.c_str(),
                      "scaler", G_TYPE_STRING, scaler.c_str(), nullptr);
    add_input_provenance(provenance, "reference", ref);
    add_input_provenance(provenance, "distorted", dist);
    const std::string rate = dist.framerate.num > 0 ? std::to_string(dist.framerate.num) + "/" +
                                                          std::to_string(dist.framerate.den)
                                                    : "unknown";
    gst_structure_set(provenance, "distorted_framerate", G_TYPE_STRING, rate.c_str(),
                      "alignment", G_TYPE_STRING,
                      encode.alignment.description.empty() ? "none"
                                                           : encode.alignment.description.c_str(),
                      nullptr);
    // With --backend cuda, what decoded each input (NVDEC or the CPU).
    if (options.backend == "cuda")
      gst_structure_set(provenance, "reference_decoder", G_TYPE_STRING,
                        decoder_description(ref).c_str(), "distorted_decoder", G_TYPE_STRING,
                        decoder_description(dist).c_str(), nullptr);
    encode.outputs->set_run_provenance(provenance);
  }
  if (run_provenance.scaler.empty()) run_provenance.scaler = "none (same size)";
  if (window.begin > 0 || GST_CLOCK_TIME_IS_VALID(window.end)) {
    std::string range = "scored: from " + duration_text(window.first);
    if (window.frames)
      range += ", " + std::to_string(*window.frames) + " frames";
    else if (GST_CLOCK_TIME_IS_VALID(window.end))
      range += " to " + duration_text(window.end);
    note(options, range + " of the reference");
  }

  std::vector<EncodeSetup> setups;
  for (const Encode& encode : encodes)
    setups.push_back({&encode.dist, encode.alignment, encode.outputs->element_log_location(),
                      encode.outputs->element_log_format(), encode.provenance.get()});
  ScoringPipeline pipeline(options, ref, window, setups);
  for (std::size_t at = 0; at < encodes.size(); ++at)
    encodes[at].outputs->capture_thumbnails(pipeline.vmafexact(at));
  Run scoring(options, ref, window, encodes, run_provenance, pipeline);
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
    // `vmafexact report LOG.json ...`: the page from earlier logs (report_command.h).
    if (argc > 1 && std::string_view(argv[1]) == "report") return report_command(argc - 1, argv + 1);
    // `vmafexact batch MANIFEST --output-dir DIR` and `vmafexact merge DIR` (batch.h, merge.h).
    if (argc > 1 && std::string_view(argv[1]) == "batch") return batch_command(argc - 1, argv + 1);
    if (argc > 1 && std::string_view(argv[1]) == "merge") return merge_command(argc - 1, argv + 1);
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
