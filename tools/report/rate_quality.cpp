// The BD-rate part of the HTML page (docs/report.md, "BD-rate"): for VMAF and
// PSNR, a chart of each ladder's curve as BD-rate interpolates it (PCHIP of
// log10(bitrate) against quality, bitrate on a log axis) with the quality range
// each figure integrates over; then the BD-rate table against the first ladder,
// the reasons for figures refused, and every ladder's points. Hand-written SVG
// and markup, polyglot as the rest of the page (html.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bd_rate.h"
#include "markup_text.h"
#include "report.h"

namespace vmafexact::report {
namespace {

using detail::escape_markup;
using detail::format_number;

// Colours told apart by most readers (Okabe and Ito), one per ladder in order.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#000000", "#f0e442"};
const char* colour_of(std::size_t ladder) { return kColours[ladder % std::size(kColours)]; }

std::string number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

constexpr double kWidth = 600, kHeight = 360;
constexpr double kLeft = 58, kRight = 400, kTop = 34, kBottom = 306;

struct Metric {
  const char* name;  // "VMAF", "PSNR"
  const char* unit;  // axis title
  double LadderPoint::*quality;
  std::optional<BdRate> LadderComparison::*figure;
};
constexpr Metric kMetrics[] = {
    {"VMAF", "pooled VMAF mean", &LadderPoint::vmaf, &LadderComparison::vmaf},
    {"PSNR", "pooled psnr_y mean (dB)", &LadderPoint::psnr_y, &LadderComparison::psnr},
};

// A linear axis with 1-2-5 steps around [low, high].
struct LinearAxis {
  double low, high, step;
};
LinearAxis linear_axis(double low, double high) {
  if (!(high > low)) {
    low -= 1;
    high += 1;
  }
  const double raw = (high - low) / 6;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (raw <= step) break;
  }
  return {std::floor(low / step) * step, std::ceil(high / step) * step, step};
}

// log10(kb/s) from whole decades; ticks at 1, 2 and 5 of each.
struct LogAxis {
  double low, high;  // log10(kb/s)
};
LogAxis log_axis(double low_kbps, double high_kbps) {
  double low = std::log10(low_kbps), high = std::log10(high_kbps);
  const double margin = std::max(0.05, (high - low) * 0.06);
  return {low - margin, high + margin};
}

struct Chart {
  LogAxis x;
  LinearAxis y;
  double x_pixel(double bitrate_bps) const {
    return kLeft + (std::log10(bitrate_bps / 1000) - x.low) / (x.high - x.low) * (kRight - kLeft);
  }
  double y_pixel(double quality) const {
    return kBottom - (quality - y.low) / (y.high - y.low) * (kBottom - kTop);
  }
};

// A pooled figure as the logs give it (6 decimals); "—" when not known.
std::string precise(double value) {
  return std::isfinite(value) ? number("%.6f", value) : "\xE2\x80\x94";
}

std::string xy(double x, double y) { return number("%.1f", x) + "," + number("%.1f", y); }

void append_text(std::string& out, double x, double y, const char* anchor, std::string_view text,
                 const char* extra = "") {
  out.append("<text x=\"" + number("%.1f", x) + "\" y=\"" + number("%.1f", y) +
             "\" text-anchor=\"" + anchor + "\"" + extra + ">")
      .append(escape_markup(text))
      .append("</text>\n");
}

// One metric's chart; empty when no ladder has a usable point for it.
std::string chart_svg(const std::vector<Ladder>& ladders,
                      const std::vector<LadderComparison>& comparisons, const Metric& metric) {
  double rate_low = INFINITY, rate_high = -INFINITY, q_low = INFINITY, q_high = -INFINITY;
  for (const Ladder& ladder : ladders) {
    for (const LadderPoint& point : ladder.points) {
      const double quality = point.*metric.quality;
      if (!(point.bitrate_bps > 0) || !std::isfinite(point.bitrate_bps) || !std::isfinite(quality))
        continue;
      rate_low = std::min(rate_low, point.bitrate_bps / 1000);
      rate_high = std::max(rate_high, point.bitrate_bps / 1000);
      q_low = std::min(q_low, quality);
      q_high = std::max(q_high, quality);
    }
  }
  if (!(rate_high >= rate_low)) return {};
  const Chart chart{log_axis(rate_low, rate_high), linear_axis(q_low, q_high)};
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bd-rate-chart\" width=\"" +
                    number("%.0f", kWidth) + "\" height=\"" + number("%.0f", kHeight) +
                    "\" viewBox=\"0 0 " + number("%.0f", kWidth) + " " + number("%.0f", kHeight) +
                    "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  out.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
  append_text(out, kLeft, 18, "start",
              std::string(metric.name) + ": the curves BD-rate integrates (PCHIP)",
              " font-size=\"13\" font-weight=\"bold\"");
  // Grid and tick labels.
  out.append("<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n");
  std::vector<std::pair<double, std::string>> x_ticks;
  for (int decade = static_cast<int>(std::floor(chart.x.low)); decade <= std::ceil(chart.x.high);
       ++decade) {
    for (const double factor : {1.0, 2.0, 5.0}) {
      const double kbps = factor * std::pow(10.0, decade);
      if (std::log10(kbps) < chart.x.low || std::log10(kbps) > chart.x.high) continue;
      x_ticks.emplace_back(chart.x_pixel(kbps * 1000), number("%g", kbps));
    }
  }
  for (const auto& [x, label] : x_ticks) {
    out.append("<line x1=\"" + number("%.1f", x) + "\" y1=\"" + number("%.0f", kTop) + "\" x2=\"" +
               number("%.1f", x) + "\" y2=\"" + number("%.0f", kBottom) + "\"/>\n");
  }
  std::vector<std::pair<double, std::string>> y_ticks;
  for (double value = chart.y.low; value <= chart.y.high + chart.y.step / 2;
       value += chart.y.step) {
    y_ticks.emplace_back(chart.y_pixel(value), format_number(std::round(value * 1e6) / 1e6));
  }
  for (const auto& [y, label] : y_ticks) {
    out.append("<line x1=\"" + number("%.0f", kLeft) + "\" y1=\"" + number("%.1f", y) + "\" x2=\"" +
               number("%.0f", kRight) + "\" y2=\"" + number("%.1f", y) + "\"/>\n");
  }
  out.append("</g>\n<g fill=\"#555555\">\n");
  for (const auto& [x, label] : x_ticks) append_text(out, x, kBottom + 15, "middle", label);
  for (const auto& [y, label] : y_ticks) append_text(out, kLeft - 6, y + 4, "end", label);
  out.append("</g>\n");
  out.append("<rect x=\"" + number("%.0f", kLeft) + "\" y=\"" + number("%.0f", kTop) +
             "\" width=\"" + number("%.0f", kRight - kLeft) + "\" height=\"" +
             number("%.0f", kBottom - kTop) + "\" fill=\"none\" stroke=\"#999999\"/>\n");
  append_text(out, (kLeft + kRight) / 2, kHeight - 14, "middle", "bitrate (kbit/s, log scale)",
              " font-size=\"12\"");
  append_text(out, 14, (kTop + kBottom) / 2, "middle", metric.unit,
              (" font-size=\"12\" transform=\"rotate(-90 14 " +
               number("%.1f", (kTop + kBottom) / 2) + ")\"")
                  .c_str());

  double key_y = kTop + 6;
  for (std::size_t index = 0; index < ladders.size(); ++index) {
    const Ladder& ladder = ladders[index];
    const char* colour = colour_of(index);
    std::vector<RatePoint> points;
    for (const LadderPoint& point : ladder.points) {
      points.push_back({point.bitrate_bps, point.*metric.quality});
    }
    out.append("<g class=\"ladder\" stroke=\"" + std::string(colour) + "\" fill=\"" + colour +
               "\">\n");
    // The range this ladder's BD-rate integrates over, as a bar by the right edge.
    const std::optional<BdRate>& figure = comparisons[index].*metric.figure;
    if (figure) {
      const double bar_x = kRight + 4 + 5 * static_cast<double>(index % 8);
      out.append("<line x1=\"" + number("%.1f", bar_x) + "\" y1=\"" +
                 number("%.1f", chart.y_pixel(figure->overlap_low)) + "\" x2=\"" +
                 number("%.1f", bar_x) + "\" y2=\"" +
                 number("%.1f", chart.y_pixel(figure->overlap_high)) +
                 "\" stroke-width=\"3\"><title>" +
                 escape_markup(ladder.name + ": BD-rate over " + metric.name + " " +
                               format_overlap(*figure)) +
                 "</title></line>\n");
    }
    try {
      const LogRateCurve curve({ladder.name, points}, metric.name);
      std::string path;
      constexpr int kSamples = 96;
      for (int i = 0; i <= kSamples; ++i) {
        const double quality =
            curve.quality_low() + (curve.quality_high() - curve.quality_low()) * i / kSamples;
        path +=
            (i == 0 ? "M" : " L") +
            xy(chart.x_pixel(std::pow(10.0, curve.log_rate_at(quality))), chart.y_pixel(quality));
      }
      out.append("<path d=\"" + path + "\" fill=\"none\" stroke-width=\"2\"/>\n");
    } catch (const BdRateError&) {
      // No curve through points BD-rate refuses; the table says why.
    }
    for (const LadderPoint& point : ladder.points) {
      const double quality = point.*metric.quality;
      if (!(point.bitrate_bps > 0) || !std::isfinite(quality)) continue;
      out.append("<circle cx=\"" + number("%.1f", chart.x_pixel(point.bitrate_bps)) + "\" cy=\"" +
                 number("%.1f", chart.y_pixel(quality)) + "\" r=\"3.5\"><title>" +
                 escape_markup(ladder.name + " " + point.encode + ": " +
                               number("%.1f", point.bitrate_bps / 1000) + " kbit/s, " +
                               metric.name + " " + format_number(quality)) +
                 "</title></circle>\n");
    }
    out.append("</g>\n");
    out.append("<line x1=\"" + number("%.0f", kRight + 48) + "\" y1=\"" + number("%.1f", key_y) +
               "\" x2=\"" + number("%.0f", kRight + 62) + "\" y2=\"" + number("%.1f", key_y) +
               "\" stroke=\"" + colour + "\" stroke-width=\"2\"/>\n");
    append_text(out, kRight + 66, key_y + 4, "start",
                ladder.name + (index == 0 ? " (anchor)" : ""));
    key_y += 16;
  }
  out.append("</svg>\n");
  return out;
}

std::string cell(std::string_view text, bool number_cell = false) {
  return (number_cell ? "<td class=\"number\">" : "<td>") + escape_markup(text) + "</td>";
}

}  // namespace

