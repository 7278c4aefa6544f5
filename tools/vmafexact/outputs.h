// Where the scores go: libvmaf's logs (--json, --xml, --csv, --sub), JSON lines
// (--jsonl), the plot and the HTML page (--plot, --html, drawn by the report
// library, tools/report) and the summary table. Every output goes through
// the project's output writer (metrics/output/output_file.h): a file is
// written beside its target and renamed into place only when the run has
// scores to write, so a failed run leaves an existing file as it was; a
// symlink's target is what is written; a device, FIFO or socket (/dev/null,
// /dev/stdout, a named pipe) is written in place and stays what it is.
//
// vmafexact writes one log itself (the first of JSON, XML, CSV, SUB asked for) to
// a scratch file (beside the target, or for a device or FIFO in the temporary
// folder), copied to the target at the end; the others are written here with
// the project's log writer (metrics/output) from the element's frame and
// summary messages, so that they equal, byte for byte, what the element
// writes in that layout.
#pragma once

#include <gst/gst.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/feature_collector.h"
#include "inputs.h"
#include "options.h"
#include "errors.h"
#include "output/log_writer.h"
#include "output/output_file.h"
#include "report.h"
#include "support/handles.h"
#include "thumbnails.h"

namespace vmafexact::cli {

// One encode's outputs: its logs, JSON lines and (with {name} in --plot) its
// plot, at the options' paths with {name} replaced by `name`; the run's
// --html page and a --plot without {name} are written by write_run_report().
class Outputs {
 public:
  // Checks every output path before anything is scored: not a folder, a
  // writable folder (or a device or FIFO this process may write), not one of
  // `inputs` (CliError kExitOutput), no two outputs the same (kExitUsage).
  // Creates the scratch file of the element's log.
  Outputs(const Options& options, const VideoInput& ref, const VideoInput& dist,
          const std::string& name, const std::vector<const VideoInput*>& inputs);
  // Removes the temporary files of a run that did not finish().
  ~Outputs() = default;
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  // The log vmafexact writes itself: the scratch file of the first log asked
  // for, and its layout; empty when no log is asked for.
  const std::string& element_log_location() const;
  LogFormat element_log_format() const { return element_log_format_; }
  // The text with the scratch file's name replaced by the log's (for the
  // element's messages).
  std::string with_log_name(std::string text) const;

  // Opens --jsonl (a temporary file beside it, a device or FIFO in place, or
  // standard output, which must be open). Throws CliError(kExitOutput).
  void start();
  void on_frame(const GstStructure* frame);
  // With --html and --worst-frames N > 0: keeps the N worst frames' pictures
  // of `element` (this encode's vmafexact), captured as they pass (thumbnails.h).
  // Call once the element exists, before the pipeline plays.
  void capture_thumbnails(GstElement* element);
  void on_summary(const GstStructure* summary);
  const GstStructure* summary() const { return summary_.get(); }
  // The first failed write of a JSON line (standard output closed or full,
  // a FIFO's reader gone): the run stops with it.
  const std::optional<CliError>& write_error() const { return write_error_; }

  // What the HTML page says about the encode besides the element's own
  // provenance: the inputs, how they were lined up.
  // The run's provenance the element was given (extra-provenance): the logs
  // written here carry it too, as the element's own log does.
  void set_run_provenance(const GstStructure* provenance) {
    run_provenance_.reset(gst_structure_copy(provenance));
  }
  void describe(std::vector<std::pair<std::string, std::string>> facts) {
    facts_ = std::move(facts);
  }

  // Puts every output in place (the element's log renamed, the others
  // written). Throws CliError(kExitOutput) when one cannot be written.
  void finish();

  // Whether standard output carries JSON lines (--jsonl -).
  bool jsonl_on_stdout() const { return jsonl_ == "-"; }

  // The encode as the report shows it: scores, pooled figures, file facts.
  report::Encode report_encode() const;
  const VideoInput& dist() const { return dist_; }
  const std::string& name() const { return name_; }

 private:
  struct LogTarget {
    std::string path;
    LogFormat format;
  };
  void write_extra_logs(const std::string& fps_source);
  void write_json_line(const GstStructure* structure, bool flush);

  const Options& options_;
  const VideoInput& ref_;
  const VideoInput& dist_;
  std::string name_;
  std::string jsonl_;  // the paths, {name} replaced
  std::string plot_;   // only where --plot holds {name}
  int width_;
  int height_;
  std::vector<LogTarget> logs_;  // the first is the element's
  std::optional<output::TemporaryFile> element_log_;
  LogFormat element_log_format_ = LogFormat::kJson;
  std::optional<output::OutputFile> jsonl_file_;
  std::optional<CliError> write_error_;
  bool collect_scores_ = false;
  FeatureCollector scores_;
  tools::StructurePtr summary_;
  tools::StructurePtr run_provenance_;
  std::vector<std::pair<std::string, std::string>> facts_;
  std::unique_ptr<ThumbnailCapture> thumbnails_;
};

// The report of the whole run: --html, and --plot when it has no {name}
// (every encode overlaid). Throws CliError(kExitOutput).
struct RunProvenance {
  std::string date;          // ISO 8601 UTC
  std::string command_line;  // quoted for a shell
  std::string scaler;        // the first encode's that is scaled, else "none (same size)"
};
void write_run_report(const Options& options, const VideoInput& ref,
                      const std::vector<const Outputs*>& encodes, const RunProvenance& run);

// A file's size in bytes; NaN when it cannot be read.
double file_size_bytes(const std::string& path);

// One row per encode: file (with `by_name`, the encode's name, as --names
// gave it), size, bitrate (size * 8 / duration), duration, then the first
// model's mean, harmonic mean, 1 % low (mean of the lowest 1 %) and min, and
// psnr_y's mean when scored.
void print_encode_table(std::FILE* to, const std::vector<const Outputs*>& encodes,
                        bool by_name = false);

// The pooled summary: the frames scored and unpaired, then one row per score
// (min, max, mean, harmonic mean, p1, p5, p50, and the means of the lowest 1 %
// and 5 %), as vmafexact-summary carries them.
void print_summary_table(std::FILE* to, const GstStructure* summary);

}  // namespace vmafexact::cli
