#include "merge.h"

#include <glib.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.h"
#include "errors.h"
#include "log_reader.h"
#include "manifest.h"
#include "options.h"
#include "markup_text.h"
#include "output/output_file.h"
#include "report.h"
#include "support/handles.h"
#include "support/regular_file.h"

namespace vmafexact::cli {
namespace {

namespace fs = std::filesystem;
// Keys in the order the log holds them (the models' scores among the rest).
using Json = nlohmann::ordered_json;

constexpr const char* kSummary =
    "Gather the rows `vmafexact batch` wrote into DIR into one CSV and JSON summary\n"
    "and the HTML report.";
constexpr const char* kDescription =
    "Reads DIR/rows/*.json (the rows' records) and each ok row's log DIR/ID.json.\n"
    "One summary row per id: id, status, ref, dist, frames, error, the manifest's\n"
    "x- columns, then NAME_min, NAME_max, NAME_mean, NAME_harmonic_mean of every\n"
    "pooled score of the logs, printed with every digit (%.17g).\n"
    "Exit status: 0 every row ok; 6 some rows failed or (with --manifest) missing,\n"
    "the summary written all the same; 1 bad options; 2 DIR holds no records;\n"
    "5 an output cannot be written (the files already there are left as they were).\n"
    "\n"
    "Example:\n"
    "  vmafexact merge out/ --manifest catalogue.csv";

// The page plots this many rows at most (those of lowest score); every row is
// in its table.
constexpr std::size_t kMaxPlottedRows = 20;
// A record is a few hundred bytes; a bigger file is not one.
constexpr std::uintmax_t kMaxRecordBytes = 1 << 20;
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// GOptionContext writes into these; each owned here.
struct RawArguments {
  gchar* manifest = nullptr;
  gchar* csv = nullptr;
  gchar* json = nullptr;
  gchar* html = nullptr;
  gchar** rest = nullptr;
  ~RawArguments() {
    g_free(manifest);
    g_free(csv);
    g_free(json);
    g_free(html);
    g_strfreev(rest);
  }
};

struct Figures {  // one pooled score of a log; NaN where the log has none
  double min = kNone, max = kNone, mean = kNone, harmonic_mean = kNone;
};

struct SummaryRow {
  std::string id;
  std::string status = "failed";  // "ok", "failed" or "missing"
  std::string ref, dist, error;
  std::optional<std::uint64_t> frames;
  std::vector<std::pair<std::string, std::string>> extra;  // "x-NAME", value
  std::vector<std::pair<std::string, Figures>> metrics;    // the log's order
  std::vector<std::string> models;                         // the log's models' score names
  std::string log_path;                                    // ok rows
};

const Figures* find_metric(const SummaryRow& row, std::string_view name) {
  for (const auto& [metric, figures] : row.metrics)
    if (metric == name) return &figures;
  return nullptr;
}

// The file's bytes, or nullopt with `why` set: only a regular file is read (a
// FIFO would block, /dev/zero never end), of at most `limit` bytes (0: any).
std::optional<std::string> read_file(const fs::path& path, std::uintmax_t limit, std::string& why) {
  return tools::read_regular_file(path.string(), limit, why);
}

std::string text_field(const Json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// The figures the summary needs from a log (DIR/ID.json, libvmaf's JSON layout):
// the frames, "pooled_metrics" and the models, without keeping the frames
// (a ten-minute title's log holds hundreds of thousands of values).
// Returns what is wrong with the log, or nullopt.
std::optional<std::string> read_log_figures(const std::string& text, SummaryRow& row) {
  std::uint64_t frames = 0;
  std::string top_key;
  const Json::parser_callback_t skip_frames = [&](int depth, Json::parse_event_t event,
                                                  Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key && parsed.is_string())
      top_key = parsed.get<std::string>();
    if (depth == 2 && top_key == "frames" && event == Json::parse_event_t::object_start) {
      ++frames;
      return false;  // counted, not kept
    }
    return true;
  };
  const Json log = Json::parse(text, skip_frames, false);
  if (log.is_discarded() || !log.is_object())
    return std::string("it is not JSON (cut off or corrupt)");
  const auto frame_list = log.find("frames");
  if (frame_list == log.end() || !frame_list->is_array())
    return std::string("it has no \"frames\" list (not a vmafexact JSON log)");
  const auto pooled = log.find("pooled_metrics");
  if (pooled == log.end() || !pooled->is_object())
    return std::string("it has no \"pooled_metrics\" (not a vmafexact JSON log)");
  row.frames = frames;
  // A named reference, not a structured binding: the lambda below captures
  // it, which clang before 16 refuses (as in metrics/vif/vif_dsp_simd.cpp).
  for (const auto& item : pooled->items()) {
    const Json& entry = item.value();
    if (!entry.is_object()) continue;
    Figures figures;
    const auto take = [&](const char* key, double& field) {
      if (const auto value = entry.find(key); value != entry.end() && value->is_number())
        field = value->get<double>();
    };
    take("min", figures.min);
    take("max", figures.max);
    take("mean", figures.mean);
    take("harmonic_mean", figures.harmonic_mean);
    row.metrics.emplace_back(item.key(), figures);
  }
  // "models": "vmaf=vmaf_v0.6.1, neg=vmaf_v0.6.1neg": the score names before '='.
  if (const auto provenance = log.find("provenance");
      provenance != log.end() && provenance->is_object()) {
    const std::string models = text_field(*provenance, "models");
    for (std::size_t begin = 0; begin < models.size();) {
      std::size_t end = models.find(',', begin);
      if (end == std::string::npos) end = models.size();
      std::string entry = models.substr(begin, end - begin);
      entry.erase(0, entry.find_first_not_of(' '));
      entry.resize(std::min(entry.size(), entry.find('=')));
      if (!entry.empty()) row.models.push_back(entry);
      begin = end + 1;
    }
  }
  return std::nullopt;
}

// One row from its record DIR/rows/ID.json and, when it says ok, its log
// DIR/ID.json. What cannot be read makes the row failed, with the reason.
SummaryRow read_row(const fs::path& dir, const std::string& id) {
  SummaryRow row;
  row.id = id;
  const std::string record_name = (dir / "rows" / (id + ".json")).string();
  std::string why;
  const std::optional<std::string> text =
      read_file(dir / "rows" / (id + ".json"), kMaxRecordBytes, why);
  if (!text) {
    row.error = "the record " + record_name + " cannot be read: " + why;
    return row;
  }
  const Json record = Json::parse(*text, nullptr, false);
  if (record.is_discarded() || !record.is_object()) {
    row.error = "the record " + record_name +
                " is not a JSON object (cut off or corrupt): run the batch again to score the row";
    return row;
  }
  row.ref = text_field(record, "ref");
  row.dist = text_field(record, "dist");
  row.error = text_field(record, "error");
  if (const auto extra = record.find("extra"); extra != record.end() && extra->is_object()) {
    for (const auto& [key, value] : extra->items()) {
      const std::string column = key.starts_with("x-") ? key : "x-" + key;
      row.extra.emplace_back(
          column, value.is_string() ? value.get<std::string>()
                  : value.is_null() ? std::string()
                                    : value.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
  }
  if (const std::string named = text_field(record, "id"); named != id) {
    row.error = "the record " + record_name + " names the id \"" + named + "\", not \"" + id + "\"";
    return row;
  }
  const std::string status = text_field(record, "status");
  if (status == "failed") {
    if (row.error.empty()) {
      const auto code = record.find("exit_code");
      row.error = code != record.end() && code->is_number_integer()
                      ? "exit code " + std::to_string(code->get<long long>())
                      : "failed (the record gives no reason)";
    }
    return row;
  }
  if (status != "ok") {
    row.error =
        "the record " + record_name + " has the status \"" + status + "\", neither ok nor failed";
    return row;
  }
  row.log_path = (dir / (id + ".json")).string();
  const std::optional<std::string> log = read_file(row.log_path, 0, why);
  std::optional<std::string> problem;
  if (!log)
    problem = "cannot be read: " + why;
  else
    problem = read_log_figures(*log, row);
  if (problem) {
    row.metrics.clear();
    row.frames.reset();
    row.error = "the row's log " + row.log_path + " " +
                (problem->starts_with("cannot") ? *problem : "is unusable: " + *problem) +
                "; run the batch again with --force for this row";
    return row;
  }
  row.status = "ok";
  return row;
}

// Fills in every row but the missing ones, several at once: a catalogue's
// logs are gigabytes of JSON (about 0.1 s of a core per ten-minute title).
void read_rows(const fs::path& dir, std::vector<SummaryRow>& rows) {
  cpu_set_t allowed;
  const std::size_t cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                               ? static_cast<std::size_t>(CPU_COUNT(&allowed))
                               : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t at; (at = next++) < rows.size();) {
      if (rows[at].status == "missing") continue;
      const std::string id = rows[at].id;
      try {
        rows[at] = read_row(dir, id);
      } catch (const std::exception& error) {  // memory: that row fails, not the merge
        rows[at] = SummaryRow{};
        rows[at].id = id;
        rows[at].error = std::string("cannot be read: ") + error.what();
      }
    }
  };
  std::vector<std::jthread> helpers;
  for (std::size_t i = 1; i < std::min({cpus, std::size_t{8}, rows.size()}); ++i) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {  // no more threads: fewer helpers
      break;
    }
  }
  work();
}

// The ids of DIR/rows/*.json (temporary files, named with a leading '.', left out).
std::vector<std::string> record_ids(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error))
    throw CliError(kExitInput,
                   "merge: " + dir.string() + " is not a folder that can be read" +
                       (error ? " (" + error.message() + ")" : std::string()),
                   "Give the --output-dir folder of vmafexact batch.");
  std::vector<std::string> ids;
  const fs::path rows = dir / "rows";
  fs::directory_iterator entries(rows, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw CliError(kExitInput, "merge: cannot read " + rows.string() + ": " + error.message(),
                   "Check the folder's permissions.");
  for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
    const std::string name = entries->path().filename().string();
    if (name.starts_with('.') || !name.ends_with(".json") || name.size() <= 5) continue;
    ids.push_back(name.substr(0, name.size() - 5));
  }
  if (error && error != std::errc::no_such_file_or_directory)
    throw CliError(kExitInput, "merge: cannot read " + rows.string() + ": " + error.message(),
                   "Check the folder's permissions.");
  if (ids.empty())
    throw CliError(kExitInput, "merge: " + rows.string() + " holds no records",
                   "Run vmafexact batch MANIFEST --output-dir " + dir.string() +
                       " first; merge gathers what it wrote.");
  return ids;
}

