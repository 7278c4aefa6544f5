// vmafexact-scores: an application that embeds GStreamer, runs a vmafexact
// pipeline and reads the element's bus messages.
//
//   vmafexact-scores [OPTIONS]                  synthetic demo: videotestsrc vs a
//                                               JPEG-compressed copy of it
//   vmafexact-scores [OPTIONS] REF DIST         two media files GStreamer can
//                                               decode (y4m, mkv, ...)
//   vmafexact-scores [OPTIONS] --size WxH REF.yuv DIST.yuv
//                                               two raw, tightly packed files
// Options:
//   --size WxH          the inputs are raw video of this size
//   --format NAME       raw sample format, GStreamer's or ffmpeg's name (default I420)
//   --framerate N/D     raw frame rate (default 24/1)
//   --features LIST     vmafexact's features property (default psnr)
//   --log FILE          write libvmaf's log there (.xml / .csv / .sub pick the layout)
//   --max               print every score with %.17g (default %.6f)
//   --quiet             print the summary only
//
// The plugin must be on GStreamer's path, e.g. GST_PLUGIN_PATH=build/gst.
// Ctrl-C ends the streams early; the summary still covers what was scored.
//
// What it shows: building the pipeline, then per message
//   vmafexact-frame    index, pts, running-time, stream-time, duration (all
//                      guint64) and one gdouble per score (psnr_y, ...)
//   vmafexact-summary  frames-scored, frames-unpaired, frames-unpaired-ref,
//                      frames-unpaired-dist (guint64) and per score a nested
//                      GstStructure "pooled" with min, max, mean, harmonic_mean

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "support/raw_video.h"

namespace {

struct Options {
  std::string ref;
  std::string dist;
  int width = 0;
  int height = 0;
  std::string format = "I420";
  std::string framerate = "24/1";
  std::string features = "psnr";
  std::string log;
  bool max_precision = false;
  bool quiet = false;
};

std::atomic<bool> interrupted{false};

void on_sigint(int) { interrupted = true; }

[[noreturn]] void usage(const char* program, int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: %s [--size WxH [--format NAME] [--framerate N/D]] [--features LIST]\n"
               "          [--log FILE] [--max] [--quiet] [REF DIST]\n"
               "Without REF and DIST, scores a synthetic video against a JPEG copy of it.\n",
               program);
  std::exit(status);
}

Options parse_options(int argc, char** argv) {
  Options options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], 2);
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      usage(argv[0], 0);
    } else if (arg == "--size") {
      const std::string size = value();
      if (std::sscanf(size.c_str(), "%dx%d", &options.width, &options.height) != 2 ||
          options.width <= 0 || options.height <= 0)
        usage(argv[0], 2);
    } else if (arg == "--format") {
      options.format = value();
    } else if (arg == "--framerate") {
      options.framerate = value();
    } else if (arg == "--features") {
      options.features = value();
    } else if (arg == "--log") {
      options.log = value();
    } else if (arg == "--max") {
      options.max_precision = true;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      usage(argv[0], 2);
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.size() == 2) {
    options.ref = files[0];
    options.dist = files[1];
  } else if (!files.empty() || options.width > 0) {
    usage(argv[0], 2);
  }
  return options;
}

// rawvideoparse for a tightly packed file, with its layout spelled out
// (examples/common/raw_video.h says why).
std::string raw_parser(const Options& options) {
  const GstVideoFormat format = vmafexact::tools::raw_format_from_name(options.format);
  if (format == GST_VIDEO_FORMAT_UNKNOWN) {
    std::fprintf(stderr, "unknown format %s (formats: %s)\n", options.format.c_str(),
                 vmafexact::tools::raw_format_names().c_str());
    std::exit(2);
  }
  int framerate_num = 0, framerate_den = 0;
  if (std::sscanf(options.framerate.c_str(), "%d/%d", &framerate_num, &framerate_den) != 2 ||
      framerate_num <= 0 || framerate_den <= 0) {
    std::fprintf(stderr, "bad frame rate %s (write N/D, e.g. 24/1)\n", options.framerate.c_str());
    std::exit(2);
  }
  return vmafexact::tools::rawvideoparse_description(format, options.width, options.height,
                                                        framerate_num, framerate_den);
}

