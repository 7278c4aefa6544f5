// The vmafexact element: a GstAggregator with two always sink pads (ref_sink,
// dist_sink) that pairs frames by running time, scores each pair through
// vmafexact::Scorer, posts the scores on the bus, writes libvmaf-format logs at
// end of stream, and pushes the distorted buffers out of its src pad unchanged.
//
// Threading: aggregate(), sink_event() for serialized events, sink_query() for
// serialized queries and get_next_time() all run on the aggregator's src thread;
// flush() runs with that thread stopped. Session state is therefore touched by
// one thread at a time. Settings (properties) are guarded by the object lock.

#include "gstvmafexact.h"

#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "gst_handles.h"
#include "output/log_writer.h"
#include "pooling/pooling.h"
#include "scorer.h"
#include "video_picture.h"
#include "vmafexact_config.h"

#ifdef VMAFEXACT_HAVE_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cuda_backend.h"
#include "cuda_input.h"
#endif

GST_DEBUG_CATEGORY_STATIC(gst_vmaf_exact_debug);
#define GST_CAT_DEFAULT gst_vmaf_exact_debug

using vmafexact::LogFormat;
using vmafexact::LogPrecision;
using vmafexact::gst::BufferPtr;
using vmafexact::gst::CapsPtr;
using vmafexact::gst::StructurePtr;

namespace {

constexpr const char* kDefaultFeatures = "";
constexpr const char* kDefaultModel = "vmaf_v0.6.1";
constexpr guint kDefaultSubsample = 1;
constexpr guint kDefaultThreads = 0;
constexpr guint kDefaultFramesInFlight = 0;
constexpr gboolean kDefaultFrameMessage = TRUE;
constexpr guint kMaxUnpairedWarnings = 20;

// Formats whose samples libvmaf can read: planar or semi-planar YUV and gray,
// 8 bits in bytes or 10..16 bits in little-endian 16-bit words.
#define VMAFEXACT_FORMATS                                                                   \
  "{ I420, YV12, Y42B, Y444, NV12, NV21, NV16, NV61, NV24, GRAY8, "                         \
  "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, "            \
  "P010_10LE, P012_LE, P016_LE, GRAY16_LE }"

#ifdef VMAFEXACT_HAVE_CUDA
#define VMAFEXACT_CAPS                                                                    \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, VMAFEXACT_FORMATS) \
  "; " GST_VIDEO_CAPS_MAKE(VMAFEXACT_FORMATS)
#else
#define VMAFEXACT_CAPS GST_VIDEO_CAPS_MAKE(VMAFEXACT_FORMATS)
#endif

GstStaticPadTemplate ref_sink_template = GST_STATIC_PAD_TEMPLATE(
    "ref_sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(VMAFEXACT_CAPS));
GstStaticPadTemplate dist_sink_template = GST_STATIC_PAD_TEMPLATE(
    "dist_sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(VMAFEXACT_CAPS));
GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(VMAFEXACT_CAPS));

// Where the scoring runs. auto: CUDA when the frames arrive in CUDA memory.
enum class Backend { kAuto, kCpu, kCuda };
constexpr gint kDefaultCudaDeviceId = -1;

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_MODEL,
  PROP_FEATURES,
  PROP_FRAME_MESSAGE,
  PROP_LOG_LOCATION,
  PROP_LOG_FORMAT,
  PROP_LOG_PRECISION,
  PROP_DISABLE_CLIP,
  PROP_ENABLE_TRANSFORM,
  PROP_SUBSAMPLE,
  PROP_THREADS,
  PROP_FRAMES_IN_FLIGHT,
};

struct Settings {
  Backend backend = Backend::kAuto;
  gint cuda_device_id = kDefaultCudaDeviceId;
  std::string model = kDefaultModel;
  std::string features = kDefaultFeatures;
  bool disable_clip = false;
  bool enable_transform = false;
  guint subsample = kDefaultSubsample;
  guint threads = kDefaultThreads;
  guint frames_in_flight = kDefaultFramesInFlight;
  bool frame_message = kDefaultFrameMessage;
  std::string log_location;
  LogFormat log_format = LogFormat::kJson;
  LogPrecision log_precision = LogPrecision::kDefault;
};

// Timing of the distorted buffer of one scored pair, for its frame message.
struct FrameTiming {
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

struct PadInput {
  std::optional<GstVideoInfo> info;
  CapsPtr caps;
  guint64 buffers = 0;   // buffers taken from this pad since start or flush
  guint64 unpaired = 0;  // of which not scored
  guint64 gaps = 0;      // GAP events seen
};

// Everything that lives from start (or a flush) to stop.
struct Session {
  Settings settings;  // snapshot taken at start
  std::vector<vmafexact::ModelSpec> models;
  std::vector<vmafexact::FeatureRequest> features;
  bool on_cuda = false;  // decided with the first pair
#ifdef VMAFEXACT_HAVE_CUDA
  // Declared before the scorer, so that the CUDA twins go first; both are
  // released with the CUDA context current (release_cuda()).
  std::unique_ptr<vmafexact::cuda::CudaBackend> cuda_backend;
  // Two of each, alternating by frame: the scorer overlaps frames on CUDA, so
  // the previous frame's device planes (and its mapped buffers, `held`) must
  // stay valid while the next frame is prepared.
  std::unique_ptr<vmafexact::gst::CudaFrameSource> ref_cuda_source[2];
  std::unique_ptr<vmafexact::gst::CudaFrameSource> dist_cuda_source[2];
#endif
  // Frames the scorer may still read (CUDA overlap, or frames in flight on
  // CPU threads): their mapped buffers and repacked planes. Declared before
  // the scorer, so that it (and its threads) goes first.
  struct HeldFrames {
    unsigned index = 0;
    std::unique_ptr<vmafexact::gst::MappedVideoFrame> ref, dist;
  };
  std::deque<HeldFrames> held;
  std::vector<vmafexact::gst::ScratchPlanes> ref_scratch, dist_scratch;  // a ring, by frame
  std::unique_ptr<vmafexact::Scorer> scorer;
  std::vector<FrameTiming> timings;  // by frame index
  PadInput ref;
  PadInput dist;
  guint64 trailing_ref = 0;  // frames left on one side after the other's EOS
  guint64 trailing_dist = 0;
  guint unpaired_warnings = 0;
  bool finished = false;
  bool log_written = false;
  std::optional<std::chrono::steady_clock::time_point> first_score_time;
  std::chrono::steady_clock::duration scoring_time{};
};

}  // namespace

struct GstVmafExactPrivate {
  Settings settings;  // guarded by the object lock
  Session session;    // touched from the src thread only (see the file comment)
  GstAggregatorPad* ref_pad = nullptr;   // owned by the element as its child
  GstAggregatorPad* dist_pad = nullptr;  // owned by the element as its child
#ifdef VMAFEXACT_HAVE_CUDA
  vmafexact::gst::CudaContextRef cuda_context;  // shared with neighbours (context query)
#endif
};

struct _GstVmafExact {
  GstAggregator parent;
};

G_DEFINE_TYPE_WITH_PRIVATE(GstVmafExact, gst_vmaf_exact, GST_TYPE_AGGREGATOR)
GST_ELEMENT_REGISTER_DEFINE(vmafexact, "vmafexact", GST_RANK_NONE, GST_TYPE_VMAF_EXACT)

GType gst_vmaf_exact_log_format_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(LogFormat::kJson), "libvmaf JSON", "json"},
        {static_cast<gint>(LogFormat::kXml), "libvmaf XML", "xml"},
        {static_cast<gint>(LogFormat::kCsv), "libvmaf CSV", "csv"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactLogFormat", values));
  }
  return type;
}

