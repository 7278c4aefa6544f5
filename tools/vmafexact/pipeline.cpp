#include "pipeline.h"

#include <gst/app/gstappsrc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string_view>
#include <utility>

#include "errors.h"
#include "support/conform.h"
#include "support/decoded_video.h"
#include "support/nvdec.h"
#include "support/raw_video.h"
#include "support/y4m.h"

namespace vmafexact::cli {

// The running time a branch keeps: [begin, end). Past the end the branch
// ends (EOS downstream) and, where `stop_upstream`, tells upstream so, which
// stops its decoder; after a tee the other branches still want the frames.
struct KeptWindow {
  GstClockTime begin = 0;
  GstClockTime end = GST_CLOCK_TIME_NONE;
  bool stop_upstream = false;
  GstSegment segment{};  // the branch's segment, from its SEGMENT event
  bool ended = false;
};

// Starts one input at the frame range rather than at its first frame. At the
// first decoded frame, if it lies before `target` (running time in the
// input's first segment), the decoder's thread waits (a blocking probe on the
// head queue's sink pad) while another thread sends a flushing, accurate seek
// upstream. Nothing downstream has had a frame of this input, so the seek's
// flushes stop at this pad, and the segment after the seek is replaced by the
// input's first one: running times, hence the window probes, the pad offsets
// and the element's pairing, are those of a decode from the start; only the
// frames before the range are never decoded. An input that refuses the seek
// (a pipe, a y4m feed) plays from its start, and the window probes drop what
// lies before the range, as they always do. A seek that lands after `target`
// (a frame would be missing) is undone by a seek back to the start.
struct InputSeek {
  enum class State { kWaiting, kSeeking, kSought, kRefused, kNotNeeded };
  std::weak_ptr<InputSeek> self;  // for the calls it makes
  GstElement* pipeline = nullptr;
  GstElement* decoder = nullptr;  // a uridecodebin (its demuxer is checked), or null
  GstPad* pad = nullptr;          // the head queue's sink pad (the branch holds the queue)
  GstClockTime target = 0;
  GstClockTime stop = GST_CLOCK_TIME_NONE;  // running time past the last frame wanted
  bool enabled = true;                      // VMAFEXACT_NO_SEEK unset

  std::mutex mutex;  // the streaming thread's and the seeking thread's
  State state = State::kWaiting;
  GstSegment first{};  // the input's first segment
  bool have_first = false;
  bool replace_segment = false;   // the next segment is the seek's
  bool landing_to_check = false;  // the seek's segment arms check_landing
  bool check_landing = false;     // the next frame is the seek's first
  bool discard = false;           // landed late: frames until the next seek's segment dropped
  gulong block = 0;
  GstClockTime position = GST_CLOCK_TIME_NONE;  // the seek's, in the first segment's terms
  GstClockTime stop_position = GST_CLOCK_TIME_NONE;
  guint64 frames = 0;  // decoded frames that reached the pad (debug notes)
  std::string note;
};

namespace {

// How far before the range a seek lands (and past it stops): the first frame
// after the seek must lie before the range's first, whatever the input's
// frame rate (at least 1 per second), so that no frame of the range is missing
// (checked: a later landing seeks back to the start).
constexpr GstClockTime kSeekMargin = GST_SECOND;

// An InputSeek shared with a probe or a call on the pipeline's thread pool
// (which may outlive the ScoringPipeline by a moment), as their user data.
gpointer shared_seek(const std::shared_ptr<InputSeek>& seek) {
  return std::make_unique<std::shared_ptr<InputSeek>>(seek).release();
}
void release_seek(gpointer data) {
  std::unique_ptr<std::shared_ptr<InputSeek>> owned(static_cast<std::shared_ptr<InputSeek>*>(data));
}
InputSeek* seek_of(gpointer data) { return static_cast<std::shared_ptr<InputSeek>*>(data)->get(); }

GstClockTime buffer_time(GstBuffer* buffer) {
  return GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
}

std::string seconds_text(GstClockTime time) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(time) / GST_SECOND);
  return text;
}

// The demuxers whose frames carry timestamps from the file (an index, PTS),
// the same wherever decoding starts; elsewhere (an elementary stream, AVI)
// they may be counted from where parsing starts, and a seek could shift them.
constexpr const char* kTimestampedDemuxers[] = {"qtdemux", "matroskademux", "tsdemux", "flvdemux"};

// The demuxer in a uridecodebin, or "" for none (an elementary stream).
std::string demuxer_of(GstElement* decoder) {
  std::string found;
  GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(decoder));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
    auto* element = static_cast<GstElement*>(g_value_get_object(&item));
    GstElementFactory* factory = gst_element_get_factory(element);
    const gchar* klass =
        factory ? gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : nullptr;
    if (klass && std::string_view(klass).find("Demux") != std::string_view::npos)
      found = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(elements);
  return found;
}

