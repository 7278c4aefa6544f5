#include "inputs.h"

#include <glib/gstdio.h>
#include <gst/pbutils/pbutils.h>

#include <cinttypes>
#include <cstdio>
#include <string_view>
#include <vector>

#include "errors.h"
#include "support/conform.h"
#include "support/decoded_video.h"
#include "support/handles.h"
#include "support/raw_video.h"
#include "support/y4m.h"

namespace vmafexact::cli {
namespace {

using tools::CapsPtr;
using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GObjectPtr;
using tools::GstObjectPtr;
using tools::MessagePtr;

void release_discoverer_info(GstDiscovererInfo* info) { gst_discoverer_info_unref(info); }
void release_stream_list(GList* list) { gst_discoverer_stream_info_list_free(list); }
using DiscovererInfoPtr =
    std::unique_ptr<GstDiscovererInfo,
                    tools::Releaser<GstDiscovererInfo, release_discoverer_info>>;
using StreamListPtr = std::unique_ptr<GList, tools::Releaser<GList, release_stream_list>>;

// How long the discoverer may take to read a file, and its first, short run
// (discover_uri()).
constexpr GstClockTime kDiscoveryTimeout = 30 * GST_SECOND;
constexpr GstClockTime kQuickDiscovery = 1 * GST_SECOND;

constexpr const char* kPluginAdvice =
    "Install GStreamer's plugins for it (Debian: gstreamer1.0-libav decodes H.264, HEVC and "
    "most codecs; also gstreamer1.0-plugins-good, -bad and -ugly).";

// The file must exist, be a file and be readable; the errors name the input.
void check_readable(const std::string& path, const std::string& role) {
  GStatBuf status;
  if (g_stat(path.c_str(), &status) != 0)
    throw CliError(kExitInput, "cannot read the " + role + " " + path + ": " + g_strerror(errno),
                   "Check the file name.");
  if (S_ISDIR(status.st_mode))
    throw CliError(kExitInput, "cannot read the " + role + " " + path + ": it is a folder",
                   "Give a video file.");
  // A pipe (such as bash's <(ffmpeg ...)) cannot be read twice, and each input
  // is: once to learn what it holds, then to score it.
  if (!S_ISREG(status.st_mode))
    throw CliError(kExitInput,
                   "cannot read the " + role + " " + path +
                       ": it is a pipe or a device, not a file, and vmafexact reads each input "
                       "twice (to learn its size and format, then to score it)",
                   "Write the video to a file first (for example ffmpeg -i IN -f yuv4mpegpipe "
                   "-strict -1 ref.y4m), or score a pipeline with the vmafexact element.");
  if (g_access(path.c_str(), R_OK) != 0)
    throw CliError(kExitInput, "cannot read the " + role + " " + path + ": " + g_strerror(errno),
                   "Check the file's permissions.");
}

std::string missing_plugins_of(const GstDiscovererInfo* info) {
  std::string missing;
  const gchar** details = gst_discoverer_info_get_missing_elements_installer_details(info);
  for (const gchar** detail = details; detail && *detail; ++detail) {
    // gstreamer|1.0|PROGRAM|DESCRIPTION|TYPE-NAME
    gchar** fields = g_strsplit(*detail, "|", 5);
    const gchar* description = g_strv_length(fields) >= 4 ? fields[3] : *detail;
    missing += std::string(missing.empty() ? "" : ", ") + description;
    g_strfreev(fields);
  }
  return missing.empty() ? "a decoder or demuxer" : missing;
}

GstVideoFormat format_of_raw_caps(const GstCaps* caps) {
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps(&info, caps)) return GST_VIDEO_FORMAT_UNKNOWN;
  return GST_VIDEO_INFO_FORMAT(&info);
}

// The sample format the decoder delivers, from one decoded frame: GstDiscoverer
// stops at the parser, whose caps do not always say (MPEG-4, VP8, MJPEG, ...).
GstVideoFormat probe_decoded_format(const VideoInput& input) {
  GstObjectPtr<GstElement> pipeline(
      static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("probe"))));
  auto decoder = tools::make_element("uridecodebin", "decoder");
  auto sink = tools::make_element("fakesink", "sink");
  if (!decoder || !sink)
    throw CliError(kExitScoring, "GStreamer's uridecodebin or fakesink is missing",
                   "Install gstreamer1.0-plugins-base.");
  g_object_set(decoder.get(), "uri", input.uri.c_str(), nullptr);
  tools::link_decoded_video(decoder.get(), sink.get());
  gst_bin_add_many(GST_BIN(pipeline.get()), decoder.get(), sink.get(), nullptr);
  gst_element_set_state(pipeline.get(), GST_STATE_PAUSED);
  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
  std::string failure;
  std::string missing;
  for (;;) {
    MessagePtr message(gst_bus_timed_pop_filtered(
        bus.get(), 30 * GST_SECOND,
        static_cast<GstMessageType>(GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR |
                                    GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS)));
    if (!message) {
      failure = "no frame decoded within 30 s";
      break;
    }
    if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ELEMENT) {
      if (gst_is_missing_plugin_message(message.get())) {
        GCharPtr description(gst_missing_plugin_message_get_description(message.get()));
        if (description) missing = description.get();
      }
      continue;
    }
    if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ERROR) {
      GError* raw_error = nullptr;
      gst_message_parse_error(message.get(), &raw_error, nullptr);
      ErrorPtr error(raw_error);
      failure = error ? error->message : "unknown error";
    } else if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_EOS) {
      failure = "the video ends before its first frame";
    }
    break;
  }
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  if (failure.empty()) {
    GstObjectPtr<GstPad> pad(gst_element_get_static_pad(sink.get(), "sink"));
    CapsPtr caps(gst_pad_get_current_caps(pad.get()));
    format = format_of_raw_caps(caps.get());
  }
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  if (!missing.empty())
    throw CliError(
        kExitInput,
        "cannot decode the " + input.role + " " + input.path + ": GStreamer has no " + missing,
        kPluginAdvice);
  if (!failure.empty())
    throw CliError(kExitInput,
                   "cannot decode the " + input.role + " " + input.path + ": " + failure,
                   kPluginAdvice);
  return format;
}