GType gst_vmaf_exact_backend_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(Backend::kAuto), "CUDA when the frames arrive in CUDA memory, else CPU",
         "auto"},
        {static_cast<gint>(Backend::kCpu), "CPU", "cpu"},
        {static_cast<gint>(Backend::kCuda),
         "CUDA; frames in system memory are uploaded (an error without a usable CUDA device)",
         "cuda"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactBackend", values));
  }
  return type;
}

GType gst_vmaf_exact_log_precision_get_type(void) {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    static const GEnumValue values[] = {
        {static_cast<gint>(LogPrecision::kDefault),
         "libvmaf's printing: %.6f, or %.16f for values with more than 6 leading zeros",
         "default"},
        {static_cast<gint>(LogPrecision::kMax), "%.17g: every bit of every double", "max"},
        {0, nullptr, nullptr},
    };
    g_once_init_leave(&type, g_enum_register_static("GstVmafExactLogPrecision", values));
  }
  return type;
}

namespace {

GstVmafExactPrivate* priv_of(GstVmafExact* self) {
  return static_cast<GstVmafExactPrivate*>(gst_vmaf_exact_get_instance_private(self));
}

GstVmafExactPrivate* priv_of(GstAggregator* agg) { return priv_of(GST_VMAF_EXACT(agg)); }

std::string time_string(GstClockTime time) {
  if (!GST_CLOCK_TIME_IS_VALID(time)) return "none";
  char text[64];
  std::snprintf(text, sizeof text, "%" GST_TIME_FORMAT, GST_TIME_ARGS(time));
  return text;
}

GstClockTime buffer_time(GstBuffer* buffer) {
  return GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
}

GstClockTime running_time_of(GstAggregatorPad* pad, GstBuffer* buffer) {
  const GstClockTime time = buffer_time(buffer);
  if (!GST_CLOCK_TIME_IS_VALID(time)) return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(pad);
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  if (pad->segment.format == GST_FORMAT_TIME)
    running_time = gst_segment_to_running_time(&pad->segment, GST_FORMAT_TIME, time);
  GST_OBJECT_UNLOCK(pad);
  return running_time;
}

GstClockTime stream_time_of(GstAggregatorPad* pad, GstBuffer* buffer) {
  const GstClockTime time = buffer_time(buffer);
  if (!GST_CLOCK_TIME_IS_VALID(time)) return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK(pad);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  if (pad->segment.format == GST_FORMAT_TIME)
    stream_time = gst_segment_to_stream_time(&pad->segment, GST_FORMAT_TIME, time);
  GST_OBJECT_UNLOCK(pad);
  return stream_time;
}

// A frame's duration from the buffer, else from the caps' frame rate.
GstClockTime frame_duration(GstBuffer* buffer, const std::optional<GstVideoInfo>& info) {
  if (GST_BUFFER_DURATION_IS_VALID(buffer)) return GST_BUFFER_DURATION(buffer);
  if (info && GST_VIDEO_INFO_FPS_N(&*info) > 0 && GST_VIDEO_INFO_FPS_D(&*info) > 0)
    return gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(&*info),
                                     GST_VIDEO_INFO_FPS_N(&*info));
  return GST_CLOCK_TIME_NONE;
}

bool is_gap_buffer(GstBuffer* buffer) {
  return GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP) && gst_buffer_get_size(buffer) == 0;
}

std::string builtin_model_list() {
  std::string names;
  for (const auto& name : vmafexact::model::builtin_model_names())
    names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "none in this build" : names;
}

Settings settings_snapshot(GstVmafExact* self) {
  GST_OBJECT_LOCK(self);
  Settings settings = priv_of(self)->settings;
  GST_OBJECT_UNLOCK(self);
  return settings;
}

bool frame_messages_enabled(GstVmafExact* self) {
  GST_OBJECT_LOCK(self);
  const bool enabled = priv_of(self)->settings.frame_message;
  GST_OBJECT_UNLOCK(self);
  return enabled;
}

// Frees the session's CUDA objects (the twins' device memory, the stream)
// with the CUDA context current, as the runtime needs.
void release_cuda(GstVmafExactPrivate* priv) {
#ifdef VMAFEXACT_HAVE_CUDA
  Session& session = priv->session;
  if (!session.cuda_backend) return;
  vmafexact::gst::CudaContextScope scope(priv->cuda_context.get());
  session.scorer.reset();
  session.held.clear();
  for (auto& source : session.ref_cuda_source) source.reset();
  for (auto& source : session.dist_cuda_source) source.reset();
  session.cuda_backend.reset();
#else
  (void)priv;
#endif
}

// Resets what a flush or a restart forgets, keeping the settings snapshot.
void reset_session(GstVmafExactPrivate* priv) {
  release_cuda(priv);
  Session& session = priv->session;
  Settings settings = std::move(session.settings);
  auto models = std::move(session.models);
  auto features = std::move(session.features);
  session = Session{};
  session.settings = std::move(settings);
  session.models = std::move(models);
  session.features = std::move(features);
}

void post_frame_message(GstVmafExact* self, unsigned index) {
  Session& session = priv_of(self)->session;
  const FrameTiming timing =
      index < session.timings.size() ? session.timings[index] : FrameTiming{};
  GstStructure* structure = gst_structure_new(
      "vmafexact-frame", "index", G_TYPE_UINT64, static_cast<guint64>(index), "pts",
      GST_TYPE_CLOCK_TIME, timing.pts, "running-time", GST_TYPE_CLOCK_TIME, timing.running_time,
      "stream-time", GST_TYPE_CLOCK_TIME, timing.stream_time, "duration", GST_TYPE_CLOCK_TIME,
      timing.duration, nullptr);
  for (const auto& [name, value] : session.scorer->scores().frame_scores(index))
    gst_structure_set(structure, name.c_str(), G_TYPE_DOUBLE, value, nullptr);
  gst_element_post_message(GST_ELEMENT(self),
                           gst_message_new_element(GST_OBJECT(self), structure));
}

void post_finished_frames(GstVmafExact* self, const std::vector<unsigned>& indices) {
  if (indices.empty() || !frame_messages_enabled(self)) return;
  for (const unsigned index : indices) post_frame_message(self, index);
}

