#include "report.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "model.h"
#include "output/output_file.h"

namespace vmafexact::report {
namespace {

bool equals_ignoring_case(std::string_view text, std::string_view lower) {
  return std::ranges::equal(
      text, lower, [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// Renders first, so that a failure to draw leaves no file, then writes whole.
template <typename Render>
void write_rendered(const std::string& path, Render render) {
  std::string bytes;
  try {
    bytes = render();
  } catch (const std::exception& error) {
    throw std::runtime_error("cannot write " + path + ": " + error.what());
  }
  // Through the project's output writer: a file replaced whole, a device or
  // FIFO written in place (vmafexact::Error, a std::runtime_error).
  output::write_output(path, bytes);
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::ranges::any_of(prefixes, [&](std::string_view prefix) { return name.starts_with(prefix); });
}

}  // namespace

namespace detail {

std::vector<const Encode*> encodes_of(const Report& report) {
  std::vector<const Encode*> encodes;
  for (const Encode& encode : report.encodes) encodes.push_back(&encode);
  return encodes;
}

const Series* find_series(const Encode& encode, std::string_view name) {
  for (const Series& series : encode.series) {
    if (series.name == name) return &series;
  }
  return nullptr;
}

const Pooled* find_pooled(const Encode& encode, std::string_view name) {
  for (const Pooled& pooled : encode.pooled) {
    if (pooled.name == name) return &pooled;
  }
  return nullptr;
}

std::string quality_score(const std::vector<const Encode*>& encodes) {
  for (const Encode* encode : encodes) {
    for (const Series& series : encode->series) {
      if (series.kind == ScoreKind::model) return series.name;
    }
  }
  for (const Encode* encode : encodes) {
    if (!encode->series.empty()) return encode->series.front().name;
    if (!encode->pooled.empty()) return encode->pooled.front().name;
  }
  return "vmaf";
}

}  // namespace detail

namespace {

// Every score name of every encode, first appearance order, with the kind it
// first had.
std::vector<std::pair<std::string, ScoreKind>> all_scores(const Report& report) {
  std::vector<std::pair<std::string, ScoreKind>> names;
  for (const Encode* encode : detail::encodes_of(report)) {
    for (const Series& series : encode->series) {
      if (std::ranges::none_of(names, [&](const auto& entry) { return entry.first == series.name; }))
        names.emplace_back(series.name, series.kind);
    }
  }
  return names;
}

bool selects_all(const Report& report) {
  return report.plot_scores.size() == 1 && report.plot_scores.front() == "all";
}

}  // namespace

std::vector<std::string> plotted_scores(const Report& report) {
  const auto names = all_scores(report);
  std::vector<std::string> plotted;
  if (report.plot_scores.empty() || selects_all(report)) {
    for (const auto& [name, kind] : names) {
      if (selects_all(report) || kind != ScoreKind::internal) plotted.push_back(name);
    }
    return plotted;
  }
  for (const std::string& wanted : report.plot_scores) {
    const bool known = std::ranges::any_of(names, [&](const auto& entry) { return entry.first == wanted; });
    if (known && std::ranges::find(plotted, wanted) == plotted.end()) plotted.push_back(wanted);
  }
  return plotted;
}

std::vector<std::string> unknown_plot_scores(const Report& report) {
  std::vector<std::string> unknown;
  if (selects_all(report)) return unknown;
  const auto names = all_scores(report);
  for (const std::string& wanted : report.plot_scores) {
    if (std::ranges::none_of(names, [&](const auto& entry) { return entry.first == wanted; }))
      unknown.push_back(wanted);
  }
  return unknown;
}

std::string format_time(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds) || seconds > 1e9) return "\xE2\x80\x94";
  // Whole hundredths, rounded once, so that 59.999 s reads 01:00.00.
  const auto hundredths = static_cast<unsigned long long>(std::llround(seconds * 100));
  const unsigned long long total_seconds = hundredths / 100;
  const unsigned long long hours = total_seconds / 3600;
  const unsigned long long minutes = total_seconds / 60 % 60;
  const unsigned long long secs = total_seconds % 60;
  char text[64];
  if (hours > 0) {
    std::snprintf(text, sizeof text, "%llu:%02llu:%02llu.%02llu", hours, minutes, secs,
                  hundredths % 100);
  } else {
    std::snprintf(text, sizeof text, "%02llu:%02llu.%02llu", minutes, secs, hundredths % 100);
  }
  return text;
}

std::vector<WorstFrame> select_worst_frames(const Series& series, double frame_rate,
                                            std::size_t count) {
  std::vector<std::size_t> frames;
  for (std::size_t frame = 0; frame < series.values.size(); ++frame) {
    if (std::isfinite(series.values[frame])) frames.push_back(frame);
  }
  const auto lower = [&](std::size_t a, std::size_t b) {
    return series.values[a] != series.values[b] ? series.values[a] < series.values[b] : a < b;
  };
  const std::size_t kept = std::min(count, frames.size());
  std::partial_sort(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(kept), frames.end(),
                    lower);
  std::vector<WorstFrame> worst;
  for (std::size_t at = 0; at < kept; ++at) {
    WorstFrame entry;
    entry.frame = frames[at];
    entry.score = series.values[frames[at]];
    entry.time_s = frame_rate > 0 ? static_cast<double>(frames[at]) / frame_rate : kUnknown;
    worst.push_back(std::move(entry));
  }
  return worst;
}

ScoreKind classify_score(std::string_view name, const std::vector<std::string>& model_names) {
  if (std::ranges::find(model_names, name) != model_names.end()) return ScoreKind::model;
  // libvmaf's model inputs: ADM, VIF and motion (integer and float extractors,
  // and their options' suffixes, e.g. integer_adm2_egl_1).
  if (starts_with_any(name, {"integer_adm", "integer_aim", "integer_vif", "integer_motion",
                             "VMAF_integer_feature", "VMAF_feature", "adm", "aim", "vif",
                             "motion", "float_adm", "float_vif", "float_motion"}))
    return ScoreKind::internal;
  return ScoreKind::feature;
}

std::optional<PlotFormat> plot_format_for(std::string_view path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (equals_ignoring_case(extension, ".svg")) return PlotFormat::svg;
  if (equals_ignoring_case(extension, ".png")) return PlotFormat::png;
  return std::nullopt;
}

void write_plot(const Report& report, const std::string& path) {
  const std::optional<PlotFormat> format = plot_format_for(path);
  if (!format) {
    throw std::runtime_error("cannot write " + path +
                             ": unknown plot format; name the file .svg or .png");
  }
  write_rendered(
      path, [&] { return *format == PlotFormat::svg ? render_svg(report) : render_png(report); });
}

void write_html(const Report& report, const std::string& path) {
  write_rendered(path, [&] { return render_html(report); });
}

}  // namespace vmafexact::report
