// The plot and HTML report library (tools/report, docs/report.md): the SVG
// read back with libxml2 (one series group per score, gaps, the pooled lines),
// the PNG read back with cairo, atomic writes, escaping, a self-contained page,
// many frames, and the page rendered by headless Chromium.
#include <cairo.h>
#include <glib.h>
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../common/scratch_files.h"
#include "log_reader.h"
#include "report.h"

namespace {

namespace fs = std::filesystem;
using vmafexact::report::Encode;
using vmafexact::report::kUnknown;
using vmafexact::report::PlotFormat;
using vmafexact::report::Pooled;
using vmafexact::report::Report;
using vmafexact::report::ScoreKind;
using vmafexact::report::Series;

// ---- Helpers --------------------------------------------------------------

// A fresh folder of the test's own, and whole files (tests/common/scratch_files.h).
using vmafexact::test::read_file;
using vmafexact::test::ScratchFolder;

struct XmlDocFree {
  void operator()(xmlDoc* document) const { xmlFreeDoc(document); }
};
using XmlDocPtr = std::unique_ptr<xmlDoc, XmlDocFree>;

// Strict XML: no recovery, no network.
XmlDocPtr parse_xml(const std::string& text) {
  return XmlDocPtr(xmlReadMemory(text.data(), static_cast<int>(text.size()), "document.xml",
                                 nullptr,
                                 XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

// The nodes an XPath expression selects (svg:, xlink:, h: for XHTML).
std::vector<xmlNode*> select(xmlDoc* document, const std::string& expression,
                             xmlNode* from = nullptr) {
  const std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> context(
      xmlXPathNewContext(document), &xmlXPathFreeContext);
  xmlXPathRegisterNs(context.get(), BAD_CAST "svg", BAD_CAST "http://www.w3.org/2000/svg");
  xmlXPathRegisterNs(context.get(), BAD_CAST "xlink", BAD_CAST "http://www.w3.org/1999/xlink");
  xmlXPathRegisterNs(context.get(), BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
  if (from != nullptr) context->node = from;
  const std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> result(
      xmlXPathEvalExpression(BAD_CAST expression.c_str(), context.get()), &xmlXPathFreeObject);
  std::vector<xmlNode*> nodes;
  if (result == nullptr) throw std::runtime_error("bad XPath: " + expression);
  if (result->nodesetval != nullptr) {
    for (int index = 0; index < result->nodesetval->nodeNr; ++index) {
      nodes.push_back(result->nodesetval->nodeTab[index]);
    }
  }
  return nodes;
}

std::string attribute(xmlNode* node, const char* name) {
  const std::unique_ptr<xmlChar, decltype(xmlFree)> value(xmlGetProp(node, BAD_CAST name), xmlFree);
  return value ? reinterpret_cast<const char*>(value.get()) : "";
}

std::string text_of(xmlNode* node) {
  const std::unique_ptr<xmlChar, decltype(xmlFree)> value(xmlNodeGetContent(node), xmlFree);
  return value ? reinterpret_cast<const char*>(value.get()) : "";
}

// The text of the one node an XPath expression selects ("<none>" or "<several>",
// which no expectation matches, otherwise).
std::string only_text(xmlDoc* document, const std::string& expression, xmlNode* from = nullptr) {
  const std::vector<xmlNode*> nodes = select(document, expression, from);
  if (nodes.size() != 1) return nodes.empty() ? "<none>" : "<several>";
  return text_of(nodes[0]);
}

struct Point {
  double x, y;
};
// A path's d attribute as subpaths of points (M and L with absolute coordinates:
// what a polyline is).
std::vector<std::vector<Point>> subpaths(const std::string& d) {
  std::vector<std::vector<Point>> result;
  std::istringstream in(d);
  std::string token;
  std::vector<double> numbers;
  const auto flush = [&] {
    for (std::size_t at = 0; at + 1 < numbers.size(); at += 2) {
      result.back().push_back({numbers[at], numbers[at + 1]});
    }
    numbers.clear();
  };
  while (in >> token) {
    if (token == "M" || token == "L" || token == "Z") {
      if (!result.empty()) flush();
      if (token == "M") result.emplace_back();
      if (token == "Z") throw std::runtime_error("a series path is never closed");
    } else if (!result.empty()) {
      numbers.push_back(std::stod(token));
    } else {
      throw std::runtime_error("a path not starting with M: " + d.substr(0, 40));
    }
  }
  if (!result.empty()) flush();
  return result;
}

std::size_t point_count(const std::vector<std::vector<Point>>& lines) {
  std::size_t count = 0;
  for (const auto& line : lines) count += line.size();
  return count;
}

// The paths drawn in a group (glyph outlines live in <defs>, not drawn there).
std::vector<xmlNode*> drawn_paths(xmlDoc* document, xmlNode* group) {
  return select(document, ".//svg:path[not(ancestor::svg:defs)][@d != '']", group);
}

bool is_dashed(xmlNode* path) {
  return attribute(path, "style").find("stroke-dasharray") != std::string::npos ||
         !attribute(path, "stroke-dasharray").empty();
}

struct SeriesGroup {
  std::string name;
  std::vector<std::vector<Point>> lines;
  std::size_t paths;
};
// Every g.series of an SVG document, in order, with its polyline.
std::vector<SeriesGroup> series_groups(const std::string& svg) {
  const XmlDocPtr document = parse_xml(svg);
  if (!document) throw std::runtime_error("the SVG is not well-formed XML");
  std::vector<SeriesGroup> groups;
  for (xmlNode* group : select(document.get(), "//svg:g[@class='series']")) {
    const std::vector<xmlNode*> paths = drawn_paths(document.get(), group);
    groups.push_back({attribute(group, "data-score"),
                      paths.empty() ? std::vector<std::vector<Point>>{}
                                    : subpaths(attribute(paths.front(), "d")),
                      paths.size()});
  }
  return groups;
}

// A run of 48 frames as the element's summary would give it.
Report sample_report(std::size_t frames = 48) {
  Report report;
  report.encodes.resize(1);
  report.title = "ref.y4m vs dist.mp4";
  Series vmaf{"vmaf", {}};
  Series psnr{"psnr_y", {}};
  Series ssim{"float_ssim", {}};
  for (std::size_t frame = 0; frame < frames; ++frame) {
    const double phase = static_cast<double>(frame) * 0.37;
    vmaf.values.push_back(94 + 3 * std::sin(phase));
    psnr.values.push_back(38 + 2 * std::cos(phase));
    ssim.values.push_back(0.97 + 0.01 * std::sin(phase * 0.5));
  }
  report.encodes[0].series = {vmaf, psnr, ssim};
  report.encodes[0].pooled = {
      {"vmaf", 91.5, 97.5, 94.0, 93.9, 91.2, 91.4, 94.1, 91.3, 91.6},
      {"psnr_y", 36.0, 40.0, 38.0, 37.9, 36.1, 36.2, 38.0, 36.1, 36.3},
      {"float_ssim", 0.96, 0.98, 0.97, 0.97, 0.961, 0.962, 0.97, 0.961, 0.962},
  };
  report.provenance = {{"vmafexact", "0.1.0"}, {"model", "vmaf_v0.6.1"}};
  return report;
}

// ---- Formats --------------------------------------------------------------

TEST(Report, PlotFormatByExtension) {
  using vmafexact::report::plot_format_for;
  EXPECT_EQ(plot_format_for("plot.svg"), PlotFormat::svg);
  EXPECT_EQ(plot_format_for("out/Plot.SVG"), PlotFormat::svg);
  EXPECT_EQ(plot_format_for("a.b/plot.png"), PlotFormat::png);
  EXPECT_EQ(plot_format_for("plot.PnG"), PlotFormat::png);
  EXPECT_EQ(plot_format_for("plot.jpg"), std::nullopt);
  EXPECT_EQ(plot_format_for("plot"), std::nullopt);
  EXPECT_EQ(plot_format_for("svg"), std::nullopt);
  EXPECT_EQ(plot_format_for("plot.svg.gz"), std::nullopt);
  EXPECT_EQ(plot_format_for(""), std::nullopt);
}

// ---- SVG ------------------------------------------------------------------

TEST(Report, SvgHoldsOneSeriesPerScore) {
  const Report report = sample_report();
  const std::string svg = vmafexact::report::render_svg(report);
  const XmlDocPtr document = parse_xml(svg);
  ASSERT_TRUE(document) << "not well-formed XML";
  const xmlNode* root = xmlDocGetRootElement(document.get());
  EXPECT_STREQ(reinterpret_cast<const char*>(root->name), "svg");
  const auto size = vmafexact::report::plot_size(report);
  EXPECT_EQ(size.width, vmafexact::report::kPlotWidth);
  EXPECT_EQ(attribute(const_cast<xmlNode*>(root), "width"), std::to_string(size.width));
  EXPECT_EQ(attribute(const_cast<xmlNode*>(root), "height"), std::to_string(size.height));

  const std::vector<SeriesGroup> groups = series_groups(svg);
  ASSERT_EQ(groups.size(), 3U);
  for (std::size_t index = 0; index < groups.size(); ++index) {
    SCOPED_TRACE(groups[index].name);
    EXPECT_EQ(groups[index].name, report.encodes[0].series[index].name);
    EXPECT_EQ(groups[index].paths, 1U);  // one polyline
    ASSERT_EQ(groups[index].lines.size(), 1U);
    // From frame 0 to frame 47, frames left to right (cairo merges collinear
    // segments, so some frames may have no point of their own).
    const auto& line = groups[index].lines[0];
    EXPECT_GT(line.size(), 24U);
    EXPECT_LE(line.size(), 48U);
    EXPECT_EQ(line.front().x, groups[0].lines[0].front().x);
    EXPECT_EQ(line.back().x, groups[0].lines[0].back().x);
    for (std::size_t at = 1; at < line.size(); ++at) EXPECT_GT(line[at].x, line[at - 1].x);
  }
  EXPECT_GT(groups[0].lines[0].back().x - groups[0].lines[0].front().x, 900);  // the whole width
  // Glyph and clip ids stay unique across the nested documents.
  std::set<std::string> ids;
  for (xmlNode* node : select(document.get(), "//*[@id]")) {
    EXPECT_TRUE(ids.insert(attribute(node, "id")).second) << attribute(node, "id");
  }
  for (xmlNode* use : select(document.get(), "//svg:use")) {
    const std::unique_ptr<xmlChar, decltype(xmlFree)> href(
        xmlGetNsProp(use, BAD_CAST "href", BAD_CAST "http://www.w3.org/1999/xlink"), xmlFree);
    ASSERT_TRUE(href);
    const std::string target = reinterpret_cast<const char*>(href.get());
    ASSERT_TRUE(target.starts_with("#"));
    EXPECT_TRUE(ids.contains(target.substr(1))) << target;
  }
}

TEST(Report, SvgSeriesBreaksAtNanAndShowsLoneFrames) {
  Report report;
  report.encodes.resize(1);
  report.encodes[0].series = {
      {"vmaf", {90, 91, kUnknown, kUnknown, 92, 93, 94, kUnknown, 95}},
      {"psnr_y", {kUnknown, 30, 31, INFINITY, 32}},  // not finite: a gap too
      {"all_nan", {kUnknown, kUnknown}},
  };
  const std::vector<SeriesGroup> groups = series_groups(vmafexact::report::render_svg(report));
  ASSERT_EQ(groups.size(), 3U);
  ASSERT_EQ(groups[0].lines.size(), 3U);
  // Frames 0 and 1 (two points, nothing to merge) give the frame axis' scale.
  ASSERT_EQ(groups[0].lines[0].size(), 2U);
  const double x_of_0 = groups[0].lines[0][0].x;
  const double frame_width = groups[0].lines[0][1].x - x_of_0;
  ASSERT_GT(frame_width, 10);
  const auto frames = [&](const std::vector<Point>& line) {
    return std::pair{std::lround((line.front().x - x_of_0) / frame_width),
                     std::lround((line.back().x - x_of_0) / frame_width)};
  };
  EXPECT_EQ(frames(groups[0].lines[1]), std::pair(4L, 6L));
  // A lone frame: a zero-length line, which round caps draw as a dot.
  ASSERT_EQ(groups[0].lines[2].size(), 2U);
  EXPECT_EQ(frames(groups[0].lines[2]), std::pair(8L, 8L));
  EXPECT_EQ(groups[0].lines[2][0].y, groups[0].lines[2][1].y);
  ASSERT_EQ(groups[1].lines.size(), 2U);
  EXPECT_EQ(frames(groups[1].lines[0]), std::pair(1L, 2L));
  EXPECT_EQ(frames(groups[1].lines[1]), std::pair(4L, 4L));  // the lone 32: a dot
  EXPECT_EQ(groups[2].paths, 0U);                            // a group, with nothing to draw
}

TEST(Report, SvgOfOneFrameAndOfNone) {
  Report one;
  one.encodes.resize(1);
  one.encodes[0].series = {{"vmaf", {87.5}}};
  std::vector<SeriesGroup> groups = series_groups(vmafexact::report::render_svg(one));
  ASSERT_EQ(groups.size(), 1U);
  ASSERT_EQ(groups[0].lines.size(), 1U);
  EXPECT_EQ(groups[0].lines[0].size(), 2U);  // a dot

  // Zero frames: each score still has its (empty) panel and group.
  Report none;
  none.encodes.resize(1);
  none.encodes[0].series = {{"vmaf", {}}, {"psnr_y", {}}};
  groups = series_groups(vmafexact::report::render_svg(none));
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].paths, 0U);
  EXPECT_EQ(groups[1].paths, 0U);

  // No scores: a chart saying so.
  const Report empty;
  const std::string svg = vmafexact::report::render_svg(empty);
  EXPECT_TRUE(parse_xml(svg));
  EXPECT_TRUE(series_groups(svg).empty());
  EXPECT_GT(vmafexact::report::plot_size(empty).height, 0);
}

TEST(Report, SvgMarksPooledMeanAndFivePercentLow) {
  Report report;
  report.encodes.resize(1);
  Series ramp{"vmaf", {}};
  for (int frame = 0; frame < 100; ++frame) ramp.values.push_back(frame);
  report.encodes[0].series = {ramp, ramp, ramp};
  report.encodes[0].series[1].name = "p5_only";
  report.encodes[0].series[2].name = "none";
  report.encodes[0].pooled = {
      {.name = "vmaf", .mean = 49.5, .p5 = 4.0, .low5_mean = 2.0},
      {.name = "p5_only", .mean = 49.5, .p5 = 4.0},  // no low5_mean: p5 marks it
      {.name = "none"},                              // neither
  };
  const std::string svg = vmafexact::report::render_svg(report);
  const XmlDocPtr document = parse_xml(svg);
  ASSERT_TRUE(document);
  const std::vector<SeriesGroup> series = series_groups(svg);
  const std::vector<xmlNode*> pooled = select(document.get(), "//svg:g[@class='pooled']");
  ASSERT_EQ(series.size(), 3U);
  ASSERT_EQ(pooled.size(), 3U);
  const std::vector<double> expected_lows = {2.0, 4.0};
  for (std::size_t index = 0; index < 3; ++index) {
    SCOPED_TRACE(report.encodes[0].series[index].name);
    EXPECT_EQ(attribute(pooled[index], "data-score"), report.encodes[0].series[index].name);
    std::vector<double> line_ys;
    for (xmlNode* path : drawn_paths(document.get(), pooled[index])) {
      ASSERT_TRUE(is_dashed(path));
      const auto lines = subpaths(attribute(path, "d"));
      ASSERT_EQ(lines.size(), 1U);
      ASSERT_EQ(lines[0].size(), 2U);
      EXPECT_EQ(lines[0][0].y, lines[0][1].y);  // horizontal
      line_ys.push_back(lines[0][0].y);
    }
    if (index == 2) {
      EXPECT_TRUE(line_ys.empty());
      continue;
    }
    ASSERT_EQ(line_ys.size(), 2U);
    // Where the series is at 49.5 and at the low value (the ramp is linear).
    const auto& line = series[index].lines.at(0);
    const double y_at_0 = line.front().y;
    const double y_at_99 = line.back().y;
    const auto y_of = [&](double value) { return y_at_0 + (y_at_99 - y_at_0) * value / 99; };
    EXPECT_NEAR(line_ys[0], y_of(49.5), 0.5);
    EXPECT_NEAR(line_ys[1], y_of(expected_lows[index]), 0.5);
  }
}

TEST(Report, ManyFramesAreDecimatedPerPixelColumn) {
  constexpr std::size_t kFrames = 100000;
  Report report = sample_report(kFrames);
  std::mt19937 noise(7);
  std::uniform_real_distribution<double> jitter(-5, 5);
  for (double& value : report.encodes[0].series[0].values) value += jitter(noise);
  // A gap of 5,000 frames (many pixel columns) in psnr_y; lone NaN frames, each
  // narrower than a column, in float_ssim.
  for (std::size_t frame = 40000; frame < 45000; ++frame) report.encodes[0].series[1].values[frame] = kUnknown;
  for (std::size_t frame = 0; frame < kFrames; frame += 17) report.encodes[0].series[2].values[frame] = NAN;
  // The extremes must survive decimation.
  report.encodes[0].series[0].values[61234] = 0;
  report.encodes[0].series[0].values[61235] = 150;

  const auto started = std::chrono::steady_clock::now();
  const std::string svg = vmafexact::report::render_svg(report);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("[report] SVG of 3 x %zu frames: %zu bytes in %.2f s\n", kFrames, svg.size(),
              seconds);
  EXPECT_LT(svg.size(), 480U * 1024);  // with 240 hover cells per panel
  EXPECT_LT(seconds, 10.0);

  const std::vector<SeriesGroup> groups = series_groups(svg);
  ASSERT_EQ(groups.size(), 3U);
  for (const SeriesGroup& group : groups) {
    SCOPED_TRACE(group.name);
    // At most first, lowest, highest and last per pixel column.
    EXPECT_LE(point_count(group.lines), 4U * vmafexact::report::kPlotWidth);
    EXPECT_GT(point_count(group.lines), 500U);
  }
  ASSERT_EQ(groups[0].lines.size(), 1U);
  EXPECT_EQ(groups[1].lines.size(), 2U);
  EXPECT_EQ(groups[2].lines.size(), 1U);
  // The spike's two extremes are the lowest and highest points drawn.
  double top = INFINITY;
  double bottom = -INFINITY;
  for (const Point& point : groups[0].lines[0]) {
    top = std::min(top, point.y);
    bottom = std::max(bottom, point.y);
  }
  std::size_t at_top = 0;
  std::size_t at_bottom = 0;
  for (const Point& point : groups[0].lines[0]) {
    at_top += point.y == top;
    at_bottom += point.y == bottom;
  }
  EXPECT_EQ(at_top, 1U);
  EXPECT_EQ(at_bottom, 1U);

  const std::string html = vmafexact::report::render_html(report);
  EXPECT_LT(html.size(), 450U * 1024);
}

// ---- PNG ------------------------------------------------------------------

struct SurfaceFree {
  void operator()(cairo_surface_t* surface) const { cairo_surface_destroy(surface); }
};
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceFree>;

SurfacePtr read_png(const std::string& path) {
  SurfacePtr surface(cairo_image_surface_create_from_png(path.c_str()));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) return nullptr;
  return surface;
}

// Pixels within `tolerance` of an sRGB colour (each channel 0..255).
std::size_t count_pixels(cairo_surface_t* image, int red, int green, int blue, int tolerance) {
  cairo_surface_flush(image);
  const unsigned char* data = cairo_image_surface_get_data(image);
  const int stride = cairo_image_surface_get_stride(image);
  const cairo_format_t format = cairo_image_surface_get_format(image);
  std::size_t count = 0;
  for (int y = 0; y < cairo_image_surface_get_height(image); ++y) {
    const auto* row =
        reinterpret_cast<const std::uint32_t*>(data + static_cast<std::ptrdiff_t>(y) * stride);
    for (int x = 0; x < cairo_image_surface_get_width(image); ++x) {
      const std::uint32_t pixel = row[x];
      if (format == CAIRO_FORMAT_ARGB32 && (pixel >> 24) != 0xff) continue;
      const int r = static_cast<int>((pixel >> 16) & 0xff);
      const int g = static_cast<int>((pixel >> 8) & 0xff);
      const int b = static_cast<int>(pixel & 0xff);
      count += std::abs(r - red) <= tolerance && std::abs(g - green) <= tolerance &&
               std::abs(b - blue) <= tolerance;
    }
  }
  return count;
}

TEST(Report, PngHasThePlotSize) {
  const ScratchFolder folder{"vmafexact-report"};
  for (const std::size_t scores : {1U, 3U}) {
    Report report = sample_report();
    report.encodes[0].series.resize(scores);
    const std::string path = folder / ("plot" + std::to_string(scores) + ".PNG");
    vmafexact::report::write_plot(report, path);
    const SurfacePtr image = read_png(path);
    ASSERT_TRUE(image) << "not a PNG cairo reads";
    const auto size = vmafexact::report::plot_size(report);
    EXPECT_EQ(cairo_image_surface_get_width(image.get()), 1200);
    EXPECT_EQ(cairo_image_surface_get_width(image.get()), size.width);
    EXPECT_EQ(cairo_image_surface_get_height(image.get()), size.height);
    // The first series' colour (tab10 blue) is drawn, and mostly the background.
    EXPECT_GT(count_pixels(image.get(), 0x1f, 0x77, 0xb4, 16), 100U);
    EXPECT_GT(count_pixels(image.get(), 255, 255, 255, 0),
              static_cast<std::size_t>(size.width) * size.height / 2);
  }
  EXPECT_EQ(folder.entries(), (std::vector<std::string>{"plot1.PNG", "plot3.PNG"}));
}

TEST(Report, PngOfTooManyScoresIsRefusedAndSvgIsNot) {
  Report report;
  report.encodes.resize(1);
  for (int index = 0; index < 200; ++index) {
    report.encodes[0].series.push_back({std::string("s").append(std::to_string(index)), {1, 2}});
  }
  const ScratchFolder folder{"vmafexact-report"};
  try {
    vmafexact::report::write_plot(report, folder / "plot.png");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot write " + (folder / "plot.png").string()),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("write an SVG"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(folder.entries().empty());
  vmafexact::report::write_plot(report, folder / "plot.svg");
  EXPECT_EQ(series_groups(read_file(folder / "plot.svg")).size(), 200U);
}

// ---- Writing files --------------------------------------------------------

// Expects `write` to throw std::runtime_error with exactly `message`.
void expect_error(const std::function<void()>& write, const std::string& message) {
  try {
    write();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(Report, WriteErrorsNameTheFileAndTheCause) {
  const ScratchFolder folder{"vmafexact-report"};
  const Report report = sample_report();
  const std::string missing = folder / "no-such-folder/plot.svg";
  expect_error([&] { vmafexact::report::write_plot(report, missing); },
               "cannot write " + missing + ": No such file or directory");
  expect_error([&] { vmafexact::report::write_html(report, missing); },
               "cannot write " + missing + ": No such file or directory");
  const std::string jpeg = folder / "plot.jpg";
  expect_error([&] { vmafexact::report::write_plot(report, jpeg); },
               "cannot write " + jpeg + ": unknown plot format; name the file .svg or .png");
  // A folder where the file should go stays a folder.
  fs::create_directory(folder / "taken.html");
  expect_error([&] { vmafexact::report::write_html(report, folder / "taken.html"); },
               "cannot write " + (folder / "taken.html").string() + ": it is a folder");
  EXPECT_TRUE(fs::is_directory(folder / "taken.html"));
  expect_error([&] { vmafexact::report::write_html(report, ""); },
               "cannot write : empty file name");
  EXPECT_EQ(folder.entries(), std::vector<std::string>{"taken.html"});  // no temporary left
}

// A write that fails half-way (the file size limit) leaves the old file whole.
TEST(Report, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const ScratchFolder folder{"vmafexact-report"};
  const std::string svg_path = folder / "plot.svg";
  const std::string html_path = folder / "report.html";
  vmafexact::test::write_file(svg_path, "old plot");
  vmafexact::test::write_file(html_path, "old page");
  {
    rlimit saved{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 4096;                                     // each document is larger
    const auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of a signal
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const Report report = sample_report();
    expect_error([&] { vmafexact::report::write_plot(report, svg_path); },
                 "cannot write " + svg_path + ": File too large");
    expect_error([&] { vmafexact::report::write_html(report, html_path); },
                 "cannot write " + html_path + ": File too large");
    ::setrlimit(RLIMIT_FSIZE, &saved);
    ::signal(SIGXFSZ, previous_handler);
  }
  EXPECT_EQ(read_file(svg_path), "old plot");
  EXPECT_EQ(read_file(html_path), "old page");
  EXPECT_EQ(folder.entries(), (std::vector<std::string>{"plot.svg", "report.html"}));
}

TEST(Report, UnwritableFolderLeavesTheOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any folder (FailedWrite... covers it)";
  const ScratchFolder folder{"vmafexact-report"};
  const std::string path = folder / "plot.png";
  vmafexact::test::write_file(path, "old plot");
  fs::permissions(folder.path(), fs::perms::owner_read | fs::perms::owner_exec);
  expect_error([&] { vmafexact::report::write_plot(sample_report(), path); },
               "cannot write " + path + ": Permission denied");
  fs::permissions(folder.path(), fs::perms::owner_all);
  EXPECT_EQ(read_file(path), "old plot");
  EXPECT_EQ(folder.entries(), std::vector<std::string>{"plot.png"});
}

TEST(Report, ReplacedFileKeepsItsPermissions) {
  const ScratchFolder folder{"vmafexact-report"};
  const std::string path = folder / "report.html";
  vmafexact::test::write_file(path, "old page");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  vmafexact::report::write_html(sample_report(), path);
  EXPECT_NE(read_file(path), "old page");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  // A new file: 0666 less the umask, as any program's.
  const mode_t mask = ::umask(022);
  ::umask(mask);
  vmafexact::report::write_html(sample_report(), folder / "new.html");
  EXPECT_EQ(static_cast<mode_t>(fs::status(folder / "new.html").permissions() & fs::perms::all),
            0666 & ~mask);
}

// ---- HTML -----------------------------------------------------------------

Report hostile_report() {
  Report report = sample_report();
  report.title = R"(<script>alert("x")</script> & 'ref'.y4m)";
  report.encodes[0].series[1].name = R"(psnr<y>&"q")";
  report.encodes[0].pooled[1].name = report.encodes[0].series[1].name;
  report.encodes[0].pooled.push_back({.name = "<b>pooled only</b>", .mean = 1.5});
  report.provenance = {{"command", R"(vmafexact "a b.y4m" <c>&d)"},
                       {"note", "</td></tr></table><img src=\"http://example.com/x.png\"/>"}};
  return report;
}

TEST(Report, HtmlEscapesAllText) {
  const Report report = hostile_report();
  const std::string html = vmafexact::report::render_html(report);
  const XmlDocPtr document = parse_xml(html);  // polyglot: well-formed XML too
  ASSERT_TRUE(document) << "not well-formed";
  EXPECT_TRUE(select(document.get(), "//h:script | //h:img | //svg:script").empty());
  ASSERT_EQ(select(document.get(), "/h:html/h:head/h:title").size(), 1U);
  EXPECT_EQ(only_text(document.get(), "/h:html/h:head/h:title"), report.title);
  EXPECT_EQ(only_text(document.get(), "//h:h1"), report.title);
  // The title once: the plot inside the page has none of its own.
  EXPECT_EQ(only_text(document.get(), "//svg:svg[@id='scores-plot']/svg:title"), "Scores per frame");

  // Every score's pooled figures: three series, one pooled-only score.
  const auto rows = select(document.get(), "//h:table[@class='pooled']/h:tbody/h:tr");
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(only_text(document.get(), "h:th", rows[1]), report.encodes[0].series[1].name);
  EXPECT_EQ(only_text(document.get(), "h:th", rows[3]), "<b>pooled only</b>");
  const auto groups = select(document.get(), "//svg:g[@class='series']");
  ASSERT_EQ(groups.size(), 3U);
  EXPECT_EQ(attribute(groups[1], "data-score"), report.encodes[0].series[1].name);

  const auto provenance = select(document.get(), "//h:table[@class='provenance']//h:tr");
  ASSERT_EQ(provenance.size(), 2U);
  for (std::size_t index = 0; index < provenance.size(); ++index) {
    EXPECT_EQ(only_text(document.get(), "h:th", provenance[index]), report.provenance[index].first);
    EXPECT_EQ(only_text(document.get(), "h:td", provenance[index]),
              report.provenance[index].second);
  }
}

TEST(Report, HtmlSummaryNumbers) {
  Report report = sample_report();
  report.encodes[0].pooled[0] = {"vmaf",
                      91.591249495475509,
                      97.531053915176145,
                      96.527817198399092,
                      96.5206726590622,
                      kUnknown,
                      91.6,
                      96.9,
                      kUnknown,
                      92.25};
  const std::string html = vmafexact::report::render_html(report);
  const XmlDocPtr document = parse_xml(html);
  ASSERT_TRUE(document);
  const auto headings = select(document.get(), "//h:table[@class='pooled']/h:thead//h:th");
  std::vector<std::string> heading_texts;
  for (xmlNode* heading : headings) heading_texts.push_back(text_of(heading));
  EXPECT_EQ(heading_texts,
            (std::vector<std::string>{"score", "frames", "min", "max", "mean", "harmonic mean",
                                      "p1", "p5", "p50", "1 % low", "5 % low"}));
  const auto cells = select(document.get(), "//h:table[@class='pooled']/h:tbody/h:tr[1]/h:td");
  std::vector<std::string> texts;
  for (xmlNode* cell : cells) texts.push_back(text_of(cell));
  EXPECT_EQ(texts,
            (std::vector<std::string>{"48", "91.5912", "97.5311", "96.5278", "96.5207",
                                      "\xE2\x80\x94", "91.6", "96.9", "\xE2\x80\x94", "92.25"}));
}

TEST(Report, HtmlLoadsNothingFromElsewhere) {
  const std::string html = vmafexact::report::render_html(hostile_report());
  const XmlDocPtr document = parse_xml(html);
  ASSERT_TRUE(document);
  // Every reference stays inside the page.
  const auto references = select(document.get(), "//@href | //@src | //@xlink:href | //@action");
  EXPECT_FALSE(references.empty());  // the glyphs' <use>
  for (xmlNode* reference : references) {
    const std::string value = text_of(reference);
    EXPECT_TRUE(value.starts_with("#") || value.starts_with("data:")) << value;
  }
  EXPECT_TRUE(select(document.get(), "//h:link | //h:iframe | //h:object | //h:embed").empty());
  for (xmlNode* node : select(document.get(), "//@style | //h:style")) {
    EXPECT_EQ(text_of(node).find("url(http"), std::string::npos);
    EXPECT_EQ(text_of(node).find("@import"), std::string::npos);
  }
  const auto policy =
      select(document.get(), "//h:meta[@http-equiv='Content-Security-Policy']/@content");
  ASSERT_EQ(policy.size(), 1U);
  EXPECT_TRUE(text_of(policy[0]).starts_with("default-src 'none'"));
}

TEST(Report, BadBytesInNamesStillMakeWellFormedDocuments) {
  Report report = sample_report();
  report.title = std::string("bad \xff\xfe bytes, a NUL \0 and a bell \a", 34);
  report.encodes[0].series[0].name = "vmaf\x01\x1b[31m";
  report.encodes[0].pooled[0].name = report.encodes[0].series[0].name;
  const std::string html = vmafexact::report::render_html(report);
  const XmlDocPtr document = parse_xml(html);
  ASSERT_TRUE(document);
  EXPECT_EQ(only_text(document.get(), "//h:h1"),
            "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes, a NUL \xEF\xBF\xBD and a bell \xEF\xBF\xBD");
  EXPECT_TRUE(parse_xml(vmafexact::report::render_svg(report)));
  EXPECT_FALSE(vmafexact::report::render_png(report).empty());
}

// ---- Headless Chromium ----------------------------------------------------

std::string find_chromium() {
  if (const char* named = std::getenv("VMAFEXACT_CHROMIUM"); named != nullptr && *named != '\0') {
    return named;
  }
  for (const char* name : {"chromium", "chromium-browser"}) {
    const std::unique_ptr<gchar, decltype(&g_free)> path(g_find_program_in_path(name), &g_free);
    if (path) return path.get();
  }
  return {};
}

// The page as a browser draws it: a screenshot by headless Chromium, with every
// network request refused (a proxy that does not exist, no name resolution).
TEST(Report, HtmlRendersInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium, which "
                    "scripts/install-deps.sh does); the page was not rendered";
  }
  const ScratchFolder folder{"vmafexact-report"};
  const std::string page = folder / "report.html";
  const std::string screenshot = folder / "screenshot.png";
  vmafexact::report::write_html(sample_report(), page);
  std::vector<std::string> arguments = {"timeout",
                                        "60",
                                        chromium,
                                        "--headless",
                                        "--no-sandbox",
                                        "--disable-gpu",
                                        "--disable-dev-shm-usage",
                                        "--no-first-run",
                                        "--hide-scrollbars",
                                        "--force-device-scale-factor=1",
                                        "--user-data-dir=" + (folder / "profile").string(),
                                        "--proxy-server=http://127.0.0.1:9",
                                        "--proxy-bypass-list=<-loopback>",
                                        "--host-resolver-rules=MAP * ~NOTFOUND",
                                        "--screenshot=" + screenshot,
                                        "--window-size=1280,2000",
                                        "file://" + page};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  gchar* output = nullptr;
  gchar* errors = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  const auto started = std::chrono::steady_clock::now();
  const bool spawned = g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_SEARCH_PATH, nullptr,
                                    nullptr, &output, &errors, &wait_status, &error);
  const std::unique_ptr<gchar, decltype(&g_free)> output_owner(output, &g_free);
  const std::unique_ptr<gchar, decltype(&g_free)> errors_owner(errors, &g_free);
  ASSERT_TRUE(spawned) << (error != nullptr ? error->message : "");
  std::printf("[report] chromium screenshot in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  ASSERT_TRUE(g_spawn_check_wait_status(wait_status, nullptr))
      << "chromium failed: " << (errors != nullptr ? errors : "");

  const SurfacePtr image = read_png(screenshot);
  ASSERT_TRUE(image) << "no screenshot; chromium said: " << (errors != nullptr ? errors : "");
  EXPECT_EQ(cairo_image_surface_get_width(image.get()), 1280);
  EXPECT_EQ(cairo_image_surface_get_height(image.get()), 2000);
  const std::size_t pixels = 1280U * 2000U;
  const std::size_t background = count_pixels(image.get(), 255, 255, 255, 0);
  EXPECT_LT(background, pixels * 99 / 100) << "a blank page";
  EXPECT_GT(background, pixels / 2);
  // The inline SVG was drawn: the three series' colours are there.
  EXPECT_GT(count_pixels(image.get(), 0x1f, 0x77, 0xb4, 24), 50U);
  EXPECT_GT(count_pixels(image.get(), 0xff, 0x7f, 0x0e, 24), 50U);
  EXPECT_GT(count_pixels(image.get(), 0x2c, 0xa0, 0x2c, 24), 50U);
}

}  // namespace

// ---- Several encodes, the page that leads with the answer -----------------

namespace several {

struct WorstFrameCheck {
  std::string time, frame;
};

using vmafexact::report::Thumbnail;
using vmafexact::report::WorstFrame;

// A small picture as PNG bytes, of one colour, drawn with cairo.
Thumbnail solid_png(int width, int height, double red, double green, double blue) {
  const SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height));
  cairo_t* context = cairo_create(surface.get());
  cairo_set_source_rgb(context, red, green, blue);
  cairo_paint(context);
  cairo_destroy(context);
  std::string bytes;
  cairo_surface_write_to_png_stream(
      surface.get(),
      [](void* closure, const unsigned char* data, unsigned int length) {
        static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
        return CAIRO_STATUS_SUCCESS;
      },
      &bytes);
  return {bytes, width, height};
}

// Two encodes of 3 s at 25 fps: vmaf (a model) between 50 and 75, psnr_y (asked
// for) and integer_adm2 (a model input), with worst frames and thumbnails.
Report two_encodes(std::size_t frames = 75) {
  Report report;
  report.title = "ref vs crf23, crf35";
  report.reference_path = "ref.mp4";
  report.reference_size_bytes = 2e6;
  report.reference_duration_s = 3;
  report.reference_bitrate_bps = 2e6 * 8 / 3;
  report.reference_codec = "H.264 (High Profile)";
  report.date = "2026-12-06T10:00:00Z";
  report.command_line = "vmafexact ref.mp4 crf23.mp4 crf35.mp4 --html page.html";
  report.scaler = "none (same size)";
  report.provenance = {{"vmafexact-version", "0.1.0"}, {"models", "vmaf=vmaf_v0.6.1"}};
  for (const auto& [name, offset, bitrate] :
       {std::tuple{"crf23", 20.0, 1.5e6}, std::tuple{"crf35", 0.0, 0.4e6}}) {
    Encode encode;
    encode.name = name;
    encode.path = std::string(name) + ".mp4";
    encode.size_bytes = bitrate * 3 / 8;
    encode.duration_s = 3;
    encode.bitrate_bps = bitrate;
    encode.codec = "H.264";
    encode.frame_rate = 25;
    Series vmaf{"vmaf", {}, ScoreKind::model};
    Series psnr{"psnr_y", {}, ScoreKind::feature};
    Series adm{"integer_adm2", {}, ScoreKind::internal};
    for (std::size_t frame = 0; frame < frames; ++frame) {
      const double phase = static_cast<double>(frame) * 0.3;
      vmaf.values.push_back(50 + offset / 4 + 5 * (1 + std::sin(phase)));
      psnr.values.push_back(30 + offset / 5 + std::cos(phase));
      adm.values.push_back(0.9 + 0.01 * std::sin(phase));
    }
    encode.pooled = {{"vmaf", 50, 75, 55 + offset / 4, 54 + offset / 4, 50, 50.5, 55, 50.2, 50.6},
                     {"psnr_y", 29, 35, 30 + offset / 5, 30, 29, 29, 30, 29, 29},
                     {"integer_adm2", 0.89, 0.91, 0.9, 0.9, 0.89, 0.89, 0.9, 0.89, 0.89}};
    encode.worst_score = "vmaf";
    encode.worst_frames =
        vmafexact::report::select_worst_frames(vmaf, encode.frame_rate, 3);
    for (WorstFrame& worst : encode.worst_frames) {
      worst.reference = solid_png(160, 90, 0.2, 0.6, 0.2);
      worst.distorted = solid_png(160, 90, 0.6, 0.2, 0.2);
    }
    encode.series = {vmaf, psnr, adm};
    report.encodes.push_back(std::move(encode));
  }
  return report;
}

std::vector<xmlNode*> panels(xmlDoc* document) {
  return select(document, "//svg:g[@class='panel']");
}

}  // namespace several

TEST(ReportTime, FormatsMinutesSecondsHundredths) {
  using vmafexact::report::format_time;
  EXPECT_EQ(format_time(0), "00:00.00");
  EXPECT_EQ(format_time(1.0 / 25 * 30), "00:01.20");
  EXPECT_EQ(format_time(61.005), "01:01.01");  // 6100.5 hundredths round up
  EXPECT_EQ(format_time(59.999), "01:00.00");  // rounded once, carried
  EXPECT_EQ(format_time(599.5), "09:59.50");
  EXPECT_EQ(format_time(3725.5), "1:02:05.50");
  EXPECT_EQ(format_time(kUnknown), "\xE2\x80\x94");
  EXPECT_EQ(format_time(-1), "\xE2\x80\x94");
  EXPECT_EQ(format_time(INFINITY), "\xE2\x80\x94");
}

TEST(ReportSelection, DefaultPlotsModelsAndFeaturesAskedFor) {
  Report report = several::two_encodes();
  EXPECT_EQ(vmafexact::report::plotted_scores(report),
            (std::vector<std::string>{"vmaf", "psnr_y"}));
  report.plot_scores = {"all"};
  EXPECT_EQ(vmafexact::report::plotted_scores(report),
            (std::vector<std::string>{"vmaf", "psnr_y", "integer_adm2"}));
  report.plot_scores = {"integer_adm2", "nope", "vmaf", "vmaf"};
  EXPECT_EQ(vmafexact::report::plotted_scores(report),
            (std::vector<std::string>{"integer_adm2", "vmaf"}));
  EXPECT_EQ(vmafexact::report::unknown_plot_scores(report), (std::vector<std::string>{"nope"}));

  // The SVG follows the selection: one panel per plotted score.
  report.plot_scores = {};
  XmlDocPtr document = parse_xml(vmafexact::report::render_svg(report));
  ASSERT_TRUE(document);
  std::vector<std::string> names;
  for (xmlNode* panel : several::panels(document.get())) names.push_back(attribute(panel, "data-score"));
  EXPECT_EQ(names, (std::vector<std::string>{"vmaf", "psnr_y"}));
}

TEST(ReportSelection, ScoresClassifiedFromALogsNames) {
  using vmafexact::report::classify_score;
  const std::vector<std::string> models = {"vmaf", "vmaf_neg"};
  EXPECT_EQ(classify_score("vmaf", models), ScoreKind::model);
  EXPECT_EQ(classify_score("vmaf_neg", models), ScoreKind::model);
  EXPECT_EQ(classify_score("integer_adm2", models), ScoreKind::internal);
  EXPECT_EQ(classify_score("integer_vif_scale0", models), ScoreKind::internal);
  EXPECT_EQ(classify_score("VMAF_integer_feature_motion_sad_score", models), ScoreKind::internal);
  EXPECT_EQ(classify_score("integer_motion2", models), ScoreKind::internal);
  EXPECT_EQ(classify_score("psnr_y", models), ScoreKind::feature);
  EXPECT_EQ(classify_score("float_ssim", models), ScoreKind::feature);
}

TEST(ReportSelection, WorstFramesAreTheLowestValuesInOrder) {
  Series series{"vmaf", {80, kUnknown, 40, 95, 40, 10, 60}, ScoreKind::model};
  const auto worst = vmafexact::report::select_worst_frames(series, 25, 3);
  ASSERT_EQ(worst.size(), 3U);
  EXPECT_EQ(worst[0].frame, 5U);
  EXPECT_EQ(worst[0].score, 10);
  EXPECT_EQ(worst[1].frame, 2U);  // ties by frame number
  EXPECT_EQ(worst[2].frame, 4U);
  EXPECT_DOUBLE_EQ(worst[0].time_s, 0.2);
  EXPECT_EQ(vmafexact::report::select_worst_frames(series, 25, 100).size(), 6U);  // NaN never
  EXPECT_TRUE(vmafexact::report::select_worst_frames(series, 25, 0).empty());
}

TEST(ReportPlot, ModelScoreAxisIsFixedAndTimeAxisInMinutesSeconds) {
  const Report report = several::two_encodes();
  const XmlDocPtr document = parse_xml(vmafexact::report::render_svg(report));
  ASSERT_TRUE(document);
  const auto panels = several::panels(document.get());
  ASSERT_EQ(panels.size(), 2U);
  // vmaf's values lie in 50-75, its axis still 0-100; psnr_y's follows its values.
  EXPECT_EQ(attribute(panels[0], "data-y-low"), "0");
  EXPECT_EQ(attribute(panels[0], "data-y-high"), "100");
  EXPECT_NE(attribute(panels[1], "data-y-low"), "0");
  // 3 s at 25 fps: ticks every half second, as mm:ss.ff.
  EXPECT_EQ(attribute(panels[0], "data-x-ticks"),
            "00:00.00 00:00.50 00:01.00 00:01.50 00:02.00 00:02.50");
  EXPECT_EQ(only_text(document.get(), "//svg:g[@class='chart']/@data-x-unit"), "time");
  // Hovering names the time and the frame number, and each encode's value.
  const auto cells = select(document.get(), "svg:g[@class='hover']/svg:rect", panels[0]);
  ASSERT_EQ(cells.size(), 75U);
  const std::string title = only_text(document.get(), "svg:title", cells[30]);
  EXPECT_TRUE(title.starts_with("00:01.20 frame 30\ncrf23: ")) << title;
  EXPECT_NE(title.find("\ncrf35: "), std::string::npos) << title;

  // Without a frame rate the axis counts frames.
  Report frames_only = report;
  frames_only.encodes[1].frame_rate = kUnknown;
  const XmlDocPtr frames_document = parse_xml(vmafexact::report::render_svg(frames_only));
  EXPECT_EQ(only_text(frames_document.get(), "//svg:g[@class='chart']/@data-x-unit"), "frame");

  // A model score beyond 0-100 widens the axis rather than leaving the plot.
  Report wide = report;
  wide.encodes[0].series[0].values[3] = 104;
  const XmlDocPtr wide_document = parse_xml(vmafexact::report::render_svg(wide));
  EXPECT_EQ(attribute(several::panels(wide_document.get())[0], "data-y-high"), "120");
}

TEST(ReportPlot, SeveralEncodesOverlaidInOnePanelPerScore) {
  const Report report = several::two_encodes();
  const std::string svg = vmafexact::report::render_svg(report);
  const std::vector<SeriesGroup> groups = series_groups(svg);
  ASSERT_EQ(groups.size(), 4U);  // vmaf x 2, psnr_y x 2
  const XmlDocPtr document = parse_xml(svg);
  const auto vmaf = select(document.get(), "//svg:g[@class='panel'][@data-score='vmaf']"
                                           "/svg:g[@class='series']");
  ASSERT_EQ(vmaf.size(), 2U);
  EXPECT_EQ(attribute(vmaf[0], "data-encode"), "crf23");
  EXPECT_EQ(attribute(vmaf[1], "data-encode"), "crf35");
  for (const SeriesGroup& group : groups) {
    ASSERT_EQ(group.lines.size(), 1U);
    // Both encodes span the same time: from the left edge to the right edge.
    EXPECT_NEAR(group.lines[0].front().x, 80, 0.5);
    EXPECT_NEAR(group.lines[0].back().x, 1100, 0.5);
  }
  // crf23 (20 points better) is drawn higher (smaller y) than crf35 at frame 0.
  EXPECT_LT(groups[0].lines[0].front().y, groups[1].lines[0].front().y);
  // The PNG draws the same and has the same size.
  EXPECT_FALSE(vmafexact::report::render_png(report).empty());
}

TEST(ReportPlot, RateQualityChartWithTwoOrMoreEncodes) {
  Report report = several::two_encodes();
  const XmlDocPtr document = parse_xml(vmafexact::report::render_svg(report));
  EXPECT_EQ(select(document.get(), "//svg:g[@class='rate-quality']").size(), 1U);
  const int with_chart = vmafexact::report::plot_size(report).height;
  report.encodes.pop_back();
  const XmlDocPtr one = parse_xml(vmafexact::report::render_svg(report));
  EXPECT_TRUE(select(one.get(), "//svg:g[@class='rate-quality']").empty());
  EXPECT_LT(vmafexact::report::plot_size(report).height, with_chart);
}

TEST(ReportPage, SummaryFirstWithOneRowPerEncode) {
  const Report report = several::two_encodes();
  const std::string html = vmafexact::report::render_html(report);
  const XmlDocPtr document = parse_xml(html);
  ASSERT_TRUE(document);
  // The title once: <title> and <h1>, no plot title in the page.
  EXPECT_EQ(select(document.get(), "//h:h1").size(), 1U);
  EXPECT_EQ(html.find(report.title, html.find("</h1>")), std::string::npos);
  // The summary table comes before any plot.
  EXPECT_LT(html.find("<table class=\"summary\""), html.find("<svg"));
  const auto headings = select(document.get(), "//h:table[@class='summary']/h:thead//h:th");
  std::vector<std::string> heading_texts;
  for (xmlNode* heading : headings) heading_texts.push_back(text_of(heading));
  EXPECT_EQ(heading_texts,
            (std::vector<std::string>{"encode", "size", "bitrate", "duration", "vmaf mean",
                                      "vmaf harmonic mean", "vmaf 1 % low", "vmaf min",
                                      "PSNR Y mean (dB)"}));
  const auto rows = select(document.get(), "//h:table[@class='summary']/h:tbody/h:tr");
  ASSERT_EQ(rows.size(), 2U);
  std::vector<std::string> cells;
  for (xmlNode* cell : select(document.get(), "h:th | h:td", rows[0])) cells.push_back(text_of(cell));
  EXPECT_EQ(cells, (std::vector<std::string>{"crf23", "562.5 kB", "1.500 Mbit/s", "00:03.00",
                                             "60", "59", "50.2", "50", "34"}));
  // The rate-quality chart is there with two encodes.
  EXPECT_EQ(select(document.get(), "//svg:svg[@id='rate-quality-plot']").size(), 1U);
  // The provenance: date, command line, scaler, each input.
  const std::string provenance = text_of(select(document.get(), "//h:table[@class='provenance']")[0]);
  EXPECT_NE(provenance.find("2026-12-06T10:00:00Z"), std::string::npos);
  EXPECT_NE(provenance.find("vmafexact ref.mp4 crf23.mp4"), std::string::npos);
  EXPECT_NE(provenance.find("none (same size)"), std::string::npos);
  EXPECT_EQ(select(document.get(), "//h:table[@class='inputs']/h:tbody/h:tr").size(), 3U);
}

TEST(ReportPage, WorstFramesWithTheirPictures) {
  const Report report = several::two_encodes();
  const XmlDocPtr document = parse_xml(vmafexact::report::render_html(report));
  ASSERT_TRUE(document);
  const auto tables = select(document.get(), "//h:table[@class='worst']");
  ASSERT_EQ(tables.size(), 2U);
  const auto rows = select(document.get(), "h:tbody/h:tr", tables[0]);
  ASSERT_EQ(rows.size(), 3U);
  // The lowest first: its time, frame and score, then two pictures.
  const several::WorstFrameCheck first{text_of(select(document.get(), "h:td", rows[0])[0]),
                              text_of(select(document.get(), "h:td", rows[0])[1])};
  const auto& worst = report.encodes[0].worst_frames[0];
  EXPECT_EQ(first.time, vmafexact::report::format_time(worst.time_s));
  EXPECT_EQ(first.frame, std::to_string(worst.frame));
  const auto images = select(document.get(), "h:td/h:img", rows[0]);
  ASSERT_EQ(images.size(), 2U);
  for (xmlNode* image : images) {
    const std::string source = attribute(image, "src");
    ASSERT_TRUE(source.starts_with("data:image/png;base64,"));
    gsize length = 0;
    const std::unique_ptr<guchar, decltype(&g_free)> bytes(
        g_base64_decode(source.c_str() + 22, &length), &g_free);
    ASSERT_GT(length, 8U);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.get()), 8), "\x89PNG\r\n\x1a\n");
  }
  // Built from logs: no pictures, and the page says why.
  Report from_logs = report;
  for (auto& encode : from_logs.encodes) {
    for (auto& frame : encode.worst_frames) frame.reference = frame.distorted = {};
  }
  from_logs.thumbnails_note = "no pictures from logs";
  const std::string html = vmafexact::report::render_html(from_logs);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("no pictures from logs"), std::string::npos);
}