void post_summary(GstVmafExact* self) {
  Session& session = priv_of(self)->session;
  const guint64 scored = session.scorer ? session.scorer->frames_pushed() : 0;
  GstStructure* summary = gst_structure_new(
      "vmafexact-summary", "frames-scored", G_TYPE_UINT64, scored, "frames-unpaired",
      G_TYPE_UINT64, session.ref.unpaired + session.dist.unpaired, "frames-unpaired-ref",
      G_TYPE_UINT64, session.ref.unpaired, "frames-unpaired-dist", G_TYPE_UINT64,
      session.dist.unpaired, nullptr);
  if (session.scorer)
    gst_structure_set(summary, "threads", G_TYPE_UINT, session.scorer->threads(), "frames-in-flight",
                      G_TYPE_UINT, session.scorer->frames_in_flight(), nullptr);
  if (session.scorer && scored > 0) {
    const auto& scores = session.scorer->scores();
    for (const auto& name : scores.names()) {
      const auto pooled = vmafexact::pool_scores(*scores.column(name), 0,
                                                 static_cast<unsigned>(scored - 1),
                                                 session.scorer->subsample());
      if (!pooled) continue;
      StructurePtr stats(gst_structure_new(
          "pooled", "min", G_TYPE_DOUBLE, pooled->min, "max", G_TYPE_DOUBLE, pooled->max,
          "mean", G_TYPE_DOUBLE, pooled->mean, "harmonic_mean", G_TYPE_DOUBLE,
          pooled->harmonic_mean, nullptr));
      gst_structure_set(summary, name.c_str(), GST_TYPE_STRUCTURE, stats.get(), nullptr);
    }
  }
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), summary));
}

// Writes the log, if one was asked for. Returns false after posting an error.
bool write_log(GstVmafExact* self) {
  Session& session = priv_of(self)->session;
  const Settings& settings = session.settings;
  if (settings.log_location.empty() || session.log_written) return true;
  session.log_written = true;

  vmafexact::FeatureCollector no_scores;
  const auto& scores = session.scorer ? session.scorer->scores() : no_scores;
  vmafexact::LogInfo info;
  info.version = "vmafexact " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
  info.frame_count = session.scorer ? session.scorer->frames_pushed() : 0;
  info.subsample = session.settings.subsample;
  if (session.scorer) {
    info.width = session.scorer->format().width;
    info.height = session.scorer->format().height;
  }
  const double seconds = std::chrono::duration<double>(session.scoring_time).count();
  info.fps = seconds > 0 ? info.frame_count / seconds : 0.0;

  std::ofstream out(settings.log_location, std::ios::out | std::ios::trunc);
  if (out) {
    vmafexact::write_log(out, settings.log_format, settings.log_precision, scores, info);
    out.close();
  }
  if (!out) {
    GST_ELEMENT_ERROR(self, RESOURCE, WRITE,
                      ("Could not write the score log to \"%s\".", settings.log_location.c_str()),
                      ("Check that the folder exists and is writable and that the disk has "
                       "room, or change the log-location property."));
    return false;
  }
  GST_INFO_OBJECT(self, "wrote %u frames to %s", info.frame_count, settings.log_location.c_str());
  return true;
}

void warn_unpaired(GstVmafExact* self, const char* side, const char* other_side,
                   GstClockTime time, GstClockTime other_time) {
  Session& session = priv_of(self)->session;
  if (session.unpaired_warnings >= kMaxUnpairedWarnings) return;
  ++session.unpaired_warnings;
  const std::string other = GST_CLOCK_TIME_IS_VALID(other_time)
                                ? "the nearest " + std::string(other_side) + " frame is at " +
                                      time_string(other_time)
                                : "no " + std::string(other_side) + " frame was waiting";
  const bool last = session.unpaired_warnings == kMaxUnpairedWarnings;
  GST_ELEMENT_WARNING(
      self, STREAM, FAILED,
      ("The %s frame at running time %s has no %s frame; it is not scored (%s).%s", side,
       time_string(time).c_str(), other_side, other.c_str(),
       last ? " Further unpaired frames are counted in the summary without a warning." : ""),
      ("Frames are paired by running time, within half a frame duration. Give both inputs the "
       "same frame rate and timestamps (for example with videorate), or check the source for "
       "dropped frames."));
}

// Pops the distorted buffer and pushes it downstream unchanged.
GstFlowReturn push_dist_buffer(GstVmafExact* self) {
  GstVmafExactPrivate* priv = priv_of(self);
  GstBuffer* buffer = gst_aggregator_pad_pop_buffer(priv->dist_pad);
  if (!buffer) return GST_FLOW_OK;
  GstFlowReturn ret = gst_aggregator_finish_buffer(GST_AGGREGATOR(self), buffer);
  // The element also works as a plain sink: an unlinked src pad is not an error.
  if (ret == GST_FLOW_NOT_LINKED) ret = GST_FLOW_OK;
  return ret;
}

GstFlowReturn drop_unpaired_ref(GstVmafExact* self, GstBuffer* ref, GstClockTime other_time) {
  GstVmafExactPrivate* priv = priv_of(self);
  ++priv->session.ref.buffers;
  ++priv->session.ref.unpaired;
  warn_unpaired(self, "reference", "distorted", running_time_of(priv->ref_pad, ref), other_time);
  gst_aggregator_pad_drop_buffer(priv->ref_pad);
  return GST_FLOW_OK;
}

GstFlowReturn drop_unpaired_dist(GstVmafExact* self, GstBuffer* dist, GstClockTime other_time) {
  GstVmafExactPrivate* priv = priv_of(self);
  ++priv->session.dist.buffers;
  ++priv->session.dist.unpaired;
  warn_unpaired(self, "distorted", "reference", running_time_of(priv->dist_pad, dist), other_time);
  return push_dist_buffer(self);
}

// Features such as motion finish a frame's scores only when the next frame has
// been scored; the aggregator is told so that live pipelines budget for it.
void report_score_latency(GstVmafExact* self) {
  Session& session = priv_of(self)->session;
  const unsigned frames = session.scorer->latency_frames();
  if (frames == 0 || !session.dist.info) return;
  const GstVideoInfo& info = *session.dist.info;
  if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0) return;
  const GstClockTime latency = gst_util_uint64_scale_int(
      frames * GST_SECOND, GST_VIDEO_INFO_FPS_D(&info), GST_VIDEO_INFO_FPS_N(&info));
  gst_aggregator_set_latency(GST_AGGREGATOR(self), latency, latency);
}

bool has_cuda_memory_caps(const PadInput& input) {
#ifdef VMAFEXACT_HAVE_CUDA
  if (!input.caps || gst_caps_is_empty(input.caps.get())) return false;
  const GstCapsFeatures* features = gst_caps_get_features(input.caps.get(), 0);
  return features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
#else
  (void)input;
  return false;
#endif
}

// backend=cuda: always (start() made sure there is a context); auto: when
// either input arrives in CUDA memory and a context is there.
bool use_cuda(GstVmafExact* self) {
#ifdef VMAFEXACT_HAVE_CUDA
  GstVmafExactPrivate* priv = priv_of(self);
  const Session& session = priv->session;
  if (!priv->cuda_context.get()) return false;
  switch (session.settings.backend) {
    case Backend::kCpu: return false;
    case Backend::kCuda: return true;
    case Backend::kAuto:
      return has_cuda_memory_caps(session.ref) || has_cuda_memory_caps(session.dist);
  }
#else
  (void)self;
#endif
  return false;
}

