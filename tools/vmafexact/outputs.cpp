#include "outputs.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "errors.h"
#include "ladder.h"
#include "report.h"
#include "request.h"
#include "support/message_json.h"

namespace vmafexact::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kRoomAdvice[] =
    "Check that the folder is writable and has room (or that a FIFO has its reader); an "
    "existing file there was left as it was.";

// One spelling per file, for comparing names of files that may not exist yet.
std::string canonical(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, error), error);
  return error ? path : resolved.string();
}

void check_output(const std::string& option, const std::string& path,
                  const std::vector<const VideoInput*>& inputs) {
  std::error_code error;
  if (fs::is_directory(path, error))
    throw CliError(kExitOutput, option + " " + path + ": it is a folder",
                   "Give a file name, e.g. " +
                       (fs::path(path) / ("scores." + option.substr(2))).string() + ".");
  for (const VideoInput* input : inputs)
    if (canonical(path) == canonical(input->path))
      throw CliError(kExitOutput,
                     option + " " + path + " is the " + input->role +
                         " video; writing it would "
                         "destroy the input",
                     "Give the output another name.");
  const auto problem = output::output_problem(path);
  if (!problem) return;
  using Kind = output::OutputProblem::Kind;
  switch (problem->kind) {
    case Kind::kFolderMissing:
    case Kind::kFolderNotWritable:
      throw CliError(kExitOutput,
                     option + " " + path + ": cannot create a file in " + problem->folder +
                         (problem->kind == Kind::kFolderMissing ? " (no such folder)"
                                                                : " (not writable)"),
                     "Check that the folder exists and is writable.");
    case Kind::kNotAFile:
      throw CliError(kExitOutput, option + " " + path + ": " + problem->cause,
                     "Give a file name, a device such as /dev/null, or a FIFO.");
    case Kind::kNotWritable:
      throw CliError(kExitOutput, option + " " + path + ": cannot be written (" +
                                      problem->cause + ")",
                     "Check its permissions.");
  }
}

// Whether standard output is open for writing (not closed with >&-).
bool stdout_writable() {
  const int flags = fcntl(STDOUT_FILENO, F_GETFL);
  return flags != -1 && (flags & O_ACCMODE) != O_RDONLY;
}

std::string string_field(const GstStructure* s, const char* name) {
  const gchar* text = gst_structure_get_string(s, name);
  return text ? text : "";
}

// The fps vmafexact wrote into its own log (JSON "fps": 12.34, XML
// fps="12.34"), so that the logs written here carry the same figure.
std::optional<double> fps_of_log(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  static const std::regex fps("\"?fps\"?[:=] ?\"?([0-9.]+)");
  for (int i = 0; i < 8 && std::getline(in, line); ++i) {
    std::smatch match;
    if (std::regex_search(line, match, fps)) return g_ascii_strtod(match[1].str().c_str(), nullptr);
  }
  return std::nullopt;
}

}  // namespace

Outputs::Outputs(const Options& options, const VideoInput& ref, const VideoInput& dist,
                 const std::string& name, const std::vector<const VideoInput*>& inputs)
    : options_(options),
      ref_(ref),
      dist_(dist),
      name_(name),
      jsonl_(expand_name(options.jsonl, name)),
      plot_(options.plot.find("{name}") != std::string::npos ? expand_name(options.plot, name)
                                                              : std::string()),
      width_(ref.width),
      height_(ref.height) {
  std::vector<std::pair<std::string, std::string>> files;  // option, path
  for (const auto& [option, path, format] : {std::tuple{"--json", &options.json, LogFormat::kJson},
                                             {"--xml", &options.xml, LogFormat::kXml},
                                             {"--csv", &options.csv, LogFormat::kCsv},
                                             {"--sub", &options.sub, LogFormat::kSub}}) {
    if (path->empty()) continue;
    logs_.push_back({expand_name(*path, name), format});
    files.emplace_back(option, logs_.back().path);
  }
  if (!jsonl_.empty() && jsonl_ != "-") files.emplace_back("--jsonl", jsonl_);
  // The run's --plot (without {name}) and --html: checked here too, written once.
  if (!options.plot.empty()) files.emplace_back("--plot", plot_.empty() ? options.plot : plot_);
  if (!options.html.empty()) files.emplace_back("--html", options.html);
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (canonical(files[i].second) == canonical(files[j].second))
        throw CliError(
            kExitUsage,
            files[j].first + " and " + files[i].first + " name the same file " + files[i].second,
            "Give each output its own file.");
  for (const auto& [option, path] : files) check_output(option, path, inputs);

  collect_scores_ = logs_.size() > 1 || !options.plot.empty() || !options.html.empty();
  if (!logs_.empty()) {
    element_log_format_ = logs_.front().format;
    // The element replaces this file with its log at end of stream; it goes
    // with this object (a run that did not finish, or after the copy).
    try {
      element_log_.emplace(output::resolve_output(logs_.front().path));
    } catch (const Error& error) {
      throw CliError(kExitOutput, error.what(), "Check that the folder is writable and has room.");
    }
    element_log_->close();
  }
}

