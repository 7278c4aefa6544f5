// The plot and the HTML report of a scoring run (docs/report.md): each score per
// frame drawn with cairo (SVG or PNG), and one self-contained HTML page holding
// the plot, the summary table and the provenance. No GStreamer: the caller
// collects the scores and passes them in.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact::report {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct Series {  // one score over the frames, e.g. "vmaf", "psnr_y"
  std::string name;
  std::vector<double> values;  // index = frame number; NaN = frame without this score
};

struct Pooled {  // the summary figures of one score (as the element's summary gives them)
  std::string name;
  double min = kUnknown, max = kUnknown, mean = kUnknown, harmonic_mean = kUnknown;
  double p1 = kUnknown, p5 = kUnknown, p50 = kUnknown, low1_mean = kUnknown,
         low5_mean = kUnknown;  // NaN when not known
};

struct Report {
  std::string title;  // e.g. "ref.y4m vs dist.mp4"
  std::vector<Series> series;
  std::vector<Pooled> pooled;  // same names as series (may lack some)
  std::vector<std::pair<std::string, std::string>> provenance;  // key, value, in order shown
};

enum class PlotFormat { svg, png };

// By the path's extension (.svg / .png, case-insensitive); std::nullopt otherwise.
std::optional<PlotFormat> plot_format_for(std::string_view path);

// The plot's size in pixels (the PNG's size; the SVG's in user units): kPlotWidth
// wide, a header, one panel per series, stacked, and the frame axis' title.
inline constexpr int kPlotWidth = 1200;
struct PlotSize {
  int width;
  int height;
};
PlotSize plot_size(const Report& report);

// Write atomically (temporary file in the same folder, renamed into place; on any error the
// temporary is removed and an existing file is untouched). Throw std::runtime_error with a
// message naming the file and the cause (e.g. "cannot write plot.png: No such file or directory").
void write_plot(const Report& report, const std::string& path);  // format from extension
void write_html(const Report& report, const std::string& path);

// The same documents as text, for callers that send them elsewhere (and for tests).
std::string render_svg(const Report& report);  // a standalone SVG document
std::string render_png(const Report& report);  // the PNG file's bytes
std::string render_html(const Report& report);

}  // namespace vmafexact::report