// Checks both inputs against each other and sets up the scorer on first use.
// Returns the format to score, or nullopt after posting an error.
std::optional<vmafexact::PictureFormat> prepare_scorer(GstVmafExact* self) {
  Session& session = priv_of(self)->session;
  if (!session.ref.info || !session.dist.info) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Received a frame before its caps."), (nullptr));
    return std::nullopt;
  }
  const GstVideoInfo& ref_info = *session.ref.info;
  const GstVideoInfo& dist_info = *session.dist.info;
  const auto ref_format = vmafexact::gst::picture_format_from_info(ref_info);
  const auto dist_format = vmafexact::gst::picture_format_from_info(dist_info);
  if (!ref_format || !dist_format) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                      ("Unsupported video format: reference %s, distorted %s.",
                       vmafexact::gst::describe_video_info(ref_info).c_str(),
                       vmafexact::gst::describe_video_info(dist_info).c_str()),
                      ("vmafexact scores progressive planar or semi-planar YUV and gray video "
                       "at 8, 10, 12 or 16 bits; insert videoconvert before the pad."));
    return std::nullopt;
  }
  if (*ref_format != *dist_format) {
    GST_ELEMENT_ERROR(
        self, STREAM, FORMAT,
        ("The reference and distorted videos differ: reference is %s, distorted is %s.",
         vmafexact::gst::describe_video_info(ref_info).c_str(),
         vmafexact::gst::describe_video_info(dist_info).c_str()),
        ("Both inputs must have the same width, height, bit depth and chroma subsampling. "
         "Insert videoscale and/or videoconvert with a capsfilter (e.g. "
         "'videoscale ! videoconvert ! video/x-raw,width=%d,height=%d,format=%s') before the "
         "dist_sink pad.",
         GST_VIDEO_INFO_WIDTH(&ref_info), GST_VIDEO_INFO_HEIGHT(&ref_info),
         GST_VIDEO_INFO_NAME(&ref_info)));
    return std::nullopt;
  }
  if (session.scorer) {
    if (session.scorer->format() != *ref_format) {
      GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                        ("The video format changed mid-stream to %s; scores cannot be pooled "
                         "across picture formats.",
                         vmafexact::gst::describe_video_info(ref_info).c_str()),
                        ("Scale both inputs to one fixed size and format before vmafexact."));
      return std::nullopt;
    }
    return ref_format;
  }
  session.on_cuda = use_cuda(self);
  GST_DEBUG_OBJECT(self, "backend %d, CUDA memory caps: ref %d dist %d", static_cast<int>(session.settings.backend),
                   has_cuda_memory_caps(session.ref), has_cuda_memory_caps(session.dist));
  try {
    // The models were checked at start; they are loaded anew for each scoring
    // session (start, or after a flushing seek).
    vmafexact::ScorerOptions options;
    options.subsample = session.settings.subsample;
    options.threads = session.settings.threads;
    options.frames_in_flight = session.settings.frames_in_flight;
    // Auto: a live pipeline wants each frame's scores as soon as possible, so
    // one frame at a time with its bands on every thread; otherwise the most
    // frames per second, with frames side by side.
    if (options.frames_in_flight == 0 &&
        GST_CLOCK_TIME_IS_VALID(gst_aggregator_get_latency(GST_AGGREGATOR(self))))
      options.frames_in_flight = 1;
#ifdef VMAFEXACT_HAVE_CUDA
    std::optional<vmafexact::gst::CudaContextScope> scope;
    if (session.on_cuda) {
      scope.emplace(priv_of(self)->cuda_context.get());
      session.cuda_backend = std::make_unique<vmafexact::cuda::CudaBackend>();
      for (auto& source : session.ref_cuda_source)
        source = std::make_unique<vmafexact::gst::CudaFrameSource>();
      for (auto& source : session.dist_cuda_source)
        source = std::make_unique<vmafexact::gst::CudaFrameSource>();
      options.overlap_frames = true;
      options.threads = 1;  // the twins share one stream
      options.make_extractor = [backend = session.cuda_backend.get()](
                                   std::string_view name, const vmafexact::FeatureOptions& opts) {
        return backend->make_extractor(name, opts);
      };
    }
#endif
    session.scorer = std::make_unique<vmafexact::Scorer>(
        vmafexact::load_models(session.models), session.features, *ref_format, options);
    // One repack slot per frame that can be held: the frames in flight, plus one.
    const unsigned in_flight = session.scorer->frames_in_flight();
    session.ref_scratch.resize(in_flight > 1 ? in_flight + 1 : 2);
    session.dist_scratch.resize(session.ref_scratch.size());
    GST_INFO_OBJECT(self, "scoring on the %s, %u threads, %u frames in flight",
                    session.on_cuda ? "GPU (CUDA)" : "CPU", session.scorer->threads(), in_flight);
    report_score_latency(self);
  } catch (const vmafexact::Error& error) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Cannot score this video: %s.", error.what()),
                      ("Input %s.", vmafexact::gst::describe_video_info(ref_info).c_str()));
    return std::nullopt;
  }
  return ref_format;
}