const std::string& Outputs::element_log_location() const {
  static const std::string none;
  return element_log_ ? element_log_->path() : none;
}

std::string Outputs::with_log_name(std::string text) const {
  if (!element_log_) return text;
  const std::string& scratch = element_log_->path();
  for (std::size_t at = text.find(scratch); at != std::string::npos;
       at = text.find(scratch, at + logs_.front().path.size()))
    text.replace(at, scratch.size(), logs_.front().path);
  return text;
}

void Outputs::start() {
  if (jsonl_on_stdout()) {
    if (!stdout_writable())
      throw CliError(kExitOutput, "cannot write standard output: it is closed",
                     "Run vmafexact with its standard output open, or give --jsonl a file.");
    return;
  }
  if (jsonl_.empty()) return;
  try {
    jsonl_file_.emplace(jsonl_);
  } catch (const Error& error) {
    throw CliError(kExitOutput, "--jsonl: " + std::string(error.what()),
                   "Check that the folder exists and is writable, or that the FIFO has its "
                   "reader.");
  }
}

// One JSON line: to standard output (flushed, so that a reader sees each
// frame at once), or to --jsonl's file. A failed write stops the run.
void Outputs::write_json_line(const GstStructure* structure, bool flush) {
  if (jsonl_.empty() || write_error_) return;
  const std::string line = tools::json_line(structure) + '\n';
  if (jsonl_on_stdout()) {
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() ||
        std::fflush(stdout) != 0) {
      const int error = errno;
      write_error_.emplace(kExitOutput,
                           std::string("cannot write standard output: ") + std::strerror(error),
                           "The JSON lines of --jsonl - could not be delivered.");
    }
    return;
  }
  try {
    if (flush)
      jsonl_file_->write(line);
    else
      jsonl_file_->stream() << line;
  } catch (const Error& error) {
    write_error_.emplace(kExitOutput, "--jsonl: " + std::string(error.what()), kRoomAdvice);
  }
}

void Outputs::on_frame(const GstStructure* frame) {
  if (thumbnails_) thumbnails_->on_frame(frame);
  // A device or FIFO gets each line at once; a file is renamed into place at
  // the end, its writes can wait for the buffer.
  write_json_line(frame, jsonl_file_ && jsonl_file_->target().kind ==
                                            output::OutputTarget::Kind::kStream);
  if (!collect_scores_) return;
  guint64 index = 0;
  if (!gst_structure_get_uint64(frame, "index", &index)) return;
  for (gint i = 0; i < gst_structure_n_fields(frame); ++i) {
    const gchar* name = gst_structure_nth_field_name(frame, i);
    const GValue* value = gst_structure_get_value(frame, name);
    if (G_VALUE_HOLDS_DOUBLE(value))
      scores_.append(name, static_cast<unsigned>(index), g_value_get_double(value));
  }
}

void Outputs::on_summary(const GstStructure* summary) {
  summary_.reset(gst_structure_copy(summary));
  write_json_line(summary, true);
  if (!collect_scores_) return;
  // libvmaf's aggregate metrics: the summary's plain doubles.
  for (gint i = 0; i < gst_structure_n_fields(summary); ++i) {
    const gchar* name = gst_structure_nth_field_name(summary, i);
    const GValue* value = gst_structure_get_value(summary, name);
    if (G_VALUE_HOLDS_DOUBLE(value)) scores_.set_aggregate(name, g_value_get_double(value));
  }
}