// Headless Chromium with every network request refused (a proxy that does not
// exist, no name resolution); `arguments` after the common ones. Returns its
// standard output; fails the test when it does not run.
std::string run_chromium(const std::string& chromium, const ScratchFolder& folder,
                         std::vector<std::string> extra) {
  std::vector<std::string> arguments = {"timeout",
                                        "60",
                                        chromium,
                                        "--headless",
                                        "--no-sandbox",
                                        "--disable-gpu",
                                        "--disable-dev-shm-usage",
                                        "--no-first-run",
                                        "--force-device-scale-factor=1",
                                        "--user-data-dir=" + (folder / "profile").string(),
                                        "--proxy-server=http://127.0.0.1:9",
                                        "--proxy-bypass-list=<-loopback>",
                                        "--host-resolver-rules=MAP * ~NOTFOUND"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  gchar* output = nullptr;
  gchar* errors = nullptr;
  gint wait_status = 0;
  GError* error = nullptr;
  const bool spawned = g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_SEARCH_PATH, nullptr,
                                    nullptr, &output, &errors, &wait_status, &error);
  const std::unique_ptr<gchar, decltype(&g_free)> output_owner(output, &g_free);
  const std::unique_ptr<gchar, decltype(&g_free)> errors_owner(errors, &g_free);
  if (!spawned) {
    ADD_FAILURE() << (error != nullptr ? error->message : "");
    return {};
  }
  EXPECT_TRUE(g_spawn_check_wait_status(wait_status, nullptr))
      << "chromium failed: " << (errors != nullptr ? errors : "");
  return output != nullptr ? output : "";
}