GstFlowReturn score_pair(GstVmafExact* self, GstBuffer* ref, GstBuffer* dist) {
  GstVmafExactPrivate* priv = priv_of(self);
  Session& session = priv->session;
  const auto format = prepare_scorer(self);
  if (!format) return GST_FLOW_NOT_NEGOTIATED;

  std::vector<unsigned> finished;
  {
#ifdef VMAFEXACT_HAVE_CUDA
    // CUDA memory of our context is read in place on the device; anything
    // else is mapped on the host (and uploaded when scoring on the GPU).
    GstCudaContext* context = priv->cuda_context.get();
    const bool ref_on_device = session.on_cuda && vmafexact::gst::is_cuda_buffer_of(ref, context);
    const bool dist_on_device = session.on_cuda && vmafexact::gst::is_cuda_buffer_of(dist, context);
    std::optional<vmafexact::gst::CudaContextScope> scope;
    if (session.on_cuda) scope.emplace(context);
    const GstMapFlags ref_flags = static_cast<GstMapFlags>(
        GST_MAP_READ | (ref_on_device ? vmafexact::gst::cuda_map_flags() : 0));
    const GstMapFlags dist_flags = static_cast<GstMapFlags>(
        GST_MAP_READ | (dist_on_device ? vmafexact::gst::cuda_map_flags() : 0));
#else
    const GstMapFlags ref_flags = GST_MAP_READ, dist_flags = GST_MAP_READ;
#endif
    auto ref_mapped = std::make_unique<vmafexact::gst::MappedVideoFrame>(*session.ref.info, ref, ref_flags);
    auto dist_mapped =
        std::make_unique<vmafexact::gst::MappedVideoFrame>(*session.dist.info, dist, dist_flags);
    const vmafexact::gst::MappedVideoFrame& ref_frame = *ref_mapped;
    const vmafexact::gst::MappedVideoFrame& dist_frame = *dist_mapped;
    if (!ref_frame.mapped() || !dist_frame.mapped()) {
      const bool ref_failed = !ref_frame.mapped();
      GstBuffer* failed = ref_failed ? ref : dist;
      const GstVideoInfo& info = ref_failed ? *session.ref.info : *session.dist.info;
      GST_ELEMENT_ERROR(self, STREAM, DECODE,
                        ("Could not read a %s frame: the buffer holds %" G_GSIZE_FORMAT
                         " bytes where its caps (%s) need %" G_GSIZE_FORMAT ".",
                         ref_failed ? "reference" : "distorted", gst_buffer_get_size(failed),
                         vmafexact::gst::describe_video_info(info).c_str(),
                         GST_VIDEO_INFO_SIZE(&info)),
                        ("Upstream sent a buffer that does not match its caps; check the "
                         "parser or decoder in front of this pad (rawvideoparse needs the "
                         "exact frame layout)."));
      return GST_FLOW_ERROR;
    }
    vmafexact::PictureView ref_view, dist_view;
    try {
#ifdef VMAFEXACT_HAVE_CUDA
      if (session.on_cuda) {
        const cudaStream_t stream = session.cuda_backend->stream();
        const unsigned parity = session.scorer->frames_pushed() % 2;
        ref_view = session.ref_cuda_source[parity]->device_view(ref_frame.frame(), ref_on_device, *format,
                                                        stream);
        dist_view = session.dist_cuda_source[parity]->device_view(dist_frame.frame(), dist_on_device,
                                                          *format, stream);
      } else
#endif
      {
        // Frames in flight keep their repacked planes: one scratch slot each.
        const std::size_t slot = session.scorer->frames_pushed() % session.ref_scratch.size();
        // With frames in flight on other threads, the planes are copied, so
        // that no upstream buffer is held longer (buffer pools can be small).
        const bool copy = session.ref_scratch.size() > 2;
        ref_view = vmafexact::gst::picture_view_of(ref_frame.frame(), *format,
                                                   session.ref_scratch[slot], copy);
        dist_view = vmafexact::gst::picture_view_of(dist_frame.frame(), *format,
                                                    session.dist_scratch[slot], copy);
      }
    } catch (const vmafexact::Error& error) {
      GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not prepare the frames: %s.", error.what()),
                        (nullptr));
      return GST_FLOW_ERROR;
    }

    FrameTiming timing;
    timing.pts = GST_BUFFER_PTS(dist);
    timing.running_time = running_time_of(priv->dist_pad, dist);
    timing.stream_time = stream_time_of(priv->dist_pad, dist);
    timing.duration = GST_BUFFER_DURATION(dist);
    session.timings.push_back(timing);

    const auto started = std::chrono::steady_clock::now();
    if (!session.first_score_time) session.first_score_time = started;
    try {
      finished = session.scorer->push(ref_view, dist_view);
    } catch (const vmafexact::Error& error) {
      GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Scoring failed: %s.", error.what()), (nullptr));
      return GST_FLOW_ERROR;
    }
    session.scoring_time += std::chrono::steady_clock::now() - started;
    // This pair stays mapped until the scorer has read it (frames overlapping
    // on CUDA, in flight on CPU threads); the pairs it is done with go now.
    // The maps hold their own references, so the buffers can go downstream.
    if (session.on_cuda)  // on the CPU the frames in flight read copies (above)
      session.held.push_back(Session::HeldFrames{session.scorer->frames_pushed() - 1,
                                                 std::move(ref_mapped), std::move(dist_mapped)});
    while (!session.held.empty() && session.held.front().index < session.scorer->frames_released())
      session.held.pop_front();
  }
  ++session.ref.buffers;
  ++session.dist.buffers;
  post_finished_frames(self, finished);
  gst_aggregator_pad_drop_buffer(priv->ref_pad);
  return push_dist_buffer(self);
}

// End of both inputs: final scores, summary, log. Returns EOS or an error.
GstFlowReturn finish_stream(GstVmafExact* self) {
  Session& session = priv_of(self)->session;
  if (session.finished) return GST_FLOW_EOS;
  session.finished = true;
  if (session.scorer) {
    try {
#ifdef VMAFEXACT_HAVE_CUDA
      std::optional<vmafexact::gst::CudaContextScope> scope;
      if (session.on_cuda) scope.emplace(priv_of(self)->cuda_context.get());
#endif
      post_finished_frames(self, session.scorer->finish());
      session.held.clear();
    } catch (const vmafexact::Error& error) {
      GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Scoring failed: %s.", error.what()), (nullptr));
      return GST_FLOW_ERROR;
    }
  }
  if (session.trailing_ref || session.trailing_dist) {
    const bool ref_longer = session.trailing_ref > 0;
    const guint64 scored = session.scorer ? session.scorer->frames_pushed() : 0;
    GST_ELEMENT_WARNING(
        self, STREAM, FAILED,
        ("The %s stream ended first: %" G_GUINT64_FORMAT " frames were scored and the last %"
         G_GUINT64_FORMAT " %s frames have no %s frame and were not scored.",
         ref_longer ? "distorted" : "reference", scored,
         ref_longer ? session.trailing_ref : session.trailing_dist,
         ref_longer ? "reference" : "distorted", ref_longer ? "distorted" : "reference"),
        ("Give both inputs the same length (e.g. num-buffers on the sources), or ignore this "
         "warning if the scored part is what you wanted."));
  }
  if (!session.scorer || session.scorer->frames_pushed() == 0) {
    GST_ELEMENT_WARNING(self, STREAM, FAILED, ("No frame pair was scored."),
                        ("Both inputs must carry frames with matching running times."));
  }
  post_summary(self);
  if (!write_log(self)) return GST_FLOW_ERROR;
  return GST_FLOW_EOS;
}

// ---- GstAggregator virtual methods ----------------------------------------

GstFlowReturn gst_vmaf_exact_aggregate(GstAggregator* agg, gboolean timeout) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  GstVmafExactPrivate* priv = priv_of(self);
  Session& session = priv->session;
  if (session.finished) return GST_FLOW_EOS;

  BufferPtr ref(gst_aggregator_pad_peek_buffer(priv->ref_pad));
  BufferPtr dist(gst_aggregator_pad_peek_buffer(priv->dist_pad));

  // Gap buffers (from GAP events) stand for frames that are missing: skip them;
  // the frame on the other side then finds no partner and is counted as such.
  if (ref && is_gap_buffer(ref.get())) {
    ++session.ref.gaps;
    gst_aggregator_pad_drop_buffer(priv->ref_pad);
    return GST_FLOW_OK;
  }
  if (dist && is_gap_buffer(dist.get())) {
    ++session.dist.gaps;
    gst_aggregator_pad_drop_buffer(priv->dist_pad);
    return GST_FLOW_OK;
  }

  const bool ref_eos = !ref && gst_aggregator_pad_is_eos(priv->ref_pad);
  const bool dist_eos = !dist && gst_aggregator_pad_is_eos(priv->dist_pad);

  if (ref && dist) {
    const GstClockTime ref_time = running_time_of(priv->ref_pad, ref.get());
    const GstClockTime dist_time = running_time_of(priv->dist_pad, dist.get());
    if (!GST_CLOCK_TIME_IS_VALID(ref_time) || !GST_CLOCK_TIME_IS_VALID(dist_time))
      return score_pair(self, ref.get(), dist.get());  // no timestamps: arrival order
    const GstClockTime ref_duration = frame_duration(ref.get(), session.ref.info);
    const GstClockTime dist_duration = frame_duration(dist.get(), session.dist.info);
    GstClockTime tolerance = 0;
    if (GST_CLOCK_TIME_IS_VALID(ref_duration) && GST_CLOCK_TIME_IS_VALID(dist_duration))
      tolerance = MIN(ref_duration, dist_duration) / 2;
    const GstClockTime difference =
        ref_time > dist_time ? ref_time - dist_time : dist_time - ref_time;
    if (difference == 0 || difference < tolerance)
      return score_pair(self, ref.get(), dist.get());
    if (ref_time < dist_time) return drop_unpaired_ref(self, ref.get(), dist_time);
    return drop_unpaired_dist(self, dist.get(), ref_time);
  }

  if (ref && (dist_eos || timeout)) {
    if (dist_eos) {
      ++session.trailing_ref;
      ++session.ref.buffers;
      ++session.ref.unpaired;
      gst_aggregator_pad_drop_buffer(priv->ref_pad);
      return GST_FLOW_OK;
    }
    return drop_unpaired_ref(self, ref.get(), GST_CLOCK_TIME_NONE);
  }
  if (dist && (ref_eos || timeout)) {
    if (ref_eos) {
      ++session.trailing_dist;
      ++session.dist.buffers;
      ++session.dist.unpaired;
      return push_dist_buffer(self);
    }
    return drop_unpaired_dist(self, dist.get(), GST_CLOCK_TIME_NONE);
  }
  if (ref_eos && dist_eos) return finish_stream(self);
  return GST_FLOW_OK;  // wait for the other side
}