LadderPoint ladder_point_of(const Encode& encode) {
  const auto mean_of = [&](std::string_view name) {
    for (const Pooled& pooled : encode.pooled) {
      if (pooled.name == name) return pooled.mean;
    }
    return kUnknown;
  };
  std::string quality_score = "vmaf";
  for (const Series& series : encode.series) {
    if (series.kind == ScoreKind::model) {
      quality_score = series.name;
      break;
    }
  }
  return {encode.name, encode.bitrate_bps, mean_of(quality_score), mean_of("psnr_y")};
}

std::string render_rate_quality_html(const std::vector<Ladder>& ladders) {
  if (ladders.empty()) return {};
  const std::vector<LadderComparison> comparisons = compare_ladders(ladders);
  std::string out = "<section class=\"bd-rate\" id=\"bd-rate\">\n<h3>BD-rate</h3>\n";
  out.append(
      "<table class=\"bd-rate\">\n<thead><tr><th scope=\"col\">ladder</th>"
      "<th scope=\"col\">encodes</th><th scope=\"col\">BD-rate VMAF</th>"
      "<th scope=\"col\">VMAF range</th><th scope=\"col\">BD-rate PSNR</th>"
      "<th scope=\"col\">PSNR range (dB)</th></tr></thead>\n<tbody>\n");
  std::vector<std::string> refusals;
  for (std::size_t index = 0; index < comparisons.size(); ++index) {
    const LadderComparison& comparison = comparisons[index];
    out.append("<tr><th scope=\"row\">" + escape_markup(comparison.name) + "</th>");
    out.append(cell(std::to_string(ladders[index].points.size()), true));
    const auto figure_cells = [&](const std::optional<BdRate>& figure, const std::string& refusal) {
      if (figure) {
        out.append(cell(format_bd_rate_percent(figure->percent), true));
        out.append(cell(format_overlap(*figure), true));
      } else if (!refusal.empty()) {
        refusals.push_back(refusal);
        out.append(cell("refused (" + std::to_string(refusals.size()) + ")"));
        out.append(cell(""));
      } else {
        out.append(cell(comparison.anchor ? "anchor" : ""));
        out.append(cell(""));
      }
    };
    figure_cells(comparison.vmaf, comparison.vmaf_refusal);
    figure_cells(comparison.psnr, comparison.psnr_refusal);
    out.append("</tr>\n");
  }
  out.append("</tbody>\n</table>\n");
  if (!refusals.empty()) {
    out.append("<ol class=\"refusals\">\n");
    for (const std::string& refusal : refusals) {
      out.append("<li>" + escape_markup(refusal) + "</li>\n");
    }
    out.append("</ol>\n");
  }
  out.append(
      "<p class=\"note\">BD-rate (Bj\xC3\xB8ntegaard delta rate): the mean difference in "
      "bitrate at equal quality against \"" +
      escape_markup(ladders.front().name) +
      "\", over the quality range both ladders cover (shown), log10(bitrate) "
      "interpolated against quality by piecewise cubic Hermite interpolation (PCHIP), "
      "as the JVET/AOM common test conditions and Netflix's vmaf tools compute it. "
      "Negative: fewer bits for the same quality. Bitrate: file size \xC3\x97 8 / "
      "duration.</p>\n");
  out.append(
      "<figure class=\"bd-rate-curves\">\n<div style=\"display: flex; flex-wrap: wrap; "
      "gap: 12px\">\n");
  for (const Metric& metric : kMetrics) out.append(chart_svg(ladders, comparisons, metric));
  out.append(
      "</div>\n<figcaption class=\"note\">Each ladder's encodes (dots; hover for the "
      "figures) and the curve BD-rate interpolates through them. The bars at the right: "
      "the quality range each ladder's BD-rate is taken over.</figcaption>\n</figure>\n");
  out.append(
      "<table class=\"ladder-points\">\n<thead><tr><th scope=\"col\">ladder</th>"
      "<th scope=\"col\">encode</th><th scope=\"col\">bitrate (kbit/s)</th>"
      "<th scope=\"col\">VMAF</th><th scope=\"col\">PSNR (dB)</th></tr></thead>\n"
      "<tbody>\n");
  for (const Ladder& ladder : ladders) {
    for (const LadderPoint& point : ladder.points) {
      out.append("<tr>" + cell(ladder.name) + "<th scope=\"row\">" + escape_markup(point.encode) +
                 "</th>" + cell(number("%.3f", point.bitrate_bps / 1000), true) +
                 cell(precise(point.vmaf), true) + cell(precise(point.psnr_y), true) + "</tr>\n");
    }
  }
  out.append("</tbody>\n</table>\n</section>\n");
  return out;
}

}  // namespace vmafexact::report
