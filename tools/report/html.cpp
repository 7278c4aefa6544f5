// The HTML report (docs/report.md): one file, nothing loaded from elsewhere (the
// plot is inline SVG, the style inline, and a Content-Security-Policy forbids any
// fetch), written as polyglot markup: an HTML5 page that is also well-formed XML.
#include <cmath>
#include <string>
#include <vector>

#include "markup_text.h"
#include "plot_svg.h"
#include "report.h"

namespace vmafexact::report {
namespace {

using detail::escape_markup;
using detail::format_number;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; color: #222; margin: 24px; max-width: 1240px; }
h1 { font-size: 1.5em; margin: 0 0 16px; overflow-wrap: anywhere; }
h2 { font-size: 1.15em; margin: 28px 0 8px; }
figure { margin: 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 4px 9px; vertical-align: top; }
thead th { background: #f0f0f0; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th[scope="row"] { text-align: left; font-weight: normal; font-family: monospace;
  overflow-wrap: anywhere; max-width: 28em; }
table.provenance td { font-family: monospace; overflow-wrap: anywhere; }
p.note { color: #555; font-size: 0.9em; }
)";

struct Column {
  const char* heading;
  double Pooled::*field;
};
constexpr Column kColumns[] = {
    {"min", &Pooled::min},
    {"max", &Pooled::max},
    {"mean", &Pooled::mean},
    {"harmonic mean", &Pooled::harmonic_mean},
    {"p1", &Pooled::p1},
    {"p5", &Pooled::p5},
    {"p50", &Pooled::p50},
    {"1 % low", &Pooled::low1_mean},
    {"5 % low", &Pooled::low5_mean},
};

void append_number_cell(std::string& out, double value) {
  out.append("<td class=\"number\">").append(escape_markup(format_number(value))).append("</td>");
}

// One row per score: the series' scores in their order, then pooled figures
// without a series.
void append_summary(std::string& out, const Report& report) {
  out.append("<table class=\"summary\">\n<thead><tr><th scope=\"col\">score</th>");
  out.append("<th scope=\"col\">frames</th>");
  for (const Column& column : kColumns) {
    out.append("<th scope=\"col\">").append(column.heading).append("</th>");
  }
  out.append("</tr></thead>\n<tbody>\n");
  const auto append_row = [&](const std::string& name, const Series* series, const Pooled* pooled) {
    out.append("<tr><th scope=\"row\">").append(escape_markup(name)).append("</th>");
    if (series != nullptr) {
      std::size_t scored = 0;
      for (const double value : series->values) scored += std::isfinite(value) ? 1 : 0;
      out.append("<td class=\"number\">").append(std::to_string(scored)).append("</td>");
    } else {
      append_number_cell(out, kUnknown);
    }
    for (const Column& column : kColumns) {
      append_number_cell(out, pooled != nullptr ? pooled->*column.field : kUnknown);
    }
    out.append("</tr>\n");
  };
  const auto find_pooled = [&](const std::string& name) -> const Pooled* {
    for (const Pooled& pooled : report.pooled) {
      if (pooled.name == name) return &pooled;
    }
    return nullptr;
  };
  for (const Series& series : report.series) {
    append_row(series.name, &series, find_pooled(series.name));
  }
  for (const Pooled& pooled : report.pooled) {
    bool has_series = false;
    for (const Series& series : report.series) has_series |= series.name == pooled.name;
    if (!has_series) append_row(pooled.name, nullptr, &pooled);
  }
  out.append("</tbody>\n</table>\n");
  out.append(
      "<p class=\"note\">frames: frames with a value. 1 % low and 5 % low: the mean of the lowest "
      "1 % and 5 % of the frames' values; p1, p5, p50: percentiles. \xE2\x80\x94: not "
      "known.</p>\n");
}

void append_provenance(std::string& out, const Report& report) {
  if (report.provenance.empty()) {
    out.append("<p class=\"note\">No provenance given.</p>\n");
    return;
  }
  out.append("<table class=\"provenance\">\n<tbody>\n");
  for (const auto& [key, value] : report.provenance) {
    out.append("<tr><th scope=\"row\">").append(escape_markup(key)).append("</th><td>");
    out.append(escape_markup(value)).append("</td></tr>\n");
  }
  out.append("</tbody>\n</table>\n");
}

}  // namespace

std::string render_html(const Report& report) {
  const std::string title = escape_markup(report.title.empty() ? "vmafexact report" : report.title);
  std::string out;
  out.append(
      "<!DOCTYPE html>\n"
      "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n"
      // Nothing may be fetched: the page holds all it shows.
      "<meta http-equiv=\"Content-Security-Policy\" "
      "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<meta name=\"generator\" content=\"vmafexact\"/>\n");
  out.append("<title>").append(title).append("</title>\n");
  out.append("<style>").append(kStyle).append("</style>\n</head>\n<body>\n");
  out.append("<h1>").append(title).append("</h1>\n");
  out.append("<h2>Scores per frame</h2>\n<figure>\n");
  out.append(detail::render_svg_element(report));
  out.append("</figure>\n<h2>Summary</h2>\n");
  append_summary(out, report);
  out.append("<h2>Provenance</h2>\n");
  append_provenance(out, report);
  out.append("</body>\n</html>\n");
  return out;
}

}  // namespace vmafexact::report