gboolean gst_vmaf_exact_sink_event(GstAggregator* agg, GstAggregatorPad* pad, GstEvent* event) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  GstVmafExactPrivate* priv = priv_of(self);
  const bool is_ref = pad == priv->ref_pad;

  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps* caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps) ||
        !vmafexact::gst::picture_format_from_info(info)) {
      vmafexact::gst::GCharPtr caps_text(gst_caps_to_string(caps));
      GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                        ("Unsupported caps on %s: %s.", GST_PAD_NAME(pad), caps_text.get()),
                        ("vmafexact scores progressive planar or semi-planar YUV and gray video "
                         "at 8, 10, 12 or 16 bits; insert videoconvert before the pad."));
      gst_event_unref(event);
      return FALSE;
    }
    PadInput& input = is_ref ? priv->session.ref : priv->session.dist;
    input.info = info;
    input.caps.reset(gst_caps_ref(caps));
    GST_DEBUG_OBJECT(pad, "caps %" GST_PTR_FORMAT, static_cast<void*>(caps));
    if (!is_ref) gst_aggregator_set_src_caps(agg, caps);
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT && !is_ref) {
    // The distorted buffers go out with their own timestamps, so the output
    // carries the distorted input's segment.
    const GstSegment* segment = nullptr;
    gst_event_parse_segment(event, &segment);
    if (segment->format == GST_FORMAT_TIME) gst_aggregator_update_segment(agg, segment);
  }
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->sink_event(agg, pad, event);
}

gboolean gst_vmaf_exact_sink_query(GstAggregator* agg, GstAggregatorPad* pad, GstQuery* query) {
  GstVmafExactPrivate* priv = priv_of(agg);
#ifdef VMAFEXACT_HAVE_CUDA
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && priv->cuda_context.get() &&
      gst_cuda_handle_context_query(GST_ELEMENT(agg), query, priv->cuda_context.get()))
    return TRUE;
#endif
  if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS && pad == priv->dist_pad) {
    // The distorted caps become the output caps: offer only what downstream takes.
    GstCaps* filter = nullptr;
    gst_query_parse_caps(query, &filter);
    CapsPtr template_caps(gst_pad_get_pad_template_caps(GST_PAD(pad)));
    CapsPtr downstream(gst_pad_peer_query_caps(GST_AGGREGATOR_SRC_PAD(agg), template_caps.get()));
    CapsPtr allowed(gst_caps_intersect(downstream.get(), template_caps.get()));
    if (filter)
      allowed.reset(
          gst_caps_intersect_full(filter, allowed.get(), GST_CAPS_INTERSECT_FIRST));
    gst_query_set_caps_result(query, allowed.get());
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->sink_query(agg, pad, query);
}

gboolean gst_vmaf_exact_propose_allocation(GstAggregator* agg, GstAggregatorPad* pad,
                                           GstQuery* decide_query, GstQuery* query) {
  (void)agg;
  (void)pad;
  (void)decide_query;
  // Frames are read through GstVideoMeta, so upstream may use any strides.
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

gboolean gst_vmaf_exact_src_query(GstAggregator* agg, GstQuery* query) {
#ifdef VMAFEXACT_HAVE_CUDA
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && priv_of(agg)->cuda_context.get() &&
      gst_cuda_handle_context_query(GST_ELEMENT(agg), query, priv_of(agg)->cuda_context.get()))
    return TRUE;
#endif
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->src_query(agg, query);
}

void gst_vmaf_exact_set_context(GstElement* element, GstContext* context) {
#ifdef VMAFEXACT_HAVE_CUDA
  GstVmafExact* self = GST_VMAF_EXACT(element);
  GST_OBJECT_LOCK(self);
  const gint device_id = priv_of(self)->settings.cuda_device_id;
  GST_OBJECT_UNLOCK(self);
  if (gst_cuda_load_library())
    gst_cuda_handle_set_context(element, context, device_id, priv_of(self)->cuda_context.slot());
#endif
  GST_ELEMENT_CLASS(gst_vmaf_exact_parent_class)->set_context(element, context);
}

GstFlowReturn gst_vmaf_exact_update_src_caps(GstAggregator* agg, GstCaps* downstream_caps,
                                             GstCaps** result) {
  GstVmafExactPrivate* priv = priv_of(agg);
  if (!priv->session.dist.caps) return GST_AGGREGATOR_FLOW_NEED_DATA;
  CapsPtr dist_caps(gst_caps_copy(priv->session.dist.caps.get()));
  if (downstream_caps && !gst_caps_can_intersect(dist_caps.get(), downstream_caps))
    return GST_FLOW_NOT_NEGOTIATED;
  *result = dist_caps.release();
  return GST_FLOW_OK;
}

GstClockTime gst_vmaf_exact_get_next_time(GstAggregator* agg) {
  // Live: wait for a frame's partner until its running time plus the latency.
  GstVmafExactPrivate* priv = priv_of(agg);
  GstClockTime earliest = GST_CLOCK_TIME_NONE;
  for (GstAggregatorPad* pad : {priv->ref_pad, priv->dist_pad}) {
    BufferPtr buffer(gst_aggregator_pad_peek_buffer(pad));
    if (!buffer) continue;
    const GstClockTime time = running_time_of(pad, buffer.get());
    if (GST_CLOCK_TIME_IS_VALID(time) && (!GST_CLOCK_TIME_IS_VALID(earliest) || time < earliest))
      earliest = time;
  }
  return earliest;
}