void Outputs::write_extra_logs(const std::string& fps_source) {
  const GstStructure* s = summary_.get();
  LogInfo info;
  const std::string libvmaf = string_field(s, "libvmaf-version");
  info.version = "vmafexact " + string_field(s, "vmafexact-version") + " (libvmaf " +
                 libvmaf.substr(0, libvmaf.find(' ')) + ")";
  info.fps = fps_of_log(fps_source).value_or(0.0);
  info.width = static_cast<unsigned>(width_);
  info.height = static_cast<unsigned>(height_);
  info.subsample = static_cast<unsigned>(options_.subsample);
  guint64 scored = 0;
  gst_structure_get_uint64(s, "frames-scored", &scored);
  info.frame_count = static_cast<unsigned>(scored);
  // The provenance the element writes into its own log, in its order.
  for (const char* key : {"vmafexact-version", "libvmaf-version", "models", "backend"})
    if (gst_structure_has_field(s, key)) info.provenance.emplace_back(key, string_field(s, key));
  guint threads = 0;
  if (gst_structure_get_uint(s, "threads", &threads))
    info.provenance.emplace_back("threads", std::to_string(threads));
  // The run's, where the element took them (its summary carries them).
  for (gint i = 0; run_provenance_ && i < gst_structure_n_fields(run_provenance_.get()); ++i) {
    const gchar* key = gst_structure_nth_field_name(run_provenance_.get(), i);
    if (gst_structure_has_field(s, key)) info.provenance.emplace_back(key, string_field(s, key));
  }
  for (std::size_t i = 1; i < logs_.size(); ++i) {
    const LogTarget& target = logs_[i];
    try {
      output::write_output(target.path, [&](std::ostream& out) {
        write_log(out, target.format, options_.precision, scores_, info);
      });
    } catch (const Error& error) {
      throw CliError(kExitOutput, error.what(), kRoomAdvice);
    }
  }
}

void Outputs::finish() {
  if (write_error_) throw *write_error_;
  if (element_log_) {
    // The element's log, copied through the output writer: a file replaced
    // whole, a device or FIFO written in place.
    const std::string& primary = logs_.front().path;
    try {
      std::ifstream log(element_log_->path(), std::ios::binary);
      if (!log) throw Error(output::cannot_write(primary, "vmafexact wrote no log"));
      output::write_output(primary, [&](std::ostream& out) {
        char buffer[1 << 16];
        while (log.read(buffer, sizeof buffer) || log.gcount() > 0)
          out.write(buffer, log.gcount());
        if (log.bad()) throw Error(output::cannot_write(primary, "cannot read vmafexact's log"));
      });
    } catch (const Error& error) {
      throw CliError(kExitOutput, error.what(), kRoomAdvice);
    }
    if (logs_.size() > 1) write_extra_logs(element_log_->path());
    element_log_.reset();
  }
  if (jsonl_file_) {
    try {
      jsonl_file_->commit();
    } catch (const Error& error) {
      throw CliError(kExitOutput, "--jsonl: " + std::string(error.what()), kRoomAdvice);
    }
  }
  if (!plot_.empty()) {
    report::Report content;
    content.title = ref_.path + " vs " + dist_.path;
    content.encodes.push_back(report_encode());
    content.plot_scores = options_.plot_scores;
    try {
      report::write_plot(content, plot_);
    } catch (const std::runtime_error& error) {
      throw CliError(kExitOutput, error.what(), kRoomAdvice);
    }
  }
}

double file_size_bytes(const std::string& path) {
  GStatBuf status;
  if (g_stat(path.c_str(), &status) != 0) return report::kUnknown;
  return static_cast<double>(status.st_size);
}

namespace {

double seconds_of(GstClockTime duration) {
  return GST_CLOCK_TIME_IS_VALID(duration) ? static_cast<double>(duration) / GST_SECOND
                                           : report::kUnknown;
}

double bitrate_of(const VideoInput& input) {
  const double seconds = seconds_of(input.duration);
  return seconds > 0 ? file_size_bytes(input.path) * 8 / seconds : report::kUnknown;
}

// The summary's models' score names ("vmaf=vmaf_v0.6.1, neg=vmaf_v0.6.1neg").
std::vector<std::string> model_names(const GstStructure* summary) {
  std::vector<std::string> names;
  const std::string models = string_field(summary, "models");
  for (std::size_t start = 0; start < models.size();) {
    const std::size_t end = std::min(models.find(", ", start), models.size());
    const std::string entry = models.substr(start, end - start);
    names.push_back(entry.substr(0, entry.find('=')));
    start = end + 2;
  }
  return names;
}

}  // namespace

