// The plot and the HTML report of a scoring run of one or several encodes
// against one reference (docs/report.md): a page that leads with the answer (one
// summary row per encode), then each chosen score per frame with the encodes
// overlaid on a time axis, the rate-quality chart, the worst frames with
// thumbnails, and the provenance. cairo draws (SVG or PNG); no GStreamer: the
// caller collects the scores and passes them in.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bd_rate.h"

namespace vmafexact::report {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// What a score is, which decides whether it is plotted by default and its axis.
enum class ScoreKind {
  model,     // a model's score (e.g. "vmaf"): plotted by default, fixed 0-100 axis
  feature,   // a feature asked for (e.g. "psnr_y"): plotted by default
  internal,  // a model's input the user did not ask for (e.g. "integer_adm2")
};

struct Series {  // one score over the frames, e.g. "vmaf", "psnr_y"
  std::string name;
  std::vector<double> values;  // index = frame number; NaN = frame without this score
  ScoreKind kind = ScoreKind::feature;
};

struct Pooled {  // the summary figures of one score (as the element's summary gives them)
  std::string name;
  double min = kUnknown, max = kUnknown, mean = kUnknown, harmonic_mean = kUnknown;
  double p1 = kUnknown, p5 = kUnknown, p50 = kUnknown, low1_mean = kUnknown,
         low5_mean = kUnknown;  // NaN when not known
};

// A small picture: PNG file bytes (empty: none).
struct Thumbnail {
  std::string png;
  int width = 0;
  int height = 0;
};

struct WorstFrame {
  std::uint64_t frame = 0;  // frame number in the encode's series
  double time_s = kUnknown;  // its time from the start of the scored range
  double score = kUnknown;   // the score it was picked by (Encode::worst_score)
  Thumbnail reference, distorted;
};

// One encode (distorted video) scored against the reference.
struct Encode {
  std::string name;  // the file name without its extension ("crf30")
  std::string path;  // as given
  double size_bytes = kUnknown;
  double duration_s = kUnknown;
  double bitrate_bps = kUnknown;  // size * 8 / duration
  std::string codec;              // e.g. "H.264 (High Profile)"; empty: not known
  double frame_rate = kUnknown;   // frames per second; NaN: the time axis counts frames
  std::vector<Series> series;
  std::vector<Pooled> pooled;  // same names as series (may lack some)
  std::string worst_score;     // the score the worst frames are picked by (e.g. "vmaf")
  std::vector<WorstFrame> worst_frames;  // lowest score first
  // The encode's own facts shown under the provenance (e.g. "alignment"), in order.
  std::vector<std::pair<std::string, std::string>> details;
};

struct Report {
  std::string title;  // e.g. "ref.y4m vs dist.mp4"; shown once
  // The reference; only its facts (no series).
  std::string reference_path;
  double reference_size_bytes = kUnknown;
  double reference_duration_s = kUnknown;
  double reference_bitrate_bps = kUnknown;
  std::string reference_codec;
  std::vector<Encode> encodes;  // in the order given
  // The run's provenance.
  std::string date;          // ISO 8601 UTC
  std::string command_line;  // as typed, quoted for a shell
  std::string scaler;        // e.g. "vmafexactscale flags=bicubic (libswscale 6.7.100)"
  // Further provenance (versions, models, backend, threads, ...), in order shown.
  std::vector<std::pair<std::string, std::string>> provenance;
  // --plot-scores: empty: the models' scores and the features asked for;
  // {"all"}: every score; else these names, in this order.
  std::vector<std::string> plot_scores;
  // Why there are no thumbnails (e.g. "built from logs: no pictures"); empty: none.
  std::string thumbnails_note;
  // --ladder: encodes of one reference at several rates (tools/report/bd_rate.h);
  // the page's rate-quality section shows them with their BD-rates.
  std::vector<Ladder> ladders;
};

// ---- Helpers the tool and `vmafexact report` share ----------------------------

// The names plotted, in order: per `report.plot_scores` over the names of every
// encode's series (first appearance order). Unknown names are skipped;
// unknown_plot_scores() lists them for an error message.
std::vector<std::string> plotted_scores(const Report& report);
std::vector<std::string> unknown_plot_scores(const Report& report);

// "mm:ss.ff" (hundredths), "h:mm:ss.ff" from one hour; "—" for NaN/negative.
std::string format_time(double seconds);

// The kind of a score from a log, where only the names are known: a model's
// score when it is one of `model_names`, a model's input when it is one of
// libvmaf's model features (integer_adm*, integer_vif*, integer_motion*, ...),
// else a feature asked for.
ScoreKind classify_score(std::string_view name, const std::vector<std::string>& model_names);

// The `count` frames of lowest value in `series` (NaN frames never), lowest first,
// ties by frame number; their times from `frame_rate` (NaN: unknown). No pictures.
std::vector<WorstFrame> select_worst_frames(const Series& series, double frame_rate,
                                            std::size_t count);

// ---- Output ---------------------------------------------------------------------

enum class PlotFormat { svg, png };

// By the path's extension (.svg / .png, case-insensitive); std::nullopt otherwise.
std::optional<PlotFormat> plot_format_for(std::string_view path);

// The plot's size in pixels (the PNG's size; the SVG's in user units): kPlotWidth
// wide, a header, one panel per plotted score (encodes overlaid), stacked, the
// time axis' title, then the rate-quality chart when there are two or more encodes.
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
