// The HTML report (docs/report.md): the answer first (one summary row per
// encode), then the scores per frame, the rate-quality chart, the worst frames
// with their pictures, every pooled figure and the provenance. One file, nothing
// loaded from elsewhere (the plots are inline SVG, the pictures data: URIs, the
// style inline, and a Content-Security-Policy forbids any fetch), written as
// polyglot markup: an HTML5 page that is also well-formed XML.
#include <glib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "markup_text.h"
#include "model.h"
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
table.summary { font-size: 1em; }
table.worst img { display: block; image-rendering: auto; }
td.no-picture { color: #777; font-size: 0.85em; }
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

void append_cell(std::string& out, const std::string& text, bool number = true) {
  out.append(number ? "<td class=\"number\">" : "<td>").append(escape_markup(text)).append("</td>");
}

void append_number_cell(std::string& out, double value) { append_cell(out, format_number(value)); }

std::string printf_text(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string size_text(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return format_number(kUnknown);
  if (bytes >= 1e6) return printf_text("%.2f MB", bytes / 1e6);
  if (bytes >= 1e3) return printf_text("%.1f kB", bytes / 1e3);
  return printf_text("%.0f B", bytes);
}

std::string bitrate_text(double bits_per_second) {
  if (!std::isfinite(bits_per_second) || bits_per_second < 0) return format_number(kUnknown);
  if (bits_per_second >= 1e6) return printf_text("%.3f Mbit/s", bits_per_second / 1e6);
  return printf_text("%.1f kbit/s", bits_per_second / 1e3);
}

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return format_number(kUnknown);
  return format_time(seconds) + printf_text(" (%.3f s)", seconds);
}

// Every model score after the first, for a mean column each.
std::vector<std::string> further_models(const std::vector<const Encode*>& encodes,
                                        const std::string& first) {
  std::vector<std::string> names;
  for (const Encode* encode : encodes) {
    for (const Series& series : encode->series) {
      if (series.kind == ScoreKind::model && series.name != first &&
          std::find(names.begin(), names.end(), series.name) == names.end())
        names.push_back(series.name);
    }
  }
  return names;
}

// The answer: one row per encode.
void append_summary(std::string& out, const std::vector<const Encode*>& encodes) {
  const std::string score = detail::quality_score(encodes);
  const std::string label = escape_markup(score);
  const std::vector<std::string> others = further_models(encodes, score);
  bool any_psnr = false;
  for (const Encode* encode : encodes) any_psnr |= detail::find_pooled(*encode, "psnr_y") != nullptr;
  out.append("<table class=\"summary\" id=\"summary\">\n<thead><tr>");
  for (const std::string& heading :
       {std::string("encode"), std::string("size"), std::string("bitrate"),
        std::string("duration"), label + " mean", label + " harmonic mean", label + " 1 % low",
        label + " min"}) {
    out.append("<th scope=\"col\">").append(heading).append("</th>");
  }
  if (any_psnr) out.append("<th scope=\"col\">PSNR Y mean (dB)</th>");
  for (const std::string& other : others) {
    out.append("<th scope=\"col\">").append(escape_markup(other)).append(" mean</th>");
  }
  out.append("</tr></thead>\n<tbody>\n");
  for (const Encode* encode : encodes) {
    out.append("<tr><th scope=\"row\"");
    if (!encode->path.empty()) out.append(" title=\"").append(escape_markup(encode->path)).append("\"");
    out.append(">").append(escape_markup(encode->name)).append("</th>");
    append_cell(out, size_text(encode->size_bytes));
    append_cell(out, bitrate_text(encode->bitrate_bps));
    append_cell(out, std::isfinite(encode->duration_s) ? format_time(encode->duration_s)
                                                       : format_number(kUnknown));
    const Pooled* pooled = detail::find_pooled(*encode, score);
    for (const double Pooled::*field :
         {&Pooled::mean, &Pooled::harmonic_mean, &Pooled::low1_mean, &Pooled::min}) {
      append_number_cell(out, pooled != nullptr ? pooled->*field : kUnknown);
    }
    if (any_psnr) {
      const Pooled* psnr = detail::find_pooled(*encode, "psnr_y");
      append_number_cell(out, psnr != nullptr ? psnr->mean : kUnknown);
    }
    for (const std::string& other : others) {
      const Pooled* other_pooled = detail::find_pooled(*encode, other);
      append_number_cell(out, other_pooled != nullptr ? other_pooled->mean : kUnknown);
    }
    out.append("</tr>\n");
  }
  out.append("</tbody>\n</table>\n");
  out.append("<p class=\"note\">Pooled over the scored frames. Harmonic mean and 1 % low (the mean "
             "of the lowest 1 % of the frames) weigh the bad frames that viewers notice. "
             "Bitrate: file size \xC3\x97 8 / duration. \xE2\x80\x94: not known.</p>\n");
}

// Every score's pooled figures of one encode.
void append_pooled_table(std::string& out, const Encode& encode) {
  out.append("<table class=\"pooled\">\n<thead><tr><th scope=\"col\">score</th>");
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
      append_cell(out, std::to_string(scored));
    } else {
      append_number_cell(out, kUnknown);
    }
    for (const Column& column : kColumns) {
      append_number_cell(out, pooled != nullptr ? pooled->*column.field : kUnknown);
    }
    out.append("</tr>\n");
  };
  for (const Series& series : encode.series) {
    append_row(series.name, &series, detail::find_pooled(encode, series.name));
  }
  for (const Pooled& pooled : encode.pooled) {
    if (detail::find_series(encode, pooled.name) == nullptr) append_row(pooled.name, nullptr, &pooled);
  }
  out.append("</tbody>\n</table>\n");
}