void Outputs::capture_thumbnails(GstElement* element) {
  if (options_.html.empty() || options_.worst_frames <= 0) return;
  // The worst frames are those of the first model's score ("vmaf" unless named).
  std::string score = "vmaf";
  try {
    const std::vector<ModelSpec> models = parse_model_list(options_.model);
    if (!models.empty() && !models.front().key.empty()) score = models.front().key;
  } catch (const std::exception&) {  // the element reports a bad model list
  }
  thumbnails_ = std::make_unique<ThumbnailCapture>(element, score,
                                                   static_cast<std::size_t>(options_.worst_frames));
}

// The report library's input: each score's values in frame order (under
// --subsample N only the frames scored, so point k is frame k * N), the
// summary's figures, and the encode's facts.
report::Encode Outputs::report_encode() const {
  report::Encode encode;
  encode.name = name_;
  encode.path = dist_.path;
  encode.size_bytes = file_size_bytes(dist_.path);
  encode.duration_s = seconds_of(dist_.duration);
  encode.bitrate_bps = bitrate_of(dist_);
  encode.codec = dist_.codec;
  const unsigned step = static_cast<unsigned>(options_.subsample);
  // Point k is frame k * step: the plot's time axis runs at the rate of the points.
  if (ref_.framerate.num > 0)
    encode.frame_rate = static_cast<double>(ref_.framerate.num) / ref_.framerate.den / step;
  const GstStructure* s = summary_.get();
  if (!s) return encode;
  // The models' scores first, then the features in the log's order: the
  // panel on top is VMAF.
  const std::vector<std::string> models = model_names(s);
  std::vector<std::string> names;
  for (const std::string& key : models)
    if (std::find(scores_.names().begin(), scores_.names().end(), key) != scores_.names().end())
      names.push_back(key);
  for (const std::string& name : scores_.names())
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const std::string& name : names) {
    report::Series series{name, {}, report::classify_score(name, models)};
    const auto column = scores_.column(name);
    for (unsigned frame = 0; column && frame < column->size(); frame += step)
      series.values.push_back((*column)[frame].value_or(report::kUnknown));
    encode.series.push_back(std::move(series));
  }
  for (const std::string& name : names) {
    const GValue* value = gst_structure_get_value(s, name.c_str());
    if (!value || !GST_VALUE_HOLDS_STRUCTURE(value)) continue;
    const GstStructure* figures = gst_value_get_structure(value);
    auto figure = [&](const char* field) {
      double number = report::kUnknown;
      gst_structure_get_double(figures, field, &number);
      return number;
    };
    encode.pooled.push_back({name, figure("min"), figure("max"), figure("mean"),
                             figure("harmonic_mean"), figure("p1"), figure("p5"), figure("p50"),
                             figure("low1_mean"), figure("low5_mean")});
  }
  // The worst frames of the first model's score: with their pictures when they
  // were captured (--html), else from the scores alone.
  if (thumbnails_) {
    encode.worst_frames = thumbnails_->worst_frames(encode.frame_rate * step);
  } else if (options_.worst_frames > 0) {
    for (const report::Series& series : encode.series) {
      if (series.kind != report::ScoreKind::model) continue;
      encode.worst_frames = report::select_worst_frames(
          series, encode.frame_rate, static_cast<std::size_t>(options_.worst_frames));
      // The stream's frame numbers, as the element's messages give them.
      for (report::WorstFrame& worst : encode.worst_frames) worst.frame *= step;
      break;
    }
  }
  for (const report::Series& series : encode.series) {
    if (series.kind == report::ScoreKind::model) {
      encode.worst_score = series.name;
      break;
    }
  }
  encode.details = facts_;
  guint64 scored = 0;
  gst_structure_get_uint64(s, "frames-scored", &scored);
  encode.details.emplace_back("frames scored", std::to_string(scored));
  guint64 unpaired_ref = 0, unpaired_dist = 0;
  gst_structure_get_uint64(s, "frames-unpaired-ref", &unpaired_ref);
  gst_structure_get_uint64(s, "frames-unpaired-dist", &unpaired_dist);
  if (unpaired_ref + unpaired_dist > 0)
    encode.details.emplace_back("frames without a partner",
                                std::to_string(unpaired_ref) + " reference, " +
                                    std::to_string(unpaired_dist) + " distorted");
  return encode;
}