// ---- The table's columns -----------------------------------------------------

struct Columns {
  std::vector<std::string> extra;    // "x-NAME", first appearance
  std::vector<std::string> metrics;  // the models' scores first, then first appearance
  std::string quality;               // the score the page ranks rows by; "" when none
};

Columns columns_of(const std::vector<SummaryRow>& rows) {
  Columns columns;
  const auto add = [](std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const SummaryRow& row : rows)
    for (const auto& [name, value] : row.extra) add(columns.extra, name);
  for (const SummaryRow& row : rows)
    for (const std::string& model : row.models)
      if (find_metric(row, model) != nullptr) add(columns.metrics, model);
  const std::size_t models = columns.metrics.size();
  for (const SummaryRow& row : rows)
    for (const auto& [name, figures] : row.metrics) add(columns.metrics, name);
  if (models > 0)
    columns.quality = columns.metrics.front();
  else if (std::find(columns.metrics.begin(), columns.metrics.end(), "vmaf") !=
           columns.metrics.end())
    columns.quality = "vmaf";
  else if (!columns.metrics.empty())
    columns.quality = columns.metrics.front();
  return columns;
}

constexpr std::pair<const char*, double Figures::*> kFigureColumns[] = {
    {"_min", &Figures::min},
    {"_max", &Figures::max},
    {"_mean", &Figures::mean},
    {"_harmonic_mean", &Figures::harmonic_mean},
};