// What the page looks like in a browser, asked of the browser's DOM: a script
// added to a copy of the page (its policy widened only for that inline script;
// everything else stays refused) writes its findings into the DOM, which
// --dump-dom prints. A `securitypolicyviolation` listener, installed first,
// counts every fetch the page would make.
constexpr const char* kProbeHead = R"(<script>
window.vxViolations = [];
document.addEventListener('securitypolicyviolation', e => window.vxViolations.push(e.blockedURI));
</script>)";
constexpr const char* kProbeBody = R"(<script>
window.addEventListener('load', () => {
  // Synchronous: the load event comes after every image (data: URIs) has
  // loaded, and an await here (img.decode()) could outlast the virtual time
  // budget, leaving --dump-dom without the probe (seen once under ASan in CI).
  const images = [...document.querySelectorAll('table.worst img')];
  const summary = document.querySelector('table.summary');
  const firstPlot = document.querySelector('svg');
  const vmaf = document.querySelector('svg g.panel[data-score="vmaf"]');
  const rate = document.querySelector('svg#rate-quality-plot');
  const found = {
    summaryAbovePlot: summary.getBoundingClientRect().bottom <= firstPlot.getBoundingClientRect().top,
    summaryRows: summary.tBodies[0].rows.length,
    images: images.length,
    imagesDecoded: images.filter(i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0).length,
    timeTicks: vmaf ? vmaf.getAttribute('data-x-ticks') : '',
    vmafAxis: vmaf ? vmaf.getAttribute('data-y-low') + '-' + vmaf.getAttribute('data-y-high') : '',
    vmafSeries: vmaf ? vmaf.querySelectorAll('g.series').length : 0,
    vmafDrawnHeight: vmaf ? Math.round(vmaf.getBoundingClientRect().height) : 0,
    rateChartHeight: rate ? Math.round(rate.getBoundingClientRect().height) : 0,
    h1: document.querySelectorAll('h1').length,
    resources: performance.getEntriesByType('resource').map(r => r.name),
    violations: window.vxViolations,
  };
  const out = document.createElement('pre');
  out.id = 'vx-probe';
  out.textContent = 'VXPROBE' + JSON.stringify(found) + 'VXEND';
  document.body.appendChild(out);
});
</script>)";