void write_run_report(const Options& options, const VideoInput& ref,
                      const std::vector<const Outputs*>& encodes, const RunProvenance& run) {
  const bool plot = !options.plot.empty() && options.plot.find("{name}") == std::string::npos;
  if (!plot && options.html.empty()) return;
  report::Report content;
  content.title = ref.path + " vs " +
                  (encodes.size() == 1 ? encodes.front()->dist().path
                                       : std::to_string(encodes.size()) + " encodes");
  content.reference_path = ref.path;
  content.reference_size_bytes = file_size_bytes(ref.path);
  content.reference_duration_s = seconds_of(ref.duration);
  content.reference_bitrate_bps = bitrate_of(ref);
  content.reference_codec = ref.codec;
  for (const Outputs* encode : encodes) content.encodes.push_back(encode->report_encode());
  content.date = run.date;
  content.command_line = run.command_line;
  content.scaler = run.scaler;
  content.plot_scores = options.plot_scores;
  content.ladders = run_ladders(options, encodes);
  const GstStructure* s = encodes.empty() ? nullptr : encodes.front()->summary();
  const unsigned step = static_cast<unsigned>(options.subsample);
  if (step > 1)
    content.provenance.emplace_back(
        "subsample", "1 frame in " + std::to_string(step) + " scored (frames 0, " +
                         std::to_string(step) + ", " + std::to_string(2 * step) +
                         ", ...): point k of the plot is frame " + std::to_string(step) + "k");
  if (!options.features.empty()) content.provenance.emplace_back("features", options.features);
  for (const char* key : {"models", "backend", "vmafexact-version", "libvmaf-version"})
    if (s && gst_structure_has_field(s, key))
      content.provenance.emplace_back(key, string_field(s, key));
  guint threads = 0;
  if (s && gst_structure_get_uint(s, "threads", &threads))
    content.provenance.emplace_back("threads", std::to_string(threads));
  try {
    if (plot) report::write_plot(content, options.plot);
    if (!options.html.empty()) report::write_html(content, options.html);
  } catch (const std::runtime_error& error) {
    throw CliError(kExitOutput, error.what(), kRoomAdvice);
  }
}

void print_encode_table(std::FILE* to, const std::vector<const Outputs*>& encodes,
                        bool by_name) {
  // The first model's score, and PSNR when it was asked for.
  std::string score;
  bool psnr = false;
  for (const Outputs* encode : encodes) {
    const GstStructure* s = encode->summary();
    if (!s) continue;
    if (score.empty() && !model_names(s).empty()) score = model_names(s).front();
    psnr = psnr || gst_structure_has_field(s, "psnr_y");
  }
  auto label_of = [&](const Outputs* encode) -> const std::string& {
    return by_name ? encode->name() : encode->dist().path;
  };
  std::size_t file_width = 4;
  for (const Outputs* encode : encodes) file_width = std::max(file_width, label_of(encode).size());
  std::fprintf(to, "%-*s %10s %12s %9s", static_cast<int>(file_width), by_name ? "name" : "file",
               "size", "bitrate", "duration");
  const std::string label = score.empty() ? "score" : score;
  for (const std::string& column :
       {label + " mean", std::string("harm.mean"), std::string("1%low"), std::string("min")})
    std::fprintf(to, " %11s", column.c_str());
  if (psnr) std::fprintf(to, " %11s", "psnr_y mean");
  std::fprintf(to, "\n");
  for (const Outputs* encode : encodes) {
    const VideoInput& dist = encode->dist();
    const double bytes = file_size_bytes(dist.path);
    const double bitrate = bitrate_of(dist);
    char size[32] = "-", rate[32] = "-", duration[32] = "-";
    if (std::isfinite(bytes)) {
      if (bytes >= 1e6)
        std::snprintf(size, sizeof size, "%.2f MB", bytes / 1e6);
      else
        std::snprintf(size, sizeof size, "%.1f kB", bytes / 1e3);
    }
    if (std::isfinite(bitrate)) std::snprintf(rate, sizeof rate, "%.1f kb/s", bitrate / 1e3);
    if (GST_CLOCK_TIME_IS_VALID(dist.duration))
      std::snprintf(duration, sizeof duration, "%.3f s", seconds_of(dist.duration));
    std::fprintf(to, "%-*s %10s %12s %9s", static_cast<int>(file_width),
                 label_of(encode).c_str(), size, rate, duration);
    const GstStructure* s = encode->summary();
    auto print_figure = [&](const std::string& name, const char* field) {
      const GValue* value = s ? gst_structure_get_value(s, name.c_str()) : nullptr;
      double number = 0;
      if (value && GST_VALUE_HOLDS_STRUCTURE(value) &&
          gst_structure_get_double(gst_value_get_structure(value), field, &number))
        std::fprintf(to, " %11.6f", number);
      else
        std::fprintf(to, " %11s", "-");
    };
    for (const char* field : {"mean", "harmonic_mean", "low1_mean", "min"})
      print_figure(score, field);
    if (psnr) print_figure("psnr_y", "mean");
    std::fprintf(to, "\n");
  }
  std::fflush(to);
}