struct Discovery {
  DiscovererInfoPtr info;  // null where the discoverer gave none
  ErrorPtr error;
};

// One run of GStreamer's discoverer on `uri`, at most `timeout` long.
Discovery discover_once(const std::string& uri, GstClockTime timeout) {
  GError* raw_error = nullptr;
  GObjectPtr<GstDiscoverer> discoverer(gst_discoverer_new(timeout, &raw_error));
  ErrorPtr error(raw_error);
  if (!discoverer)
    throw CliError(kExitScoring, std::string("cannot start GStreamer's discoverer: ") +
                                     (error ? error->message : "unknown error"));
  raw_error = nullptr;
  DiscovererInfoPtr info(gst_discoverer_discover_uri(discoverer.get(), uri.c_str(), &raw_error));
  return {std::move(info), ErrorPtr(raw_error)};
}

GstDiscovererResult result_of(const Discovery& discovery) {
  return discovery.info ? gst_discoverer_info_get_result(discovery.info.get())
                        : GST_DISCOVERER_ERROR;
}

// Discovers a local file. GStreamer 1.22's decodebin loses a demuxer's error
// posted while the demuxer is still being set up: a demuxer that reads in pull
// mode can fail that early (a cut mp4 does, in about one run in ten once the
// file is cached), and the discoverer then waits out its whole timeout. So a
// first, short run; if it times out, the same file read in push mode (the
// pushfile:// source of gst-plugins-good, where the demuxer is set up before
// any data reaches it, so its errors are not lost) tells a broken file from a
// slow one, and only a slow one gets the full timeout.
Discovery discover_uri(const std::string& uri) {
  Discovery quick = discover_once(uri, kQuickDiscovery);
  if (result_of(quick) != GST_DISCOVERER_TIMEOUT) return quick;
  constexpr std::string_view kFile = "file://";
  if (uri.starts_with(kFile) && gst_uri_protocol_is_supported(GST_URI_SRC, "pushfile")) {
    Discovery pushed = discover_once("pushfile://" + uri.substr(kFile.size()), kDiscoveryTimeout);
    const GstDiscovererResult result = result_of(pushed);
    if (result != GST_DISCOVERER_OK && result != GST_DISCOVERER_TIMEOUT) return pushed;
  }
  return discover_once(uri, kDiscoveryTimeout);
}

