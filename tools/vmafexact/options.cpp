#include "options.h"

#include <gst/gst.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "errors.h"
#include "report.h"
#include "support/conform.h"
#include "support/handles.h"
#include "support/raw_video.h"
#include "vmafexact_config.h"

namespace vmafexact::cli {
namespace {

using tools::GCharPtr;

// GOptionContext writes into these; each is owned here and freed at exit.
struct RawArguments {
  gchar* size = nullptr;
  gchar* ref_size = nullptr;
  gchar* dist_size = nullptr;
  gchar* format = nullptr;
  gchar* ref_format = nullptr;
  gchar* dist_format = nullptr;
  gchar* framerate = nullptr;
  gchar* ref_framerate = nullptr;
  gchar* dist_framerate = nullptr;
  gchar* scale_method = nullptr;
  gchar* scale_flags = nullptr;
  gchar* align = nullptr;
  gdouble align_range = 2.0;
  gchar* start = nullptr;
  gchar* frames = nullptr;
  gchar* duration = nullptr;
  gchar** ladders = nullptr;
  gchar* names = nullptr;
  gchar* plot_scores = nullptr;
  gint worst_frames = 5;
  gboolean no_scale = FALSE;
  gboolean no_rate_conversion = FALSE;
  gdouble dist_delay = 0;
  gchar* model = nullptr;
  gchar* features = nullptr;
  gchar* backend = nullptr;
  gint threads = 0;
  gint subsample = 1;
  gchar* json = nullptr;
  gchar* xml = nullptr;
  gchar* csv = nullptr;
  gchar* sub = nullptr;
  gchar* precision = nullptr;
  gchar* jsonl = nullptr;
  gchar* plot = nullptr;
  gchar* html = nullptr;
  gboolean progress = FALSE;
  gboolean no_progress = FALSE;
  gboolean quiet = FALSE;
  gboolean version = FALSE;
  gchar** files = nullptr;

