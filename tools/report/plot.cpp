// The plot (docs/report.md): a header with the encodes' key, then one panel per
// plotted score, stacked and sharing the time axis (mm:ss; frames where a frame
// rate is not known), each encode's series overlaid in its colour with its pooled
// mean (and, for one encode, its 5 % low) as marked lines; a model's score on a
// fixed 0-100 axis. Below, with two or more encodes, the rate-quality chart
// (bitrate against pooled VMAF). The same drawing code makes the PNG (one image
// surface) and the SVG (one cairo SVG document per layer, nested in a page that
// names each layer and carries each panel's axes and a tooltip per frame, so
// that a reader finds each score's series by its name).
#include <cairo-svg.h>
#include <cairo.h>
#include <pango/pangocairo.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "markup_text.h"
#include "model.h"
#include "plot_svg.h"
#include "report.h"
#include "svg_embed.h"

namespace vmafexact::report {
namespace {

using detail::clean_text;
using detail::escape_markup;
using detail::format_number;

// Geometry, in pixels (the SVG's user units). A panel's coordinates start at its
// top left corner.
constexpr double kHeaderHeight = 60;               // the title and the legend of the line styles
constexpr double kPanelHeight = 200;               // one score
constexpr double kFooterHeight = 30;               // the frame axis' title
constexpr double kPlotLeft = 80;                   // room for the score axis' numbers
constexpr double kPlotRight = kPlotWidth - 100;    // room for the "mean" and "5 % low" labels
constexpr double kPlotTop = 34;                    // the panel's heading above
constexpr double kPlotBottom = kPanelHeight - 26;  // the frame numbers below
// Above this many frames a series is drawn as each pixel column's first, lowest,
// highest and last value.
constexpr std::size_t kColumns = static_cast<std::size_t>(kPlotRight - kPlotLeft);
// cairo's image surfaces (and so the PNG) are at most this high.
constexpr int kMaxImageSide = 32767;

struct Rgb {
  double red, green, blue;
};
// Matplotlib's "tab10": ten colours told apart also by most colour-blind readers.
constexpr std::array<Rgb, 10> kPalette{{
    {0x1f / 255.0, 0x77 / 255.0, 0xb4 / 255.0},
    {0xff / 255.0, 0x7f / 255.0, 0x0e / 255.0},
    {0x2c / 255.0, 0xa0 / 255.0, 0x2c / 255.0},
    {0xd6 / 255.0, 0x27 / 255.0, 0x28 / 255.0},
    {0x94 / 255.0, 0x67 / 255.0, 0xbd / 255.0},
    {0x8c / 255.0, 0x56 / 255.0, 0x4b / 255.0},
    {0xe3 / 255.0, 0x77 / 255.0, 0xc2 / 255.0},
    {0x7f / 255.0, 0x7f / 255.0, 0x7f / 255.0},
    {0xbc / 255.0, 0xbd / 255.0, 0x22 / 255.0},
    {0x17 / 255.0, 0xbe / 255.0, 0xcf / 255.0},
}};
constexpr Rgb kBackground{1, 1, 1};
constexpr Rgb kInk{0.13, 0.13, 0.13};    // text, the mean and 5 % low lines
constexpr Rgb kMuted{0.38, 0.38, 0.38};  // axis numbers, secondary text
constexpr Rgb kGrid{0.9, 0.9, 0.9};
constexpr Rgb kBorder{0.62, 0.62, 0.62};

struct CairoRelease {
  void operator()(cairo_t* context) const { cairo_destroy(context); }
  void operator()(cairo_surface_t* surface) const { cairo_surface_destroy(surface); }
};
using ContextPtr = std::unique_ptr<cairo_t, CairoRelease>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, CairoRelease>;
struct PangoRelease {
  void operator()(PangoLayout* layout) const { g_object_unref(layout); }
  void operator()(PangoFontDescription* font) const { pango_font_description_free(font); }
};
using LayoutPtr = std::unique_ptr<PangoLayout, PangoRelease>;
using FontPtr = std::unique_ptr<PangoFontDescription, PangoRelease>;

void check(cairo_status_t status, const char* doing) {
  if (status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cairo failed ") + doing + ": " +
                             cairo_status_to_string(status));
  }
}

// ---- Axes -----------------------------------------------------------------

struct Axis {
  double low, high, step;  // ticks at the multiples of step in [low, high]
};

// 1, 2 or 5 times a power of ten, near span / ticks.
double nice_step(double span, int ticks) {
  const double raw = span / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  const double multiple = normalised < 1.5 ? 1 : normalised < 3 ? 2 : normalised < 7 ? 5 : 10;
  return multiple * magnitude;
}

// From the lowest to the highest value drawn, widened to whole steps.
Axis value_axis(double low, double high) {
  if (!(low <= high)) {  // nothing to draw
    low = 0;
    high = 1;
  }
  // Keeps high - low finite.
  low = std::max(low, -1e300);
  high = std::min(high, 1e300);
  if (high - low <= std::abs(high) * 1e-9) {  // one value: a band around it
    const double pad = high == 0 ? 1 : std::abs(high) * 0.01;
    low -= pad;
    high += pad;
  }
  const double step = nice_step(high - low, 5);
  return {std::floor(low / step) * step, std::ceil(high / step) * step, step};
}

// A model's score: 0 to 100 whatever the values, so that a dip reads as large as
// it is (widened only for values outside, e.g. a model without clipping).
Axis model_axis(double low, double high) {
  if (!(low <= high) || (low >= 0 && high <= 100)) return {0, 100, 10};
  return value_axis(std::min(low, 0.0), std::max(high, 100.0));
}

// Seconds: whole steps of a clock (0.1 s to an hour), about eight ticks.
double time_step(double span) {
  static constexpr double kSteps[] = {0.04, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300,
                                      600, 900, 1800, 3600};
  for (const double step : kSteps) {
    if (span / step <= 10) return step;
  }
  return nice_step(span, 8);
}

std::vector<double> ticks(const Axis& axis) {
  std::vector<double> values;
  const double first = std::ceil(axis.low / axis.step - 1e-9);
  for (int k = 0; k < 100; ++k) {
    double value = (first + k) * axis.step;
    if (value > axis.high + axis.step * 1e-9) break;
    if (std::abs(value) < axis.step * 1e-9) value = 0;  // not "-0"
    values.push_back(value);
  }
  return values;
}

std::string tick_label(double value, double step) {
  char text[48];
  if (step < 1e-6 || std::abs(value) >= 1e9) {
    std::snprintf(text, sizeof text, "%.4g", value);
  } else {
    const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

// mm:ss on whole-second steps, mm:ss.ff below.
std::string time_label(double seconds, double step) {
  std::string text = format_time(seconds);
  if (step >= 1 && text.size() > 3) text.resize(text.size() - 3);
  return text;
}

// ---- The chart's model ----------------------------------------------------

struct Line {  // one encode's series in a panel
  const std::vector<double>* values;
  double frame_rate;  // NaN on a frame axis
  Rgb colour;
  std::size_t finite = 0;
  double mean = kUnknown;
  double low = kUnknown;  // the 5 % low: low5_mean, else p5 (one encode only)
  const char* low_label = "5 % low";
  bool pooled = false;
};

struct Panel {
  std::string name;  // cleaned for drawing
  std::string raw_name;
  ScoreKind kind = ScoreKind::feature;
  std::vector<Line> lines;  // one per encode that has this score
  std::size_t frames = 0;   // the longest line
  Axis y{};
};

struct EncodeKey {
  std::string name;
  Rgb colour;
};

struct Chart {
  // The only encode of a Report that fills the transitional series (lines point
  // into it; a move of the chart keeps its vectors' elements where they are).
  std::string title;  // empty: no title drawn (the HTML page has its own)
  bool time_axis = true;  // every encode has a frame rate
  std::size_t frames = 0;
  Axis x{};
  std::vector<EncodeKey> encodes;
  std::vector<Panel> panels;

  double x_of_frame(double frame, double frame_rate) const {
    return time_axis ? frame / frame_rate : frame;
  }
  double x_pixel(double x_value) const {
    return kPlotLeft + (x_value - x.low) / (x.high - x.low) * (kPlotRight - kPlotLeft);
  }
  static double y_pixel(const Panel& panel, double value) {
    const Axis& y = panel.y;
    return kPlotBottom - (value - y.low) / (y.high - y.low) * (kPlotBottom - kPlotTop);
  }
  std::string x_label(double value) const {
    return time_axis ? time_label(value, x.step) : tick_label(value, x.step);
  }
};

Chart make_chart(const Report& report, bool with_title) {
  Chart chart;
  if (with_title) chart.title = clean_text(report.title.empty() ? "Scores per frame" : report.title);
  const std::vector<const Encode*> encodes = detail::encodes_of(report);
  for (std::size_t index = 0; index < encodes.size(); ++index) {
    const Encode& encode = *encodes[index];
    chart.encodes.push_back({clean_text(encode.name), kPalette[index % kPalette.size()]});
    if (!(encode.frame_rate > 0) || !std::isfinite(encode.frame_rate)) chart.time_axis = false;
  }
  if (encodes.empty()) chart.time_axis = false;
  double x_high = 0;
  for (const std::string& name : plotted_scores(report)) {
    Panel panel;
    panel.name = clean_text(name);
    panel.raw_name = name;
    double low = INFINITY;
    double high = -INFINITY;
    bool kind_set = false;
    for (std::size_t index = 0; index < encodes.size(); ++index) {
      const Encode& encode = *encodes[index];
      const Series* series = detail::find_series(encode, name);
      if (series == nullptr) continue;
      if (!kind_set) panel.kind = series->kind;
      kind_set = true;
      // One encode: a colour per score, as the panels' headings; several: per encode.
      Line line{.values = &series->values,
                .frame_rate = chart.time_axis ? encode.frame_rate : kUnknown,
                .colour = encodes.size() == 1
                              ? kPalette[chart.panels.size() % kPalette.size()]
                              : chart.encodes[index].colour};
      for (const double value : series->values) {
        if (!std::isfinite(value)) continue;
        ++line.finite;
        low = std::min(low, value);
        high = std::max(high, value);
      }
      if (const Pooled* pooled = detail::find_pooled(encode, name)) {
        line.pooled = true;
        line.mean = pooled->mean;
        if (encodes.size() == 1) {
          line.low = pooled->low5_mean;
          if (std::isnan(line.low)) {
            line.low = pooled->p5;
            line.low_label = "p5";
          }
        }
        // The lines are drawn only where there is a series to read them against.
        for (double* mark : {&line.mean, &line.low}) {
          if (!std::isfinite(*mark) || line.finite == 0) *mark = kUnknown;
          if (std::isnan(*mark)) continue;
          low = std::min(low, *mark);
          high = std::max(high, *mark);
        }
      }
      panel.frames = std::max(panel.frames, series->values.size());
      if (!series->values.empty()) {
        x_high = std::max(x_high, chart.x_of_frame(static_cast<double>(series->values.size() - 1),
                                                   encode.frame_rate));
      }
      chart.frames = std::max(chart.frames, series->values.size());
      panel.lines.push_back(line);
    }
    panel.y = panel.kind == ScoreKind::model ? model_axis(low, high) : value_axis(low, high);
    chart.panels.push_back(std::move(panel));
  }
  if (chart.time_axis) {
    if (!(x_high > 0)) x_high = 1;
    chart.x = {0, x_high, time_step(x_high)};
  } else {
    const double last = std::max(1.0, x_high);
    chart.x = {0, last, std::max(1.0, nice_step(last, 8))};
  }
  return chart;
}

struct Point {
  double x, y;
  bool operator==(const Point&) const = default;
};

// A quarter pixel is finer than anyone sees, and cairo (which keeps 1/256) then
// prints short numbers into the SVG. Far outside the chart (values beyond
// +-1e300, which the axis leaves out) stays within cairo's fixed-point range.
double snap(double pixel) { return std::round(std::clamp(pixel, -1e5, 1e5) * 4) / 4; }

// A line's series as polylines, one per run of frames with values: every frame
// while there are no more frames than pixel columns, else per pixel column its
// first, lowest, highest and last value in frame order (what a line through
// every frame would cover at this size), a column without any value ending the
// polyline.
std::vector<std::vector<Point>> polylines(const Chart& chart, const Panel& panel, const Line& line) {
  const std::vector<double>& values = *line.values;
  std::vector<std::vector<Point>> lines;
  std::vector<Point> points;
  const auto end_line = [&] {
    if (!points.empty()) lines.push_back(std::move(points));
    points.clear();
  };
  const auto x_of = [&](std::size_t frame) {
    return chart.x_pixel(chart.x_of_frame(static_cast<double>(frame), line.frame_rate));
  };
  const auto add = [&](std::size_t frame) {
    const Point point{snap(x_of(frame)), snap(Chart::y_pixel(panel, values[frame]))};
    if (points.empty() || !(point == points.back())) points.push_back(point);
  };
  if (values.size() <= kColumns) {
    for (std::size_t frame = 0; frame < values.size(); ++frame) {
      if (std::isfinite(values[frame])) {
        add(frame);
      } else {
        end_line();
      }
    }
    end_line();
    return lines;
  }
  const auto column_of = [&](std::size_t frame) {
    return static_cast<long long>(std::floor(x_of(frame) - kPlotLeft));
  };
  std::size_t frame = 0;
  while (frame < values.size()) {
    const long long column = column_of(frame);
    std::array<std::size_t, 4> picked{};  // first, lowest, highest, last
    bool any = false;
    for (; frame < values.size() && column_of(frame) == column; ++frame) {
      const double value = values[frame];
      if (!std::isfinite(value)) continue;
      if (!any) picked = {frame, frame, frame, frame};
      any = true;
      if (value < values[picked[1]]) picked[1] = frame;
      if (value > values[picked[2]]) picked[2] = frame;
      picked[3] = frame;
    }
    if (!any) {
      end_line();
      continue;
    }
    std::sort(picked.begin(), picked.end());
    for (std::size_t at = 0; at < picked.size(); ++at) {
      if (at == 0 || picked[at] != picked[at - 1]) add(picked[at]);
    }
  }
  end_line();
  return lines;
}

// ---- Drawing --------------------------------------------------------------

enum class Align { left, centre, right };

struct Font {
  double pixels;
  bool bold = false;
};

// Text through Pango (fonts by fontconfig, fallback for any script).
class TextPen {
 public:
  explicit TextPen(cairo_t* context)
      : context_(context), layout_(pango_cairo_create_layout(context)) {}

  // `text` with its left, centre or right at x and its middle at y, at most
  // `max_width` wide (0: any; longer text loses its middle to an ellipsis).
  // Returns the width drawn.
  double draw(const std::string& text, double x, double y, Font font, Rgb colour,
              Align align = Align::left, double max_width = 0) {
    const auto [width, height] = set(text, font, max_width);
    const double left = align == Align::left     ? x
                        : align == Align::centre ? x - width / 2
                                                 : x - width;
    cairo_set_source_rgb(context_, colour.red, colour.green, colour.blue);
    cairo_move_to(context_, left, y - height / 2);
    pango_cairo_update_layout(context_, layout_.get());
    pango_cairo_show_layout(context_, layout_.get());
    return width;
  }

 private:
  std::pair<double, double> set(const std::string& text, Font font, double max_width) {
    const FontPtr description(pango_font_description_new());
    pango_font_description_set_family(description.get(), "Sans");
    pango_font_description_set_weight(description.get(),
                                      font.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_absolute_size(description.get(), font.pixels * PANGO_SCALE);
    pango_layout_set_font_description(layout_.get(), description.get());
    pango_layout_set_width(layout_.get(),
                           max_width > 0 ? static_cast<int>(max_width * PANGO_SCALE) : -1);
    pango_layout_set_ellipsize(layout_.get(),
                               max_width > 0 ? PANGO_ELLIPSIZE_MIDDLE : PANGO_ELLIPSIZE_NONE);
    pango_layout_set_text(layout_.get(), text.c_str(), static_cast<int>(text.size()));
    int width = 0;
    int height = 0;
    pango_layout_get_pixel_size(layout_.get(), &width, &height);
    return {width, height};
  }

  cairo_t* context_;
  LayoutPtr layout_;
};

enum class Stroke { series, mean, low };

void set_stroke(cairo_t* context, Stroke stroke, Rgb colour) {
  cairo_set_source_rgb(context, colour.red, colour.green, colour.blue);
  cairo_set_line_width(context, 1.5);
  // Round caps draw a frame between gaps (a zero-length line) as a dot.
  cairo_set_line_cap(context,
                     stroke == Stroke::series ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
  cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND);
  static constexpr double kMeanDashes[] = {7, 4};
  static constexpr double kLowDashes[] = {1.5, 2.5};
  switch (stroke) {
    case Stroke::series:
      cairo_set_dash(context, nullptr, 0, 0);
      break;
    case Stroke::mean:
      cairo_set_dash(context, kMeanDashes, 2, 0);
      break;
    case Stroke::low:
      cairo_set_dash(context, kLowDashes, 2, 0);
      break;
  }
}

// A short line in a stroke's style followed by its label; returns where it ends.
double draw_key(cairo_t* context, TextPen& pen, double x, double y, Stroke stroke, Rgb colour,
                const std::string& label) {
  set_stroke(context, stroke, colour);
  cairo_move_to(context, x, y);
  cairo_line_to(context, x + 26, y);
  cairo_stroke(context);
  return x + 32 + pen.draw(label, x + 32, y, {12}, kMuted) + 22;
}

// A crisp one-pixel line: on a pixel's middle.
double crisp(double pixel) { return std::floor(pixel) + 0.5; }

double header_height(const Chart& chart) { return chart.title.empty() ? kHeaderHeight - 28 : kHeaderHeight; }

// The whole chart's background, the title, the key of encodes and line styles
// and the time axis' title (the panels are drawn over it).
void draw_chart(cairo_t* context, const Chart& chart, double width, double height) {
  cairo_set_source_rgb(context, kBackground.red, kBackground.green, kBackground.blue);
  cairo_paint(context);
  TextPen pen(context);
  if (!chart.title.empty()) {
    pen.draw(chart.title, 16, 20, {18, true}, kInk, Align::left, width - 32);
  }
  const double key_y = header_height(chart) - 14;
  double x = kPlotLeft;
  if (chart.encodes.size() > 1) {
    for (const EncodeKey& encode : chart.encodes) {
      if (x > kPlotRight - 80) break;
      x = draw_key(context, pen, x, key_y, Stroke::series, encode.colour, encode.name);
    }
    draw_key(context, pen, x, key_y, Stroke::mean, kInk, "pooled mean");
  } else {
    x = draw_key(context, pen, x, key_y, Stroke::series, kMuted, "score per frame");
    x = draw_key(context, pen, x, key_y, Stroke::mean, kInk, "pooled mean");
    draw_key(context, pen, x, key_y, Stroke::low, kInk,
             "5 % low: mean of the lowest 5 % (p5 where not known)");
  }
  const double footer_middle = height - kFooterHeight / 2;
  if (chart.panels.empty()) {
    pen.draw("no scores to plot", width / 2.0, header_height(chart) + kPanelHeight / 2, {14},
             kMuted, Align::centre);
  } else {
    pen.draw(chart.time_axis ? (chart.x.step >= 1 ? "time (mm:ss)" : "time (mm:ss.ff)") : "frame",
             (kPlotLeft + kPlotRight) / 2, footer_middle, {13}, kInk, Align::centre);
  }
}

// A panel's heading, grid, axes and numbers.
void draw_panel_axes(cairo_t* context, const Chart& chart, const Panel& panel) {
  TextPen pen(context);
  constexpr double kNameWidth = (kPlotRight - kPlotLeft) / 2;
  const Rgb heading =
      panel.lines.size() == 1 && chart.encodes.size() == 1 ? panel.lines.front().colour : kInk;
  double x =
      kPlotLeft +
      pen.draw(panel.name, kPlotLeft, 16, {14, true}, heading, Align::left, kNameWidth) + 14;
  std::string summary;
  if (panel.lines.size() == 1) {
    const Line& line = panel.lines.front();
    if (!std::isnan(line.mean)) summary.append("mean ").append(format_number(line.mean));
    if (!std::isnan(line.low)) {
      if (!summary.empty()) summary.append("   ");
      summary.append(line.low_label).append(" ").append(format_number(line.low));
    }
    if (!summary.empty()) summary.append("   ");
    summary.append(std::to_string(line.finite));
    if (line.finite != line.values->size()) {
      summary.append(" of ").append(std::to_string(line.values->size()));
    }
    summary.append(line.values->size() == 1 ? " frame" : " frames");
    if (!line.pooled) summary.append("   (no pooled figures)");
  } else {
    summary.append(std::to_string(panel.lines.size())).append(" encodes");
  }
  pen.draw(summary, x, 16, {12}, kMuted, Align::left, kPlotRight - x);

  cairo_set_line_width(context, 1);
  cairo_set_dash(context, nullptr, 0, 0);
  cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT);
  cairo_set_source_rgb(context, kGrid.red, kGrid.green, kGrid.blue);
  const std::vector<double> y_ticks = ticks(panel.y);
  const std::vector<double> x_ticks = ticks(chart.x);
  for (const double value : y_ticks) {
    const double y = crisp(Chart::y_pixel(panel, value));
    cairo_move_to(context, kPlotLeft, y);
    cairo_line_to(context, kPlotRight, y);
  }
  for (const double tick : x_ticks) {
    const double x_tick = crisp(chart.x_pixel(tick));
    cairo_move_to(context, x_tick, kPlotTop);
    cairo_line_to(context, x_tick, kPlotBottom);
  }
  cairo_stroke(context);
  cairo_set_source_rgb(context, kBorder.red, kBorder.green, kBorder.blue);
  cairo_rectangle(context, crisp(kPlotLeft), crisp(kPlotTop), kPlotRight - kPlotLeft,
                  kPlotBottom - kPlotTop);
  cairo_stroke(context);

  for (const double value : y_ticks) {
    pen.draw(tick_label(value, panel.y.step), kPlotLeft - 6, Chart::y_pixel(panel, value), {11},
             kMuted, Align::right);
  }
  for (const double tick : x_ticks) {
    pen.draw(chart.x_label(tick), chart.x_pixel(tick), kPlotBottom + 12, {11}, kMuted,
             Align::centre);
  }
  std::size_t finite = 0;
  for (const Line& line : panel.lines) finite += line.finite;
  if (finite == 0) {
    pen.draw(panel.frames == 0 ? "no frames" : "no values (every frame is NaN)",
             (kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2, {13}, kMuted,
             Align::centre);
  }
}

// One encode's series: one stroke, so one <path> in the SVG.
void draw_line_series(cairo_t* context, const Chart& chart, const Panel& panel, const Line& line) {
  const std::vector<std::vector<Point>> lines = polylines(chart, panel, line);
  if (lines.empty()) return;
  set_stroke(context, Stroke::series, line.colour);
  for (const std::vector<Point>& points : lines) {
    cairo_move_to(context, points.front().x, points.front().y);
    if (points.size() == 1) cairo_line_to(context, points.front().x, points.front().y);  // a dot
    for (std::size_t at = 1; at < points.size(); ++at) {
      cairo_line_to(context, points[at].x, points[at].y);
    }
  }
  cairo_stroke(context);
}

// The pooled mean (and for one encode the 5 % low) across the plot, labelled at
// the right.
void draw_line_marks(cairo_t* context, const Chart& chart, const Panel& panel, const Line& line) {
  struct Mark {
    double value;
    Stroke stroke;
    const char* label;
    double label_y = 0;
  };
  const bool one_encode = chart.encodes.size() <= 1;
  const Rgb colour = one_encode ? kInk : line.colour;
  std::vector<Mark> marks;
  if (!std::isnan(line.mean)) marks.push_back({line.mean, Stroke::mean, "mean"});
  if (!std::isnan(line.low)) marks.push_back({line.low, Stroke::low, line.low_label});
  for (Mark& mark : marks) mark.label_y = Chart::y_pixel(panel, mark.value);
  // Labels of close lines are pushed apart.
  constexpr double kLabelGap = 13;
  if (marks.size() == 2 && std::abs(marks[0].label_y - marks[1].label_y) < kLabelGap) {
    const double middle = (marks[0].label_y + marks[1].label_y) / 2;
    const bool mean_above = marks[0].label_y <= marks[1].label_y;
    marks[0].label_y = middle + (mean_above ? -kLabelGap / 2 : kLabelGap / 2);
    marks[1].label_y = middle + (mean_above ? kLabelGap / 2 : -kLabelGap / 2);
  }
  TextPen pen(context);
  for (const Mark& mark : marks) {
    const double y = Chart::y_pixel(panel, mark.value);
    set_stroke(context, mark.stroke, colour);
    cairo_move_to(context, kPlotLeft, y);
    cairo_line_to(context, kPlotRight, y);
    cairo_stroke(context);
    if (one_encode) pen.draw(mark.label, kPlotRight + 6, mark.label_y, {11}, kInk);
  }
}

// ---- The rate-quality chart -------------------------------------------------

constexpr double kRateHeight = 380;  // the whole chart, with its heading and axes' titles
constexpr double kRateTop = 40;
constexpr double kRateBottom = kRateHeight - 44;

struct RatePlot {
  struct Dot {
    std::string name;
    double bitrate_kbps, vmaf;
    Rgb colour;
  };
  struct Curve {
    std::string name;
    Rgb colour;
    std::vector<std::pair<double, double>> points;  // kbit/s, VMAF, by bitrate
  };
  std::string score;  // the score on the y axis
  std::vector<Dot> dots;
  std::vector<Curve> curves;  // the ladders
  Axis x{}, y{};
  double x_pixel(double kbps) const {
    return kPlotLeft + (kbps - x.low) / (x.high - x.low) * (kPlotRight - kPlotLeft);
  }
  double y_pixel(double vmaf) const {
    return kRateBottom - (vmaf - y.low) / (y.high - y.low) * (kRateBottom - kRateTop);
  }
};

std::optional<RatePlot> make_rate_plot(const Report& report) {
  const std::vector<const Encode*> encodes = detail::encodes_of(report);
  RatePlot plot;
  plot.score = detail::quality_score(encodes);
  double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
  const auto extend = [&](double kbps, double vmaf) {
    x_low = std::min(x_low, kbps);
    x_high = std::max(x_high, kbps);
    y_low = std::min(y_low, vmaf);
    y_high = std::max(y_high, vmaf);
  };
  for (std::size_t index = 0; index < encodes.size(); ++index) {
    const Encode& encode = *encodes[index];
    const Pooled* pooled = detail::find_pooled(encode, plot.score);
    if (pooled == nullptr || !std::isfinite(pooled->mean) || !std::isfinite(encode.bitrate_bps) ||
        !(encode.bitrate_bps > 0))
      continue;
    plot.dots.push_back({clean_text(encode.name), encode.bitrate_bps / 1000, pooled->mean,
                         kPalette[index % kPalette.size()]});
    extend(encode.bitrate_bps / 1000, pooled->mean);
  }
  for (std::size_t index = 0; index < report.ladders.size(); ++index) {
    const Ladder& ladder = report.ladders[index];
    RatePlot::Curve curve{clean_text(ladder.name), kPalette[(index + 5) % kPalette.size()], {}};
    for (const LadderPoint& point : ladder.points) {
      if (!std::isfinite(point.bitrate_bps) || !(point.bitrate_bps > 0) ||
          !std::isfinite(point.vmaf))
        continue;
      curve.points.emplace_back(point.bitrate_bps / 1000, point.vmaf);
      extend(point.bitrate_bps / 1000, point.vmaf);
    }
    std::sort(curve.points.begin(), curve.points.end());
    if (!curve.points.empty()) plot.curves.push_back(std::move(curve));
  }
  if (plot.dots.size() < 2 && plot.curves.empty()) return std::nullopt;
  plot.x = value_axis(std::min(0.0, x_low), x_high);
  plot.y = value_axis(y_low, y_high);
  return plot;
}

void draw_rate_plot(cairo_t* context, const RatePlot& plot, double width) {
  cairo_set_source_rgb(context, kBackground.red, kBackground.green, kBackground.blue);
  cairo_paint(context);
  TextPen pen(context);
  pen.draw("Rate-quality: bitrate against pooled " + clean_text(plot.score) + " mean", kPlotLeft,
           16, {14, true}, kInk, Align::left, width - kPlotLeft - 16);
  cairo_set_line_width(context, 1);
  cairo_set_source_rgb(context, kGrid.red, kGrid.green, kGrid.blue);
  for (const double value : ticks(plot.y)) {
    cairo_move_to(context, kPlotLeft, crisp(plot.y_pixel(value)));
    cairo_line_to(context, kPlotRight, crisp(plot.y_pixel(value)));
  }
  for (const double value : ticks(plot.x)) {
    cairo_move_to(context, crisp(plot.x_pixel(value)), kRateTop);
    cairo_line_to(context, crisp(plot.x_pixel(value)), kRateBottom);
  }
  cairo_stroke(context);
  cairo_set_source_rgb(context, kBorder.red, kBorder.green, kBorder.blue);
  cairo_rectangle(context, crisp(kPlotLeft), crisp(kRateTop), kPlotRight - kPlotLeft,
                  kRateBottom - kRateTop);
  cairo_stroke(context);
  for (const double value : ticks(plot.y)) {
    pen.draw(tick_label(value, plot.y.step), kPlotLeft - 6, plot.y_pixel(value), {11}, kMuted,
             Align::right);
  }
  for (const double value : ticks(plot.x)) {
    pen.draw(tick_label(value, plot.x.step), plot.x_pixel(value), kRateBottom + 12, {11}, kMuted,
             Align::centre);
  }
  pen.draw("bitrate (kbit/s)", (kPlotLeft + kPlotRight) / 2, kRateHeight - 14, {13}, kInk,
           Align::centre);
  double key_x = kPlotRight + 8;
  double key_y = kRateTop + 8;
  for (const RatePlot::Curve& curve : plot.curves) {
    set_stroke(context, Stroke::series, curve.colour);
    cairo_move_to(context, plot.x_pixel(curve.points.front().first),
                  plot.y_pixel(curve.points.front().second));
    for (const auto& [kbps, vmaf] : curve.points) cairo_line_to(context, plot.x_pixel(kbps), plot.y_pixel(vmaf));
    cairo_stroke(context);
    for (const auto& [kbps, vmaf] : curve.points) {
      cairo_arc(context, plot.x_pixel(kbps), plot.y_pixel(vmaf), 3, 0, 2 * M_PI);
      cairo_fill(context);
    }
    set_stroke(context, Stroke::series, curve.colour);
    cairo_move_to(context, key_x, key_y);
    cairo_line_to(context, key_x + 14, key_y);
    cairo_stroke(context);
    pen.draw(curve.name, key_x + 18, key_y, {11}, kInk, Align::left, width - key_x - 22);
    key_y += 16;
  }
  for (const RatePlot::Dot& dot : plot.dots) {
    const double x = plot.x_pixel(dot.bitrate_kbps);
    const double y = plot.y_pixel(dot.vmaf);
    cairo_set_source_rgb(context, dot.colour.red, dot.colour.green, dot.colour.blue);
    cairo_arc(context, x, y, 5, 0, 2 * M_PI);
    cairo_fill(context);
    pen.draw(dot.name, x + 8, y - 9, {11}, kInk, Align::left, 160);
  }
}

// ---- Output ---------------------------------------------------------------

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  try {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  } catch (...) {  // no exception may cross cairo's C frames
    return CAIRO_STATUS_NO_MEMORY;
  }
}

// One layer drawn into its own SVG document.
std::string svg_document(double width, double height, const std::function<void(cairo_t*)>& draw) {
  std::string bytes;
  const SurfacePtr surface(
      cairo_svg_surface_create_for_stream(append_bytes, &bytes, width, height));
  check(cairo_surface_status(surface.get()), "creating an SVG surface");
  {
    const ContextPtr context(cairo_create(surface.get()));
    draw(context.get());
    check(cairo_status(context.get()), "drawing the plot");
  }
  cairo_surface_finish(surface.get());
  check(cairo_surface_status(surface.get()), "writing SVG");
  return bytes;
}

double panel_top(const Chart& chart, std::size_t index) {
  return header_height(chart) + static_cast<double>(index) * kPanelHeight;
}

double scores_height(const Chart& chart) {
  const std::size_t panels = std::max<std::size_t>(1, chart.panels.size());
  return header_height(chart) + static_cast<double>(panels) * kPanelHeight + kFooterHeight;
}

void append_attribute(std::string& out, const char* name, const std::string& value) {
  out.append(" ").append(name).append("=\"").append(escape_markup(value)).append("\"");
}

// Hover cells over a panel's plot area, each a <title>: its time and frame number
// and each encode's value there (the lowest in a cell of several frames).
void append_hover(std::string& out, const Chart& chart, const Panel& panel, double top,
                  const std::vector<EncodeKey>& keys, const std::vector<std::size_t>& key_of_line) {
  if (panel.frames == 0) return;
  constexpr std::size_t kMaxCells = 240;
  const std::size_t cells = std::min(panel.frames, kMaxCells);
  out.append("<g class=\"hover\" fill=\"transparent\">");
  // On a time axis the frames of one cell are those of the first line's rate.
  const double reference_rate = panel.lines.front().frame_rate;
  for (std::size_t cell = 0; cell < cells; ++cell) {
    const std::size_t first = cell * panel.frames / cells;
    const std::size_t last = (cell + 1) * panel.frames / cells - 1;
    const double x_first = chart.x_of_frame(static_cast<double>(first), reference_rate);
    const double x_last = chart.x_of_frame(static_cast<double>(last), reference_rate);
    // From half a frame before the cell's first frame to half a frame after its
    // last, within the plot area.
    const double frame_pixels = chart.x_pixel(chart.x_of_frame(1, reference_rate)) -
                                chart.x_pixel(chart.x_of_frame(0, reference_rate));
    const double left = std::clamp(chart.x_pixel(x_first) - frame_pixels / 2, kPlotLeft, kPlotRight);
    const double right = std::clamp(chart.x_pixel(x_last) + frame_pixels / 2, left, kPlotRight);
    char rect[200];
    std::snprintf(rect, sizeof rect,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" data-frame=\"%zu\">",
                  left, top + kPlotTop, right - left, kPlotBottom - kPlotTop, first);
    out.append(rect);
    // Lines of the tooltip, each escaped, joined by a character reference
    // (escaping would turn a line break into U+FFFD).
    std::string title;
    if (chart.time_axis) title.append(format_time(x_first)).append(" ");
    title.append(first == last ? "frame " + std::to_string(first)
                               : "frames " + std::to_string(first) + "-" + std::to_string(last));
    title = escape_markup(title);
    for (std::size_t index = 0; index < panel.lines.size(); ++index) {
      const Line& line = panel.lines[index];
      double lowest = kUnknown;
      for (std::size_t frame = first; frame <= last && frame < line.values->size(); ++frame) {
        const double value = (*line.values)[frame];
        if (std::isfinite(value) && !(lowest <= value)) lowest = value;
      }
      title.append("&#10;").append(escape_markup(keys[key_of_line[index]].name + ": "));
      title.append(first == last ? "" : "lowest ").append(escape_markup(format_number(lowest)));
    }
    out.append("<title>").append(title).append("</title></rect>");
  }
  out.append("</g>\n");
}

}  // namespace

PlotSize plot_size(const Report& report) {
  const Chart chart = make_chart(report, true);
  double height = scores_height(chart);
  if (make_rate_plot(report)) height += kRateHeight;
  // Past INT_MAX there is nothing to draw on anyway.
  return {kPlotWidth, static_cast<int>(std::min(height, 2e9))};
}

namespace detail {

namespace {

// The layers of the plot as nested SVG documents, from `y0` down.
std::string svg_parts(const Report& report, const Chart& chart, bool with_rate, double& height) {
  const double width = kPlotWidth;
  std::string out;
  int layer = 0;
  const auto nest = [&](double y, double layer_height, const std::function<void(cairo_t*)>& draw) {
    const std::string prefix = "vx" + std::to_string(++layer) + "-";
    detail::append_nested_svg(out, svg_document(width, layer_height, draw), prefix, 0, y, width,
                              layer_height);
  };
  const double chart_height = scores_height(chart);
  out.append("<g class=\"chart\"");
  append_attribute(out, "data-x-unit", chart.time_axis ? "time" : "frame");
  out.append(">");
  nest(0, chart_height, [&](cairo_t* context) { draw_chart(context, chart, width, chart_height); });
  out.append("</g>\n");
  // Which encode each line of a panel is: its position among the encodes with that score.
  const std::vector<const Encode*> encodes = detail::encodes_of(report);
  std::string x_ticks;
  for (const double tick : ticks(chart.x)) {
    if (!x_ticks.empty()) x_ticks.append(" ");
    x_ticks.append(chart.x_label(tick));
  }
  for (std::size_t index = 0; index < chart.panels.size(); ++index) {
    const Panel& panel = chart.panels[index];
    std::vector<std::size_t> key_of_line;
    for (std::size_t encode = 0; encode < encodes.size(); ++encode) {
      if (find_series(*encodes[encode], panel.raw_name) != nullptr) key_of_line.push_back(encode);
    }
    const double top = panel_top(chart, index);
    out.append("<g class=\"panel\"");
    append_attribute(out, "data-score", panel.raw_name);
    append_attribute(out, "data-y-low", tick_label(panel.y.low, panel.y.step));
    append_attribute(out, "data-y-high", tick_label(panel.y.high, panel.y.step));
    append_attribute(out, "data-x-ticks", x_ticks);
    out.append(">\n");
    out.append("<g class=\"axes\"");
    append_attribute(out, "data-score", panel.raw_name);
    out.append(">");
    nest(top, kPanelHeight, [&](cairo_t* context) { draw_panel_axes(context, chart, panel); });
    out.append("</g>\n");
    for (std::size_t line = 0; line < panel.lines.size(); ++line) {
      const std::string encode_name = chart.encodes[key_of_line[line]].name;
      out.append("<g class=\"series\"");
      append_attribute(out, "data-score", panel.raw_name);
      append_attribute(out, "data-encode", encode_name);
      // A tooltip in browsers.
      out.append("><title>")
          .append(escape_markup(panel.name + (encodes.size() > 1 ? " (" + encode_name + ")" : "")))
          .append("</title>");
      nest(top, kPanelHeight, [&](cairo_t* context) {
        draw_line_series(context, chart, panel, panel.lines[line]);
      });
      out.append("</g>\n");
    }
    out.append("<g class=\"pooled\"");
    append_attribute(out, "data-score", panel.raw_name);
    out.append(">");
    nest(top, kPanelHeight, [&](cairo_t* context) {
      for (const Line& line : panel.lines) {
        cairo_save(context);
        draw_line_marks(context, chart, panel, line);
        cairo_restore(context);
      }
    });
    out.append("</g>\n");
    append_hover(out, chart, panel, top, chart.encodes, key_of_line);
    out.append("</g>\n");
  }
  height = chart_height;
  if (with_rate) {
    if (const std::optional<RatePlot> rate = make_rate_plot(report)) {
      out.append("<g class=\"rate-quality\">");
      nest(height, kRateHeight, [&](cairo_t* context) { draw_rate_plot(context, *rate, width); });
      out.append("</g>\n");
      height += kRateHeight;
    }
  }
  return out;
}

std::string svg_root(double height, const std::string& title, const std::string& parts,
                     const char* id) {
  std::string out;
  char root[360];
  std::snprintf(root, sizeof root,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                "xmlns:xlink=\"http://www.w3.org/1999/xlink\" id=\"%s\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" version=\"1.1\">\n",
                id, kPlotWidth, static_cast<int>(std::ceil(height)), kPlotWidth,
                static_cast<int>(std::ceil(height)));
  out.append(root);
  out.append("<title>").append(escape_markup(title)).append("</title>\n");
  out.append(parts).append("</svg>\n");
  return out;
}

}  // namespace

std::string render_svg_element(const Report& report) {
  const Chart chart = make_chart(report, true);
  double height = 0;
  const std::string parts = svg_parts(report, chart, true, height);
  return svg_root(height, report.title, parts, "plot");
}

std::string render_scores_svg_element(const Report& report) {
  const Chart chart = make_chart(report, false);
  double height = 0;
  const std::string parts = svg_parts(report, chart, false, height);
  return svg_root(height, "Scores per frame", parts, "scores-plot");
}

std::string render_rate_quality_svg_element(const Report& report) {
  const std::optional<RatePlot> rate = make_rate_plot(report);
  if (!rate) return {};
  std::string out;
  out.append("<g class=\"rate-quality\">");
  append_nested_svg(out,
                    svg_document(kPlotWidth, kRateHeight,
                                 [&](cairo_t* context) { draw_rate_plot(context, *rate, kPlotWidth); }),
                    "rq-", 0, 0, kPlotWidth, kRateHeight);
  out.append("</g>\n");
  return svg_root(kRateHeight, "Rate-quality", out, "rate-quality-plot");
}

}  // namespace detail

std::string render_svg(const Report& report) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + detail::render_svg_element(report);
}

std::string render_png(const Report& report) {
  const PlotSize size = plot_size(report);
  if (size.height > kMaxImageSide) {
    throw std::runtime_error("a PNG of " + std::to_string(plotted_scores(report).size()) +
                             " scores would be " + std::to_string(size.height) +
                             " pixels high, more than cairo's " + std::to_string(kMaxImageSide) +
                             "; write an SVG, or plot fewer scores (--plot-scores)");
  }
  const Chart chart = make_chart(report, true);
  const SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, size.width, size.height));
  check(cairo_surface_status(surface.get()), "creating the image");
  {
    cairo_t* context = nullptr;
    const ContextPtr owner(context = cairo_create(surface.get()));
    const double chart_height = scores_height(chart);
    cairo_save(context);  // each layer starts from cairo's defaults, as in the SVG
    draw_chart(context, chart, size.width, chart_height);
    cairo_restore(context);
    for (std::size_t index = 0; index < chart.panels.size(); ++index) {
      const Panel& panel = chart.panels[index];
      cairo_save(context);
      cairo_translate(context, 0, panel_top(chart, index));
      cairo_save(context);
      draw_panel_axes(context, chart, panel);
      cairo_restore(context);
      for (const Line& line : panel.lines) {
        cairo_save(context);
        draw_line_series(context, chart, panel, line);
        cairo_restore(context);
      }
      for (const Line& line : panel.lines) {
        cairo_save(context);
        draw_line_marks(context, chart, panel, line);
        cairo_restore(context);
      }
      cairo_restore(context);
    }
    if (const std::optional<RatePlot> rate = make_rate_plot(report)) {
      cairo_save(context);
      cairo_translate(context, 0, chart_height);
      draw_rate_plot(context, *rate, size.width);
      cairo_restore(context);
    }
    check(cairo_status(context), "drawing the plot");
  }
  cairo_surface_flush(surface.get());
  std::string bytes;
  check(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &bytes), "writing PNG");
  return bytes;
}

}  // namespace vmafexact::report