// On a thread of the pipeline's pool: the decoder's thread may be waiting in
// the blocking probe, and the seek's flush is what wakes it.
void seek_input(GstElement*, gpointer data) {
  InputSeek* seek = seek_of(data);
  GstClockTime position;
  GstClockTime stop;
  {
    std::lock_guard lock(seek->mutex);
    position = seek->position;
    stop = seek->stop_position;
  }
  GstEvent* event = gst_event_new_seek(
      1.0, GST_FORMAT_TIME, static_cast<GstSeekFlags>(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
      GST_SEEK_TYPE_SET, static_cast<gint64>(position),
      GST_CLOCK_TIME_IS_VALID(stop) ? GST_SEEK_TYPE_SET : GST_SEEK_TYPE_NONE,
      GST_CLOCK_TIME_IS_VALID(stop) ? static_cast<gint64>(stop) : -1);
  const bool sought = gst_pad_push_event(seek->pad, event);
  gulong block = 0;
  {
    std::lock_guard lock(seek->mutex);
    if (sought) {
      seek->state = InputSeek::State::kSought;
    } else {
      seek->state = InputSeek::State::kRefused;
      seek->replace_segment = false;
      seek->landing_to_check = false;
      seek->discard = false;
      seek->note += "the seek to " + seconds_text(position) +
                    " was refused (not seekable): decoded from the start, frames before the "
                    "range dropped; ";
    }
    block = std::exchange(seek->block, 0);
  }
  if (block) gst_pad_remove_probe(seek->pad, block);
}

// The head queue's sink pad, blocking: the first frame decides whether to seek.
GstPadProbeReturn seek_block_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  InputSeek* seek = seek_of(data);
  std::lock_guard lock(seek->mutex);
  if (seek->state == InputSeek::State::kSeeking) return GST_PAD_PROBE_OK;  // wait for it
  if (seek->state != InputSeek::State::kWaiting) {
    seek->block = 0;
    return GST_PAD_PROBE_REMOVE;
  }
  const GstClockTime time = buffer_time(GST_PAD_PROBE_INFO_BUFFER(info));
  const GstClockTime running =
      seek->have_first && seek->first.format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(time)
          ? gst_segment_to_running_time(&seek->first, GST_FORMAT_TIME, time)
          : GST_CLOCK_TIME_NONE;
  const GstClockTime seek_running = seek->target > kSeekMargin ? seek->target - kSeekMargin : 0;
  const GstClockTime position =
      seek->have_first && seek->first.format == GST_FORMAT_TIME && seek->first.rate == 1.0
          ? gst_segment_position_from_running_time(&seek->first, GST_FORMAT_TIME, seek_running)
          : GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID(running) || running >= seek_running ||
      !GST_CLOCK_TIME_IS_VALID(position)) {
    seek->state = InputSeek::State::kNotNeeded;
    seek->note += "no seek (its first frame is not before the range); ";
    seek->block = 0;
    return GST_PAD_PROBE_REMOVE;
  }
  if (seek->decoder) {
    const std::string demuxer = demuxer_of(seek->decoder);
    if (std::find_if(std::begin(kTimestampedDemuxers), std::end(kTimestampedDemuxers),
                     [&](const char* name) { return demuxer == name; }) ==
        std::end(kTimestampedDemuxers)) {
      seek->state = InputSeek::State::kNotNeeded;
      seek->note += "not sought (" + (demuxer.empty() ? "no demuxer" : demuxer) +
                    ": its timestamps may depend on where decoding starts): decoded from the "
                    "start; ";
      seek->block = 0;
      return GST_PAD_PROBE_REMOVE;
    }
  }
  seek->position = position;
  seek->stop_position = GST_CLOCK_TIME_IS_VALID(seek->stop)
                            ? gst_segment_position_from_running_time(&seek->first, GST_FORMAT_TIME,
                                                                     seek->stop + kSeekMargin)
                            : GST_CLOCK_TIME_NONE;
  seek->state = InputSeek::State::kSeeking;
  seek->replace_segment = true;
  seek->landing_to_check = true;
  seek->note += "accurate seek to " + seconds_text(seek_running) + " (timestamp " +
                seconds_text(position) + "); ";
  gst_element_call_async(seek->pipeline, seek_input, shared_seek(seek->self.lock()), release_seek);
  return GST_PAD_PROBE_OK;
}

// The head queue's sink pad: the first segment kept, the seek's flushes
// stopped, the seek's segment replaced, frames counted, the landing checked.
GstPadProbeReturn seek_watch_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  InputSeek* seek = seek_of(data);
  std::lock_guard lock(seek->mutex);
  const bool seeking =
      seek->state == InputSeek::State::kSeeking || seek->state == InputSeek::State::kSought;
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
    ++seek->frames;
    if (seek->discard) return GST_PAD_PROBE_DROP;
    if (!seek->check_landing) return GST_PAD_PROBE_OK;
    seek->check_landing = false;
    const GstClockTime time = buffer_time(GST_PAD_PROBE_INFO_BUFFER(info));
    const GstClockTime running =
        GST_CLOCK_TIME_IS_VALID(time)
            ? gst_segment_to_running_time(&seek->first, GST_FORMAT_TIME, time)
            : GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID(running) && running <= seek->target) {
      seek->note += "first frame at " + seconds_text(running) + "; ";
      return GST_PAD_PROBE_OK;
    }
    // Landed late: back to the start, as without a seek.
    seek->note += "landed at " + seconds_text(running) +
                  ", after the range's start: sought back to " + seconds_text(seek->first.start) +
                  "; ";
    seek->position = seek->first.start;
    seek->stop_position = GST_CLOCK_TIME_NONE;
    seek->state = InputSeek::State::kSeeking;
    seek->replace_segment = true;
    seek->discard = true;
    gst_element_call_async(seek->pipeline, seek_input, shared_seek(seek->self.lock()),
                           release_seek);
    return GST_PAD_PROBE_DROP;
  }
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_START:
    case GST_EVENT_FLUSH_STOP:
      return seeking ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
    case GST_EVENT_SEGMENT:
      if (!seek->have_first) {
        gst_event_copy_segment(event, &seek->first);
        seek->have_first = true;
        return GST_PAD_PROBE_OK;
      }
      if (seeking && seek->replace_segment) {
        seek->replace_segment = false;
        seek->check_landing = std::exchange(seek->landing_to_check, false);
        seek->discard = false;
        GstEvent* replaced = gst_event_new_segment(&seek->first);
        gst_event_set_seqnum(replaced, gst_event_get_seqnum(event));
        gst_event_unref(event);
        GST_PAD_PROBE_INFO_DATA(info) = replaced;
      }
      return GST_PAD_PROBE_OK;
    default:
      return GST_PAD_PROBE_OK;
  }
}

}  // namespace