VideoInput discover_file(const InputOptions& options, const std::string& role) {
  VideoInput input;
  input.role = role;
  input.path = options.path;
  GError* raw_error = nullptr;
  GCharPtr uri(gst_filename_to_uri(options.path.c_str(), &raw_error));
  ErrorPtr error(raw_error);
  if (!uri)
    throw CliError(kExitInput, "cannot read the " + role + " " + options.path + ": " +
                                   (error ? error->message : "not a file name"));
  input.uri = uri.get();

  const Discovery discovery = discover_uri(input.uri);
  const DiscovererInfoPtr& info = discovery.info;
  const GstDiscovererResult result = result_of(discovery);
  const std::string what = "cannot read the " + role + " " + options.path;
  switch (result) {
    case GST_DISCOVERER_OK:
      break;
    case GST_DISCOVERER_MISSING_PLUGINS:
      throw CliError(kExitInput, what + ": GStreamer has no " + missing_plugins_of(info.get()),
                     kPluginAdvice);
    case GST_DISCOVERER_TIMEOUT:
      throw CliError(kExitInput, what + ": GStreamer could not read it within " +
                                     std::to_string(kDiscoveryTimeout / GST_SECOND) + " s");
    default: {
      std::string reason = discovery.error ? discovery.error->message : "GStreamer cannot read it";
      if (!reason.empty() && reason.back() == '.') reason.pop_back();
      throw CliError(kExitInput, what + ": " + reason,
                     "Give a video file GStreamer can read (mp4, mkv, webm, y4m, ...); for raw "
                     "video give --size WxH (and --format).");
    }
  }
  StreamListPtr videos(gst_discoverer_info_get_video_streams(info.get()));
  if (!videos) throw CliError(kExitInput, what + ": it has no video stream", "Give a video file.");
  auto* video = static_cast<GstDiscovererVideoInfo*>(videos->data);
  input.width = static_cast<int>(gst_discoverer_video_info_get_width(video));
  input.height = static_cast<int>(gst_discoverer_video_info_get_height(video));
  input.framerate = {static_cast<int>(gst_discoverer_video_info_get_framerate_num(video)),
                     static_cast<int>(gst_discoverer_video_info_get_framerate_denom(video))};
  if (input.framerate.den == 0) input.framerate = {0, 1};
  input.duration = gst_discoverer_info_get_duration(info.get());
  if (input.duration == 0) input.duration = GST_CLOCK_TIME_NONE;
  CapsPtr caps(gst_discoverer_stream_info_get_caps(GST_DISCOVERER_STREAM_INFO(video)));
  if (caps && !gst_caps_is_empty(caps.get())) {
    const GstStructure* s = gst_caps_get_structure(caps.get(), 0);
    if (gst_structure_has_name(s, "video/x-raw")) {
      input.format = format_of_raw_caps(caps.get());
      input.codec = "raw video";
    } else {
      GCharPtr codec(gst_pb_utils_get_codec_description(caps.get()));
      input.codec = codec ? codec.get() : gst_structure_get_name(s);
      GCharPtr text(gst_caps_to_string(caps.get()));
      input.stream_caps = text.get();
    }
  }
  if (input.width <= 0 || input.height <= 0)
    throw CliError(kExitInput, what + ": its video stream has no picture size");
  return input;
}

