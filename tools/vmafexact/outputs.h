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
#include "support/handles.h"

namespace vmafexact::cli {

class Outputs {
 public:
  // Checks every output path before anything is scored: not a folder, a
  // writable folder (or a device or FIFO this process may write), not one of
  // the inputs (CliError kExitOutput), no two outputs the same (kExitUsage).
  // Creates the scratch file of the element's log.
  Outputs(const Options& options, const VideoInput& ref, const VideoInput& dist);
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
  void on_summary(const GstStructure* summary);
  const GstStructure* summary() const { return summary_.get(); }
  // The first failed write of a JSON line (standard output closed or full,
  // a FIFO's reader gone): the run stops with it.
  const std::optional<CliError>& write_error() const { return write_error_; }

  // What the plot's title and the HTML page's provenance say about the run
  // besides the element's own provenance: the inputs, how they were lined up.
  void describe_run(std::string title, std::vector<std::pair<std::string, std::string>> facts) {
    title_ = std::move(title);
    facts_ = std::move(facts);
  }

  // Puts every output in place (the element's log renamed, the others
  // written). Throws CliError(kExitOutput) when one cannot be written.
  void finish();

  // Whether standard output carries JSON lines (--jsonl -).
  bool jsonl_on_stdout() const { return options_.jsonl == "-"; }

 private:
  struct LogTarget {
    std::string path;
    LogFormat format;
  };
  void write_extra_logs(const std::string& fps_source);
  void write_report() const;
  void write_json_line(const GstStructure* structure, bool flush);

  const Options& options_;
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
  std::string title_;
  std::vector<std::pair<std::string, std::string>> facts_;
};

// The pooled summary: the frames scored and unpaired, then one row per score
// (min, max, mean, harmonic mean, p1, p5, p50, and the means of the lowest 1 %
// and 5 %), as vmafexact-summary carries them.
void print_summary_table(std::FILE* to, const GstStructure* summary);

}  // namespace vmafexact::cli