// Sets the colorimetry and chroma siting of the caps a branch ends in to the
// input's own, once its decoded caps are known: GStreamer's videoscale and
// videoconvert otherwise pick a size-dependent default (BT.601 below HD,
// BT.709 from HD) and convert the matrix, changing the samples.
struct ColourPin {
  GstElement* capsfilter = nullptr;  // owned by the branch
  tools::CapsPtr caps;               // the capsfilter's caps without colorimetry
};

// A y4m input read frame by frame into its appsrc, on the appsrc's streaming
// thread: each frame a buffer of its tightly packed planes with their layout
// as video meta, timestamped from the header's rate.
struct Y4mFeed {
  explicit Y4mFeed(std::shared_ptr<tools::Y4mReader> input_reader)
      : reader(std::move(input_reader)) {
    const tools::Y4mHeader& header = reader->header();
    const tools::RawLayout layout =
        tools::packed_layout(header.format, header.width, header.height);
    planes = static_cast<guint>(layout.offsets.size());
    for (guint plane = 0; plane < planes; ++plane) {
      offsets[plane] = layout.offsets[plane];
      strides[plane] = static_cast<gint>(layout.strides[plane]);
    }
  }
  std::shared_ptr<tools::Y4mReader> reader;  // the one discovery opened
  // Frames skipped before the first read (a frame range's start: the file is
  // read from there, as a seek would), then 0.
  guint64 skip = 0;
  // The frames' packed layout, as video meta.
  guint planes = 0;
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
};

namespace {

using tools::GstObjectPtr;

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

std::string rate_text(const Fraction& rate) {
  return std::to_string(rate.num) + "/" + std::to_string(rate.den);
}

bool same_rate(const Fraction& a, const Fraction& b) {
  return static_cast<gint64>(a.num) * b.den == static_cast<gint64>(b.num) * a.den;
}

// Keeps a branch's buffers whose running time lies in its window.
GstPadProbeReturn keep_window_probe(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  auto* window = static_cast<KeptWindow*>(data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
    switch (GST_EVENT_TYPE(event)) {
      case GST_EVENT_SEGMENT:
        gst_event_copy_segment(event, &window->segment);
        break;
      case GST_EVENT_FLUSH_STOP:
      case GST_EVENT_STREAM_START:
        window->ended = false;
        break;
      default:
        // Ended here: upstream's own end (and anything after) is not passed on.
        if (window->ended && (GST_EVENT_TYPE(event) & static_cast<int>(GST_EVENT_TYPE_SERIALIZED)))
          return GST_PAD_PROBE_DROP;
        break;
    }
    return GST_PAD_PROBE_OK;
  }
  if (window->ended) return GST_PAD_PROBE_DROP;
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const GstClockTime time =
      GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
  const guint64 running_time =
      window->segment.format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(time)
          ? gst_segment_to_running_time(&window->segment, GST_FORMAT_TIME, time)
          : GST_CLOCK_TIME_NONE;
  // Without a timestamp a frame's place is unknown: it cannot be kept.
  if (!GST_CLOCK_TIME_IS_VALID(running_time) || running_time < window->begin)
    return GST_PAD_PROBE_DROP;
  if (!GST_CLOCK_TIME_IS_VALID(window->end) || running_time < window->end) return GST_PAD_PROBE_OK;
  if (!window->stop_upstream) {
    window->ended = true;
    // The EOS goes straight to the peer: pushed from this pad it would mark
    // the pad EOS, and its next push would return EOS before this probe can
    // drop the buffer; a tee upstream takes EOS from one branch as the end
    // of all and stops feeding the others (an encode whose window ends later
    // would lose its last frames).
    if (GstObjectPtr<GstPad> peer{gst_pad_get_peer(pad)})
      gst_pad_send_event(peer.get(), gst_event_new_eos());
    return GST_PAD_PROBE_DROP;
  }
  gst_pad_push_event(pad, gst_event_new_eos());
  window->ended = true;
  gst_buffer_unref(buffer);
  GST_PAD_PROBE_INFO_DATA(info) = nullptr;
  GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GST_FLOW_EOS;
  return GST_PAD_PROBE_HANDLED;
}

GstPadProbeReturn pin_colour_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
  auto* pin = static_cast<ColourPin*>(data);
  GstCaps* decoded = nullptr;
  gst_event_parse_caps(event, &decoded);
  if (tools::CapsPtr caps = tools::pin_colour(pin->caps.get(), decoded))
    g_object_set(pin->capsfilter, "caps", caps.get(), nullptr);
  return GST_PAD_PROBE_OK;
}