void append_thumbnail(std::string& out, const Thumbnail& thumbnail, const std::string& alt) {
  if (thumbnail.png.empty()) {
    out.append("<td class=\"no-picture\">no picture</td>");
    return;
  }
  const std::unique_ptr<gchar, decltype(&g_free)> base64(
      g_base64_encode(reinterpret_cast<const guchar*>(thumbnail.png.data()), thumbnail.png.size()),
      &g_free);
  out.append("<td><img src=\"data:image/png;base64,").append(base64.get()).append("\"");
  if (thumbnail.width > 0 && thumbnail.height > 0) {
    out.append(" width=\"").append(std::to_string(thumbnail.width));
    out.append("\" height=\"").append(std::to_string(thumbnail.height)).append("\"");
  }
  out.append(" alt=\"").append(escape_markup(alt)).append("\"/></td>");
}

void append_worst_frames(std::string& out, const Report& report,
                         const std::vector<const Encode*>& encodes) {
  bool any = false;
  for (const Encode* encode : encodes) any |= !encode->worst_frames.empty();
  if (!any) {
    out.append("<p class=\"note\">No worst frames listed.</p>\n");
    return;
  }
  if (!report.thumbnails_note.empty()) {
    out.append("<p class=\"note\">").append(escape_markup(report.thumbnails_note)).append("</p>\n");
  }
  for (const Encode* encode : encodes) {
    if (encode->worst_frames.empty()) continue;
    out.append("<h3>").append(escape_markup(encode->name)).append("</h3>\n");
    out.append("<table class=\"worst\">\n<thead><tr><th scope=\"col\">time</th>"
               "<th scope=\"col\">frame</th><th scope=\"col\">");
    out.append(escape_markup(encode->worst_score.empty() ? "score" : encode->worst_score));
    out.append("</th><th scope=\"col\">reference</th><th scope=\"col\">distorted</th></tr></thead>\n"
               "<tbody>\n");
    for (const WorstFrame& worst : encode->worst_frames) {
      const std::string time = format_time(worst.time_s);
      out.append("<tr>");
      append_cell(out, time);
      append_cell(out, std::to_string(worst.frame));
      append_number_cell(out, worst.score);
      append_thumbnail(out, worst.reference, "reference at " + time);
      append_thumbnail(out, worst.distorted, encode->name + " at " + time);
      out.append("</tr>\n");
    }
    out.append("</tbody>\n</table>\n");
  }
}

void append_pairs(std::string& out, const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [key, value] : pairs) {
    out.append("<tr><th scope=\"row\">").append(escape_markup(key)).append("</th><td>");
    out.append(escape_markup(value)).append("</td></tr>\n");
  }
}