void print_summary_table(std::FILE* to, const GstStructure* summary) {
  guint64 scored = 0, unpaired_ref = 0, unpaired_dist = 0;
  gst_structure_get_uint64(summary, "frames-scored", &scored);
  gst_structure_get_uint64(summary, "frames-unpaired-ref", &unpaired_ref);
  gst_structure_get_uint64(summary, "frames-unpaired-dist", &unpaired_dist);
  std::fprintf(to, "%" G_GUINT64_FORMAT " frames scored", scored);
  if (unpaired_ref + unpaired_dist > 0)
    std::fprintf(to,
                 "; not scored for want of a partner: %" G_GUINT64_FORMAT
                 " reference and %" G_GUINT64_FORMAT " distorted frames",
                 unpaired_ref, unpaired_dist);
  std::fprintf(to, "\n");

  struct Column {
    const char* field;
    const char* title;
  };
  static constexpr Column kColumns[] = {
      {"min", "min"},        {"max", "max"}, {"mean", "mean"}, {"harmonic_mean", "harm.mean"},
      {"p1", "p1"},          {"p5", "p5"},   {"p50", "p50"},   {"low1_mean", "1%low"},
      {"low5_mean", "5%low"}};
  std::size_t name_width = 5;
  for (gint i = 0; i < gst_structure_n_fields(summary); ++i) {
    const gchar* name = gst_structure_nth_field_name(summary, i);
    if (GST_VALUE_HOLDS_STRUCTURE(gst_structure_get_value(summary, name)))
      name_width = std::max(name_width, std::string_view(name).size());
  }
  std::fprintf(to, "%-*s", static_cast<int>(name_width), "score");
  for (const Column& column : kColumns) std::fprintf(to, " %11s", column.title);
  std::fprintf(to, "\n");
  for (gint i = 0; i < gst_structure_n_fields(summary); ++i) {
    const gchar* name = gst_structure_nth_field_name(summary, i);
    const GValue* value = gst_structure_get_value(summary, name);
    if (!GST_VALUE_HOLDS_STRUCTURE(value)) continue;
    const GstStructure* pooled = gst_value_get_structure(value);
    std::fprintf(to, "%-*s", static_cast<int>(name_width), name);
    for (const Column& column : kColumns) {
      double number = 0;
      if (gst_structure_get_double(pooled, column.field, &number))
        std::fprintf(to, " %11.6f", number);
      else
        std::fprintf(to, " %11s", "-");
    }
    std::fprintf(to, "\n");
  }
  // libvmaf's aggregate metrics (apsnr_y, ...): one value each.
  for (gint i = 0; i < gst_structure_n_fields(summary); ++i) {
    const gchar* name = gst_structure_nth_field_name(summary, i);
    double number = 0;
    if (G_VALUE_HOLDS_DOUBLE(gst_structure_get_value(summary, name)) &&
        gst_structure_get_double(summary, name, &number))
      std::fprintf(to, "%-*s %11.6f\n", static_cast<int>(name_width), name, number);
  }
  std::fflush(to);
}

}  // namespace vmafexact::cli