  ~RawArguments() {
    for (gchar* text : {size,        ref_size,    dist_size,     format,         ref_format,
                        dist_format, framerate,   ref_framerate, dist_framerate, scale_method,
                        model,       features,    backend,       json,           xml,
                        csv,         sub,         precision,     jsonl,          plot,
                        html,        scale_flags, align,         start,          frames,
                        duration,    plot_scores, names})
      g_free(text);
    g_strfreev(files);
    g_strfreev(ladders);
  }
};

constexpr const char* kSummary =
    "Scores each distorted video (encode) DIST against the reference REF with libvmaf's\n"
    "VMAF and features, bit for bit libvmaf 3.2.0's scores. REF and DIST are any files\n"
    "GStreamer can read (mp4, mkv, webm, y4m, ...) or raw .yuv/.raw files (give --size).\n"
    "Several DISTs are scored in one run, REF decoded once. Each DIST is scaled to the\n"
    "reference's size and converted to its sample format and frame rate; a gray input is\n"
    "scored against the other's luma as it is. A summary is printed (one row per encode);\n"
    "--json, --xml, --csv, --sub write libvmaf's logs, --plot and --html a plot and a\n"
    "report page.";

constexpr const char* kDescription =
    "Examples:\n"
    "  vmafexact ref.mp4 dist_480p.mp4\n"
    "  vmafexact --json 'out/{name}.json' ref.mp4 crf23.mp4 crf28.mp4 crf33.mp4\n"
    "  vmafexact --start 2 --frames 30 ref.mp4 dist.mp4   # 30 frames from 2 s\n"
    "  vmafexact --json scores.json --csv scores.csv ref.y4m dist.mkv\n"
    "  vmafexact --plot scores.svg --html report.html ref.mp4 dist_480p.mp4\n"
    "  vmafexact --size 1920x1080 --format yuv420p10le ref.yuv dist.yuv\n"
    "  vmafexact --model vmaf_v0.6.1,vmaf_v0.6.1neg --features psnr --jsonl - ref.mp4 dist.mp4\n"
    "  vmafexact --dist-delay 0.5 ref.mp4 dist.mp4   # DIST starts 0.5 s later than REF\n"
    "  vmafexact --align auto ref.mp4 dist.mp4       # finds where DIST starts\n"
    "  vmafexact --html page.html --ladder A=a1.mp4,a2.mp4,a3.mp4,a4.mp4 \\\n"
    "            --ladder B=b1.mp4,b2.mp4,b3.mp4,b4.mp4 ref.mp4   # BD-rate of B against A\n"
    "  vmafexact report --html page.html out/*.json   # the page again from JSON logs,\n"
    "                                                 # nothing scored (report --help)\n"
    "\n"
    "Several encodes: each output path (--json, --xml, --csv, --sub, --jsonl, --plot) must\n"
    "hold {name}, replaced by each DIST's file name without its extension, or by its name\n"
    "in --names (one per DIST, in order; also shown in the summary, plots and report).\n"
    "Scaling: when the sizes differ, DIST is scaled to REF's width and height, stretched\n"
    "without borders, by default as FFmpeg's scale filter does (vmafexactscale over\n"
    "libswscale, --scale-flags, default bicubic), so that the scores equal libvmaf's on the\n"
    "encode scaled with ffmpeg -vf scale=W:H; --scale-method METHOD uses GStreamer's\n"
    "videoscale instead (catrom, bilinear, lanczos, ...). --no-scale makes differing sizes\n"
    "an error instead.\n"
    "Frame ranges: --start TIME skips the first TIME of both inputs (after --dist-delay);\n"
    "--frames N or --duration TIME scores that much from there. TIME is seconds (2.5) or\n"
    "[[hh:]mm:]ss[.frac] (1:02.5).\n"
    "Frame rates: frames are paired by their timestamps. When both rates are known and\n"
    "differ, DIST's frames are dropped or repeated to REF's rate (videorate), as\n"
    "ffmpeg's fps filter would; --no-rate-conversion makes differing rates an error.\n"
    "Raw inputs: a .yuv or .raw file (or one given --ref-size/--dist-size) is read as\n"
    "tightly packed frames of --size in --format (GStreamer's or ffmpeg's names: I420 or\n"
    "yuv420p, I420_10LE or yuv420p10le, NV12, P010_10LE or p010le, GRAY8 or gray, ...);\n"
    "its frame rate is --framerate, else the other input's, else 24/1.\n"
    "\n"
    "Exit codes: 0 scored; 1 bad option or option value; 2 an input cannot be read or\n"
    "decoded; 3 nothing to compare (no frame pair scored, or --no-scale /\n"
    "--no-rate-conversion refused the inputs); 4 the pipeline or the scoring failed;\n"
    "5 an output cannot be written (an existing file is left as it was); 130 interrupted\n"
    "by SIGINT (143 SIGTERM): the outputs hold the frames scored until then; a second\n"
    "signal stops at once without writing them.\n"
    "\n"
    "Full reference: docs/tool.md.";

std::string text_of(const gchar* value) { return value ? value : ""; }

[[noreturn]] void bad(const std::string& option, const std::string& value,
                      const std::string& what) {
  throw CliError(kExitUsage, option + " '" + value + "': " + what,
                 "Run vmafexact --help for the options.");
}

std::string number_text(double number) {
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  return g_ascii_formatd(text, sizeof text, "%g", number);
}

// "WxH", both positive.
void parse_size(const char* option, const gchar* text, int& width, int& height) {
  if (!text) return;
  const std::string value = text;
  char* end = nullptr;
  const long w = std::strtol(value.c_str(), &end, 10);
  if (end == value.c_str() || (*end != 'x' && *end != 'X'))
    bad(option, value, "write WIDTHxHEIGHT, e.g. 1920x1080");
  const char* rest = end + 1;
  const long h = std::strtol(rest, &end, 10);
  if (end == rest || *end || w <= 0 || h <= 0 || w > 65536 || h > 65536)
    bad(option, value, "write WIDTHxHEIGHT with both from 1 to 65536, e.g. 1920x1080");
  width = static_cast<int>(w);
  height = static_cast<int>(h);
}

void parse_format(const char* option, const gchar* text, GstVideoFormat& format) {
  if (!text) return;
  format = tools::raw_format_from_name(text);
  if (format != GST_VIDEO_FORMAT_UNKNOWN) return;
  if (const std::string advice = tools::raw_format_advice(text); !advice.empty())
    bad(option, text, "not a raw format vmafexact reads: " + advice);
  bad(option, text,
      "not a raw format vmafexact scores; formats (GStreamer's names, ffmpeg's "
      "in parentheses): " +
          tools::raw_format_names());
}

// "N/D", "N" or a decimal such as 29.97.
void parse_framerate(const char* option, const gchar* text, std::optional<Fraction>& framerate) {
  if (!text) return;
  const std::string value = text;
  Fraction rate;
  char* end = nullptr;
  if (value.find('/') != std::string::npos) {
    const long num = std::strtol(value.c_str(), &end, 10);
    if (end == value.c_str() || *end != '/') bad(option, value, "write N/D, e.g. 30000/1001");
    const char* rest = end + 1;
    const long den = std::strtol(rest, &end, 10);
    if (end == rest || *end || num <= 0 || den <= 0 || num > G_MAXINT || den > G_MAXINT)
      bad(option, value, "write N/D with both positive, e.g. 30000/1001");
    rate = {static_cast<int>(num), static_cast<int>(den)};
  } else {
    const double number = g_ascii_strtod(value.c_str(), &end);
    if (end == value.c_str() || *end || !std::isfinite(number) || number <= 0 || number > 10000)
      bad(option, value, "write a positive rate: 25, 29.97 or 30000/1001");
    gst_util_double_to_fraction(number, &rate.num, &rate.den);
  }
  framerate = rate;
}

bool is_videoscale_method(const std::string& method) {
  // The nicks of videoscale's GstVideoScaleMethod, read from the element, so
  // that any method this GStreamer has is accepted.
  GstElement* scale = gst_element_factory_make("videoscale", nullptr);
  if (!scale) return true;  // reported when the pipeline is built
  gst_object_ref_sink(scale);
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(scale), "method");
  bool found = false;
  if (spec && G_IS_PARAM_SPEC_ENUM(spec))
    found = g_enum_get_value_by_nick(G_PARAM_SPEC_ENUM(spec)->enum_class, method.c_str());
  gst_object_unref(scale);
  return found;
}

std::string videoscale_methods() {
  std::string names;
  GstElement* scale = gst_element_factory_make("videoscale", nullptr);
  if (!scale) return "videoscale is not installed";
  gst_object_ref_sink(scale);
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(scale), "method");
  if (spec && G_IS_PARAM_SPEC_ENUM(spec)) {
    const GEnumClass* methods = G_PARAM_SPEC_ENUM(spec)->enum_class;
    for (guint i = 0; i < methods->n_values; ++i)
      names += std::string(i ? ", " : "") + methods->values[i].value_nick;
  }
  gst_object_unref(scale);
  return names;
}

}  // namespace