VideoInput discover_raw(const InputOptions& options, const std::string& role) {
  VideoInput input;
  input.role = role;
  input.path = options.path;
  input.raw = true;
  input.width = options.width;
  input.height = options.height;
  input.format = options.format;
  input.codec = "raw";
  const tools::RawLayout layout =
      tools::packed_layout(options.format, options.width, options.height);
  GStatBuf status;
  g_stat(options.path.c_str(), &status);
  const auto bytes = static_cast<guint64>(status.st_size);
  input.raw_frames = bytes / layout.frame_size;
  const std::string frame = std::to_string(options.width) + "x" + std::to_string(options.height) +
                            " " + gst_video_format_to_string(options.format);
  if (input.raw_frames == 0)
    throw CliError(kExitInput,
                   "cannot read the " + role + " " + options.path + ": it holds " +
                       std::to_string(bytes) + " bytes, less than one " + frame + " frame (" +
                       std::to_string(layout.frame_size) + " bytes)",
                   "Check --size and --format.");
  if (bytes % layout.frame_size)
    std::fprintf(stderr,
                 "vmafexact: warning: the %s %s holds %" G_GUINT64_FORMAT
                 " bytes, not a whole number of %zu-byte %s frames; the last %" G_GUINT64_FORMAT
                 " bytes are not read (check --size and --format)\n",
                 role.c_str(), options.path.c_str(), bytes, layout.frame_size, frame.c_str(),
                 bytes % layout.frame_size);
  if (options.framerate) input.framerate = *options.framerate;
  return input;
}

void set_raw_duration(VideoInput& input) {
  if (input.framerate.num > 0)
    input.duration = gst_util_uint64_scale(input.raw_frames, GST_SECOND * input.framerate.den,
                                           input.framerate.num);
}

// Whether the file starts as a YUV4MPEG2 header does.
bool is_y4m(const std::string& path) {
  std::FILE* file = g_fopen(path.c_str(), "rb");
  if (!file) return false;
  char start[9] = {};
  const std::size_t got = std::fread(start, 1, sizeof start, file);
  std::fclose(file);
  return tools::starts_like_y4m(std::string_view(start, got));
}

// A y4m file: read by vmafexact itself (GStreamer 1.22's y4mdec reads 8-bit
// files only), from its header.
VideoInput discover_y4m(const InputOptions& options, const std::string& role) {
  VideoInput input;
  input.role = role;
  input.path = options.path;
  try {
    input.y4m = std::make_shared<tools::Y4mReader>(options.path);
  } catch (const tools::Y4mError& error) {
    throw CliError(kExitInput,
                   "cannot read the " + role + " " + options.path + " as y4m: " + error.what(),
                   "vmafexact reads progressive YUV4MPEG2 files; docs/tool.md (\"Y4M files\") "
                   "lists the chroma types.");
  }
  const tools::Y4mReader& reader = *input.y4m;
  const tools::Y4mHeader& header = reader.header();
  input.width = header.width;
  input.height = header.height;
  input.format = header.format;
  input.framerate = {header.fps_num, header.fps_den};
  input.raw_frames = reader.frame_count();
  input.codec = "y4m C" + header.chroma;
  if (input.raw_frames == 0)
    throw CliError(kExitInput,
                   "cannot read the " + role + " " + options.path + ": it holds no whole frame",
                   "Check that the file was written completely.");
  if (reader.trailing_bytes())
    std::fprintf(stderr,
                 "vmafexact: warning: the %s %s ends with %" G_GUINT64_FORMAT
                 " bytes that are not a whole frame; they are not read\n",
                 role.c_str(), options.path.c_str(), reader.trailing_bytes());
  set_raw_duration(input);
  return input;
}

}  // namespace