gboolean gst_vmaf_exact_start(GstAggregator* agg) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  GstVmafExactPrivate* priv = priv_of(self);
  Session session;
  session.settings = settings_snapshot(self);
  try {
    session.features = vmafexact::parse_feature_list(session.settings.features);
  } catch (const vmafexact::Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid features property: %s.", error.what()),
                      ("Set features to a comma-separated list of available features."));
    return FALSE;
  }
  try {
    session.models = vmafexact::parse_model_list(session.settings.model);
    for (auto& spec : session.models) {
      spec.predict.disable_clip |= session.settings.disable_clip;
      spec.predict.enable_transform |= session.settings.enable_transform;
    }
    vmafexact::load_models(session.models);  // a broken model file fails the start
  } catch (const vmafexact::Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid model property: %s.", error.what()),
                      ("Set model to built-in names (%s) or paths of libvmaf JSON model files, "
                       "comma-separated.",
                       builtin_model_list().c_str()));
    return FALSE;
  }
  if (session.features.empty() && session.models.empty()) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("Nothing to score: both the model and the features lists are empty."),
                      ("Set model (e.g. model=vmaf_v0.6.1) or features (e.g. features=psnr)."));
    return FALSE;
  }
  if (!session.settings.log_location.empty()) {
    // Fail now rather than after scoring a whole stream.
    std::ofstream probe(session.settings.log_location, std::ios::out | std::ios::trunc);
    if (!probe) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("Could not open the score log \"%s\" for writing.",
                         session.settings.log_location.c_str()),
                        ("Check that the folder exists and is writable, or change the "
                         "log-location property."));
      return FALSE;
    }
  }
#ifdef VMAFEXACT_HAVE_CUDA
  // gst_cuda_load_library() first: without a driver every gst_cuda call aborts.
  if (session.settings.backend != Backend::kCpu &&
      !(gst_cuda_load_library() && gst_cuda_ensure_element_context(GST_ELEMENT(self), session.settings.cuda_device_id,
                                       priv->cuda_context.slot())) &&
      session.settings.backend == Backend::kCuda) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("backend=cuda, but no usable CUDA device (cuda-device-id=%d).",
                       session.settings.cuda_device_id),
                      ("Check the NVIDIA driver and the device id, or use backend=auto or cpu."));
    return FALSE;
  }
#else
  if (session.settings.backend == Backend::kCuda) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS,
                      ("backend=cuda, but this build of vmafexact has no CUDA backend."),
                      ("Rebuild with -Dcuda=enabled (needs nvcc and gstreamer-cuda-1.0), or use "
                       "backend=auto or cpu."));
    return FALSE;
  }
#endif
#ifdef VMAFEXACT_HAVE_CUDA
  GST_INFO_OBJECT(self, "CUDA context: %" GST_PTR_FORMAT,
                  static_cast<void*>(priv->cuda_context.get()));
#endif
  release_cuda(priv);
  priv->session = std::move(session);
  return TRUE;
}

gboolean gst_vmaf_exact_stop(GstAggregator* agg) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  Session& session = priv_of(self)->session;
  // Stopped before end of stream (e.g. an application that sets NULL without
  // EOS): keep what was scored rather than lose it.
  if (!session.finished && session.scorer && session.scorer->frames_pushed() > 0) {
    try {
#ifdef VMAFEXACT_HAVE_CUDA
      vmafexact::gst::CudaContextScope scope(priv_of(self)->cuda_context.get());
#endif
      session.scorer->finish();
    } catch (const vmafexact::Error& error) {
      GST_WARNING_OBJECT(self, "finishing at stop failed: %s", error.what());
    }
    write_log(self);
  }
  release_cuda(priv_of(self));
  session = Session{};
  return TRUE;
}

GstFlowReturn gst_vmaf_exact_flush(GstAggregator* agg) {
  // A flushing seek starts a new measurement: scores, counts and frame indices
  // begin again from zero; caps stay until new ones arrive.
  Session& session = priv_of(agg)->session;
  std::optional<GstVideoInfo> ref_info = session.ref.info;
  std::optional<GstVideoInfo> dist_info = session.dist.info;
  CapsPtr ref_caps = std::move(session.ref.caps);
  CapsPtr dist_caps = std::move(session.dist.caps);
  reset_session(priv_of(agg));
  session.ref.info = ref_info;
  session.dist.info = dist_info;
  session.ref.caps = std::move(ref_caps);
  session.dist.caps = std::move(dist_caps);
  return GST_FLOW_OK;
}

// ---- GObject ---------------------------------------------------------------