std::string probe_value(const std::string& dom, const std::string& key) {
  // The <pre> the probe wrote (its script's text names the markers too).
  const std::string opening = "<pre id=\"vx-probe\">VXPROBE";
  const std::size_t begin = dom.find(opening);
  const std::size_t end = dom.find("VXEND", begin);
  if (begin == std::string::npos || end == std::string::npos) return "<no probe>";
  const std::string json = dom.substr(begin + opening.size(), end - begin - opening.size());
  const std::string marker = "\"" + key + "\":";
  const std::size_t at = json.find(marker);
  if (at == std::string::npos) return "<no " + key + ">";
  std::size_t stop = at + marker.size();
  int depth = 0;
  bool in_string = false;
  for (; stop < json.size(); ++stop) {
    const char c = json[stop];
    if (in_string) {
      if (c == '\\') ++stop;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') ++depth;
    else if (c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    } else if (c == ',' && depth == 0) break;
  }
  return json.substr(at + marker.size(), stop - at - marker.size());
}

TEST(ReportPage, SeveralEncodesInHeadlessChromiumWithoutNetwork) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium, which "
                    "scripts/install-deps.sh does); the page was not rendered";
  }
  const ScratchFolder folder{"vmafexact-report"};
  std::string html = vmafexact::report::render_html(several::two_encodes());
  // The probe: only inline scripts are let in besides what the page allows.
  const std::string policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";
  const std::size_t policy_at = html.find(policy);
  ASSERT_NE(policy_at, std::string::npos);
  html.replace(policy_at, policy.size(), policy + "; script-src 'unsafe-inline'");
  html.insert(html.find("<meta charset=\"utf-8\"/>") + 23, kProbeHead);
  html.insert(html.rfind("</body>"), kProbeBody);
  const std::string page = folder / "report.html";
  std::ofstream(page) << html;
  const auto started = std::chrono::steady_clock::now();
  const std::string dom = run_chromium(chromium, folder,
                                       {"--window-size=1280,2000", "--virtual-time-budget=5000",
                                        "--dump-dom", "file://" + page});
  std::printf("[report] chromium DOM in %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  ASSERT_NE(dom.find("<pre id=\"vx-probe\">"), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(probe_value(dom, "summaryAbovePlot"), "true");
  EXPECT_EQ(probe_value(dom, "summaryRows"), "2");
  EXPECT_EQ(probe_value(dom, "images"), "12");  // 3 worst frames x 2 pictures x 2 encodes
  EXPECT_EQ(probe_value(dom, "imagesDecoded"), "12");
  EXPECT_NE(probe_value(dom, "timeTicks").find("00:01.00"), std::string::npos);
  EXPECT_EQ(probe_value(dom, "vmafAxis"), "\"0-100\"");
  EXPECT_EQ(probe_value(dom, "vmafSeries"), "2");
  EXPECT_GT(std::atoi(probe_value(dom, "vmafDrawnHeight").c_str()), 100);
  EXPECT_GT(std::atoi(probe_value(dom, "rateChartHeight").c_str()), 100);
  EXPECT_EQ(probe_value(dom, "h1"), "1");
  EXPECT_EQ(probe_value(dom, "resources"), "[]");
  EXPECT_EQ(probe_value(dom, "violations"), "[]");
}