// appsrc wants data: the next frame, or the end of the file, or an error
// naming the file and the frame.
void feed_y4m(GstAppSrc* source, guint, gpointer data) {
  auto* feed = static_cast<Y4mFeed*>(data);
  const tools::Y4mHeader& header = feed->reader->header();
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, header.frame_bytes, nullptr);
  bool read = false;
  std::string failure;
  {
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
      failure = "cannot map a buffer of " + std::to_string(header.frame_bytes) + " bytes";
    } else {
      try {
        read = feed->reader->skip_frames(std::exchange(feed->skip, 0)) &&
               feed->reader->read_frame(map.data);
      } catch (const tools::Y4mError& error) {
        failure = error.what();
      }
      gst_buffer_unmap(buffer, &map);
    }
  }
  if (!failure.empty() || !read) {
    gst_buffer_unref(buffer);
    if (!failure.empty()) {
      GError* error = g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE, "%s", failure.c_str());
      gst_element_post_message(
          GST_ELEMENT(source),
          gst_message_new_error(GST_OBJECT(source), error,
                                "The y4m file's frames do not follow its header."));
      g_error_free(error);
    }
    gst_app_src_end_of_stream(source);
    return;
  }
  const guint64 index = feed->reader->frames_read() - 1;
  const auto den = static_cast<guint64>(header.fps_den), num = static_cast<guint64>(header.fps_num);
  GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(index, GST_SECOND * den, num);
  GST_BUFFER_DURATION(buffer) =
      gst_util_uint64_scale(index + 1, GST_SECOND * den, num) - GST_BUFFER_PTS(buffer);
  GST_BUFFER_OFFSET(buffer) = index;
  gst_buffer_add_video_meta_full(
      buffer, GST_VIDEO_FRAME_FLAG_NONE, header.format, static_cast<guint>(header.width),
      static_cast<guint>(header.height), feed->planes, feed->offsets, feed->strides);
  gst_app_src_push_buffer(source, buffer);
}

}  // namespace

bool ffmpeg_scaler_available() { return tools::ffmpeg_scaler_available(); }

namespace {

tools::ScalerChoice scaler_choice(const Options& options) {
  return {options.scale_method, options.scale_flags};
}

bool uses_ffmpeg_scaler(const Options& options) {
  return tools::uses_ffmpeg_scaler(scaler_choice(options));
}

// The scaler, set up as the options say.
tools::GstObjectPtr<GstElement> make_scaler(const Options& options, const char* name) {
  return tools::make_scaler(scaler_choice(options), name);
}

}  // namespace

std::string videoscale_method(const Options& options) {
  return tools::videoscale_method(scaler_choice(options));
}

std::string scaler_description(const Options& options, const Alignment& alignment) {
  if (!alignment.scale) return "none (same size)";
  if (uses_ffmpeg_scaler(options)) {
    auto scaler = make_scaler(options, nullptr);
    gchar* described = nullptr;
    if (scaler && g_object_class_find_property(G_OBJECT_GET_CLASS(scaler.get()), "scaler"))
      g_object_get(scaler.get(), "scaler", &described, nullptr);
    tools::GCharPtr text(described);
    if (text && *text) return text.get();
    return "vmafexactscale flags=" + options.scale_flags;
  }
  return "videoscale method=" + videoscale_method(options);
}

FrameWindow frame_window(const Options& options, const VideoInput& ref) {
  FrameWindow window;
  if (!options.start && !options.frames && !options.duration) return window;
  const double start = options.start.value_or(0);
  auto seconds = [](double value) {
    return static_cast<GstClockTime>(std::llround(value * GST_SECOND));
  };
  GstClockTime first_time = seconds(start);  // the first frame kept
  if (ref.framerate.num > 0) {
    const auto num = static_cast<guint64>(ref.framerate.num);
    const auto den = static_cast<guint64>(ref.framerate.den);
    auto time_of = [&](guint64 frame) {
      return gst_util_uint64_scale(frame, GST_SECOND * den, num);
    };
    const GstClockTime half_frame = gst_util_uint64_scale(GST_SECOND, den, 2 * num);
    // The first frame at or after a time (a millionth of a frame's slack
    // for times typed in decimals).
    auto frame_at = [&](double time) {
      return static_cast<guint64>(std::ceil(time * static_cast<double>(num) / den - 1e-6));
    };
    const guint64 first = frame_at(start);
    first_time = time_of(first);
    window.begin = first > 0 ? first_time - half_frame : 0;
    std::optional<guint64> end_frame;
    if (options.frames) {
      end_frame = first + *options.frames;
      window.frames = options.frames;
    } else if (options.duration) {
      end_frame = frame_at(start + *options.duration);
      window.frames = *end_frame - first;
    }
    if (end_frame) window.end = time_of(*end_frame) - half_frame;
  } else {
    if (options.frames)
      throw CliError(
          kExitUsage,
          "--frames counts the reference's frames, but " + ref.path + " has no constant frame rate",
          "Give --duration TIME instead.");
    window.begin = first_time;
    if (options.duration) window.end = window.begin + seconds(*options.duration);
  }
  window.first = first_time;
  if (GST_CLOCK_TIME_IS_VALID(ref.duration) && first_time >= ref.duration)
    throw CliError(kExitNothingToCompare,
                   "--start " + duration_text(first_time) + " lies beyond the end of the " +
                       ref.role + " " + ref.path + " (" + duration_text(ref.duration) + " long)",
                   "Give a --start within the video.");
  return window;
}

