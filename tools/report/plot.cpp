// The plot (docs/report.md): a header, then one panel per score, stacked and
// sharing the frame axis, each with its own score axis, the series as a polyline
// and the pooled mean and 5 % low as marked lines. The same drawing code makes
// the PNG (one image surface) and the SVG (one cairo SVG document per layer,
// nested in a page that names each layer, so that a reader finds each score's
// series by its name).
#include <cairo-svg.h>
#include <cairo.h>
#include <pango/pangocairo.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "markup_text.h"
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

// Frame 0 at the left edge, the last frame at the right edge, ticks on whole frames.
Axis frame_axis(std::size_t frames) {
  const double last = frames > 1 ? static_cast<double>(frames - 1) : 1.0;
  return {0, last, std::max(1.0, nice_step(last, 8))};
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

// ---- The chart's model ----------------------------------------------------

struct Panel {
  std::string name;  // cleaned for drawing
  const std::vector<double>* values;
  Rgb colour;
  std::size_t finite = 0;  // frames with a value
  double mean = kUnknown;  // the pooled mean; NaN when not known
  double low = kUnknown;   // the 5 % low: low5_mean, else p5
  const char* low_label = "5 % low";
  bool pooled = false;  // whether the report had pooled figures for this score
  Axis y{};
};

struct Chart {
  std::string title;
  std::size_t frames = 0;  // the longest series
  Axis x{};
  std::vector<Panel> panels;

  double x_pixel(double frame) const {
    return kPlotLeft + (frame - x.low) / (x.high - x.low) * (kPlotRight - kPlotLeft);
  }
  static double y_pixel(const Panel& panel, double value) {
    const Axis& y = panel.y;
    return kPlotBottom - (value - y.low) / (y.high - y.low) * (kPlotBottom - kPlotTop);
  }
};

Chart make_chart(const Report& report) {
  Chart chart;
  chart.title = clean_text(report.title);
  for (const Series& series : report.series) {
    chart.frames = std::max(chart.frames, series.values.size());
  }
  chart.x = frame_axis(chart.frames);
  for (std::size_t index = 0; index < report.series.size(); ++index) {
    const Series& series = report.series[index];
    Panel panel{.name = clean_text(series.name),
                .values = &series.values,
                .colour = kPalette[index % kPalette.size()]};
    double low = INFINITY;
    double high = -INFINITY;
    for (const double value : series.values) {
      if (!std::isfinite(value)) continue;
      ++panel.finite;
      low = std::min(low, value);
      high = std::max(high, value);
    }
    const auto pooled =
        std::find_if(report.pooled.begin(), report.pooled.end(),
                     [&](const Pooled& entry) { return entry.name == series.name; });
    if (pooled != report.pooled.end()) {
      panel.pooled = true;
      panel.mean = pooled->mean;
      panel.low = pooled->low5_mean;
      if (std::isnan(panel.low)) {
        panel.low = pooled->p5;
        panel.low_label = "p5";
      }
      // The lines are drawn only where there is a series to read them against.
      for (double* line : {&panel.mean, &panel.low}) {
        if (!std::isfinite(*line) || panel.finite == 0) *line = kUnknown;
        if (std::isnan(*line)) continue;
        low = std::min(low, *line);
        high = std::max(high, *line);
      }
    }
    panel.y = value_axis(low, high);
    chart.panels.push_back(std::move(panel));
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

// The series as polylines, one per run of frames with values: every frame while
// there are no more frames than pixel columns, else per pixel column its first,
// lowest, highest and last value in frame order (what a line through every frame
// would cover at this size), a column without any value ending the polyline.
std::vector<std::vector<Point>> polylines(const Chart& chart, const Panel& panel) {
  const std::vector<double>& values = *panel.values;
  std::vector<std::vector<Point>> lines;
  std::vector<Point> line;
  const auto end_line = [&] {
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
  };
  const auto add = [&](std::size_t frame) {
    const Point point{snap(chart.x_pixel(static_cast<double>(frame))),
                      snap(Chart::y_pixel(panel, values[frame]))};
    if (line.empty() || !(point == line.back())) line.push_back(point);
  };
  if (chart.frames <= kColumns) {
    for (std::size_t frame = 0; frame < values.size(); ++frame) {
      if (std::isfinite(values[frame])) {
        add(frame);
      } else {
        end_line();
      }
    }
  } else {
    for (std::size_t column = 0; column < kColumns; ++column) {
      const std::size_t begin = column * chart.frames / kColumns;
      const std::size_t end = std::min((column + 1) * chart.frames / kColumns, values.size());
      std::array<std::size_t, 4> picked{};  // first, lowest, highest, last
      bool any = false;
      for (std::size_t frame = begin; frame < end; ++frame) {
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

// The whole chart's background, the title, the key of line styles and the frame
// axis' title (the panels are drawn over it).
void draw_chart(cairo_t* context, const Chart& chart, PlotSize size) {
  cairo_set_source_rgb(context, kBackground.red, kBackground.green, kBackground.blue);
  cairo_paint(context);
  TextPen pen(context);
  pen.draw(chart.title.empty() ? std::string("Scores per frame") : chart.title, 16, 20, {18, true},
           kInk, Align::left, size.width - 32);
  double x = kPlotLeft;
  x = draw_key(context, pen, x, 46, Stroke::series, kMuted, "score per frame");
  x = draw_key(context, pen, x, 46, Stroke::mean, kInk, "pooled mean");
  draw_key(context, pen, x, 46, Stroke::low, kInk,
           "5 % low: mean of the lowest 5 % (p5 where not known)");
  if (chart.frames > kColumns) {
    char note[96];
    std::snprintf(note, sizeof note, "%zu frames: each pixel column's lowest and highest values",
                  chart.frames);
    pen.draw(note, size.width - 16, 46, {12}, kMuted, Align::right);
  }
  const double footer_middle = size.height - kFooterHeight / 2;
  if (chart.panels.empty()) {
    pen.draw("no scores to plot", size.width / 2.0, kHeaderHeight + kPanelHeight / 2, {14}, kMuted,
             Align::centre);
  } else {
    pen.draw("frame", (kPlotLeft + kPlotRight) / 2, footer_middle, {13}, kInk, Align::centre);
  }
}

// A panel's heading, grid, axes and numbers.
void draw_panel_axes(cairo_t* context, const Chart& chart, const Panel& panel) {
  TextPen pen(context);
  constexpr double kNameWidth = (kPlotRight - kPlotLeft) / 2;
  double x =
      kPlotLeft +
      pen.draw(panel.name, kPlotLeft, 16, {14, true}, panel.colour, Align::left, kNameWidth) + 14;
  std::string summary;
  if (!std::isnan(panel.mean)) summary.append("mean ").append(format_number(panel.mean));
  if (!std::isnan(panel.low)) {
    if (!summary.empty()) summary.append("   ");
    summary.append(panel.low_label).append(" ").append(format_number(panel.low));
  }
  if (!summary.empty()) summary.append("   ");
  summary.append(std::to_string(panel.finite));
  if (panel.finite != panel.values->size()) {
    summary.append(" of ").append(std::to_string(panel.values->size()));
  }
  summary.append(panel.values->size() == 1 ? " frame" : " frames");
  if (!panel.pooled) summary.append("   (no pooled figures)");
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
  for (const double frame : x_ticks) {
    const double x_tick = crisp(chart.x_pixel(frame));
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
  for (const double frame : x_ticks) {
    pen.draw(tick_label(frame, chart.x.step), chart.x_pixel(frame), kPlotBottom + 12, {11}, kMuted,
             Align::centre);
  }
  if (panel.finite == 0) {
    pen.draw(panel.values->empty() ? "no frames" : "no values (every frame is NaN)",
             (kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2, {13}, kMuted,
             Align::centre);
  }
}

// The series: one stroke, so one <path> in the SVG.
void draw_panel_series(cairo_t* context, const Chart& chart, const Panel& panel) {
  const std::vector<std::vector<Point>> lines = polylines(chart, panel);
  if (lines.empty()) return;
  set_stroke(context, Stroke::series, panel.colour);
  for (const std::vector<Point>& line : lines) {
    cairo_move_to(context, line.front().x, line.front().y);
    if (line.size() == 1) cairo_line_to(context, line.front().x, line.front().y);  // a dot
    for (std::size_t at = 1; at < line.size(); ++at) cairo_line_to(context, line[at].x, line[at].y);
  }
  cairo_stroke(context);
}

// The pooled mean and the 5 % low across the plot, labelled at the right.
void draw_panel_marks(cairo_t* context, const Chart&, const Panel& panel) {
  struct Mark {
    double value;
    Stroke stroke;
    const char* label;
    double label_y = 0;
  };
  std::vector<Mark> marks;
  if (!std::isnan(panel.mean)) marks.push_back({panel.mean, Stroke::mean, "mean"});
  if (!std::isnan(panel.low)) marks.push_back({panel.low, Stroke::low, panel.low_label});
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
    set_stroke(context, mark.stroke, kInk);
    cairo_move_to(context, kPlotLeft, y);
    cairo_line_to(context, kPlotRight, y);
    cairo_stroke(context);
    pen.draw(mark.label, kPlotRight + 6, mark.label_y, {11}, kInk);
  }
}

// A panel's layers, bottom to top. In the SVG each is a cairo document of its
// own inside a group of this class, which is how a reader finds "the series".
struct PanelLayer {
  const char* svg_class;
  void (*draw)(cairo_t*, const Chart&, const Panel&);
};
constexpr PanelLayer kPanelLayers[] = {
    {"axes", draw_panel_axes},
    {"series", draw_panel_series},
    {"pooled", draw_panel_marks},
};

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

double panel_top(std::size_t index) {
  return kHeaderHeight + static_cast<double>(index) * kPanelHeight;
}

}  // namespace

PlotSize plot_size(const Report& report) {
  const std::size_t panels = std::max<std::size_t>(1, report.series.size());
  const double height = kHeaderHeight + static_cast<double>(panels) * kPanelHeight + kFooterHeight;
  // Past INT_MAX there is nothing to draw on anyway.
  return {kPlotWidth, static_cast<int>(std::min(height, 2e9))};
}

namespace detail {

std::string render_svg_element(const Report& report) {
  const Chart chart = make_chart(report);
  const PlotSize size = plot_size(report);
  const double width = size.width;
  std::string out;
  char root[320];
  std::snprintf(root, sizeof root,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" version=\"1.1\">\n",
                size.width, size.height, size.width, size.height);
  out.append(root);
  out.append("<title>").append(escape_markup(report.title)).append("</title>\n");
  int layer = 0;
  const auto nest = [&](double y, double height, const std::function<void(cairo_t*)>& draw) {
    const std::string prefix = "vx" + std::to_string(++layer) + "-";
    detail::append_nested_svg(out, svg_document(width, height, draw), prefix, 0, y, width, height);
  };
  out.append("<g class=\"chart\">");
  nest(0, size.height, [&](cairo_t* context) { draw_chart(context, chart, size); });
  out.append("</g>\n");
  for (std::size_t index = 0; index < chart.panels.size(); ++index) {
    const Panel& panel = chart.panels[index];
    const std::string name = escape_markup(report.series[index].name);
    const double top = panel_top(index);
    out.append("<g class=\"panel\" data-score=\"").append(name).append("\">\n");
    for (const PanelLayer& panel_layer : kPanelLayers) {
      out.append("<g class=\"").append(panel_layer.svg_class).append("\" data-score=\"");
      out.append(name).append("\">");
      // A tooltip in browsers.
      if (panel_layer.draw == draw_panel_series)
        out.append("<title>").append(name).append("</title>");
      nest(top, kPanelHeight, [&](cairo_t* context) { panel_layer.draw(context, chart, panel); });
      out.append("</g>\n");
    }
    out.append("</g>\n");
  }
  out.append("</svg>\n");
  return out;
}

}  // namespace detail

std::string render_svg(const Report& report) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + detail::render_svg_element(report);
}

std::string render_png(const Report& report) {
  const PlotSize size = plot_size(report);
  if (size.height > kMaxImageSide) {
    throw std::runtime_error("a PNG of " + std::to_string(report.series.size()) +
                             " scores would be " + std::to_string(size.height) +
                             " pixels high, more than cairo's " + std::to_string(kMaxImageSide) +
                             "; write an SVG, or plot fewer scores");
  }
  const Chart chart = make_chart(report);
  const SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, size.width, size.height));
  check(cairo_surface_status(surface.get()), "creating the image");
  {
    const ContextPtr context(cairo_create(surface.get()));
    cairo_save(context.get());  // each layer starts from cairo's defaults, as in the SVG
    draw_chart(context.get(), chart, size);
    cairo_restore(context.get());
    for (std::size_t index = 0; index < chart.panels.size(); ++index) {
      cairo_save(context.get());
      cairo_translate(context.get(), 0, panel_top(index));
      for (const PanelLayer& panel_layer : kPanelLayers) {
        cairo_save(context.get());
        panel_layer.draw(context.get(), chart, chart.panels[index]);
        cairo_restore(context.get());
      }
      cairo_restore(context.get());
    }
    check(cairo_status(context.get()), "drawing the plot");
  }
  cairo_surface_flush(surface.get());
  std::string bytes;
  check(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &bytes), "writing PNG");
  return bytes;
}

}  // namespace vmafexact::report
