#include "options.h"

#include <gst/gst.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "errors.h"
#include "report.h"
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
    for (gchar* text : {size,        ref_size,  dist_size,     format,         ref_format,
                        dist_format, framerate, ref_framerate, dist_framerate, scale_method,
                        model,       features,  backend,       json,           xml,
                        csv,         sub,       precision,     jsonl,          plot,
                        html})
      g_free(text);
    g_strfreev(files);
  }
};

constexpr const char* kSummary =
    "Scores the distorted video DIST against the reference REF with libvmaf's VMAF and\n"
    "features, bit for bit libvmaf 3.2.0's scores. REF and DIST are any files GStreamer\n"
    "can read (mp4, mkv, webm, y4m, ...) or raw .yuv/.raw files (give --size).\n"
    "The distorted video is scaled to the reference's size and converted to its sample\n"
    "format and frame rate; a gray input is scored against the other's luma as it is.\n"
    "A pooled summary of every score is printed; --json, --xml, --csv, --sub write\n"
    "libvmaf's logs, --plot and --html a plot and a report page.";

constexpr const char* kDescription =
    "Examples:\n"
    "  vmafexact ref.mp4 dist_480p.mp4\n"
    "  vmafexact --json scores.json --csv scores.csv ref.y4m dist.mkv\n"
    "  vmafexact --plot scores.svg --html report.html ref.mp4 dist_480p.mp4\n"
    "  vmafexact --size 1920x1080 --format yuv420p10le ref.yuv dist.yuv\n"
    "  vmafexact --model vmaf_v0.6.1,vmaf_v0.6.1neg --features psnr --jsonl - ref.mp4 dist.mp4\n"
    "  vmafexact --dist-delay 0.5 ref.mp4 dist.mp4   # DIST starts 0.5 s later than REF\n"
    "\n"
    "Scaling: when the sizes differ, DIST goes through videoscale (--scale-method, default\n"
    "catrom: bicubic, Catmull-Rom) to REF's width and height, stretched without borders.\n"
    "--no-scale makes differing sizes an error instead.\n"
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
  if (format == GST_VIDEO_FORMAT_UNKNOWN)
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

bool has_raw_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string extension = path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(g_ascii_tolower(c));
  return extension == "yuv" || extension == "raw";
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
       "videoscale method that scales DIST to REF's size (default catrom, a bicubic; also "
       "bilinear, 4-tap, lanczos, mitchell, nearest-neighbour, ...)",
       "METHOD"},
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
       "Write one self-contained HTML page with the plot, the summary table and where the "
       "scores come from",
       "FILE"},
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
      {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw.files, nullptr, "REF DIST"},
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
  if (files.size() != 2)
    throw CliError(kExitUsage,
                   files.empty() ? "give the reference and the distorted video"
                                 : "give exactly two files, REF and DIST (got " +
                                       std::to_string(files.size()) + ")",
                   "Usage: vmafexact [OPTIONS] REF DIST (vmafexact --help for the options).");
  options.ref.path = files[0];
  options.dist.path = files[1];

  // Raw inputs: per-input values win over the shared ones.
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
  for (PerInput per :
       {PerInput{options.ref, raw.ref_size, raw.ref_format, raw.ref_framerate, "ref"},
        PerInput{options.dist, raw.dist_size, raw.dist_format, raw.dist_framerate, "dist"}}) {
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
  }
  if (!options.ref.raw && !options.dist.raw && (raw.size || raw.format || raw.framerate))
    throw CliError(kExitUsage,
                   std::string(raw.size     ? "--size"
                               : raw.format ? "--format"
                                            : "--framerate") +
                       " is for raw input (.yuv, .raw), but neither input is raw",
                   "Drop the option: the sizes, formats and rates of other files are read from "
                   "the files; or give --ref-size / --dist-size to read a file as raw video.");

  options.no_scale = raw.no_scale;
  options.no_rate_conversion = raw.no_rate_conversion;
  if (raw.scale_method) {
    options.scale_method = raw.scale_method;
    if (!is_videoscale_method(options.scale_method))
      bad("--scale-method", options.scale_method,
          "not a videoscale method (methods: " + videoscale_methods() + ")");
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
  return options;
}

}  // namespace vmafexact::cli