// ---- Logs read back (vmafexact report) --------------------------------------

std::string sample_log(const std::string& distorted, double offset) {
  char frames[2048] = "";
  std::string frame_list;
  for (int frame = 0; frame < 50; ++frame) {
    std::snprintf(frames, sizeof frames,
                  "%s{\"frameNum\": %d, \"metrics\": {\"integer_adm2\": 0.9, \"psnr_y\": %.6f, "
                  "\"vmaf\": %.6f}}",
                  frame == 0 ? "" : ",\n", frame, 30 + offset / 10, 60 + offset + (frame % 10));
    frame_list += frames;
  }
  return "{\"version\": \"vmafexact 0.1.0 (libvmaf 3.2.0)\", \"fps\": 100.0,\n"
         "\"provenance\": {\"vmafexact-version\": \"0.1.0\", \"models\": \"vmaf=vmaf_v0.6.1\", "
         "\"date\": \"2026-12-06T10:00:00Z\", \"command_line\": \"vmafexact ref.mp4 " +
         distorted + "\", \"scaler\": \"none (same size)\", \"reference\": \"ref.mp4\", "
         "\"reference_size_bytes\": \"4000000\", \"reference_duration_s\": \"2\", "
         "\"reference_codec\": \"H.264\", \"reference_bitrate_bps\": \"16000000\", "
         "\"distorted\": \"" + distorted + "\", \"distorted_size_bytes\": \"250000\", "
         "\"distorted_duration_s\": \"2\", \"distorted_codec\": \"HEVC\", "
         "\"distorted_bitrate_bps\": \"1000000\", \"distorted_framerate\": \"25/1\"},\n"
         "\"frames\": [\n" + frame_list + "],\n"
         "\"pooled_metrics\": {\"vmaf\": {\"min\": 60, \"max\": 69, \"mean\": 64.5, "
         "\"harmonic_mean\": 64.4}},\n\"aggregate_metrics\": {}}\n";
}