std::string duration_text(GstClockTime duration) {
  if (!GST_CLOCK_TIME_IS_VALID(duration)) return "unknown";
  const guint64 ms = duration / GST_MSECOND;
  char text[64];
  if (ms >= 3600000)
    std::snprintf(text, sizeof text, "%" G_GUINT64_FORMAT ":%02u:%02u.%03u", ms / 3600000,
                  static_cast<unsigned>(ms / 60000 % 60), static_cast<unsigned>(ms / 1000 % 60),
                  static_cast<unsigned>(ms % 1000));
  else if (ms >= 60000)
    std::snprintf(text, sizeof text, "%u:%02u.%03u", static_cast<unsigned>(ms / 60000),
                  static_cast<unsigned>(ms / 1000 % 60), static_cast<unsigned>(ms % 1000));
  else
    std::snprintf(text, sizeof text, "%u.%03u s", static_cast<unsigned>(ms / 1000),
                  static_cast<unsigned>(ms % 1000));
  return text;
}

std::string VideoInput::description() const {
  std::string text = std::to_string(width) + "x" + std::to_string(height);
  const char* sample_format =
      format != GST_VIDEO_FORMAT_UNKNOWN ? gst_video_format_to_string(format) : nullptr;
  if (raw)
    text += std::string(" raw ") + sample_format;
  else if (y4m)
    text += " " + codec + " (" + sample_format + ")";
  else if (codec == "raw video" && sample_format)
    text += std::string(" ") + sample_format;
  else if (!codec.empty())
    text += " " + codec;
  if (framerate.num > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.6g", static_cast<double>(framerate.num) / framerate.den);
    text += std::string(", ") + rate + " fps";
  } else {
    text += ", variable frame rate";
  }
  text += ", " + duration_text(duration);
  return text;
}

VideoInput discover_input(const InputOptions& options, const std::string& role) {
  check_readable(options.path, role);
  if (options.raw) return discover_raw(options, role);
  if (is_y4m(options.path)) return discover_y4m(options, role);
  VideoInput input = discover_file(options, role);
  return input;
}

void choose_decoders(const Options& options, VideoInput& input) {
  if (options.backend != "cuda" || input.raw || input.y4m || input.stream_caps.empty()) return;
  CapsPtr caps(gst_caps_from_string(input.stream_caps.c_str()));
  input.nvdec = tools::choose_registered_nvdec(caps.get());
  if (!input.nvdec.chosen() && !options.quiet)
    std::fprintf(stderr, "vmafexact: note: %s: %s: %s; decoding on the CPU\n", input.path.c_str(),
                 input.codec.c_str(), input.nvdec.why_not.c_str());
}

std::string decoder_description(const VideoInput& input) {
  if (input.raw) return "rawvideoparse";
  if (input.y4m) return "vmafexact's y4m reader";
  if (input.nvdec.chosen()) return input.nvdec.description();
  return "GStreamer's choice (CPU)";
}

void settle_raw_framerates(VideoInput& ref, VideoInput& dist, const InputOptions& ref_options,
                           const InputOptions& dist_options) {
  for (auto [input, other, options] :
       {std::tuple{&ref, &dist, &ref_options}, std::tuple{&dist, &ref, &dist_options}}) {
    if (!input->raw) continue;
    if (!options->framerate)
      input->framerate = other->framerate.num > 0 ? other->framerate : Fraction{24, 1};
    set_raw_duration(*input);
  }
}

GstVideoFormat scoring_format(const VideoInput& ref) {
  GstVideoFormat format = ref.format;
  if (format == GST_VIDEO_FORMAT_UNKNOWN && !ref.raw && !ref.y4m)
    format = probe_decoded_format(ref);
  return tools::scoring_format(format);
}

std::vector<GstVideoFormat> dist_scoring_formats(GstVideoFormat ref_format,
                                                 const VideoInput& dist) {
  try {
    return tools::dist_scoring_formats(ref_format, dist.format, dist.path);
  } catch (const tools::ConformError& error) {
    throw CliError(kExitNothingToCompare, error.what(), error.fix());
  }
}

}  // namespace vmafexact::cli
