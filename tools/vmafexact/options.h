// vmafexact's command line, parsed with GLib's GOptionContext: what to score,
// how to line the distorted video up with the reference, how to score it (the
// element's properties) and where the results go.
#pragma once

#include <gst/video/video.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/log_writer.h"

namespace vmafexact::cli {

struct Fraction {
  int num = 0;
  int den = 1;
};

// One input file and, for raw files, what it holds.
struct InputOptions {
  std::string path;
  bool raw = false;  // a .yuv or .raw file, or a size was given for it
  int width = 0;     // raw only (0: not given)
  int height = 0;
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;  // raw only
  std::optional<Fraction> framerate;              // raw only; not given: see inputs.h
};

enum class ProgressMode { kAuto, kOn, kOff };

struct Options {
  InputOptions ref;
  // Every distorted video (encode) in order: the files given after REF, then
  // the encodes of the ladders, each path once. Never empty.
  std::vector<InputOptions> dists;
  // --ladder NAME=DIST,DIST,... (repeatable): encodes of one encoder at
  // several rates, for the rate-quality chart and BD-rate.
  struct Ladder {
    std::string name;
    std::vector<std::string> paths;
  };
  std::vector<Ladder> ladders;
  // --names LIST: each DIST's name, in order, for {name} and wherever the
  // encode is named (summary, plots, report); empty: the files' names.
  std::vector<std::string> names;
  // Lining up.
  bool align_auto = false;   // --align auto|off: find each DIST's offset
  double align_range = 2.0;  // --align-range SECONDS searched, either way
  // "ffmpeg": vmafexactscale (libswscale, as FFmpeg's scale filter), else a
  // videoscale method nick.
  std::string scale_method = "ffmpeg";
  std::string scale_flags = "bicubic";  // --scale-flags, FFmpeg's sws_flags syntax
  bool no_scale = false;
  bool no_rate_conversion = false;
  double dist_delay = 0;  // seconds; > 0: the distorted video lags the reference
  // Frame range, on both inputs (after the delay): from `start` seconds,
  // `frames` frames or `duration` seconds (at most one of the two).
  std::optional<double> start;
  std::optional<guint64> frames;
  std::optional<double> duration;
  // The element's properties.
  std::string model = "vmaf_v0.6.1";
  std::string features;
  std::string backend = "auto";
  int threads = 0;
  int subsample = 1;
  // Outputs; empty: none.
  std::string json, xml, csv, sub;
  LogPrecision precision = LogPrecision::kDefault;
  std::string jsonl;  // "-": standard output
  std::string plot;   // .svg or .png
  std::string html;
  std::vector<std::string> plot_scores;  // --plot-scores LIST; empty: default; {"all"}
  int worst_frames = 5;                  // --worst-frames N (0: none)
  ProgressMode progress = ProgressMode::kAuto;
  bool quiet = false;
};

// Parses and checks the command line. --help and --version print and exit 0;
// anything wrong throws CliError(kExitUsage) naming the option and the fix.
// GStreamer's own options (--gst-debug, ...) are taken too, and GStreamer is
// initialised.
Options parse_options(int argc, char** argv);

// A subcommand's own options (`vmafexact NAME [OPTION…] ...`) through GLib's
// GOptionContext: --help prints and exits 0; anything wrong throws
// CliError(kExitUsage) "NAME: problem" with "Run vmafexact NAME --help ...".
void parse_subcommand_options(const char* name, const char* summary, const char* description,
                              const GOptionEntry* entries, int& argc, char**& argv);

// A time as seconds: "2", "2.5", "1:02.5" ([[hh:]mm:]ss[.frac]); nullopt
// when it is not one, negative or not finite.
std::optional<double> parse_time(std::string_view text);

// The `{name}` of an encode: its file name without the extension
// ("out/crf30.mp4" -> "crf30").
std::string encode_name(const std::string& path);

// Whether `path` names a raw video file by its extension (.yuv, .raw; any case).
bool has_raw_extension(const std::string& path);

// --names' list: one name per DIST (`dist_count`), each non-empty, unique,
// usable as a file name (no '/', not "." or "..", no control characters).
// Throws CliError(kExitUsage) naming the problem.
std::vector<std::string> parse_encode_names(const std::string& list, std::size_t dist_count);

// `pattern` with every "{name}" replaced by `name`.
std::string expand_name(const std::string& pattern, const std::string& name);

// --ladder's NAME=ITEM,ITEM,...: ITEM is what the list holds, a DIST of a scoring
// run or a LOG of `vmafexact report`. Paths are kept as written (not trimmed); one
// named twice, no name or no item throws CliError(kExitUsage).
Options::Ladder parse_ladder(const std::string& text, const std::string& item = "DIST");
// Two ladders of one name throw CliError(kExitUsage).
void check_ladder_names(const std::vector<Options::Ladder>& ladders);
// A comma-separated list of names (--plot-scores), each trimmed, empty ones left out.
std::vector<std::string> split_names(const std::string& text);

// "vmafexact 0.1.0 (libvmaf 3.2.0)".
std::string version_text();

}  // namespace vmafexact::cli