void gst_vmaf_exact_set_property(GObject* object, guint prop_id, const GValue* value,
                                 GParamSpec* pspec) {
  GstVmafExact* self = GST_VMAF_EXACT(object);
  GstVmafExactPrivate* priv = priv_of(self);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->settings.backend = static_cast<Backend>(g_value_get_enum(value));
      break;
    case PROP_CUDA_DEVICE_ID:
      priv->settings.cuda_device_id = g_value_get_int(value);
      break;
    case PROP_MODEL: {
      const gchar* text = g_value_get_string(value);
      priv->settings.model = text ? text : "";
      break;
    }
    case PROP_FEATURES: {
      const gchar* text = g_value_get_string(value);
      priv->settings.features = text ? text : "";
      break;
    }
    case PROP_DISABLE_CLIP:
      priv->settings.disable_clip = g_value_get_boolean(value);
      break;
    case PROP_ENABLE_TRANSFORM:
      priv->settings.enable_transform = g_value_get_boolean(value);
      break;
    case PROP_SUBSAMPLE:
      priv->settings.subsample = g_value_get_uint(value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      priv->settings.frames_in_flight = g_value_get_uint(value);
      break;
    case PROP_THREADS:
      priv->settings.threads = g_value_get_uint(value);
      break;
    case PROP_FRAME_MESSAGE:
      priv->settings.frame_message = g_value_get_boolean(value);
      break;
    case PROP_LOG_LOCATION: {
      const gchar* text = g_value_get_string(value);
      priv->settings.log_location = text ? text : "";
      break;
    }
    case PROP_LOG_FORMAT:
      priv->settings.log_format = static_cast<LogFormat>(g_value_get_enum(value));
      break;
    case PROP_LOG_PRECISION:
      priv->settings.log_precision = static_cast<LogPrecision>(g_value_get_enum(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void gst_vmaf_exact_get_property(GObject* object, guint prop_id, GValue* value,
                                 GParamSpec* pspec) {
  GstVmafExact* self = GST_VMAF_EXACT(object);
  GstVmafExactPrivate* priv = priv_of(self);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum(value, static_cast<gint>(priv->settings.backend));
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int(value, priv->settings.cuda_device_id);
      break;
    case PROP_MODEL:
      g_value_set_string(value, priv->settings.model.c_str());
      break;
    case PROP_FEATURES:
      g_value_set_string(value, priv->settings.features.c_str());
      break;
    case PROP_DISABLE_CLIP:
      g_value_set_boolean(value, priv->settings.disable_clip);
      break;
    case PROP_ENABLE_TRANSFORM:
      g_value_set_boolean(value, priv->settings.enable_transform);
      break;
    case PROP_SUBSAMPLE:
      g_value_set_uint(value, priv->settings.subsample);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint(value, priv->settings.frames_in_flight);
      break;
    case PROP_THREADS:
      g_value_set_uint(value, priv->settings.threads);
      break;
    case PROP_FRAME_MESSAGE:
      g_value_set_boolean(value, priv->settings.frame_message);
      break;
    case PROP_LOG_LOCATION:
      g_value_set_string(value, priv->settings.log_location.empty()
                                    ? nullptr
                                    : priv->settings.log_location.c_str());
      break;
    case PROP_LOG_FORMAT:
      g_value_set_enum(value, static_cast<gint>(priv->settings.log_format));
      break;
    case PROP_LOG_PRECISION:
      g_value_set_enum(value, static_cast<gint>(priv->settings.log_precision));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void gst_vmaf_exact_finalize(GObject* object) {
  priv_of(GST_VMAF_EXACT(object))->~GstVmafExactPrivate();
  G_OBJECT_CLASS(gst_vmaf_exact_parent_class)->finalize(object);
}

}  // namespace

static void gst_vmaf_exact_class_init(GstVmafExactClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstAggregatorClass* aggregator_class = GST_AGGREGATOR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_vmaf_exact_debug, "vmafexact", 0, "vmafexact element");

  gobject_class->set_property = gst_vmaf_exact_set_property;
  gobject_class->get_property = gst_vmaf_exact_get_property;
  gobject_class->finalize = gst_vmaf_exact_finalize;

  constexpr auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  constexpr auto ready_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_READY);
  constexpr auto playing_flags = static_cast<GParamFlags>(flags | GST_PARAM_MUTABLE_PLAYING);

  g_object_class_install_property(
      gobject_class, PROP_BACKEND,
      g_param_spec_enum("backend", "Backend",
                        "Where to score: auto (CUDA when the frames arrive in CUDA memory), cpu, "
                        "or cuda (frames in system memory are uploaded). Both give the same bits.",
                        GST_TYPE_VMAF_EXACT_BACKEND, static_cast<gint>(Backend::kAuto),
                        ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int("cuda-device-id", "CUDA device id",
                       "CUDA device to score on (-1: the one of the neighbours' context, else "
                       "the first)",
                       -1, G_MAXINT, kDefaultCudaDeviceId, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_MODEL,
      g_param_spec_string(
          "model", "Model",
          "Comma-separated VMAF models: built-in names or paths of libvmaf JSON model files, "
          "each optionally followed by :name=KEY, :disable_clip, :enable_transform. The first "
          "model's score is 'vmaf', each further one's its name. Empty: features only. Read "
          "when the element starts.",
          kDefaultModel, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_DISABLE_CLIP,
      g_param_spec_boolean("disable-clip", "Disable clip",
                           "Do not clip model scores to the model's range (libvmaf's "
                           "disable_clip), for every model",
                           FALSE, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_ENABLE_TRANSFORM,
      g_param_spec_boolean("enable-transform", "Enable transform",
                           "Apply the model's score transform (libvmaf's enable_transform, "
                           "the 'phone' model), for every model",
                           FALSE, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_SUBSAMPLE,
      g_param_spec_uint("subsample", "Subsample",
                        "Score every Nth frame (libvmaf's n_subsample): frames whose index is "
                        "a multiple of N are scored, listed and pooled",
                        1, G_MAXUINT, kDefaultSubsample, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_THREADS,
      g_param_spec_uint("threads", "Threads",
                        "CPU threads (0: one per core). They score frames side by side and cut "
                        "each frame into row bands (see frames-in-flight). The scores are the "
                        "same with any number.",
                        0, 256, kDefaultThreads, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint("frames-in-flight", "Frames in flight",
                        "Frames scored at once on the CPU, at most threads (0: auto, 1 in a live "
                        "pipeline, else threads). 1 gives the lowest latency per frame: each "
                        "frame is cut into row bands scored by all threads before the next one; "
                        "more give the most frames per second, a frame's scores then coming up "
                        "to N - 1 frames later",
                        0, 256, kDefaultFramesInFlight, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_FEATURES,
      g_param_spec_string("features", "Features",
                          "Comma-separated extra features to compute besides the models' inputs, "
                          "named as libvmaf names its extractors (adm, motion, vif, psnr), with "
                          "libvmaf's option syntax (name=option=value:option=value). "
                          "Read when the element starts.",
                          kDefaultFeatures, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_FRAME_MESSAGE,
      g_param_spec_boolean("frame-message", "Frame message",
                           "Post a 'vmafexact-frame' element message with every frame's scores",
                           kDefaultFrameMessage, playing_flags));
  g_object_class_install_property(
      gobject_class, PROP_LOG_LOCATION,
      g_param_spec_string("log-location", "Log location",
                          "File to write libvmaf's log to at end of stream (none: no log). "
                          "Opened when the element starts; failure to write is an error.",
                          nullptr, ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_LOG_FORMAT,
      g_param_spec_enum("log-format", "Log format", "Layout of the log, as libvmaf's vmaf tool",
                        GST_TYPE_VMAF_EXACT_LOG_FORMAT, static_cast<gint>(LogFormat::kJson),
                        ready_flags));
  g_object_class_install_property(
      gobject_class, PROP_LOG_PRECISION,
      g_param_spec_enum("log-precision", "Log precision",
                        "How scores are printed in the log", GST_TYPE_VMAF_EXACT_LOG_PRECISION,
                        static_cast<gint>(LogPrecision::kDefault), ready_flags));

  gst_element_class_add_static_pad_template_with_gtype(element_class, &ref_sink_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype(element_class, &dist_sink_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype(element_class, &src_template,
                                                       GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata(
      element_class, "VMAF (exact)", "Filter/Analyzer/Video",
      "Scores a distorted video against its reference with libvmaf " VMAFEXACT_LIBVMAF_VERSION
      "'s arithmetic, bit for bit; posts per-frame scores and passes the distorted video "
      "through",
      "vmafexact developers");

  aggregator_class->aggregate = gst_vmaf_exact_aggregate;
  aggregator_class->sink_event = gst_vmaf_exact_sink_event;
  aggregator_class->sink_query = gst_vmaf_exact_sink_query;
  aggregator_class->src_query = gst_vmaf_exact_src_query;
  element_class->set_context = gst_vmaf_exact_set_context;
  aggregator_class->propose_allocation = gst_vmaf_exact_propose_allocation;
  aggregator_class->update_src_caps = gst_vmaf_exact_update_src_caps;
  aggregator_class->get_next_time = gst_vmaf_exact_get_next_time;
  aggregator_class->start = gst_vmaf_exact_start;
  aggregator_class->stop = gst_vmaf_exact_stop;
  aggregator_class->flush = gst_vmaf_exact_flush;

  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_LOG_FORMAT, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_BACKEND, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_LOG_PRECISION,
                              static_cast<GstPluginAPIFlags>(0));
}

static GstAggregatorPad* add_sink_pad(GstVmafExact* self, GstStaticPadTemplate* static_template) {
  GstPadTemplate* pad_template = gst_static_pad_template_get(static_template);
  auto* pad = GST_AGGREGATOR_PAD(g_object_new(GST_TYPE_AGGREGATOR_PAD, "name",
                                              static_template->name_template, "direction",
                                              GST_PAD_SINK, "template", pad_template, nullptr));
  gst_object_unref(pad_template);
  gst_element_add_pad(GST_ELEMENT(self), GST_PAD(pad));  // the element takes the floating ref
  return pad;
}

static void gst_vmaf_exact_init(GstVmafExact* self) {
  GstVmafExactPrivate* priv = new (priv_of(self)) GstVmafExactPrivate();
  priv->ref_pad = add_sink_pad(self, &ref_sink_template);
  priv->dist_pad = add_sink_pad(self, &dist_sink_template);
}