void append_provenance(std::string& out, const Report& report,
                       const std::vector<const Encode*>& encodes) {
  std::vector<std::pair<std::string, std::string>> run;
  if (!report.date.empty()) run.emplace_back("date", report.date);
  if (!report.command_line.empty()) run.emplace_back("command line", report.command_line);
  if (!report.scaler.empty()) run.emplace_back("scaler", report.scaler);
  run.insert(run.end(), report.provenance.begin(), report.provenance.end());
  if (run.empty()) {
    out.append("<p class=\"note\">No provenance given.</p>\n");
  } else {
    out.append("<table class=\"provenance\">\n<tbody>\n");
    append_pairs(out, run);
    out.append("</tbody>\n</table>\n");
  }
  out.append("<h3>Inputs</h3>\n<table class=\"inputs\">\n<thead><tr><th scope=\"col\">input</th>"
             "<th scope=\"col\">file</th><th scope=\"col\">size</th><th scope=\"col\">duration</th>"
             "<th scope=\"col\">codec</th><th scope=\"col\">bitrate</th>"
             "<th scope=\"col\">details</th></tr></thead>\n<tbody>\n");
  const auto append_input = [&](const std::string& role, const std::string& path, double size,
                                double duration, const std::string& codec, double bitrate,
                                const std::vector<std::pair<std::string, std::string>>& details) {
    out.append("<tr><th scope=\"row\">").append(escape_markup(role)).append("</th>");
    append_cell(out, path.empty() ? format_number(kUnknown) : path, false);
    append_cell(out, std::isfinite(size) ? size_text(size) + printf_text(" (%.0f bytes)", size)
                                         : format_number(kUnknown));
    append_cell(out, duration_text(duration));
    append_cell(out, codec.empty() ? format_number(kUnknown) : codec, false);
    append_cell(out, bitrate_text(bitrate));
    out.append("<td>");
    for (const auto& [key, value] : details) {
      out.append(escape_markup(key)).append(": ").append(escape_markup(value)).append("<br/>");
    }
    out.append("</td></tr>\n");
  };
  append_input("reference", report.reference_path, report.reference_size_bytes,
               report.reference_duration_s, report.reference_codec, report.reference_bitrate_bps,
               {});
  for (const Encode* encode : encodes) {
    std::vector<std::pair<std::string, std::string>> details = encode->details;
    if (std::isfinite(encode->frame_rate)) {
      details.insert(details.begin(), {"frame rate", printf_text("%.3f fps", encode->frame_rate)});
    }
    append_input(encode->name, encode->path, encode->size_bytes, encode->duration_s, encode->codec,
                 encode->bitrate_bps, details);
  }
  out.append("</tbody>\n</table>\n");
}

}  // namespace

std::string render_html(const Report& report) {
  const std::string title = escape_markup(report.title.empty() ? "vmafexact report" : report.title);
  const std::vector<const Encode*> encodes = detail::encodes_of(report);
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
  out.append("<h2>Summary</h2>\n");
  append_summary(out, encodes);
  out.append("<h2>Scores per frame</h2>\n<figure class=\"scores\">\n");
  out.append(detail::render_scores_svg_element(report));
  out.append("<figcaption class=\"note\">Hover over a plot for the frame number and each "
             "encode's value. Models' scores on a fixed 0\xE2\x80\x93" "100 axis. ");
  if (report.plot_scores.empty()) {
    out.append("Shown: the models' scores and the features asked for (--plot-scores all for "
               "every score).");
  }
  out.append("</figcaption>\n</figure>\n");
  // With ladders their section (bd_rate.h) draws the rate-quality curves and
  // BD-rates; otherwise, with two or more encodes, a chart of their points.
  if (!report.ladders.empty()) {
    out.append("<h2>Rate-quality</h2>\n");
    out.append(render_rate_quality_html(report.ladders));
  } else if (const std::string rate = detail::render_rate_quality_svg_element(report);
             !rate.empty()) {
    out.append("<h2>Rate-quality</h2>\n<figure class=\"rate-quality\">\n");
    out.append(rate).append("</figure>\n");
  }
  out.append("<h2>Worst frames</h2>\n");
  append_worst_frames(out, report, encodes);
  out.append("<h2>Pooled figures</h2>\n");
  for (const Encode* encode : encodes) {
    if (encodes.size() > 1) out.append("<h3>").append(escape_markup(encode->name)).append("</h3>\n");
    append_pooled_table(out, *encode);
  }
  out.append("<p class=\"note\">frames: frames with a value. 1 % low and 5 % low: the mean of the "
             "lowest 1 % and 5 % of the frames' values; p1, p5, p50: percentiles. "
             "\xE2\x80\x94: not known.</p>\n");
  out.append("<h2>Provenance</h2>\n");
  append_provenance(out, report, encodes);
  out.append("</body>\n</html>\n");
  return out;
}

}  // namespace vmafexact::report