Alignment align(const Options& options, const VideoInput& ref, const VideoInput& dist) {
  Alignment alignment;
  alignment.format = scoring_format(ref);
  alignment.dist_formats = dist_scoring_formats(alignment.format, dist);
  alignment.scale = ref.width != dist.width || ref.height != dist.height;
  if (alignment.scale && options.no_scale)
    throw CliError(kExitNothingToCompare,
                   "the reference is " + size_text(ref.width, ref.height) +
                       " and the distorted video " + size_text(dist.width, dist.height) +
                       ", and --no-scale forbids scaling",
                   "Drop --no-scale to scale the distorted video to " +
                       size_text(ref.width, ref.height) + " (--scale-method picks how).");
  alignment.convert_rate =
      ref.framerate.num > 0 && dist.framerate.num > 0 && !same_rate(ref.framerate, dist.framerate);
  if (alignment.convert_rate && options.no_rate_conversion)
    throw CliError(kExitNothingToCompare,
                   "the reference runs at " + rate_text(ref.framerate) +
                       " frames per second and the distorted video at " +
                       rate_text(dist.framerate) + ", and --no-rate-conversion forbids converting",
                   "Drop --no-rate-conversion to drop or repeat distorted frames to the "
                   "reference's rate, or give both videos the same rate.");
  const auto skip =
      static_cast<GstClockTime>(std::llround(std::fabs(options.dist_delay) * GST_SECOND));
  (options.dist_delay > 0 ? alignment.dist_skip : alignment.ref_skip) = skip;
  if (options.dist_delay != 0) {
    char text[96];
    std::snprintf(text, sizeof text, "dist-delay %g s", options.dist_delay);
    alignment.description = text;
    if (ref.framerate.num > 0) {
      std::snprintf(text, sizeof text, " (%+.4g frames)",
                    options.dist_delay * ref.framerate.num / ref.framerate.den);
      alignment.description += text;
    }
  }
  return alignment;
}