bool has_raw_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string extension = path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(g_ascii_tolower(c));
  return extension == "yuv" || extension == "raw";
}

Options::Ladder parse_ladder(const std::string& text, const std::string& item) {
  const std::string form = "NAME=" + item + "," + item + ",...";
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    bad("--ladder", text,
        "write " + form + (item == "LOG" ? ", e.g. x264=a.json,b.json,c.json,d.json"
                                         : ", e.g. x264=a.mp4,b.mp4,c.mp4,d.mp4"));
  Options::Ladder ladder;
  ladder.name = text.substr(0, equals);
  gchar** paths = g_strsplit(text.c_str() + equals + 1, ",", -1);
  for (gchar** path = paths; *path; ++path)
    if (**path) ladder.paths.emplace_back(*path);
  g_strfreev(paths);
  if (ladder.paths.empty())
    bad("--ladder", text, "name the ladder's encodes after =, comma-separated");
  for (std::size_t i = 0; i < ladder.paths.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (ladder.paths[i] == ladder.paths[j])
        bad("--ladder", text, ladder.paths[i] + " is named twice; name each encode once");
  return ladder;
}

void check_ladder_names(const std::vector<Options::Ladder>& ladders) {
  for (std::size_t i = 0; i < ladders.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (ladders[i].name == ladders[j].name)
        bad("--ladder", ladders[i].name, "two ladders have this name; name each its own");
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  gchar** parts = g_strsplit(text.c_str(), ",", -1);
  for (gchar** part = parts; *part; ++part) {
    const std::string trimmed = g_strstrip(*part);
    if (!trimmed.empty()) names.push_back(trimmed);
  }
  g_strfreev(parts);
  return names;
}

std::optional<double> parse_time(std::string_view text) {
  // Up to three ':'-separated parts; the last may have a fraction.
  double seconds = 0;
  int parts = 0;
  std::size_t at = 0;
  for (;;) {
    const std::size_t colon = text.find(':', at);
    const std::string part(
        text.substr(at, colon == std::string_view::npos ? text.npos : colon - at));
    if (part.empty() || part.find_first_not_of("0123456789.") != std::string::npos) return {};
    const bool last = colon == std::string_view::npos;
    if (!last && part.find('.') != std::string::npos) return {};
    char* end = nullptr;
    const double value = g_ascii_strtod(part.c_str(), &end);
    if (*end || !std::isfinite(value)) return {};
    // Minutes and seconds after a colon are below 60.
    if (parts > 0 && value >= 60) return {};
    seconds = seconds * 60 + value;
    if (++parts > 3) return {};
    if (last) break;
    at = colon + 1;
  }
  if (!std::isfinite(seconds) || seconds > 1e7) return {};
  return seconds;
}

std::string encode_name(const std::string& path) {
  GCharPtr base(g_path_get_basename(path.c_str()));
  std::string name = base.get();
  const std::size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name.erase(dot);
  return name;
}

std::vector<std::string> parse_encode_names(const std::string& list, std::size_t dist_count) {
  const auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  // A list holding a control character is not echoed (a terminal would act on it).
  const std::string option = std::any_of(list.begin(), list.end(), is_control)
                                 ? std::string("--names")
                                 : "--names '" + list + "'";
  const std::string fix =
      "Give one name per DIST, in order, comma-separated, e.g. --names crf23,crf28 (each "
      "unique, usable as a file name).";
  std::vector<std::string> names;
  gchar** parts = g_strsplit(list.c_str(), ",", -1);
  for (gchar** part = parts; *part; ++part) names.emplace_back(g_strstrip(*part));
  g_strfreev(parts);
  if (names.size() != dist_count)
    throw CliError(kExitUsage,
                   option + ": " + std::to_string(names.size()) +
                       (names.size() == 1 ? " name" : " names") + " for " +
                       std::to_string(dist_count) + (dist_count == 1 ? " DIST" : " DISTs"),
                   fix);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const auto earlier = names.begin() + static_cast<std::ptrdiff_t>(i);
    std::string problem;
    if (name.empty())
      problem = "name " + std::to_string(i + 1) + " is empty";
    else if (std::any_of(name.begin(), name.end(), is_control))
      problem = "name " + std::to_string(i + 1) + " holds a control character";
    else if (name.find('/') != std::string::npos)
      problem = name + " holds '/' (a name becomes part of a file name)";
    else if (name == "." || name == "..")
      problem = name + " is not a file name";
    else if (std::find(names.begin(), earlier, name) != earlier)
      problem = name + " is given twice: the encodes' outputs would overwrite each other";
    if (!problem.empty()) throw CliError(kExitUsage, option + ": " + problem, fix);
  }
  return names;
}

std::string expand_name(const std::string& pattern, const std::string& name) {
  std::string text = pattern;
  constexpr std::string_view kField = "{name}";
  for (std::size_t at = text.find(kField); at != std::string::npos;
       at = text.find(kField, at + name.size()))
    text.replace(at, kField.size(), name);
  return text;
}

std::string version_text() {
  return "vmafexact " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
}

Options parse_options(int argc, char** argv) {
  RawArguments raw;
  const GOptionEntry entries[] = {
      {"size", 0, 0, G_OPTION_ARG_STRING, &raw.size,
       "Size of the raw inputs (.yuv, .raw), e.g. 1920x1080", "WxH"},
      {"ref-size", 0, 0, G_OPTION_ARG_STRING, &raw.ref_size,
       "Size of REF alone; REF is then read as raw", "WxH"},
      {"dist-size", 0, 0, G_OPTION_ARG_STRING, &raw.dist_size,
       "Size of DIST alone; DIST is then read as raw", "WxH"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &raw.format,
       "Sample format of the raw inputs: GStreamer's or ffmpeg's name (default I420 = yuv420p)",
       "NAME"},
      {"ref-format", 0, 0, G_OPTION_ARG_STRING, &raw.ref_format, "Sample format of a raw REF",
       "NAME"},
      {"dist-format", 0, 0, G_OPTION_ARG_STRING, &raw.dist_format, "Sample format of a raw DIST",
       "NAME"},
      {"framerate", 0, 0, G_OPTION_ARG_STRING, &raw.framerate,
       "Frame rate of the raw inputs: N/D, N or 29.97 (default: the other input's, else 24/1)",
       "RATE"},
      {"ref-framerate", 0, 0, G_OPTION_ARG_STRING, &raw.ref_framerate, "Frame rate of a raw REF",
       "RATE"},
      {"dist-framerate", 0, 0, G_OPTION_ARG_STRING, &raw.dist_framerate, "Frame rate of a raw DIST",
       "RATE"},
      {"scale-method", 0, 0, G_OPTION_ARG_STRING, &raw.scale_method,
       "How DIST is scaled to REF's size: ffmpeg (default: FFmpeg's scale filter, libswscale "
       "with --scale-flags) or a videoscale method (catrom, bilinear, 4-tap, lanczos, "
       "mitchell, nearest-neighbour, ...)",
       "ffmpeg|METHOD"},
      {"scale-flags", 0, 0, G_OPTION_ARG_STRING, &raw.scale_flags,
       "libswscale's flags for --scale-method ffmpeg, as FFmpeg's sws_flags (default bicubic; "
       "also bilinear, lanczos, spline, area, neighbor, ... with +accurate_rnd, "
       "+full_chroma_int, +bitexact)",
       "FLAGS"},
      {"align", 0, 0, G_OPTION_ARG_STRING, &raw.align,
       "auto: find each DIST's offset against REF (frames cut or added at its start) from the "
       "pictures and score with it; off (default): frames pair by their timestamps "
       "(and --dist-delay)",
       "auto|off"},
      {"align-range", 0, 0, G_OPTION_ARG_DOUBLE, &raw.align_range,
       "How far --align auto searches, either way (default 2 seconds)", "SECONDS"},
      {"start", 0, 0, G_OPTION_ARG_STRING, &raw.start,
       "Score from TIME into both inputs (seconds or [[hh:]mm:]ss[.frac])", "TIME"},
      {"frames", 0, 0, G_OPTION_ARG_STRING, &raw.frames, "Score N frames (from --start)", "N"},
      {"duration", 0, 0, G_OPTION_ARG_STRING, &raw.duration,
       "Score TIME of video (from --start; seconds or [[hh:]mm:]ss[.frac])", "TIME"},
      {"no-scale", 0, 0, G_OPTION_ARG_NONE, &raw.no_scale,
       "Refuse inputs of different sizes instead of scaling DIST (exit code 3)", nullptr},
      {"no-rate-conversion", 0, 0, G_OPTION_ARG_NONE, &raw.no_rate_conversion,
       "Refuse inputs of different frame rates instead of converting DIST's (exit code 3)",
       nullptr},
      {"dist-delay", 0, 0, G_OPTION_ARG_DOUBLE, &raw.dist_delay,
       "DIST lags REF by SECONDS: DIST's first SECONDS are skipped and its frame at t+SECONDS "
       "is compared with REF's at t (negative: REF lags, REF's first -SECONDS are skipped)",
       "SECONDS"},
      {"model", 'm', 0, G_OPTION_ARG_STRING, &raw.model,
       "VMAF models, comma-separated, as the element's model property (default vmaf_v0.6.1; "
       "also vmaf_v0.6.1neg, vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, vmaf_float_v0.6.1, vmaf_v1.0.16_*, "
       "a JSON model file, options such as "
       ":name=KEY; \"\" for none)",
       "LIST"},
      {"features", 'f', 0, G_OPTION_ARG_STRING, &raw.features,
       "Extra features, as the element's features property (psnr, float_ssim, float_ms_ssim, "
       "cambi, ... with libvmaf's options, e.g. psnr=enable_apsnr=true)",
       "LIST"},
      {"backend", 0, 0, G_OPTION_ARG_STRING, &raw.backend,
       "auto, cpu or cuda (default auto: the CPU for files; cuda uploads the frames)", "NAME"},
      {"threads", 0, 0, G_OPTION_ARG_INT, &raw.threads, "CPU threads (default 0: one per core)",
       "N"},
      {"subsample", 0, 0, G_OPTION_ARG_INT, &raw.subsample,
       "Score every Nth frame only (libvmaf's n_subsample; default 1)", "N"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &raw.json, "Write libvmaf's JSON log to FILE", "FILE"},
      {"xml", 0, 0, G_OPTION_ARG_FILENAME, &raw.xml, "Write libvmaf's XML log to FILE", "FILE"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &raw.csv, "Write libvmaf's CSV log to FILE", "FILE"},
      {"sub", 0, 0, G_OPTION_ARG_FILENAME, &raw.sub,
       "Write libvmaf's SUB log to FILE: MicroDVD subtitles, each frame's scores shown over it",
       "FILE"},
      {"precision", 0, 0, G_OPTION_ARG_STRING, &raw.precision,
       "Digits in the logs: default (libvmaf's %.6f) or max (%.17g, every bit)", "default|max"},
      {"jsonl", 0, 0, G_OPTION_ARG_FILENAME, &raw.jsonl,
       "Write one JSON object per scored frame, and the summary last, to FILE or standard "
       "output (-; the summary table then goes to standard error)",
       "FILE|-"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &raw.plot,
       "Draw every score per frame into FILE (.svg or .png; docs/report.md)", "FILE"},
      {"html", 0, 0, G_OPTION_ARG_FILENAME, &raw.html,
       "Write one self-contained HTML page with the summary table, the plots, the worst "
       "frames and where the scores come from (every encode on one page)",
       "FILE"},
      {"plot-scores", 0, 0, G_OPTION_ARG_STRING, &raw.plot_scores,
       "Scores drawn in --plot and --html, comma-separated (default: the models' scores and the "
       "features asked for; all: every feature)",
       "LIST"},
      {"worst-frames", 0, 0, G_OPTION_ARG_INT, &raw.worst_frames,
       "Frames with the lowest VMAF shown in --html, per encode, with thumbnails (default 5; "
       "0: none)",
       "N"},
      {"ladder", 0, 0, G_OPTION_ARG_STRING_ARRAY, &raw.ladders,
       "Encodes of one encoder at several rates (4 or more), for the rate-quality chart and "
       "BD-rate against the first ladder; repeat for each ladder",
       "NAME=DIST,DIST,..."},
      {"names", 0, 0, G_OPTION_ARG_STRING, &raw.names,
       "Each DIST's name, comma-separated in order, for {name} in the output paths and in the "
       "summary, plots and report (default: the file names without their extensions)",
       "LIST"},
      {"progress", 0, 0, G_OPTION_ARG_NONE, &raw.progress,
       "Show the progress line on standard error even when it is not a terminal", nullptr},
      {"no-progress", 0, 0, G_OPTION_ARG_NONE, &raw.no_progress,
       "Never show the progress line (default: shown when standard error is a terminal)", nullptr},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &raw.quiet,
       "Print neither the summary table, the notes nor the progress line (unless --progress); "
       "errors and warnings still go to standard error",
       nullptr},
      {"version", 0, 0, G_OPTION_ARG_NONE, &raw.version,
       "Print vmafexact's, libvmaf's and GStreamer's versions", nullptr},
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.files, nullptr,
       "REF DIST [DIST...]"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr},
  };

  // GLib's usage line already names the files, from the remaining entry's
  // argument description above: no parameter string here, or it shows twice.
  GOptionContext* context = g_option_context_new(nullptr);
  g_option_context_set_summary(context, kSummary);
  g_option_context_set_description(context, kDescription);
  g_option_context_add_main_entries(context, entries, nullptr);
  g_option_context_add_group(context, gst_init_get_option_group());
  GError* raw_error = nullptr;
  const bool parsed = g_option_context_parse(context, &argc, &argv, &raw_error);
  g_option_context_free(context);
  tools::ErrorPtr error(raw_error);
  if (!parsed)
    throw CliError(kExitUsage, error ? error->message : "cannot read the command line",
                   "Run vmafexact --help for the options.");

  if (raw.version) {
    // gst_version_string() already reads "GStreamer 1.22.0".
    std::printf("%s\n%s\n", version_text().c_str(), GCharPtr(gst_version_string()).get());
    std::exit(kExitOk);
  }

  Options options;
  std::vector<std::string> files;
  for (gchar** file = raw.files; file && *file; ++file) files.emplace_back(*file);
  for (const std::string& file : files)
    if (file.size() > 1 && file[0] == '-')
      throw CliError(kExitUsage, "unknown option " + file, "Run vmafexact --help for the options.");
  for (gchar** ladder = raw.ladders; ladder && *ladder; ++ladder)
    options.ladders.push_back(parse_ladder(*ladder));
  check_ladder_names(options.ladders);
  if (files.empty() || (files.size() == 1 && options.ladders.empty()))
    throw CliError(kExitUsage,
                   files.empty()
                       ? "give the reference and the distorted video"
                       : "give the distorted video (or videos) after the reference " + files[0],
                   "Usage: vmafexact [OPTIONS] REF DIST [DIST...] (vmafexact --help for the "
                   "options).");
  options.ref.path = files[0];
  // The DISTs given, then the ladders' encodes not given already.
  std::vector<std::string> dist_paths(files.begin() + 1, files.end());
  for (const Options::Ladder& ladder : options.ladders)
    for (const std::string& path : ladder.paths)
      if (std::find(dist_paths.begin(), dist_paths.end(), path) == dist_paths.end())
        dist_paths.push_back(path);
  for (const std::string& path : dist_paths) {
    InputOptions dist;
    dist.path = path;
    options.dists.push_back(std::move(dist));
  }

  if (raw.names) options.names = parse_encode_names(raw.names, options.dists.size());

  // Raw inputs: per-input values win over the shared ones; --dist-* applies
  // to every DIST.
  int width = 0, height = 0;
  parse_size("--size", raw.size, width, height);
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;
  parse_format("--format", raw.format, format);
  std::optional<Fraction> framerate;
  parse_framerate("--framerate", raw.framerate, framerate);
  struct PerInput {
    InputOptions& input;
    const gchar* size;
    const gchar* format;
    const gchar* framerate;
    const char* name;
  };
  std::vector<PerInput> per_inputs = {
      {options.ref, raw.ref_size, raw.ref_format, raw.ref_framerate, "ref"}};
  for (InputOptions& dist : options.dists)
    per_inputs.push_back({dist, raw.dist_size, raw.dist_format, raw.dist_framerate, "dist"});
  bool any_raw = false;
  for (PerInput per : per_inputs) {
    InputOptions& input = per.input;
    const std::string prefix = std::string("--") + per.name + "-";
    input.raw = has_raw_extension(input.path) || per.size;
    input.width = width;
    input.height = height;
    input.format = format;
    input.framerate = framerate;
    parse_size((prefix + "size").c_str(), per.size, input.width, input.height);
    parse_format((prefix + "format").c_str(), per.format, input.format);
    parse_framerate((prefix + "framerate").c_str(), per.framerate, input.framerate);
    if (!input.raw && (per.format || per.framerate))
      throw CliError(kExitUsage,
                     prefix + (per.format ? "format" : "framerate") + " is for raw input, but " +
                         input.path + " is not a .yuv or .raw file",
                     "Give " + prefix + "size WxH to read it as raw video, or drop the option.");
    if (input.raw && input.width == 0)
      throw CliError(
          kExitUsage, input.path + " is raw video (no header), so its size must be given",
          "Give --size WxH (or " + prefix + "size WxH), and --format if it is not yuv420p.");
    any_raw = any_raw || input.raw;
  }
  if (!any_raw && (raw.size || raw.format || raw.framerate))
    throw CliError(kExitUsage,
                   std::string(raw.size     ? "--size"
                               : raw.format ? "--format"
                                            : "--framerate") +
                       " is for raw input (.yuv, .raw), but no input is raw",
                   "Drop the option: the sizes, formats and rates of other files are read from "
                   "the files; or give --ref-size / --dist-size to read a file as raw video.");

  options.no_scale = raw.no_scale;
  options.no_rate_conversion = raw.no_rate_conversion;
  if (raw.scale_method) {
    options.scale_method = raw.scale_method;
    if (options.scale_method != "ffmpeg" && !is_videoscale_method(options.scale_method))
      bad("--scale-method", options.scale_method,
          "write ffmpeg (FFmpeg's scaling, the default) or a videoscale method (" +
              videoscale_methods() + ")");
  }
  if (raw.scale_flags) {
    if (options.scale_method != "ffmpeg")
      throw CliError(kExitUsage,
                     "--scale-flags is for --scale-method ffmpeg, but --scale-method is " +
                         options.scale_method,
                     "Drop --scale-flags, or --scale-method to scale as FFmpeg does.");
    options.scale_flags = raw.scale_flags;
    if (const std::string problem = tools::sws_flags_problem(options.scale_flags); !problem.empty())
      bad("--scale-flags", options.scale_flags, problem);
  }
  if (raw.align) {
    const std::string align = raw.align;
    if (align != "auto" && align != "off") bad("--align", align, "write auto or off");
    options.align_auto = align == "auto";
  }
  if (!std::isfinite(raw.align_range) || raw.align_range <= 0 || raw.align_range > 60)
    bad("--align-range", number_text(raw.align_range),
        "write a number of seconds above 0 and at most 60, e.g. 2");
  options.align_range = raw.align_range;
  if (raw.start) {
    options.start = parse_time(raw.start);
    if (!options.start)
      bad("--start", raw.start, "write a time: seconds (2.5) or [[hh:]mm:]ss[.frac] (1:02.5)");
  }
  if (raw.frames && raw.duration)
    throw CliError(kExitUsage, "--frames and --duration both say how much to score",
                   "Give one of them.");
  if (raw.frames) {
    const std::string text = raw.frames;
    guint64 frames = 0;
    if (!g_ascii_string_to_unsigned(text.c_str(), 10, 1, G_MAXUINT32, &frames, nullptr))
      bad("--frames", text, "write a whole number of frames, 1 or more");
    options.frames = frames;
  }
  if (raw.duration) {
    options.duration = parse_time(raw.duration);
    if (!options.duration || *options.duration <= 0)
      bad("--duration", raw.duration,
          "write a time above 0: seconds (2.5) or [[hh:]mm:]ss[.frac] (1:02.5)");
  }
  if (!std::isfinite(raw.dist_delay) || std::fabs(raw.dist_delay) > 1e6)
    bad("--dist-delay", std::to_string(raw.dist_delay),
        "write a number of seconds, e.g. 0.5 or -1.2");
  options.dist_delay = raw.dist_delay;

  if (raw.model) options.model = raw.model;
  options.features = text_of(raw.features);
  auto blank = [](const std::string& text) {
    return text.find_first_not_of(" \t,") == std::string::npos;
  };
  if (blank(options.model) && blank(options.features))
    throw CliError(kExitUsage, "nothing to score: --model and --features are both empty",
                   "Give a model (e.g. --model vmaf_v0.6.1) or features (e.g. --features psnr).");
  if (raw.backend) {
    options.backend = raw.backend;
    if (options.backend != "auto" && options.backend != "cpu" && options.backend != "cuda")
      bad("--backend", options.backend, "write auto, cpu or cuda");
  }
  if (raw.threads < 0 || raw.threads > 256)
    bad("--threads", std::to_string(raw.threads), "write 0 (one per core) to 256");
  options.threads = raw.threads;
  if (raw.subsample < 1)
    bad("--subsample", std::to_string(raw.subsample), "write 1 (every frame) or more");
  options.subsample = raw.subsample;

  for (const auto& [option, value] : {std::pair{"--json", raw.json},
                                      {"--xml", raw.xml},
                                      {"--csv", raw.csv},
                                      {"--sub", raw.sub},
                                      {"--jsonl", raw.jsonl},
                                      {"--plot", raw.plot},
                                      {"--html", raw.html}})
    if (value && !*value) bad(option, "", "give a file name");
  options.json = text_of(raw.json);
  options.xml = text_of(raw.xml);
  options.csv = text_of(raw.csv);
  options.sub = text_of(raw.sub);
  options.jsonl = text_of(raw.jsonl);
  options.plot = text_of(raw.plot);
  options.html = text_of(raw.html);
  // Several encodes write one log each: the paths must tell them apart. A
  // --plot without {name} draws them all in one.
  if (options.dists.size() > 1) {
    for (const auto& [option, path] : {std::pair{"--json", &options.json},
                                       {"--xml", &options.xml},
                                       {"--csv", &options.csv},
                                       {"--sub", &options.sub},
                                       {"--jsonl", &options.jsonl}}) {
      if (path->empty()) continue;
      if (*path == "-")
        bad(option, *path,
            "standard output carries one encode's lines; with several DISTs write them to "
            "files, e.g. --jsonl 'out/{name}.jsonl'");
      if (path->find("{name}") == std::string::npos)
        bad(option, *path,
            "with several DISTs each writes its own file: put {name} (the DIST's file name "
            "without its extension, or its name in --names) in the path, e.g. 'out/{name}." +
                std::string(option + 2) + "'");
    }
    // Names given are unique (parse_encode_names); the files' names may not be.
    const bool named_outputs = !options.json.empty() || !options.xml.empty() ||
                               !options.csv.empty() || !options.sub.empty() ||
                               !options.jsonl.empty() ||
                               options.plot.find("{name}") != std::string::npos;
    for (std::size_t i = 0; named_outputs && options.names.empty() && i < options.dists.size();
         ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (encode_name(options.dists[i].path) == encode_name(options.dists[j].path))
          throw CliError(kExitUsage,
                         options.dists[j].path + " and " + options.dists[i].path +
                             " have the same {name}, " + encode_name(options.dists[i].path) +
                             ": their outputs would overwrite each other",
                         "Rename one of the files, name the encodes with --names, or score them "
                         "in separate runs.");
  }
  // Checked now, not after scoring the whole video.
  if (!options.plot.empty() && !report::plot_format_for(options.plot))
    bad("--plot", options.plot, "name the file .svg or .png (the extension picks the format)");
  if (raw.precision) {
    const auto precision = parse_log_precision(raw.precision);
    if (!precision) bad("--precision", raw.precision, "write default or max");
    options.precision = *precision;
  }
  if (raw.progress && raw.no_progress)
    throw CliError(kExitUsage, "--progress and --no-progress contradict each other",
                   "Give one of them.");
  options.progress = raw.progress      ? ProgressMode::kOn
                     : raw.no_progress ? ProgressMode::kOff
                                       : ProgressMode::kAuto;
  options.quiet = raw.quiet;
  if (raw.plot_scores) {
    options.plot_scores = split_names(raw.plot_scores);
    if (options.plot_scores.empty())
      bad("--plot-scores", raw.plot_scores,
          "name the scores to draw, comma-separated (e.g. vmaf,psnr_y), or all");
  }
  if (raw.worst_frames < 0 || raw.worst_frames > 100)
    bad("--worst-frames", std::to_string(raw.worst_frames), "write 0 (none) to 100");
  options.worst_frames = raw.worst_frames;
  return options;
}

void parse_subcommand_options(const char* name, const char* summary, const char* description,
                              const GOptionEntry* entries, int& argc, char**& argv) {
  g_set_prgname((std::string("vmafexact ") + name).c_str());
  GOptionContext* context = g_option_context_new(nullptr);
  g_option_context_set_summary(context, summary);
  g_option_context_set_description(context, description);
  g_option_context_add_main_entries(context, entries, nullptr);
  GError* raw_error = nullptr;
  const bool parsed = g_option_context_parse(context, &argc, &argv, &raw_error);
  g_option_context_free(context);
  if (!parsed) {
    const std::string message = raw_error != nullptr ? raw_error->message : "bad command line";
    g_clear_error(&raw_error);
    throw CliError(kExitUsage, std::string(name) + ": " + message,
                   std::string("Run vmafexact ") + name + " --help for the options.");
  }
}

}  // namespace vmafexact::cli