std::string pipeline_description(const Options& options) {
  const std::string element = "vmafexact name=v features=\"" + options.features + "\"";
  if (options.ref.empty()) {
    return "videotestsrc pattern=smpte horizontal-speed=4 num-buffers=48 "
           "! video/x-raw,format=I420,width=640,height=360,framerate=24/1 ! tee name=t "
           "t. ! queue ! v.ref_sink "
           "t. ! queue ! jpegenc quality=25 ! jpegdec ! videoconvert "
           "! video/x-raw,format=I420 ! v.dist_sink " +
           element + " ! fakesink";
  }
  // The file locations are set as properties below, so any path works.
  if (options.width > 0) {
    const std::string parser = raw_parser(options);
    return "filesrc name=ref ! " + parser + " ! v.ref_sink filesrc name=dist ! " + parser +
           " ! v.dist_sink " + element + " ! fakesink";
  }
  // decodebin picks a demuxer and decoder; videoconvert keeps the bit depth
  // where it can, and vmafexact checks that both sides agree.
  return "filesrc name=ref ! decodebin ! videoconvert ! v.ref_sink "
         "filesrc name=dist ! decodebin ! videoconvert ! v.dist_sink " +
         element + " ! fakesink";
}

const char* log_format_of(const std::string& path) {
  auto ends_with = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  if (ends_with(".xml")) return "xml";
  if (ends_with(".csv")) return "csv";
  if (ends_with(".sub")) return "sub";
  return "json";
}

std::string format_time(guint64 time) {
  if (!GST_CLOCK_TIME_IS_VALID(time)) return "none";
  gchar* text = g_strdup_printf("%" GST_TIME_FORMAT, GST_TIME_ARGS(time));
  std::string result = text;
  g_free(text);
  return result;
}

// One line per frame: its index, the distorted buffer's running time and every
// gdouble field, which are the scores named as libvmaf names them.
void print_frame(const GstStructure* s, const char* number_format) {
  guint64 index = 0;
  guint64 running_time = GST_CLOCK_TIME_NONE;
  gst_structure_get_uint64(s, "index", &index);
  gst_structure_get_uint64(s, "running-time", &running_time);
  std::printf("frame %5" G_GUINT64_FORMAT " at %s", index, format_time(running_time).c_str());
  for (gint i = 0; i < gst_structure_n_fields(s); ++i) {
    const gchar* name = gst_structure_nth_field_name(s, i);
    const GValue* value = gst_structure_get_value(s, name);
    if (!G_VALUE_HOLDS_DOUBLE(value)) continue;
    std::printf("  %s ", name);
    std::printf(number_format, g_value_get_double(value));
  }
  std::printf("\n");
}

void print_summary(const GstStructure* s, const char* number_format) {
  guint64 scored = 0, unpaired = 0, unpaired_ref = 0, unpaired_dist = 0;
  gst_structure_get_uint64(s, "frames-scored", &scored);
  gst_structure_get_uint64(s, "frames-unpaired", &unpaired);
  gst_structure_get_uint64(s, "frames-unpaired-ref", &unpaired_ref);
  gst_structure_get_uint64(s, "frames-unpaired-dist", &unpaired_dist);
  std::printf("summary: %" G_GUINT64_FORMAT " frames scored, %" G_GUINT64_FORMAT
              " unpaired (reference %" G_GUINT64_FORMAT ", distorted %" G_GUINT64_FORMAT ")\n",
              scored, unpaired, unpaired_ref, unpaired_dist);
  for (gint i = 0; i < gst_structure_n_fields(s); ++i) {
    const gchar* name = gst_structure_nth_field_name(s, i);
    const GValue* value = gst_structure_get_value(s, name);
    if (!GST_VALUE_HOLDS_STRUCTURE(value)) continue;
    const GstStructure* pooled = gst_value_get_structure(value);
    std::printf("  %-10s", name);
    for (const char* method : {"min", "max", "mean", "harmonic_mean"}) {
      gdouble number = 0;
      if (!gst_structure_get_double(pooled, method, &number)) continue;
      std::printf("  %s ", method);
      std::printf(number_format, number);
    }
    std::printf("\n");
  }
}