ScoringPipeline::ScoringPipeline(const Options& options, const VideoInput& ref,
                                 const FrameWindow& window, const std::vector<EncodeSetup>& encodes)
    : window_(window),
      pipeline_(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("vmafexact")))) {
  // The reference, decoded once: source ! queue ! videoconvert ! capsfilter ! tee.
  branches_.push_back(std::make_unique<Branch>());
  Branch& ref_branch = *branches_.back();
  ref_branch.input = &ref;
  ref_branch.prefix = "ref";
  GstElement* ref_head = add_source(ref_branch, ref);
  if (window_.begin > 0 && !encodes.empty()) {
    GstClockTime first_skip = GST_CLOCK_TIME_NONE;
    GstClockTime last_skip = 0;
    for (const EncodeSetup& encode : encodes) {
      first_skip = std::min(first_skip, encode.alignment.ref_skip);
      last_skip = std::max(last_skip, encode.alignment.ref_skip);
    }
    seek_to_window(
        ref_branch, ref_head, first_skip + window_.begin,
        GST_CLOCK_TIME_IS_VALID(window_.end) ? last_skip + window_.end : GST_CLOCK_TIME_NONE);
  }
  // Decoded by NVDEC: nothing to convert (NV12 and P010 score as I420 and
  // I420_10LE do, the scoring format then), the frames stay on the GPU.
  const bool ref_resident = ref.nvdec.chosen();
  GstElement* ref_tail =
      ref_resident ? add_steps(ref_branch, ref_head, {"capsfilter", "tee"})
                   : add_steps(ref_branch, ref_head, {"videoconvert", "capsfilter", "tee"});
  GstElement* ref_caps = ref_branch.elements[ref_branch.elements.size() - 2].get();
  // videoconvert converts even between caps that say the same (a 10-bit
  // input whose caps do not name the colorimetry that is pinned), and its
  // default dither then moves samples: the scores would not be the frames'.
  if (!ref_resident)
    tools::repack_exactly(ref_branch.elements[ref_branch.elements.size() - 3].get());
  const GstVideoFormat format =
      encodes.empty() ? GST_VIDEO_FORMAT_I420 : encodes.front().alignment.format;
  if (ref_resident) {
    g_object_set(ref_caps, "caps", tools::cuda_memory_caps().get(), nullptr);
  } else {
    tools::CapsPtr caps(gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                            gst_video_format_to_string(format), nullptr));
    g_object_set(ref_caps, "caps", caps.get(), nullptr);
    GstObjectPtr<GstPad> decoded(gst_element_get_static_pad(ref_head, "src"));
    pin_colour(ref_branch, decoded.get(), ref_caps, caps.get());
  }
  // With a frame range, the reference's decoder stops after the last encode's end.
  if (GST_CLOCK_TIME_IS_VALID(window_.end)) {
    GstClockTime last_end = 0;
    for (const EncodeSetup& encode : encodes)
      last_end = std::max(last_end, encode.alignment.ref_skip + window_.end);
    auto kept = std::make_unique<KeptWindow>();
    kept->end = last_end;
    kept->stop_upstream = true;
    gst_segment_init(&kept->segment, GST_FORMAT_UNDEFINED);
    GstObjectPtr<GstPad> out(gst_element_get_static_pad(ref_caps, "src"));
    gst_pad_add_probe(out.get(),
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER |
                                                   GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                      keep_window_probe, kept.get(), nullptr);
    ref_branch.windows.push_back(std::move(kept));
  }

  for (std::size_t index = 0; index < encodes.size(); ++index) {
    const EncodeSetup& encode = encodes[index];
    const Alignment& alignment = encode.alignment;
    const VideoInput& dist = *encode.dist;
    const std::string number = std::to_string(index);
    auto scorer = tools::make_element("vmafexact", ("v" + number).c_str());
    if (!scorer)
      throw CliError(kExitScoring, "the vmafexact GStreamer element is not installed",
                     "Install the project (meson install), or point GStreamer at the built "
                     "plugin: GST_PLUGIN_PATH=/path/to/build/gst.");
    GstElement* v = scorer.get();
    g_object_set(v, "model", options.model.c_str(), "features", options.features.c_str(), "threads",
                 static_cast<guint>(options.threads), "subsample",
                 static_cast<guint>(options.subsample), nullptr);
    gst_util_set_object_arg(G_OBJECT(v), "backend", options.backend.c_str());
    if (!encode.log_location.empty()) {
      gst_util_set_object_arg(G_OBJECT(v), "log-format", log_format_name(encode.log_format));
      gst_util_set_object_arg(G_OBJECT(v), "log-precision",
                              options.precision == LogPrecision::kMax ? "max" : "default");
      g_object_set(v, "log-location", encode.log_location.c_str(), nullptr);
    }
    // The run's provenance in the logs and messages (the element has the
    // property from issue 41 on).
    if (encode.provenance &&
        g_object_class_find_property(G_OBJECT_GET_CLASS(v), "extra-provenance"))
      g_object_set(v, "extra-provenance", encode.provenance, nullptr);
    auto sink = tools::make_element("fakesink", ("sink" + number).c_str());
    if (!sink)
      throw CliError(kExitScoring, "GStreamer's fakesink is missing",
                     "Install gstreamer1.0-plugins-base.");
    // As fast as the inputs decode: nothing here is live. Not prerolled
    // either: a sink waiting in PAUSED for the others would stop its
    // element, then its queue after REF's tee, then REF, while an encode
    // whose REF skip is over a queue's worth (1 s) longer still waits for
    // its first REF frame (a deadlock).
    g_object_set(sink.get(), "sync", FALSE, "async", FALSE, nullptr);
    gst_bin_add_many(GST_BIN(pipeline_.get()), v, sink.get(), nullptr);
    if (!gst_element_link(v, sink.get()))
      throw CliError(kExitScoring, "cannot link vmafexact to fakesink");
    scorers_.push_back(std::move(scorer));

    // The reference for this encode: tee ! queue ! v.ref_sink, its own skip.
    {
      branches_.push_back(std::make_unique<Branch>());
      Branch& branch = *branches_.back();
      branch.input = &ref;
      branch.prefix = "ref" + number;
      GstElement* queue = make(branch, "queue");
      if (!gst_element_link(ref_tail, queue))
        throw CliError(kExitScoring, "cannot link the reference's tee to a queue");
      GstObjectPtr<GstPad> out(gst_element_get_static_pad(queue, "src"));
      GstObjectPtr<GstPad> in(gst_element_get_static_pad(v, "ref_sink"));
      if (gst_pad_link(out.get(), in.get()) != GST_PAD_LINK_OK)
        throw CliError(kExitScoring, "cannot link the reference to vmafexact's ref_sink");
      keep_window(branch, out.get(), in.get(), alignment.ref_skip);
    }
    // The distorted video: source ! queue [! videorate] [! scaler] ! videoconvert ! capsfilter.
    {
      branches_.push_back(std::make_unique<Branch>());
      Branch& branch = *branches_.back();
      branch.input = &dist;
      branch.prefix = "dist" + number;
      GstElement* head = add_source(branch, dist);
      // Not at another rate: videorate's frame grid starts at the segment's
      // start, which a seek would move.
      if (window_.begin > 0)
        seek_to_window(branch, head, alignment.dist_skip + window_.begin,
                       GST_CLOCK_TIME_IS_VALID(window_.end) ? alignment.dist_skip + window_.end
                                                            : GST_CLOCK_TIME_NONE,
                       !alignment.convert_rate);
      GstElement* previous = head;
      GstObjectPtr<GstPad> decoded(gst_element_get_static_pad(head, "src"));
      // The branch's last step to vmafexact's dist_sink, keeping the frame range.
      auto link_to_dist_sink = [&](GstElement* last) {
        GstObjectPtr<GstPad> out(gst_element_get_static_pad(last, "src"));
        GstObjectPtr<GstPad> in(gst_element_get_static_pad(v, "dist_sink"));
        if (gst_pad_link(out.get(), in.get()) != GST_PAD_LINK_OK)
          throw CliError(kExitScoring, "cannot link the distorted video " + dist.path +
                                           " to vmafexact's dist_sink");
        keep_window(branch, out.get(), in.get(), alignment.dist_skip);
        branch.windows.back()->stop_upstream = true;
      };
      if (dist.nvdec.chosen() && !alignment.scale && dist.nvdec.cpu_format == alignment.format) {
        // Decoded by NVDEC, nothing to scale or convert: kept on the GPU.
        if (alignment.convert_rate) previous = add_steps(branch, previous, {"videorate"});
        GstElement* capsfilter = add_steps(branch, previous, {"capsfilter"});
        tools::CapsPtr caps = tools::cuda_memory_caps();
        gst_caps_set_simple(caps.get(), "width", G_TYPE_INT, ref.width, "height", G_TYPE_INT,
                            ref.height, nullptr);
        if (alignment.convert_rate)
          gst_caps_set_simple(caps.get(), "framerate", GST_TYPE_FRACTION, ref.framerate.num,
                              ref.framerate.den, nullptr);
        g_object_set(capsfilter, "caps", caps.get(), nullptr);
        link_to_dist_sink(capsfilter);
        continue;
      }
      if (dist.nvdec.chosen()) {
        // Scaled or converted: on the CPU, from the frames the CPU decoder
        // would give (NV12 or P010 repacked to I420 or I420_10LE).
        tools::DownloadChain chain = tools::add_download_chain(
            GST_BIN(pipeline_.get()), dist.nvdec.cpu_format, nullptr, branch.prefix);
        if (!chain.missing.empty())
          throw CliError(kExitScoring, "GStreamer's " + chain.missing + " element is missing",
                         "Install " + chain.missing_package + ", or run with --backend cpu.");
        GstElement* downloaded = chain.filter.get();
        const bool linked = chain.linked && gst_element_link(previous, chain.download.get());
        for (auto* element : {&chain.download, &chain.repack, &chain.filter})
          branch.elements.push_back(std::move(*element));
        if (!linked)
          throw CliError(kExitScoring, "cannot link cudadownload after " +
                                           std::string(GST_ELEMENT_NAME(previous)));
        // The colour is pinned once the decoder's caps are known.
        pin_colour(branch, decoded.get(), downloaded, chain.caps.get());
        previous = downloaded;
      }
      if (alignment.convert_rate) previous = add_steps(branch, previous, {"videorate"});
      if (alignment.scale) {
        auto scaler = make_scaler(options, (branch.prefix + "-scale").c_str());
        if (!scaler)
          throw CliError(kExitScoring,
                         uses_ffmpeg_scaler(options) ? "the vmafexactscale element is missing"
                                                     : "GStreamer's videoscale element is missing",
                         "Install the project's plugin and gstreamer1.0-plugins-base.");
        gst_bin_add(GST_BIN(pipeline_.get()), scaler.get());
        if (!gst_element_link(previous, scaler.get()))
          throw CliError(kExitScoring, "cannot link " + std::string(GST_ELEMENT_NAME(previous)) +
                                           " to " + GST_ELEMENT_NAME(scaler.get()));
        previous = scaler.get();
        branch.elements.push_back(std::move(scaler));
      }
      GstElement* capsfilter = add_steps(branch, previous, {"videoconvert", "capsfilter"});
      tools::repack_exactly(branch.elements[branch.elements.size() - 2].get());  // as REF's
      tools::CapsPtr caps = tools::dist_target_caps(ref.width, ref.height, alignment.dist_formats);
      if (alignment.convert_rate)
        gst_caps_set_simple(caps.get(), "framerate", GST_TYPE_FRACTION, ref.framerate.num,
                            ref.framerate.den, nullptr);
      g_object_set(capsfilter, "caps", caps.get(), nullptr);
      pin_colour(branch, decoded.get(), capsfilter, caps.get());
      link_to_dist_sink(capsfilter);
    }
  }
}