TEST(ReportLogs, ALogReadBackIntoAnEncode) {
  const auto content = vmafexact::report::read_log(sample_log("out/crf30.mp4", 0), "crf30.json");
  const Encode& encode = content.encode;
  EXPECT_EQ(encode.name, "crf30");
  EXPECT_EQ(encode.path, "out/crf30.mp4");
  EXPECT_EQ(encode.size_bytes, 250000);
  EXPECT_EQ(encode.bitrate_bps, 1e6);
  EXPECT_EQ(encode.duration_s, 2);
  EXPECT_EQ(encode.codec, "HEVC");
  EXPECT_EQ(encode.frame_rate, 25);
  // The model's score first (the top panel), then the log's order.
  ASSERT_EQ(encode.series.size(), 3U);
  EXPECT_EQ(encode.series[0].name, "vmaf");
  EXPECT_EQ(encode.series[0].kind, ScoreKind::model);
  EXPECT_EQ(encode.series[1].kind, ScoreKind::internal);
  EXPECT_EQ(encode.series[2].kind, ScoreKind::feature);
  EXPECT_EQ(encode.series[0].values.size(), 50U);
  EXPECT_EQ(encode.series[0].values[3], 63);
  // The log's pooled figures as written; the lows from the frames.
  ASSERT_EQ(encode.pooled[0].name, "vmaf");
  const Pooled& vmaf = encode.pooled[0];
  EXPECT_EQ(vmaf.mean, 64.5);
  EXPECT_EQ(vmaf.harmonic_mean, 64.4);
  EXPECT_EQ(vmaf.low1_mean, 60);
  EXPECT_EQ(vmaf.low5_mean, 60);  // 3 lowest of 50: all 60
}

