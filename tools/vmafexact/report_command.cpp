#include "report_command.h"

#include <glib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "ladder.h"
#include "log_reader.h"
#include "options.h"
#include "report.h"
#include "support/handles.h"

namespace vmafexact::cli {
namespace {

constexpr const char* kSummary =
    "Build the HTML page (and plot) of earlier vmafexact runs from their JSON logs,\n"
    "without scoring again: one encode per log, in the order given.";
constexpr const char* kDescription =
    "The logs' provenance (written by vmafexact) gives each input's file, size,\n"
    "duration, codec and bitrate. The worst frames are listed from the logs' scores,\n"
    "without pictures (thumbnails are captured only while scoring).\n"
    "\n"
    "Example:\n"
    "  vmafexact report out/crf23.json out/crf30.json --html page.html\n"
    "  vmafexact report --ladder x264=a1.json,a2.json,a3.json,a4.json \\\n"
    "                   --ladder x265=b1.json,b2.json,b3.json,b4.json --html ladders.html";

// GOptionContext writes into these; each owned here.
struct RawArguments {
  gchar* html = nullptr;
  gchar* plot = nullptr;
  gchar* plot_scores = nullptr;
  gint worst_frames = 5;
  gchar** ladders = nullptr;
  gchar** logs = nullptr;
  ~RawArguments() {
    g_free(html);
    g_free(plot);
    g_free(plot_scores);
    g_strfreev(ladders);
    g_strfreev(logs);
  }
};

report::LogContent load_log(const std::string& path) {
  gchar* contents = nullptr;
  gsize length = 0;
  GError* error = nullptr;
  if (!g_file_get_contents(path.c_str(), &contents, &length, &error)) {
    std::string message = error != nullptr ? error->message : "cannot read it";
    g_clear_error(&error);
    throw CliError(kExitInput, "cannot read the log " + path + ": " + message,
                   "Give the JSON log an earlier run wrote (--json).");
  }
  const tools::GCharPtr owner(contents);
  try {
    return report::read_log(std::string_view(contents, length), path);
  } catch (const std::runtime_error& refusal) {
    throw CliError(kExitInput, refusal.what(),
                   "vmafexact report reads the JSON logs of vmafexact (--json FILE.json); XML, "
                   "CSV and JSON lines are not read.");
  }
}

}  // namespace

int report_command(int argc, char** argv) {
  RawArguments raw;
  const GOptionEntry entries[] = {
      {"html", 0, 0, G_OPTION_ARG_FILENAME, &raw.html,
       "Write the report page to FILE (one self-contained HTML file)", "FILE"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &raw.plot,
       "Draw the scores per frame into FILE (.svg or .png)", "FILE"},
      {"plot-scores", 0, 0, G_OPTION_ARG_STRING, &raw.plot_scores,
       "Scores to plot, comma-separated, or all (default: the models' scores and the "
       "features asked for)",
       "LIST"},
      {"worst-frames", 0, 0, G_OPTION_ARG_INT, &raw.worst_frames,
       "List the N worst frames of each encode (default 5; 0: none)", "N"},
      {"ladder", 0, 0, G_OPTION_ARG_STRING_ARRAY, &raw.ladders,
       "Encodes of one encoder at several rates, for the rate-quality chart and BD-rate "
       "(repeatable; each ladder against the first)",
       "NAME=LOG,LOG,..."},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.logs, nullptr, "LOG.json..."},
      {},
  };
  // The usage line reads "vmafexact report [OPTION…] LOG.json...".
  parse_subcommand_options("report", kSummary, kDescription, entries, argc, argv);
  const std::string html = raw.html != nullptr ? raw.html : "";
  const std::string plot = raw.plot != nullptr ? raw.plot : "";
  if (html.empty() && plot.empty())
    throw CliError(kExitUsage, "report: nothing to write",
                   "Give --html FILE.html and/or --plot FILE.svg.");
  if (!plot.empty() && !report::plot_format_for(plot))
    throw CliError(kExitUsage, "--plot " + plot + ": unknown plot format",
                   "Name the file .svg or .png.");
  if (raw.worst_frames < 0 || raw.worst_frames > 100)
    throw CliError(kExitUsage, "--worst-frames " + std::to_string(raw.worst_frames) +
                                   ": out of range",
                   "Write 0 (none) to 100.");

  // The logs in order: those given, then each ladder's not given yet.
  std::vector<std::string> paths;
  for (gchar** log = raw.logs; log != nullptr && *log != nullptr; ++log) {
    const std::string path = *log;
    if (path.size() > 1 && path[0] == '-')
      throw CliError(kExitUsage, "report: unknown option " + path,
                     "Run vmafexact report --help for the options.");
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  std::vector<Options::Ladder> ladders;
  for (gchar** ladder = raw.ladders; ladder != nullptr && *ladder != nullptr; ++ladder) {
    ladders.push_back(parse_ladder(*ladder, "LOG"));
    for (const std::string& path : ladders.back().paths) {
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
  }
  check_ladder_names(ladders);
  if (paths.empty())
    throw CliError(kExitUsage, "report: no logs given",
                   "Give the JSON logs of earlier runs: vmafexact report A.json B.json --html "
                   "page.html.");

  std::vector<report::LogContent> logs;
  for (const std::string& path : paths) logs.push_back(load_log(path));
  report::Report page = report::report_from_logs(logs, raw.worst_frames);
  if (raw.plot_scores != nullptr) {
    page.plot_scores = split_names(raw.plot_scores);
    const std::vector<std::string> unknown = report::unknown_plot_scores(page);
    if (page.plot_scores.empty() || !unknown.empty()) {
      std::vector<std::string> names;
      for (const report::Encode& encode : page.encodes) {
        for (const report::Series& series : encode.series) {
          if (std::find(names.begin(), names.end(), series.name) == names.end())
            names.push_back(series.name);
        }
      }
      std::string known;
      for (const std::string& name : names) known.append(known.empty() ? "" : ", ").append(name);
      throw CliError(kExitUsage,
                     "--plot-scores " + std::string(raw.plot_scores) + ": " +
                         (unknown.empty() ? std::string("no score named")
                                          : "no score named " + unknown.front() + " in the logs"),
                     "The logs hold: " + known + " (or write all).");
    }
  }
  for (const Options::Ladder& argument : ladders) {
    report::Ladder ladder{argument.name, {}};
    for (const std::string& path : argument.paths) {
      const auto at = std::find(paths.begin(), paths.end(), path) - paths.begin();
      const report::Encode& encode = page.encodes[static_cast<std::size_t>(at)];
      const report::LadderPoint point = report::ladder_point_of(encode);
      if (!std::isfinite(point.bitrate_bps))
        throw CliError(kExitInput, "--ladder " + argument.name + ": the log " + path +
                                       " does not give the encode's bitrate",
                       "Use logs written by this version of vmafexact (their provenance names "
                       "distorted_bitrate_bps).");
      ladder.points.push_back(point);
    }
    page.ladders.push_back(std::move(ladder));
  }
  // The BD-rates on standard output, as a scoring run prints them.
  if (!page.ladders.empty()) print_bd_rates(stdout, page.ladders);
  try {
    if (!html.empty()) report::write_html(page, html);
    if (!plot.empty()) report::write_plot(page, plot);
  } catch (const CliError&) {
    throw;
  } catch (const std::runtime_error& error) {
    throw CliError(kExitOutput, error.what(), "Check the folder exists and is writable.");
  }
  return kExitOk;
}

}  // namespace vmafexact::cli