ScoringPipeline::~ScoringPipeline() {
  // Streaming threads read the branches' windows: stop them first.
  if (pipeline_) gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
  if (g_getenv("VMAFEXACT_DEBUG_SEEK"))
    for (const auto& branch : branches_)
      if (branch->seek) {
        std::lock_guard lock(branch->seek->mutex);
        std::fprintf(stderr, "vmafexact: debug: seek: %s: %s%" G_GUINT64_FORMAT " frames decoded\n",
                     branch->prefix.c_str(), branch->seek->note.c_str(), branch->seek->frames);
      }
}

void ScoringPipeline::seek_to_window(Branch& branch, GstElement* head, GstClockTime target,
                                     GstClockTime stop, bool may_seek) {
  branch.seek = std::make_shared<InputSeek>();
  InputSeek& seek = *branch.seek;
  seek.self = branch.seek;
  seek.pipeline = pipeline_.get();
  if (!branch.elements.empty() &&
      std::string_view(G_OBJECT_TYPE_NAME(branch.elements.front().get())) == "GstURIDecodeBin")
    seek.decoder = branch.elements.front().get();
  // The queue holds its pad as long as the probes and calls can run (a call
  // holds the pipeline, which holds the queue).
  seek.pad = GstObjectPtr<GstPad>(gst_element_get_static_pad(head, "sink")).get();
  seek.target = target;
  seek.stop = stop;
  seek.enabled = !g_getenv("VMAFEXACT_NO_SEEK");
  gst_pad_add_probe(
      seek.pad,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                                   GST_PAD_PROBE_TYPE_EVENT_FLUSH),
      seek_watch_probe, shared_seek(branch.seek), release_seek);
  if (!seek.enabled) {
    seek.state = InputSeek::State::kNotNeeded;
    seek.note = "seeks off (VMAFEXACT_NO_SEEK): decoded from the start; ";
    return;
  }
  if (!may_seek) {
    seek.state = InputSeek::State::kNotNeeded;
    seek.note = "not sought (converted to another frame rate): decoded from the start; ";
    return;
  }
  // A y4m file the tool reads itself starts at the frame 1 s before the range
  // (its timestamps are its frame numbers' on the header's rate).
  if (branch.y4m) {
    const tools::Y4mHeader& header = branch.y4m->reader->header();
    if (header.fps_num > 0 && header.fps_den > 0 && target > kSeekMargin)
      branch.y4m->skip =
          gst_util_uint64_scale(target - kSeekMargin, header.fps_num, GST_SECOND * header.fps_den);
    seek.state = InputSeek::State::kNotNeeded;
    seek.note = "y4m read from frame " + std::to_string(branch.y4m->skip) + "; ";
    return;
  }
  seek.block = gst_pad_add_probe(
      seek.pad, static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER),
      seek_block_probe, shared_seek(branch.seek), release_seek);
}

GstElement* ScoringPipeline::make(Branch& branch, const char* factory, const char* role) {
  const std::string name = branch.prefix + "-" + (role ? role : factory);
  auto element = tools::make_element(factory, name.c_str());
  if (!element)
    throw CliError(kExitScoring, std::string("GStreamer's ") + factory + " element is missing",
                   "Install gstreamer1.0-plugins-base (and -good for more formats).");
  GstElement* made = element.get();
  gst_bin_add(GST_BIN(pipeline_.get()), made);
  branch.elements.push_back(std::move(element));
  return made;
}

GstElement* ScoringPipeline::add_steps(Branch& branch, GstElement* previous,
                                       const std::vector<const char*>& steps) {
  for (const char* factory : steps) {
    GstElement* step = make(branch, factory);
    if (!gst_element_link(previous, step))
      throw CliError(kExitScoring, "cannot link " + std::string(GST_ELEMENT_NAME(previous)) +
                                       " to " + GST_ELEMENT_NAME(step));
    previous = step;
  }
  return previous;
}