TEST(ReportLogs, BadLogsAreRefusedByName) {
  const auto refused = [](const std::string& text) -> std::string {
    try {
      vmafexact::report::read_log(text, "bad.json");
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refused(""), "bad.json: not a vmafexact JSON log: the text is not JSON (give a log "
                         "written with --json or log-location=*.json)");
  EXPECT_NE(refused("<xml/>").find("not JSON"), std::string::npos);
  EXPECT_NE(refused("[1, 2]").find("not an object"), std::string::npos);
  EXPECT_NE(refused("{\"version\": 1}").find("no \"frames\" list"), std::string::npos);
  EXPECT_NE(refused("{\"frames\": [1]}").find("frame entry 0 is not an object"),
            std::string::npos);
  EXPECT_NE(refused("{\"frames\": [{\"frameNum\": -1, \"metrics\": {}}]}").find("\"frameNum\""),
            std::string::npos);
  EXPECT_NE(refused("{\"frames\": [{\"frameNum\": 0, \"metrics\": 5}]}").find("\"metrics\""),
            std::string::npos);
  EXPECT_NE(refused("{\"frames\": [{\"frameNum\": 4000000000, \"metrics\": {}}]}")
                .find("out of range"),
            std::string::npos);
  // Truncated mid-way, as a log of a run that was killed might be: refused too.
  const std::string whole = sample_log("a.mp4", 0);
  EXPECT_NE(refused(whole.substr(0, whole.size() / 2)).find("not JSON"), std::string::npos);
  // Wrong types where numbers belong are not known values, not a crash.
  EXPECT_EQ(refused("{\"frames\": [{\"frameNum\": 0, \"metrics\": {\"vmaf\": \"x\", \"a\": []}}],"
                    "\"provenance\": {\"distorted_framerate\": \"1/0\", \"models\": \",,=\"}}"),
            "accepted");
}

TEST(ReportLogs, PageFromTwoLogsWithoutPictures) {
  std::vector<vmafexact::report::LogContent> logs;
  logs.push_back(vmafexact::report::read_log(sample_log("crf30.mp4", 0), "crf30.json"));
  logs.push_back(vmafexact::report::read_log(sample_log("crf20.mp4", 20), "crf20.json"));
  const Report report = vmafexact::report::report_from_logs(logs, 5);
  EXPECT_EQ(report.title, "ref vs crf30, crf20");
  EXPECT_EQ(report.date, "2026-12-06T10:00:00Z");
  EXPECT_EQ(report.scaler, "none (same size)");
  EXPECT_EQ(report.reference_bitrate_bps, 16e6);
  ASSERT_EQ(report.encodes.size(), 2U);
  EXPECT_EQ(report.encodes[1].worst_frames.size(), 5U);
  EXPECT_EQ(report.encodes[1].worst_frames[0].score, 80);
  EXPECT_TRUE(report.encodes[1].worst_frames[0].reference.png.empty());
  EXPECT_FALSE(report.thumbnails_note.empty());
  const std::string html = vmafexact::report::render_html(report);
  const XmlDocPtr document = parse_xml(html);
  ASSERT_TRUE(document);
  EXPECT_EQ(select(document.get(), "//h:table[@class='summary']/h:tbody/h:tr").size(), 2U);
  EXPECT_EQ(select(document.get(), "//svg:svg[@id='rate-quality-plot']").size(), 1U);
  EXPECT_EQ(select(document.get(), "//h:img").size(), 0U);
}

TEST(ReportPage, LaddersGiveTheirRateQualitySection) {
  Report report = several::two_encodes();
  vmafexact::report::Ladder ladder{"x264", {}};
  for (int step = 0; step < 4; ++step) {
    ladder.points.push_back({"x264_" + std::to_string(step), 5e5 * (step + 1), 60.0 + 8 * step,
                             32.0 + step});
  }
  report.ladders = {ladder, ladder};
  report.ladders[1].name = "x265";
  const std::string html = vmafexact::report::render_html(report);
  EXPECT_TRUE(parse_xml(html));
  EXPECT_NE(html.find("id=\"bd-rate\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"rate-quality-plot\""), std::string::npos);  // not twice
  // The --plot document draws the ladders as curves in its rate-quality chart.
  const XmlDocPtr plot = parse_xml(vmafexact::report::render_svg(report));
  EXPECT_EQ(select(plot.get(), "//svg:g[@class='rate-quality']").size(), 1U);
}

TEST(ReportPlot, LongerRunsTickWholeSecondsAsMinutesSeconds) {
  Report report = several::two_encodes(750);  // 30 s at 25 fps
  const XmlDocPtr document = parse_xml(vmafexact::report::render_svg(report));
  ASSERT_TRUE(document);
  EXPECT_EQ(attribute(several::panels(document.get())[0], "data-x-ticks"),
            "00:00 00:05 00:10 00:15 00:20 00:25");
  report.encodes[0].frame_rate = report.encodes[1].frame_rate = 1;  // 750 s
  const XmlDocPtr slow = parse_xml(vmafexact::report::render_svg(report));
  EXPECT_EQ(attribute(several::panels(slow.get())[0], "data-x-ticks"),
            "00:00 02:00 04:00 06:00 08:00 10:00 12:00");
}