std::string exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string extra_value(const SummaryRow& row, const std::string& column) {
  for (const auto& [name, value] : row.extra)
    if (name == column) return value;
  return {};
}

// ---- CSV and JSON ---------------------------------------------------------------

// RFC 4180: a cell with a comma, quote, CR or LF (or blanks at an end) quoted,
// its quotes doubled.
std::string csv_cell(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string cell = "\"";
  for (const char character : text) {
    if (character == '"') cell.push_back('"');
    cell.push_back(character);
  }
  return cell + "\"";
}

std::vector<std::string> header_of(const Columns& columns) {
  std::vector<std::string> header = {"id", "status", "ref", "dist", "frames", "error"};
  header.insert(header.end(), columns.extra.begin(), columns.extra.end());
  for (const std::string& metric : columns.metrics)
    for (const auto& [suffix, field] : kFigureColumns) header.push_back(metric + suffix);
  return header;
}

std::string render_csv(const std::vector<SummaryRow>& rows, const Columns& columns) {
  std::string out;
  const auto end_line = [&] { out.append("\r\n"); };
  bool first = true;
  for (const std::string& name : header_of(columns)) {
    out.append(first ? "" : ",").append(csv_cell(name));
    first = false;
  }
  end_line();
  for (const SummaryRow& row : rows) {
    out.append(csv_cell(row.id)).append(",").append(row.status);
    out.append(",").append(csv_cell(row.ref)).append(",").append(csv_cell(row.dist));
    out.append(",").append(row.frames ? std::to_string(*row.frames) : "");
    out.append(",").append(csv_cell(row.error));
    for (const std::string& column : columns.extra)
      out.append(",").append(csv_cell(extra_value(row, column)));
    for (const std::string& metric : columns.metrics) {
      const Figures* figures = find_metric(row, metric);
      for (const auto& [suffix, field] : kFigureColumns) {
        out.append(",");
        if (figures != nullptr && !std::isnan(figures->*field)) out.append(exact(figures->*field));
      }
    }
    end_line();
  }
  return out;
}