void ScoringPipeline::keep_window(Branch& branch, GstPad* pad, GstPad* sink, GstClockTime skip) {
  auto kept = std::make_unique<KeptWindow>();
  kept->begin = skip + window_.begin;
  if (GST_CLOCK_TIME_IS_VALID(window_.end)) kept->end = skip + window_.end;
  gst_segment_init(&kept->segment, GST_FORMAT_UNDEFINED);
  if (kept->begin > 0 || GST_CLOCK_TIME_IS_VALID(kept->end))
    gst_pad_add_probe(pad,
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER |
                                                   GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                      keep_window_probe, kept.get(), nullptr);
  // The pad offset moves the kept frames back so that the first kept frame
  // pairs with the other input's first.
  if (kept->begin > 0) gst_pad_set_offset(sink, -static_cast<gint64>(kept->begin));
  branch.windows.push_back(std::move(kept));
}

void ScoringPipeline::pin_colour(Branch& branch, GstPad* pad, GstElement* capsfilter,
                                 const GstCaps* caps) {
  ColourPin& colour = *branch.colours.emplace_back(std::make_unique<ColourPin>());
  colour.capsfilter = capsfilter;
  colour.caps.reset(gst_caps_copy(caps));
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, pin_colour_probe, &colour, nullptr);
}

GstElement* ScoringPipeline::add_source(Branch& branch, const VideoInput& input) {
  GstElement* head = nullptr;  // the queue after the source
  if (input.y4m) {
    branch.y4m = std::make_unique<Y4mFeed>(input.y4m);
    GstElement* source = make(branch, "appsrc");
    const tools::Y4mHeader& header = input.y4m->header();
    tools::CapsPtr caps(gst_caps_new_simple(
        "video/x-raw", "format", G_TYPE_STRING, gst_video_format_to_string(header.format), "width",
        G_TYPE_INT, header.width, "height", G_TYPE_INT, header.height, "framerate",
        GST_TYPE_FRACTION, header.fps_num, header.fps_den, "interlace-mode", G_TYPE_STRING,
        "progressive", nullptr));
    if (header.par_num > 0)
      gst_caps_set_simple(caps.get(), "pixel-aspect-ratio", GST_TYPE_FRACTION, header.par_num,
                          header.par_den, nullptr);
    // Timestamped frames, a few at a time: the appsrc blocks its feed (and
    // asks for more) rather than reading the whole file ahead.
    g_object_set(source, "caps", caps.get(), "format", GST_FORMAT_TIME, "max-bytes",
                 static_cast<guint64>(4 * header.frame_bytes), nullptr);
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = feed_y4m;
    gst_app_src_set_callbacks(GST_APP_SRC(source), &callbacks, branch.y4m.get(), nullptr);
    head = make(branch, "queue");
    if (!gst_element_link(source, head))
      throw CliError(kExitScoring, "cannot link the " + input.role + "'s y4m source");
  } else if (input.raw) {
    GstElement* source = make(branch, "filesrc");
    g_object_set(source, "location", input.path.c_str(), nullptr);
    GstElement* parser = make(branch, "rawvideoparse");
    for (const auto& [property, value] : tools::rawvideoparse_properties(
             input.format, input.width, input.height, input.framerate.num, input.framerate.den))
      gst_util_set_object_arg(G_OBJECT(parser), property.c_str(), value.c_str());
    head = make(branch, "queue");
    if (!gst_element_link_many(source, parser, head, nullptr))
      throw CliError(kExitScoring, "cannot link the " + input.role + "'s raw parser");
  } else if (input.nvdec.chosen()) {
    // uridecodebin ! [parser !] NVDEC decoder ! queue: see nvdec.h.
    GstElement* source = make(branch, "uridecodebin");
    g_object_set(source, "uri", input.uri.c_str(), nullptr);
    tools::expose_compressed_stream(source, input.nvdec);
    GstElement* parser =
        input.nvdec.parser.empty() ? nullptr : make(branch, input.nvdec.parser.c_str());
    GstElement* decoder = make(branch, input.nvdec.decoder.c_str());
    head = make(branch, "queue");
    if ((parser && !gst_element_link(parser, decoder)) || !gst_element_link(decoder, head))
      throw CliError(kExitScoring,
                     "cannot link the " + input.role + "'s NVDEC decoder " + input.nvdec.decoder,
                     "Score it with --backend cpu, which decodes on the CPU.");
    tools::link_compressed_video(source, parser ? parser : decoder, input.nvdec.media_type);
  } else {
    GstElement* decoder = make(branch, "uridecodebin");
    g_object_set(decoder, "uri", input.uri.c_str(), nullptr);
    head = make(branch, "queue");
    tools::link_decoded_video(decoder, head);
  }
  return head;
}

std::optional<std::size_t> ScoringPipeline::encode_of(const GstObject* source) const {
  for (std::size_t index = 0; index < scorers_.size(); ++index)
    if (source == GST_OBJECT(scorers_[index].get())) return index;
  return std::nullopt;
}

const VideoInput* ScoringPipeline::input_of(GstObject* source) const {
  for (const auto& branch : branches_)
    for (const auto& element : branch->elements)
      if (source == GST_OBJECT(element.get()) ||
          gst_object_has_as_ancestor(source, GST_OBJECT(element.get())))
        return branch->input;
  return nullptr;
}

void ScoringPipeline::end_inputs() {
  for (const auto& scorer : scorers_)
    for (const char* pad_name : {"ref_sink", "dist_sink"}) {
      GstObjectPtr<GstPad> pad(gst_element_get_static_pad(scorer.get(), pad_name));
      gst_pad_send_event(pad.get(), gst_event_new_eos());
    }
}

}  // namespace vmafexact::cli