void print_error_or_warning(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  const bool is_error = GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR;
  if (is_error)
    gst_message_parse_error(message, &error, &debug);
  else
    gst_message_parse_warning(message, &error, &debug);
  std::fprintf(stderr, "%s from %s: %s\n", is_error ? "ERROR" : "WARNING",
               GST_OBJECT_NAME(GST_MESSAGE_SRC(message)), error->message);
  if (debug) std::fprintf(stderr, "  %s\n", debug);
  g_clear_error(&error);
  g_free(debug);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  const Options options = parse_options(argc, argv);

  if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
    gst_object_unref(factory);
  } else {
    std::fprintf(stderr,
                 "The vmafexact element is not installed. Point GStreamer at the build, e.g.\n"
                 "  GST_PLUGIN_PATH=$PWD/build/gst %s ...\n",
                 argv[0]);
    return 1;
  }

  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(pipeline_description(options).c_str(), &error);
  if (!pipeline || error) {
    std::fprintf(stderr, "Could not build the pipeline: %s\n", error ? error->message : "?");
    g_clear_error(&error);
    if (pipeline) gst_object_unref(pipeline);
    return 1;
  }
  if (!options.ref.empty()) {
    GstElement* ref = gst_bin_get_by_name(GST_BIN(pipeline), "ref");
    GstElement* dist = gst_bin_get_by_name(GST_BIN(pipeline), "dist");
    g_object_set(ref, "location", options.ref.c_str(), nullptr);
    g_object_set(dist, "location", options.dist.c_str(), nullptr);
    gst_object_unref(ref);
    gst_object_unref(dist);
  }
  GstElement* vmaf = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  g_object_set(vmaf, "frame-message", options.quiet ? FALSE : TRUE, nullptr);
  if (!options.log.empty()) {
    // Enum properties are set from their nicks, as gst-launch-1.0 does.
    gst_util_set_object_arg(G_OBJECT(vmaf), "log-format", log_format_of(options.log));
    gst_util_set_object_arg(G_OBJECT(vmaf), "log-precision", "max");
    g_object_set(vmaf, "log-location", options.log.c_str(), nullptr);
  }
  gst_object_unref(vmaf);

  const char* number_format = options.max_precision ? "%.17g" : "%.6f";
  std::signal(SIGINT, on_sigint);

  int status = 0;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    status = 1;  // the reason is on the bus; read it below

  GstBus* bus = gst_element_get_bus(pipeline);
  bool eos_sent = false;
  for (bool running = true; running;) {
    if (interrupted && !eos_sent) {
      std::fprintf(stderr, "interrupted: ending the streams\n");
      // Not while a state change is in flight: sent between a sink's preroll
      // and PLAYING, the EOS would block on a source's stream lock while holding
      // the state lock PLAYING needs (a pipeline that never prerolls gets it
      // after 2 s: the EOS is what ends that preroll).
      gst_element_get_state(pipeline, nullptr, nullptr, 2 * GST_SECOND);
      gst_element_send_event(pipeline, gst_event_new_eos());
      eos_sent = true;
    }
    GstMessage* message = gst_bus_timed_pop_filtered(
        bus, 100 * GST_MSECOND,
        static_cast<GstMessageType>(GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR |
                                    GST_MESSAGE_WARNING | GST_MESSAGE_EOS));
    if (!message) {
      if (status) running = false;  // failed to start and nothing more to read
      continue;
    }
    switch (GST_MESSAGE_TYPE(message)) {
      case GST_MESSAGE_ELEMENT: {
        const GstStructure* s = gst_message_get_structure(message);
        if (gst_structure_has_name(s, "vmafexact-frame"))
          print_frame(s, number_format);
        else if (gst_structure_has_name(s, "vmafexact-summary"))
          print_summary(s, number_format);
        break;
      }
      case GST_MESSAGE_WARNING:
        print_error_or_warning(message);
        break;
      case GST_MESSAGE_ERROR:
        print_error_or_warning(message);
        status = 1;
        running = false;
        break;
      case GST_MESSAGE_EOS:
        running = false;
        break;
      default:
        break;
    }
    gst_message_unref(message);
  }
  gst_object_unref(bus);
  // The log is written at end of stream, or at the latest when the element stops.
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  if (status == 0 && !options.log.empty())
    std::printf("log (%s, log-precision=max) written to %s\n", log_format_of(options.log),
                options.log.c_str());
  return status;
}