struct Counts {
  std::size_t ok = 0, failed = 0, missing = 0;
};

Counts counts_of(const std::vector<SummaryRow>& rows) {
  Counts counts;
  for (const SummaryRow& row : rows) {
    if (row.status == "ok")
      ++counts.ok;
    else if (row.status == "missing")
      ++counts.missing;
    else
      ++counts.failed;
  }
  return counts;
}

// The same rows as the CSV, each an object of its columns: numbers as numbers
// (read back to the same doubles), null for an empty cell.
std::string render_json(const std::vector<SummaryRow>& rows, const Columns& columns,
                        const Counts& counts, const std::string& dir, const std::string& manifest) {
  Json document = Json::object();
  document["directory"] = dir;
  document["manifest"] = manifest.empty() ? Json(nullptr) : Json(manifest);
  document["counts"] = {{"ok", counts.ok}, {"failed", counts.failed}, {"missing", counts.missing}};
  document["columns"] = header_of(columns);
  document["metrics"] = columns.metrics;
  Json& list = document["rows"] = Json::array();
  for (const SummaryRow& row : rows) {
    Json entry = {{"id", row.id}, {"status", row.status}, {"ref", row.ref}, {"dist", row.dist}};
    entry["frames"] = row.frames ? Json(*row.frames) : Json(nullptr);
    entry["error"] = row.error;
    for (const std::string& column : columns.extra) {
      const auto found = std::find_if(row.extra.begin(), row.extra.end(),
                                      [&](const auto& pair) { return pair.first == column; });
      entry[column] = found != row.extra.end() ? Json(found->second) : Json(nullptr);
    }
    for (const std::string& metric : columns.metrics) {
      const Figures* figures = find_metric(row, metric);
      for (const auto& [suffix, field] : kFigureColumns) {
        const bool known = figures != nullptr && std::isfinite(figures->*field);
        entry[metric + suffix] = known ? Json(figures->*field) : Json(nullptr);
      }
    }
    list.push_back(std::move(entry));
  }
  // Text from the records and logs may hold anything: bad UTF-8 replaced, not thrown.
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// ---- The page ---------------------------------------------------------------------

std::string now_utc() {
  GDateTime* now = g_date_time_new_now_utc();
  gchar* text = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
  g_date_time_unref(now);
  const tools::GCharPtr owner(text);
  return text != nullptr ? text : "";
}

std::string shell_quoted(const std::vector<std::string>& arguments) {
  std::string line;
  for (const std::string& argument : arguments) {
    const tools::GCharPtr quoted(g_shell_quote(argument.c_str()));
    line.append(line.empty() ? "" : " ").append(quoted.get());
  }
  return line;
}

std::string number_text(double value) {
  if (std::isnan(value)) return "\xE2\x80\x94";  // U+2014, as the report's "not known"
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The table of every row, which the report library's page (made for a few
// encodes of one reference) does not hold: status, error and the x- columns.
std::string rows_section(const std::vector<SummaryRow>& rows, const Columns& columns,
                         const Counts& counts, const std::string& plotted_note) {
  using report::detail::escape_markup;
  std::string out = "<h2>Every row</h2>\n<p class=\"note\">";
  out.append(std::to_string(rows.size()) + (rows.size() == 1 ? " row: " : " rows: ") +
             std::to_string(counts.ok) + " ok, " +
             std::to_string(counts.failed) + " failed, " + std::to_string(counts.missing) +
             " missing. Every figure with all its digits in the summary CSV and JSON.</p>\n");
  out.append("<table class=\"summary\" id=\"rows\">\n<thead><tr>");
  std::vector<std::string> headings = {"id", "status", "frames"};
  if (!columns.quality.empty()) {
    for (const char* figure : {" mean", " harmonic mean", " min"})
      headings.push_back(columns.quality + figure);
  }
  for (const char* heading : {"reference", "distorted"}) headings.emplace_back(heading);
  headings.insert(headings.end(), columns.extra.begin(), columns.extra.end());
  headings.emplace_back("error");
  for (const std::string& heading : headings)
    out.append("<th scope=\"col\">").append(escape_markup(heading)).append("</th>");
  out.append("</tr></thead>\n<tbody>\n");
  const auto cell = [&](const std::string& text, const char* css = nullptr) {
    out.append(css != nullptr ? std::string("<td class=\"") + css + "\">" : "<td>")
        .append(escape_markup(text))
        .append("</td>");
  };
  for (const SummaryRow& row : rows) {
    out.append("<tr class=\"").append(row.status).append("\"><th scope=\"row\">");
    out.append(escape_markup(row.id)).append("</th>");
    cell(row.status);
    cell(row.frames ? std::to_string(*row.frames) : number_text(kNone), "number");
    if (!columns.quality.empty()) {
      const Figures* figures = find_metric(row, columns.quality);
      for (const double Figures::*field : {&Figures::mean, &Figures::harmonic_mean, &Figures::min})
        cell(number_text(figures != nullptr ? figures->*field : kNone), "number");
    }
    cell(row.ref);
    cell(row.dist);
    for (const std::string& column : columns.extra) cell(extra_value(row, column));
    // The error's lines (the tool's message, then its advice) kept apart.
    out.append("<td>");
    for (std::size_t begin = 0; begin < row.error.size();) {
      const std::size_t end = std::min(row.error.find('\n', begin), row.error.size());
      if (begin > 0) out.append("<br/>");
      out.append(escape_markup(std::string_view(row.error).substr(begin, end - begin)));
      begin = end + 1;
    }
    out.append("</td>");
    out.append("</tr>\n");
  }
  out.append("</tbody>\n</table>\n");
  out.append("<p class=\"note\">").append(escape_markup(plotted_note)).append("</p>\n");
  return out;
}

// The rows the page plots: the ok rows of lowest quality mean (those without
// it last), at most kMaxPlottedRows.
std::vector<const SummaryRow*> rows_to_plot(const std::vector<SummaryRow>& rows,
                                            const std::string& quality) {
  std::vector<const SummaryRow*> chosen;
  for (const SummaryRow& row : rows)
    if (row.status == "ok") chosen.push_back(&row);
  const auto mean_of = [&](const SummaryRow* row) {
    const Figures* figures = find_metric(*row, quality);
    return figures != nullptr && !std::isnan(figures->mean)
               ? figures->mean
               : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(chosen.begin(), chosen.end(), [&](const SummaryRow* a, const SummaryRow* b) {
    return mean_of(a) < mean_of(b);
  });
  if (chosen.size() > kMaxPlottedRows) chosen.resize(kMaxPlottedRows);
  return chosen;
}

std::string render_page(const std::vector<SummaryRow>& rows, const Columns& columns,
                        const Counts& counts, const std::string& dir,
                        const std::vector<std::string>& command_line) {
  const std::vector<const SummaryRow*> chosen = rows_to_plot(rows, columns.quality);
  // The chosen rows' whole logs, read by the report library as `vmafexact report` reads them.
  std::vector<report::LogContent> logs;
  std::vector<const SummaryRow*> plotted;
  std::string unplotted;
  for (const SummaryRow* row : chosen) {
    std::string why;
    const std::optional<std::string> text = read_file(row->log_path, 0, why);
    try {
      if (!text) throw std::runtime_error(row->log_path + ": " + why);
      logs.push_back(report::read_log(*text, row->log_path));
      plotted.push_back(row);
    } catch (const std::runtime_error& error) {
      unplotted.append(unplotted.empty() ? "" : "; ").append(error.what());
    }
  }
  report::Report page = report::report_from_logs(logs, 5);
  for (std::size_t at = 0; at < page.encodes.size(); ++at) {
    report::Encode& encode = page.encodes[at];
    encode.name = plotted[at]->id;
    encode.details.insert(encode.details.begin(), {"reference", plotted[at]->ref});
  }
  // Each row has its own reference: the page names none for all.
  page.reference_path.clear();
  page.reference_size_bytes = page.reference_duration_s = page.reference_bitrate_bps =
      report::kUnknown;
  page.reference_codec.clear();
  page.title = "vmafexact batch " + dir + ": " + std::to_string(rows.size()) + " rows, " +
               std::to_string(counts.ok) + " ok, " + std::to_string(counts.failed) + " failed, " +
               std::to_string(counts.missing) + " missing";
  page.date = now_utc();
  page.command_line = shell_quoted(command_line);
  page.scaler.clear();
  std::vector<std::pair<std::string, std::string>> provenance = {{"folder", dir}};
  if (!logs.empty()) {
    for (const char* key : {"vmafexact-version", "libvmaf-version", "models"})
      if (const std::string value = logs.front().value(key); !value.empty())
        provenance.emplace_back(std::string(key) + " (first plotted row)", value);
  }
  page.provenance = std::move(provenance);
  page.thumbnails_note =
      "Built from the batch's logs by vmafexact merge: the worst frames are listed from the "
      "logs' scores, without pictures.";

  const std::string score = columns.quality.empty() ? "score" : columns.quality;
  std::string plotted_note;
  if (counts.ok == 0)
    plotted_note = "No row is ok: nothing to plot.";
  else if (counts.ok <= kMaxPlottedRows)
    plotted_note = "The sections below show every ok row, lowest " + score + " mean first.";
  else
    plotted_note = "The sections below show only the " + std::to_string(plotted.size()) +
                   " rows of lowest " + score + " mean, of " + std::to_string(counts.ok) +
                   " ok rows; the table above holds every row.";
  if (!unplotted.empty()) plotted_note += " Not plotted: " + unplotted + ".";

  std::string html = report::render_html(page);
  // The table of every row first, before the library's summary of the plotted rows.
  std::size_t at = html.find("<h2>");
  if (at == std::string::npos) at = html.rfind("</body>");
  if (at == std::string::npos) at = html.size();
  html.insert(at, rows_section(rows, columns, counts, plotted_note));
  return html;
}

// ---- Outputs ------------------------------------------------------------------

struct Output {
  const char* option;
  std::string path;
  std::string bytes;
};

std::string canonical(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, error), error);
  return error ? path : resolved.string();
}

// Before anything is read: each output writable, no two the same.
// None may be what merge reads: a row's log or record, or the manifest.
void check_outputs(const std::vector<Output>& outputs, const std::string& dir,
                   const std::vector<std::string>& ids, const std::string& manifest) {
  const std::string rows = canonical((fs::path(dir) / "rows").string());
  fs::path folder = canonical(dir);
  if (!folder.has_filename()) folder = folder.parent_path();  // "out/"
  const std::set<std::string> recorded(ids.begin(), ids.end());
  for (const Output& output : outputs) {
    const fs::path target = canonical(output.path);
    const std::string name = target.filename().string();
    const bool log = target.parent_path() == folder && name.ends_with(".json") &&
                     recorded.contains(name.substr(0, name.size() - 5));
    if (log || target.parent_path() == rows || (!manifest.empty() && target == canonical(manifest)))
      throw CliError(kExitUsage,
                     std::string(output.option) + " " + output.path + " is " +
                         (log                            ? "a row's log"
                          : target.parent_path() == rows ? "in the folder of the records"
                                                         : "the manifest") +
                         "; writing it would destroy what merge reads",
                     "Give the output another name (the defaults are DIR/summary.csv, "
                     "DIR/summary.json, DIR/report.html).");
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (canonical(outputs[i].path) == canonical(outputs[j].path))
        throw CliError(kExitUsage,
                       std::string(outputs[j].option) + " and " + outputs[i].option +
                           " name the same file " + outputs[i].path,
                       "Give each output its own file.");
  for (const Output& output : outputs) {
    const auto problem = output::output_problem(output.path);
    if (!problem) continue;
    std::string where = problem->cause;
    if (!problem->folder.empty())
      where = "cannot create a file in " + problem->folder + " (" + problem->cause + ")";
    throw CliError(kExitOutput, std::string(output.option) + " " + output.path + ": " + where,
                   "Check that the folder exists and is writable; no summary was written.");
  }
}

// Every output written to its temporary file first, then each renamed into
// place: a failure before the renames leaves every existing file as it was.
void write_outputs(const std::vector<Output>& outputs) {
  try {
    std::vector<std::unique_ptr<output::OutputFile>> files;
    for (const Output& output : outputs) {
      files.push_back(std::make_unique<output::OutputFile>(output.path));
      files.back()->write(output.bytes);
    }
    for (const auto& file : files) file->commit();
  } catch (const Error& error) {
    throw CliError(kExitOutput, error.what(),
                   "Check that the folder is writable and has room; the files already there "
                   "were left as they were.");
  }
}

}  // namespace

int merge_command(int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  RawArguments raw;
  const GOptionEntry entries[] = {
      {"manifest", 0, 0, G_OPTION_ARG_FILENAME, &raw.manifest,
       "The batch's manifest: rows in its order, those not run yet listed as missing", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &raw.csv,
       "Write the summary table to FILE (default DIR/summary.csv)", "FILE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &raw.json,
       "Write the summary as JSON to FILE (default DIR/summary.json)", "FILE"},
      {"html", 0, 0, G_OPTION_ARG_FILENAME, &raw.html,
       "Write the report page to FILE (default DIR/report.html)", "FILE"},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.rest, nullptr, "DIR"},
      {},
  };
  parse_subcommand_options("merge", kSummary, kDescription, entries, argc, argv);
  std::vector<std::string> folders;
  for (gchar** argument = raw.rest; argument != nullptr && *argument != nullptr; ++argument) {
    const std::string text = *argument;
    if (text.size() > 1 && text[0] == '-')
      throw CliError(kExitUsage, "merge: unknown option " + text,
                     "Run vmafexact merge --help for the options.");
    folders.push_back(text);
  }
  if (folders.size() != 1)
    throw CliError(kExitUsage,
                   folders.empty()
                       ? "merge: no folder given"
                       : "merge: give one folder, not " + std::to_string(folders.size()),
                   "vmafexact merge DIR [--manifest FILE]: DIR is the --output-dir of vmafexact "
                   "batch.");
  const std::string dir = folders.front();
  const std::string manifest_path = raw.manifest != nullptr ? raw.manifest : "";
  const auto path_or = [&](const gchar* given, const char* name) {
    return given != nullptr ? std::string(given) : (fs::path(dir) / name).string();
  };
  std::vector<Output> outputs = {{"--csv", path_or(raw.csv, "summary.csv"), {}},
                                 {"--json", path_or(raw.json, "summary.json"), {}},
                                 {"--html", path_or(raw.html, "report.html"), {}}};

  std::optional<Manifest> manifest;
  if (!manifest_path.empty()) manifest = read_manifest(manifest_path);
  const std::vector<std::string> ids = record_ids(dir);
  check_outputs(outputs, dir, ids, manifest_path);

  std::vector<SummaryRow> rows;
  if (manifest) {
    // The manifest's order; its rows without a record are missing, records of
    // ids it does not name are left out (said on stderr).
    const std::set<std::string> recorded(ids.begin(), ids.end());
    std::set<std::string> listed;
    for (const ManifestRow& entry : manifest->rows) {
      listed.insert(entry.id);
      if (recorded.contains(entry.id)) {
        rows.emplace_back().id = entry.id;  // read below
        continue;
      }
      SummaryRow missing;
      missing.id = entry.id;
      missing.status = "missing";
      missing.ref = entry.ref;
      missing.dist = entry.dist;
      missing.error = "no record in " + (fs::path(dir) / "rows").string() + " (not run yet)";
      for (const auto& [key, value] : entry.extra)
        missing.extra.emplace_back(key.starts_with("x-") ? key : "x-" + key, value);
      rows.push_back(std::move(missing));
    }
    std::string others;
    std::size_t other_count = 0;
    for (const std::string& id : recorded) {
      if (listed.contains(id)) continue;
      if (++other_count <= 5) others.append(others.empty() ? "" : ", ").append(id);
    }
    if (other_count > 0)
      std::fprintf(stderr, "merge: %zu records of ids not in %s left out (%s%s)\n", other_count,
                   manifest_path.c_str(), others.c_str(), other_count > 5 ? ", ..." : "");
  } else {
    std::vector<std::string> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& id : sorted) rows.emplace_back().id = id;
  }
  read_rows(dir, rows);

  const Columns columns = columns_of(rows);
  const Counts counts = counts_of(rows);
  outputs[0].bytes = render_csv(rows, columns);
  outputs[1].bytes = render_json(rows, columns, counts, dir, manifest_path);
  outputs[2].bytes = render_page(rows, columns, counts, dir, command_line);
  write_outputs(outputs);

  std::fprintf(stderr, "merge: %zu %s: %zu ok, %zu failed, %zu missing; wrote %s, %s, %s\n",
               rows.size(), rows.size() == 1 ? "row" : "rows", counts.ok, counts.failed, counts.missing, outputs[0].path.c_str(),
               outputs[1].path.c_str(), outputs[2].path.c_str());
  std::size_t listed = 0;
  for (const SummaryRow& row : rows) {
    if (row.status == "ok" || ++listed > 10) continue;
    const std::string first_line = row.error.substr(0, row.error.find('\n'));
    std::fprintf(stderr, "merge: %s: %s: %s\n", row.id.c_str(), row.status.c_str(),
                 first_line.c_str());
  }
  if (listed > 10) std::fprintf(stderr, "merge: ... and %zu more\n", listed - 10);
  return counts.failed + counts.missing == 0 ? kExitOk : kExitBatchFailed;
}

}  // namespace vmafexact::cli
