// vmafexact's command line, parsed with GLib's GOptionContext: what to score,
// how to line the distorted video up with the reference, how to score it (the
// element's properties) and where the results go.
#pragma once

#include <gst/video/video.h>

#include <optional>
#include <string>

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
  InputOptions dist;
  // Lining up.
  std::string scale_method = "catrom";  // videoscale's method nick
  bool no_scale = false;
  bool no_rate_conversion = false;
  double dist_delay = 0;  // seconds; > 0: the distorted video lags the reference
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
  ProgressMode progress = ProgressMode::kAuto;
  bool quiet = false;
};

// Parses and checks the command line. --help and --version print and exit 0;
// anything wrong throws CliError(kExitUsage) naming the option and the fix.
// GStreamer's own options (--gst-debug, ...) are taken too, and GStreamer is
// initialised.
Options parse_options(int argc, char** argv);

// "vmafexact 0.1.0 (libvmaf 3.2.0)".
std::string version_text();

}  // namespace vmafexact::cli
