// Where the scores go: libvmaf's logs (--json, --xml, --csv, --sub), JSON lines
// (--jsonl), the plot and the HTML page (--plot, --html, drawn by the report
// library, examples/report) and the summary table. Every file is written beside its target
// and renamed into place only when the run has scores to write, so a failed
// run leaves an existing file as it was.
//
// vmafexact writes one log itself (the first of JSON, XML, CSV, SUB asked for) to
// a temporary file beside it; the others are written here with the project's
// log writer (metrics/output) from the element's frame and summary messages,
// so that they equal, byte for byte, what the element writes in that layout.
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
#include "output/log_writer.h"
#include "support/handles.h"

namespace vmafexact::cli {

class Outputs {
 public:
  // Checks every output path before anything is scored: not a folder, a
  // writable folder, not one of the inputs (CliError kExitOutput), no two
  // outputs the same (kExitUsage).
  Outputs(const Options& options, const VideoInput& ref, const VideoInput& dist);
  // Removes the temporary files of a run that did not finish().
  ~Outputs();
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  // The log vmafexact writes itself: a temporary file beside the first log
  // asked for, and its layout; empty when no log is asked for.
  const std::string& element_log_location() const { return element_log_temporary_; }
  LogFormat element_log_format() const { return element_log_format_; }

  // Opens --jsonl (a temporary file beside it, or standard output).
  void start();
  void on_frame(const GstStructure* frame);
  void on_summary(const GstStructure* summary);
  const GstStructure* summary() const { return summary_.get(); }

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

  const Options& options_;
  int width_;
  int height_;
  std::vector<LogTarget> logs_;  // the first is the element's
  std::string element_log_temporary_;
  LogFormat element_log_format_ = LogFormat::kJson;
  std::string jsonl_temporary_;
  std::ofstream jsonl_file_;
  bool collect_scores_ = false;
  FeatureCollector scores_;
  examples::StructurePtr summary_;
  std::string title_;
  std::vector<std::pair<std::string, std::string>> facts_;
  bool finished_ = false;
};

// The pooled summary: the frames scored and unpaired, then one row per score
// (min, max, mean, harmonic mean, p1, p5, p50, and the means of the lowest 1 %
// and 5 %), as vmafexact-summary carries them.
void print_summary_table(std::FILE* to, const GstStructure* summary);

}  // namespace vmafexact::cli
