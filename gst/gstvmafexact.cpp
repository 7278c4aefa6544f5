// The vmafexact element: a GstAggregator with two always sink pads (ref_sink,
// dist_sink) that pairs frames by running time, scores each pair through
// vmafexact::Scorer, posts the scores on the bus, writes libvmaf-format logs at
// end of stream, and pushes the distorted buffers out of its src pad unchanged.
//
// This file is glue over the element's parts: settings.h (properties and the
// plan taken at start), frame_pairer.h (what to do with the waiting frames),
// scoring_session.h (the Scorer and the frames it reads), frame_source.h and
// cuda_frame_source.h (buffers to pictures), cuda_context.h (the GstCudaContext),
// reporter.h (messages, warnings, log).
//
// Lifetimes: Settings live with the element (object lock); an Input's caps
// live until stop (a flush keeps them), its counters until a flush; a Run
// from start to stop, its ScoringSession from the first pair to a flush.
// Threading: aggregate(), sink_event() for serialized events, sink_query() for
// serialized queries and get_next_time() all run on the aggregator's src thread;
// flush() runs with that thread stopped, so the Run is touched by one thread
// at a time.

#include "gstvmafexact.h"

#include <gst/video/video.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "common/cpu.h"
#include "common/error.h"
#include "cuda_context.h"
#include "element_debug.h"
#include "element_guard.h"
#include "frame_pairer.h"
#include "frame_source.h"
#include "gst_handles.h"
#include "input.h"
#include "log_file.h"
#include "monitor.h"
#include "reporter.h"
#include "scoring_session.h"
#include "settings.h"
#include "streamed_log.h"
#include "video_picture.h"
#include "vmafexact_config.h"

GST_DEBUG_CATEGORY(gst_vmaf_exact_debug);

using namespace vmafexact::gst;

namespace {

// Formats whose samples libvmaf can read: planar or semi-planar YUV and gray,
// 8 bits in bytes or 10..16 bits in little-endian 16-bit words.
constexpr const char* kFormats =
    "{ I420, YV12, Y42B, Y444, NV12, NV21, NV16, NV61, NV24, GRAY8, "
    "I420_10LE, I420_12LE, I422_10LE, I422_12LE, Y444_10LE, Y444_12LE, Y444_16LE, "
    "P010_10LE, P012_LE, P016_LE, GRAY16_LE }";

// What to do when downstream refuses the distorted format (a warning at the
// caps query, an error when such caps arrive).
constexpr const char* kRefusedCapsAdvice =
    "vmafexact passes the distorted video through its src pad unchanged; convert it after "
    "vmafexact (e.g. '! videoconvert ! ...'), or give the distorted input a format downstream "
    "takes.";

constexpr unsigned kRef = static_cast<unsigned>(Side::kRef);
constexpr unsigned kDist = static_cast<unsigned>(Side::kDist);

// What the element posts on the bus, for gst-inspect-1.0 (which prints every
// metadata key of an element): the messages, and the kinds of errors and
// warnings. Their fields and texts: docs/element.md.
constexpr const char* kPostedMessages =
    "Element messages: vmafexact-frame (each frame's scores, once final), vmafexact-summary "
    "(frame counts, each score pooled, provenance; at end of stream), vmafexact-window (each "
    "rolling window's figures; with window set), vmafexact-alert (an alert raised or "
    "cleared, an input stalled; with alert or input-timeout set). Errors: invalid settings "
    "at start (LIBRARY/SETTINGS), log files that cannot be written (RESOURCE), unsupported or "
    "mismatched formats (STREAM/FORMAT, CORE/NEGOTIATION), frames that cannot be read "
    "(STREAM/DECODE), scoring failures (STREAM/FAILED). Warnings: unpaired frames, a stream "
    "that ended first, nothing scored, frames without timestamps, an alert on a score the "
    "run lacks, caps downstream refuses, a window cut at its frame limit. Every field and "
    "text: docs/element.md.";

// libvmaf's version and the commit of its master that vmafexact follows.
constexpr const char* kLibvmafSpecification = VMAFEXACT_LIBVMAF_VERSION " (master f85a8536)";

// What every run reports about itself, before its scoring session adds the
// models, the backend and the threads.
Provenance base_provenance() {
  return {{"vmafexact-version", VMAFEXACT_VERSION}, {"libvmaf-version", kLibvmafSpecification}};
}

// One run, from start to stop.
struct Run {
  std::optional<StartPlan> plan;
  FramePairer pairer;
  std::unique_ptr<ScoringSession> scoring;  // from the first pair
  std::unique_ptr<StreamedLog> log;         // with the session, when log-location is set
  Provenance provenance = base_provenance();
  bool finished = false;
  // backend=auto fell back to the CPU for features without a CUDA twin, and
  // said so (once a run, not at every flushing seek).
  bool warned_cpu_fallback = false;
  // A gray input paired with a YUV one by luma, and said so (once a run).
  bool warned_luma_only = false;
  // Both inputs had a frame waiting when the last aggregate() returned.
  bool backlog = false;
  // Live: a lone frame waits for its partner until then: what get_next_time()
  // returns at least (a running time before the latency, which the aggregator
  // adds; kept here since get_next_time() must not ask the aggregator for it).
  std::optional<Nanoseconds> grace_next_time;
};

FramePairer pairer_for(const Settings& settings) {
  PairerSettings pairer;
  if (settings.max_lateness >= 0)
    pairer.max_lateness = static_cast<Nanoseconds>(settings.max_lateness);
  return FramePairer{pairer};
}

// What the clock says now, for the frame pairer; no time when not live.
LiveClock live_clock(GstAggregator* agg, bool timeout, bool backlog) {
  LiveClock clock{timeout, std::nullopt, 0, backlog};
  const GstClockTime latency = gst_aggregator_get_latency(agg);
  if (!GST_CLOCK_TIME_IS_VALID(latency)) return clock;
  clock.latency = latency;
  const GstClockTime now = gst_element_get_current_running_time(GST_ELEMENT(agg));
  if (GST_CLOCK_TIME_IS_VALID(now)) clock.now = now;
  return clock;
}

}  // namespace

struct GstVmafExactPrivate {
  Settings settings;  // guarded by the object lock
  std::array<Input, 2> inputs;
  Run run;
  CudaContextHandler cuda;
  Reporter reporter{nullptr};
  Monitor monitor{nullptr};  // windows, alerts, percentiles, stalled inputs
  // Caps queries come on upstream's threads: once per run, set again at start.
  std::atomic<bool> warned_downstream_caps{false};
};

struct _GstVmafExact {
  GstAggregator parent;
};

G_DEFINE_TYPE_WITH_PRIVATE(GstVmafExact, gst_vmaf_exact, GST_TYPE_AGGREGATOR)
GST_ELEMENT_REGISTER_DEFINE(vmafexact, "vmafexact", GST_RANK_NONE, GST_TYPE_VMAF_EXACT)

namespace {

GstVmafExactPrivate* priv_of(GstVmafExact* self) {
  return static_cast<GstVmafExactPrivate*>(gst_vmaf_exact_get_instance_private(self));
}

GstVmafExactPrivate* priv_of(GstAggregator* agg) { return priv_of(GST_VMAF_EXACT(agg)); }

Settings settings_snapshot(GstVmafExact* self) {
  const ObjectLock lock(self);
  return priv_of(self)->settings;
}

Input& input_of(GstVmafExactPrivate* priv, GstAggregatorPad* pad) {
  return pad == priv->inputs[kRef].pad ? priv->inputs[kRef] : priv->inputs[kDist];
}

bool is_gap_buffer(GstBuffer* buffer) {
  return GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP) && gst_buffer_get_size(buffer) == 0;
}

// Whether a rotated log file may be written at a path: not another element's
// file (checked anew for each file; posts the error when not).
std::function<bool(const std::string&)> log_file_check(GstVmafExact* self, const StartPlan& plan) {
  return [self, &plan](const std::string& path) {
    return log_file_is_free(GST_ELEMENT(self), plan, path);
  };
}

// Reports frames whose scores are final: their messages, their log entries;
// then their scores are freed, so memory stays flat however long the run.
// False after posting an error (a rotated log file could not be written).
bool post_frames(GstVmafExact* self, const std::vector<FinishedFrame>& frames) {
  GstVmafExactPrivate* priv = priv_of(self);
  const bool enabled = [&] {
    const ObjectLock lock(self);
    return priv->settings.frame_message;  // may change while playing
  }();
  if (frames.empty()) return true;
  ScoringSession& scoring = *priv->run.scoring;
  const auto& scores = scoring.scorer().scores();
  if (enabled) priv->reporter.post_frames(frames, scores);
  priv->monitor.frames(frames, scores);
  bool ok = true;
  if (priv->run.log)
    for (const FinishedFrame& frame : frames)
      if (ok && !priv->run.log->add_frame(frame.index, scores.frame_scores(frame.index),
                                          frame.timing.running_time, scores.names(),
                                          scoring.scoring_time())) {
        if (!priv->run.log->refused())  // a refusal posted its own error
          priv->reporter.log_write_failed(priv->run.log->failed_path(),
                                          priv->run.log->failed_cause());
        ok = false;
      }
  scoring.release_final_frames();
  return ok;
}

// Sends a distorted buffer (taken from its pad) downstream.
GstFlowReturn send_downstream(GstVmafExact* self, GstBuffer* buffer) {
  const GstFlowReturn ret = gst_aggregator_finish_buffer(GST_AGGREGATOR(self), buffer);
  // The element also works as a plain sink: an unlinked src pad is not an error.
  return ret == GST_FLOW_NOT_LINKED ? GST_FLOW_OK : ret;
}

// Takes the input's waiting buffer without scoring it: a distorted one still
// goes downstream.
GstFlowReturn pass_on(GstVmafExact* self, Input& input) {
  ++input.buffers;
  if (&input != &priv_of(self)->inputs[kDist]) {
    gst_aggregator_pad_drop_buffer(input.pad);
    return GST_FLOW_OK;
  }
  GstBuffer* buffer = gst_aggregator_pad_pop_buffer(input.pad);
  return buffer ? send_downstream(self, buffer) : GST_FLOW_OK;
}

// Features such as motion finish a frame's scores only when the next frame has
// been scored; the aggregator is told so that live pipelines budget for it.
void report_score_latency(GstVmafExact* self) {
  GstVmafExactPrivate* priv = priv_of(self);
  const unsigned frames = priv->run.scoring->scorer().latency_frames();
  const auto& info = priv->inputs[kDist].info;
  if (frames == 0 || !info || GST_VIDEO_INFO_FPS_N(&*info) <= 0 || GST_VIDEO_INFO_FPS_D(&*info) <= 0)
    return;
  const GstClockTime latency = gst_util_uint64_scale_int(
      frames * GST_SECOND, GST_VIDEO_INFO_FPS_D(&*info), GST_VIDEO_INFO_FPS_N(&*info));
  gst_aggregator_set_latency(GST_AGGREGATOR(self), latency, latency);
}

// Checks both inputs against each other and starts the scoring session with
// the first pair. Returns false after posting an error.
bool ensure_scoring(GstVmafExact* self, const std::array<BufferPtr, 2>& heads) {
  GstVmafExactPrivate* priv = priv_of(self);
  Run& run = priv->run;
  const auto format = common_format(GST_ELEMENT(self), priv->inputs[kRef], priv->inputs[kDist]);
  if (!format) return false;
  const std::string format_text = describe_video_info(*priv->inputs[kRef].info);
  if (run.scoring) {
    if (run.scoring->scorer().format() == *format) return true;
    GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                      ("The video format changed mid-stream to %s; scores cannot be pooled "
                       "across picture formats.",
                       format_text.c_str()),
                      ("Scale both inputs to one fixed size and format before vmafexact."));
    return false;
  }
  const auto ref_format = picture_format_from_info(*priv->inputs[kRef].info);
  const auto dist_format = picture_format_from_info(*priv->inputs[kDist].info);
  if (pairs_gray_with_yuv(*ref_format, *dist_format) && !run.warned_luma_only) {
    run.warned_luma_only = true;
    const std::string dist_text = describe_video_info(*priv->inputs[kDist].info);
    GST_ELEMENT_WARNING(
        self, STREAM, FORMAT,
        ("Scoring the luma only: the reference is %s and the distorted video %s; the gray "
         "samples are compared with the other's luma as they are, and chroma scores (psnr_cb, "
         "psnr_cr, ...) are not computed.",
         format_text.c_str(), dist_text.c_str()),
        ("VMAF reads only the luma. Give both inputs in one YUV format to score chroma too; "
         "a conversion between gray and YUV (videoconvert) may change the luma's range."));
  }
  const Settings& settings = run.plan->settings;
  if (!log_location_is_free(GST_ELEMENT(self), *run.plan)) return false;
  // backend=cuda: always (start() made sure there is a context); auto: when
  // either input arrives in CUDA memory and a context is there.
  bool on_cuda = priv->cuda.has_context() &&
                 (settings.backend == Backend::kCuda ||
                  (settings.backend == Backend::kAuto &&
                   (priv->inputs[kRef].is_cuda_memory() || priv->inputs[kDist].is_cuda_memory())));
  try {
    // The models were checked at start; they are loaded anew for each scoring
    // session (start, or after a flushing seek).
    auto models = vmafexact::load_models(run.plan->models);
    // backend=auto scores on the device only what has a twin there: else the
    // CPU, which reads CUDA memory through a host map (backend=cuda fails
    // below instead, naming the feature).
    if (on_cuda && settings.backend == Backend::kAuto) {
      const auto missing = vmafexact::features_without_cuda_twin(models, run.plan->features);
      if (!missing.empty()) {
        on_cuda = false;
        if (!run.warned_cpu_fallback) {
          run.warned_cpu_fallback = true;
          std::string names;
          for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
          GST_ELEMENT_WARNING(
              self, STREAM, NOT_IMPLEMENTED,
              ("Scoring on the CPU: backend=auto does not use the GPU for this run, because of "
               "%s.",
               names.c_str()),
              ("Frames in CUDA memory are read through a host map: the scores are the same, "
               "but slower. Set backend=cpu to silence this warning, or score models and "
               "features that all have CUDA twins (docs/cuda.md lists them)."));
        }
      }
    }
    vmafexact::ScorerOptions options;
    options.subsample = settings.subsample;
    options.threads = settings.threads;
    options.frames_in_flight = settings.frames_in_flight;
    // Auto: a live pipeline wants each frame's scores as soon as possible, so
    // one frame at a time with its bands on every thread; otherwise the most
    // frames per second, with frames side by side.
    const bool live = GST_CLOCK_TIME_IS_VALID(gst_aggregator_get_latency(GST_AGGREGATOR(self)));
    if (options.frames_in_flight == 0 && live) options.frames_in_flight = 1;
    priv->monitor.set_live(live);
    if (on_cuda)
      for (const auto& head : heads) priv->cuda.adopt_context_of(GST_ELEMENT(self), head.get());
    std::unique_ptr<ScoringDevice> device;
    if (on_cuda)
      device = priv->cuda.make_device();
    else
      device = std::make_unique<HostDevice>();
    run.scoring = std::make_unique<ScoringSession>(std::move(device), std::move(models),
                                                   run.plan->features, *format, options);
  } catch (const vmafexact::DeviceError& error) {
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                      ("Could not start scoring on the GPU: %s.", error.what()),
                      ("Input %s.", format_text.c_str()));
    return false;
  } catch (const vmafexact::Error& error) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Cannot score this video: %s.", error.what()),
                      ("Input %s.", format_text.c_str()));
    return false;
  }
  run.provenance = base_provenance();
  {
    const vmafexact::Scorer& scorer = run.scoring->scorer();
    std::string models;
    const auto loaded = vmafexact::load_models(run.plan->models);
    for (std::size_t m = 0; m < loaded.size(); ++m) {
      models += (m ? ", " : "") + loaded[m].key + "=" + loaded[m].model.name();
      // A path need not be UTF-8; the provenance goes into messages and logs.
      if (run.plan->models[m].is_path) {
        const GCharPtr shown(g_filename_display_name(run.plan->models[m].source.c_str()));
        models += std::string(" (") + shown.get() + ")";
      }
    }
    std::string backend = run.scoring->device_name();
    if (backend == "CPU")
      backend += std::string(" (") + vmafexact::cpu::best_isa_name(vmafexact::cpu::flags()) + ")";
    run.provenance.emplace_back("models", models);
    run.provenance.emplace_back("backend", backend);
    run.provenance.emplace_back("threads", std::to_string(scorer.threads()));
  }
  priv->monitor.set_provenance(run.provenance);
  if (!settings.log_location.empty()) {
    StreamedLog::Options log;
    log.location = settings.log_location;
    log.format = settings.log_format;
    log.precision = settings.log_precision;
    log.rotation = run.plan->log_rotation;
    log.version = "vmafexact " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
    log.provenance = run.provenance;
    log.width = format->width;
    log.height = format->height;
    log.subsample = settings.subsample;
    // Each rotated file's name is checked against the pipeline's files anew.
    log.may_write = log_file_check(self, *run.plan);
    try {
      run.log = std::make_unique<StreamedLog>(std::move(log));
    } catch (const vmafexact::Error& error) {
      // The path was checked at start: what changed since picks the fix.
      const auto problem = log_location_problem(settings.log_location);
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("Could not start the score log: %s.", error.what()),
                        ("%s", problem ? problem->advice.c_str()
                                       : "Check that the folder of log-location exists, is "
                                         "writable and has room."));
      return false;
    }
  }
  GST_INFO_OBJECT(self, "scoring on the %s, %u threads, %u frames in flight, %s",
                  run.scoring->device_name(), run.scoring->scorer().threads(),
                  run.scoring->scorer().frames_in_flight(),
                  run.scoring->read_mode().chroma
                      ? "chroma read"
                      : "luma only (no extractor reads chroma: it is neither repacked nor uploaded)");
  report_score_latency(self);
  return true;
}

// A failure while frames flow: the device's (a GPU call) is a resource's
// failure, so that an application can tell it from a stream it cannot score.
void post_scoring_error(GstVmafExact* self, const vmafexact::Error& error) {
  if (dynamic_cast<const vmafexact::DeviceError*>(&error))
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Scoring failed on the GPU: %s.", error.what()),
                      (nullptr));
  else
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Scoring failed: %s.", error.what()), (nullptr));
}

GstFlowReturn score_pair(GstVmafExact* self, const std::array<BufferPtr, 2>& heads) {
  GstVmafExactPrivate* priv = priv_of(self);
  if (!ensure_scoring(self, heads)) return GST_FLOW_NOT_NEGOTIATED;
  Input& dist = priv->inputs[kDist];
  GstBuffer* dist_buffer = heads[kDist].get();
  const FrameTiming timing{GST_BUFFER_PTS(dist_buffer), dist.time_of(dist_buffer),
                           dist.time_of(dist_buffer, false), GST_BUFFER_DURATION(dist_buffer)};
  // The pair leaves its pads before it is scored (heads hold it): upstream
  // then reads and parses the next pair while this one is scored, instead of
  // waiting for aggregate() to return (a pad holds one frame).
  for (Input& input : priv->inputs) gst_aggregator_pad_drop_buffer(input.pad);
  std::vector<FinishedFrame> finished;
  priv->monitor.pair_pushed(timing.running_time);
  try {
    finished = priv->run.scoring->push({heads[kRef].get(), dist_buffer},
                                       {&*priv->inputs[kRef].info, &*dist.info}, timing);
  } catch (const UnreadableFrame& unreadable) {
    const Input& input = priv->inputs[unreadable.input];
    if (!unreadable.reason.empty()) {
      GST_ELEMENT_ERROR(self, STREAM, DECODE,
                        ("Could not read a %s frame: %s.", input.role, unreadable.reason.c_str()),
                        ("The buffer's video meta describes planes its memory does not hold; "
                         "check the element in front of this pad."));
      return GST_FLOW_ERROR;
    }
    GST_ELEMENT_ERROR(self, STREAM, DECODE,
                      ("Could not read a %s frame: the buffer holds %" G_GSIZE_FORMAT
                       " bytes where its caps (%s) need %" G_GSIZE_FORMAT ".",
                       input.role, gst_buffer_get_size(heads[unreadable.input].get()),
                       describe_video_info(*input.info).c_str(), GST_VIDEO_INFO_SIZE(&*input.info)),
                      ("Upstream sent a buffer that does not match its caps; check the "
                       "parser or decoder in front of this pad (rawvideoparse needs the "
                       "exact frame layout)."));
    return GST_FLOW_ERROR;
  } catch (const UnpreparedFrame& unprepared) {
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                      ("Could not prepare the frames: %s.", unprepared.reason.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  } catch (const vmafexact::Error& error) {
    post_scoring_error(self, error);
    return GST_FLOW_ERROR;
  }
  if (!post_frames(self, finished)) return GST_FLOW_ERROR;
  ++priv->inputs[kRef].buffers;
  ++dist.buffers;
  return send_downstream(self, gst_buffer_ref(dist_buffer));
}

// End of both inputs: final scores, summary, log. Returns EOS or an error.
GstFlowReturn finish_stream(GstVmafExact* self) {
  GstVmafExactPrivate* priv = priv_of(self);
  Run& run = priv->run;
  run.finished = true;
  const vmafexact::Scorer* scorer = run.scoring ? &run.scoring->scorer() : nullptr;
  if (run.scoring) {
    try {
      if (!post_frames(self, run.scoring->finish())) return GST_FLOW_ERROR;
    } catch (const vmafexact::Error& error) {
      post_scoring_error(self, error);
      return GST_FLOW_ERROR;
    }
  }
  priv->monitor.finish();
  const guint64 scored = scorer ? scorer->frames_pushed() : 0;
  const guint64 trailing_ref = run.pairer.trailing(Side::kRef);
  const guint64 trailing_dist = run.pairer.trailing(Side::kDist);
  if (trailing_ref || trailing_dist)
    priv->reporter.warn_ended_first(trailing_ref > 0, scored,
                                    trailing_ref > 0 ? trailing_ref : trailing_dist);
  if (scored == 0) priv->reporter.warn_nothing_scored();
  priv->reporter.post_summary(scorer, run.pairer.unpaired(Side::kRef),
                              run.pairer.unpaired(Side::kDist), run.pairer.skipped(),
                              run.pairer.paired_by_arrival_order(), run.provenance,
                              [priv](const std::string& name, GstStructure* pooled) {
                                priv->monitor.add_percentiles(name, pooled);
                              });
  const auto scoring_time =
      run.scoring ? run.scoring->scoring_time() : std::chrono::steady_clock::duration{};
  if (!priv->reporter.write_log(run.plan->settings, scorer, run.log.get(), run.provenance,
                                scoring_time, log_file_check(self, *run.plan)))
    return GST_FLOW_ERROR;
  // With src unlinked the element ends the pipeline: no sink downstream will
  // post EOS, so it becomes a sink and posts it (a bin posts EOS once every
  // sink has, and a bin without sinks never does).
  if (!gst_pad_is_linked(GST_AGGREGATOR_SRC_PAD(self))) {
    GST_OBJECT_FLAG_SET(self, GST_ELEMENT_FLAG_SINK);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_eos(GST_OBJECT(self)));
  }
  return GST_FLOW_EOS;
}

// ---- GstAggregator virtual methods ----------------------------------------

GstFlowReturn aggregate_unguarded(GstAggregator* agg, gboolean timeout) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  GstVmafExactPrivate* priv = priv_of(self);
  if (priv->run.finished) return GST_FLOW_EOS;
  std::array<BufferPtr, 2> heads;
  std::array<InputHead, 2> states;
  for (unsigned i : {kRef, kDist}) {
    Input& input = priv->inputs[i];
    heads[i].reset(gst_aggregator_pad_peek_buffer(input.pad));
    // Gap buffers (from GAP events) stand for frames that are missing: skip
    // them; the frame on the other side then finds no partner.
    if (heads[i] && is_gap_buffer(heads[i].get())) {
      ++input.gaps;
      gst_aggregator_pad_drop_buffer(input.pad);
      return GST_FLOW_OK;
    }
    states[i] = input.head(heads[i].get());
  }
  const LiveClock clock = live_clock(agg, timeout, priv->run.backlog);
  for (unsigned i : {kRef, kDist})
    if (heads[i] && clock.now) priv->inputs[i].last_seen = clock.now;
  for (unsigned i : {kRef, kDist})
    if (states[i].eos) states[i].ended_at = end_wait_from(priv->inputs[i], priv->inputs[1 - i]);
  const PairStep step = priv->run.pairer.next(states[kRef], states[kDist], clock);
  // The waiting frame of input i's running time and duration, for messages
  // (GST_CLOCK_TIME_NONE where it has none).
  const auto running_time_of = [&](unsigned i) {
    return static_cast<GstClockTime>(states[i].frame->running_time.value_or(GST_CLOCK_TIME_NONE));
  };
  const auto duration_of = [&](unsigned i) {
    return static_cast<GstClockTime>(states[i].frame->duration.value_or(GST_CLOCK_TIME_NONE));
  };
  priv->run.grace_next_time.reset();
  if (step.wake_at)
    priv->run.grace_next_time = *step.wake_at > clock.latency ? *step.wake_at - clock.latency : 0;
  switch (step.action) {
    case PairAction::kPair:
      if (step.warn_arrival_order)
        priv->reporter.warn_arrival_order(
            step.untimed[kRef] && step.untimed[kDist]
                ? "reference and distorted"
                : priv->inputs[step.untimed[kRef] ? kRef : kDist].role);
      return score_pair(self, heads);
    case PairAction::kSkipPair: {
      if (step.warn_skipped)
        priv->reporter.warn_skipped_late(step.late_by, priv->run.pairer.skipped(),
                                         static_cast<GstClockTime>(priv->run.plan->settings.max_lateness));
      priv->monitor.skipped(running_time_of(kDist), duration_of(kDist));
      pass_on(self, priv->inputs[kRef]);
      return pass_on(self, priv->inputs[kDist]);
    }
    case PairAction::kDropRef:
    case PairAction::kDropDist: {
      const unsigned i = step.action == PairAction::kDropRef ? kRef : kDist;
      if (step.warn)
        priv->reporter.warn_unpaired(priv->inputs[i].role, priv->inputs[1 - i].role,
                                     running_time_of(i), step.other_time, step.last_warning);
      priv->monitor.unpaired(i == kDist, running_time_of(i), duration_of(i),
                             priv->run.pairer.unpaired(Side::kRef),
                             priv->run.pairer.unpaired(Side::kDist));
      return pass_on(self, priv->inputs[i]);
    }
    case PairAction::kFinish:
      if (step.abandoned) {
        const Input& silent = priv->inputs[static_cast<unsigned>(*step.abandoned)];
        const Input& ended = priv->inputs[1 - static_cast<unsigned>(*step.abandoned)];
        GST_ELEMENT_WARNING(
            self, STREAM, FAILED,
            ("The %s stream ended and the %s input sent nothing within the latency after it: "
             "ending without waiting for the %s input's end.",
             ended.role, silent.role, silent.role),
            ("Live, a frame waits for its partner only until its running time plus the "
             "latency; check the %s source (docs/reliability.md).",
             silent.role));
      }
      return finish_stream(self);
    case PairAction::kWait: break;
  }
  return GST_FLOW_OK;
}

// backend=auto: the CUDA context (the neighbours', else a new one) once an
// input's caps are CUDA memory, before its allocation query asks for a pool.
void ensure_cuda_for_caps(GstVmafExact* self, const GstCaps* caps) {
  GstVmafExactPrivate* priv = priv_of(self);
  if (!CudaContextHandler::is_cuda_memory_caps(caps) || priv->cuda.has_context()) return;
  const Settings settings = settings_snapshot(self);
  if (settings.backend == Backend::kAuto)
    priv->cuda.ensure(GST_ELEMENT(self), settings.cuda_device_id);
}

gboolean sink_event_unguarded(GstAggregator* agg, GstAggregatorPad* pad, GstEvent* event) {
  GstVmafExactPrivate* priv = priv_of(agg);
  Input& input = input_of(priv, pad);
  const bool is_dist = &input == &priv->inputs[kDist];
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps* caps = nullptr;
    gst_event_parse_caps(event, &caps);
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps) || !picture_format_from_info(info)) {
      GCharPtr caps_text(gst_caps_to_string(caps));
      GST_ELEMENT_ERROR(agg, STREAM, FORMAT,
                        ("Unsupported caps on %s: %s.", GST_PAD_NAME(pad), caps_text.get()),
                        ("vmafexact scores progressive planar or semi-planar YUV and gray video "
                         "at 8, 10, 12 or 16 bits; insert videoconvert before the pad."));
      gst_event_unref(event);
      return FALSE;
    }
    input.info = info;
    input.caps.reset(gst_caps_ref(caps));
    ensure_cuda_for_caps(GST_VMAF_EXACT(agg), caps);
    GST_DEBUG_OBJECT(pad, "caps %" GST_PTR_FORMAT, static_cast<void*>(caps));
    // The distorted caps become the output caps, through update_src_caps().
    if (is_dist) gst_pad_mark_reconfigure(GST_AGGREGATOR_SRC_PAD(agg));
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    // When it ended: how long the other input is still waited for, live.
    input.end(gst_element_get_current_running_time(GST_ELEMENT(agg)));
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT && is_dist) {
    // The distorted buffers go out with their own timestamps, so the output
    // carries the distorted input's segment.
    const GstSegment* segment = nullptr;
    gst_event_parse_segment(event, &segment);
    if (segment->format == GST_FORMAT_TIME) gst_aggregator_update_segment(agg, segment);
  }
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->sink_event(agg, pad, event);
}

gboolean sink_query_unguarded(GstAggregator* agg, GstAggregatorPad* pad, GstQuery* query) {
  GstVmafExactPrivate* priv = priv_of(agg);
  if (priv->cuda.answer_query(GST_ELEMENT(agg), query)) return TRUE;
  if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS && pad == priv->inputs[kDist].pad) {
    // The distorted caps become the output caps: offer only what downstream takes.
    GstCaps* filter = nullptr;
    gst_query_parse_caps(query, &filter);
    CapsPtr template_caps(gst_pad_get_pad_template_caps(GST_PAD(pad)));
    CapsPtr downstream(gst_pad_peer_query_caps(GST_AGGREGATOR_SRC_PAD(agg), template_caps.get()));
    CapsPtr allowed(gst_caps_intersect(downstream.get(), template_caps.get()));
    if (filter)
      allowed.reset(gst_caps_intersect_full(filter, allowed.get(), GST_CAPS_INTERSECT_FIRST));
    // Upstream offers what vmafexact takes, but downstream takes none of it:
    // upstream's negotiation is about to fail with a generic "not-negotiated",
    // so say here which caps are refused. What upstream offers: the query's
    // filter, or (a capsfilter asks without one) upstream's own caps.
    CapsPtr offered_caps;
    if (!priv->warned_downstream_caps)
      offered_caps.reset(filter ? gst_caps_ref(filter)
                                : gst_pad_peer_query_caps(GST_PAD(pad), nullptr));
    if (offered_caps && !gst_caps_is_any(offered_caps.get()) &&
        gst_caps_can_intersect(offered_caps.get(), template_caps.get()) &&
        !gst_caps_can_intersect(offered_caps.get(), allowed.get()) &&
        !priv->warned_downstream_caps.exchange(true)) {
      GCharPtr offered(gst_caps_to_string(offered_caps.get()));
      GCharPtr taken(gst_caps_to_string(downstream.get()));
      GST_ELEMENT_WARNING(agg, CORE, NEGOTIATION,
                          ("Downstream of vmafexact refuses the distorted video: the distorted "
                           "input offers %s, downstream takes only %s.",
                           offered.get(), taken.get()),
                          ("%s", kRefusedCapsAdvice));
    }
    gst_query_set_caps_result(query, allowed.get());
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->sink_query(agg, pad, query);
}

gboolean propose_allocation_unguarded(GstAggregator* agg, GstAggregatorPad*, GstQuery*,
                                      GstQuery* query) {
  // Frames are read through GstVideoMeta, so upstream may use any strides.
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  ensure_cuda_for_caps(GST_VMAF_EXACT(agg), caps);
  priv_of(agg)->cuda.propose_pool(GST_ELEMENT(agg), query);
  return TRUE;
}

gboolean src_query_unguarded(GstAggregator* agg, GstQuery* query) {
  if (priv_of(agg)->cuda.answer_query(GST_ELEMENT(agg), query)) return TRUE;
  return GST_AGGREGATOR_CLASS(gst_vmaf_exact_parent_class)->src_query(agg, query);
}

void set_context_unguarded(GstElement* element, GstContext* context) {
  GstVmafExact* self = GST_VMAF_EXACT(element);
  priv_of(self)->cuda.set_context(element, context, settings_snapshot(self).cuda_device_id);
  GST_ELEMENT_CLASS(gst_vmaf_exact_parent_class)->set_context(element, context);
}

GstFlowReturn update_src_caps_unguarded(GstAggregator* agg, GstCaps* downstream_caps,
                                        GstCaps** result) {
  const CapsPtr& dist_caps = priv_of(agg)->inputs[kDist].caps;
  if (!dist_caps) return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (downstream_caps && !gst_caps_can_intersect(dist_caps.get(), downstream_caps)) {
    GCharPtr offered(gst_caps_to_string(dist_caps.get()));
    GCharPtr taken(gst_caps_to_string(downstream_caps));
    GST_ELEMENT_ERROR(agg, CORE, NEGOTIATION,
                      ("Downstream of vmafexact refuses the distorted video's caps %s; it takes "
                       "only %s.",
                       offered.get(), taken.get()),
                      ("%s", kRefusedCapsAdvice));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *result = gst_caps_copy(dist_caps.get());
  return GST_FLOW_OK;
}

GstClockTime get_next_time_unguarded(GstAggregator* agg) {
  // Live: wait for a frame's partner until its running time plus the latency.
  GstClockTime earliest = GST_CLOCK_TIME_NONE;
  for (const Input& input : priv_of(agg)->inputs) {
    BufferPtr buffer(gst_aggregator_pad_peek_buffer(input.pad));
    if (!buffer) continue;
    const GstClockTime time = input.time_of(buffer.get());
    if (GST_CLOCK_TIME_IS_VALID(time) && (!GST_CLOCK_TIME_IS_VALID(earliest) || time < earliest))
      earliest = time;
  }
  // A lone frame given a grace for its partner: not before the grace ends.
  // (Called with the aggregator's lock held: gst_aggregator_get_latency()
  // here would deadlock.)
  GstVmafExactPrivate* priv = priv_of(agg);
  const auto& grace = priv->run.grace_next_time;
  if (grace && GST_CLOCK_TIME_IS_VALID(earliest)) earliest = std::max(earliest, *grace);
  // No frame waiting, one input ended: the other is waited for only until the
  // end plus a grace (FramePairer::next()), else an input that never sends
  // would leave the aggregator waiting for ever.
  const bool ref_eos = gst_aggregator_pad_is_eos(priv->inputs[kRef].pad);
  const bool dist_eos = gst_aggregator_pad_is_eos(priv->inputs[kDist].pad);
  if (!GST_CLOCK_TIME_IS_VALID(earliest) && ref_eos != dist_eos) {
    const unsigned ended = ref_eos ? kRef : kDist;
    earliest = priv->run.pairer.end_wait_until(
        end_wait_from(priv->inputs[ended], priv->inputs[1 - ended]));
  }
  return earliest;
}

gboolean start_unguarded(GstAggregator* agg) {
  GstVmafExact* self = GST_VMAF_EXACT(agg);
  GstVmafExactPrivate* priv = priv_of(self);
  GST_OBJECT_FLAG_UNSET(self, GST_ELEMENT_FLAG_SINK);  // set again if a run ends unlinked
  auto plan = plan_start(GST_ELEMENT(self), settings_snapshot(self),
                         CudaContextHandler::in_build());
  if (!plan) return FALSE;
  const Settings& settings = plan->settings;
  // backend=auto looks for a context only when an input brings CUDA memory
  // (ensure_cuda_for_caps()): a CPU pipeline never initialises CUDA.
  if (settings.backend == Backend::kCuda &&
      !priv->cuda.ensure(GST_ELEMENT(self), settings.cuda_device_id)) {
    GST_ELEMENT_ERROR(
        self, RESOURCE, NOT_FOUND,
        ("backend=cuda, but no usable CUDA device (cuda-device-id=%d).", settings.cuda_device_id),
        ("Check the NVIDIA driver and the device id, or use backend=auto or cpu. "
         "After a fault of the device earlier in this process, restart the "
         "process."));
    return FALSE;
  }
  auto monitor_plan = plan_monitor(GST_ELEMENT(self), plan->settings);
  if (!monitor_plan) return FALSE;
  priv->monitor.start(std::move(*monitor_plan), {GST_PAD(priv->inputs[kRef].pad),
                                                  GST_PAD(priv->inputs[kDist].pad)});
  priv->run = Run{};
  priv->run.pairer = pairer_for(plan->settings);
  priv->run.plan = std::move(plan);
  priv->warned_downstream_caps = false;
  return TRUE;
}

gboolean stop_unguarded(GstAggregator* agg) {
  GstVmafExactPrivate* priv = priv_of(agg);
  Run& run = priv->run;
  // Stopped before end of stream (e.g. an application that sets NULL without
  // EOS): keep what was scored rather than lose it.
  if (!run.finished && run.scoring && run.scoring->scorer().frames_pushed() > 0) {
    try {
      // The frames' messages are not posted at stop; their log entries are written.
      const auto finished = run.scoring->finish();
      const auto& scores = run.scoring->scorer().scores();
      if (run.log)
        for (const FinishedFrame& frame : finished)
          run.log->add_frame(frame.index, scores.frame_scores(frame.index),
                             frame.timing.running_time, scores.names(),
                             run.scoring->scoring_time());
    } catch (const vmafexact::Error& error) {
      GST_WARNING_OBJECT(agg, "finishing at stop failed: %s", error.what());
    }
    priv->reporter.write_log(run.plan->settings, &run.scoring->scorer(), run.log.get(),
                             run.provenance, run.scoring->scoring_time(),
                             log_file_check(GST_VMAF_EXACT(agg), *run.plan));
  }
  run = Run{};  // drains any frames in flight before freeing what they read
  priv->monitor.stop();
  for (Input& input : priv->inputs) input.reset();
  // As nvcodec's elements do: the next start finds its context anew, so a
  // changed cuda-device-id takes effect.
  priv->cuda.clear();
  return TRUE;
}

GstFlowReturn flush_unguarded(GstAggregator* agg) {
  // A flushing seek starts a new measurement: scores, counts and frame indices
  // begin again from zero; caps stay until new ones arrive.
  GstVmafExactPrivate* priv = priv_of(agg);
  priv->run.log.reset();      // the measurement's log is dropped; the file keeps its content
  priv->run.scoring.reset();  // drains any frames in flight before freeing what they read
  priv->run.pairer = priv->run.plan ? pairer_for(priv->run.plan->settings) : FramePairer{};
  priv->run.grace_next_time.reset();
  priv->run.backlog = false;
  priv->run.finished = false;
  priv->monitor.flush();
  for (Input& input : priv->inputs) input.reset_counters();
  return GST_FLOW_OK;
}

// ---- The entry points: no exception leaves the element (element_guard.h) ----

GstFlowReturn gst_vmaf_exact_aggregate(GstAggregator* agg, gboolean timeout) {
  return guarded(GST_ELEMENT(agg), "scoring frames", GstFlowReturn(GST_FLOW_ERROR), [&] {
    const GstFlowReturn ret = aggregate_unguarded(agg, timeout);
    GstVmafExactPrivate* priv = priv_of(agg);
    priv->run.backlog = gst_aggregator_pad_has_buffer(priv->inputs[kRef].pad) &&
                        gst_aggregator_pad_has_buffer(priv->inputs[kDist].pad);
    return ret;
  });
}

gboolean gst_vmaf_exact_sink_event(GstAggregator* agg, GstAggregatorPad* pad, GstEvent* event) {
  return guarded(GST_ELEMENT(agg), "handling an event", gboolean(FALSE),
                 [&] { return sink_event_unguarded(agg, pad, event); });
}

gboolean gst_vmaf_exact_sink_query(GstAggregator* agg, GstAggregatorPad* pad, GstQuery* query) {
  return guarded(GST_ELEMENT(agg), "answering a query", gboolean(FALSE),
                 [&] { return sink_query_unguarded(agg, pad, query); });
}

gboolean gst_vmaf_exact_propose_allocation(GstAggregator* agg, GstAggregatorPad* pad,
                                           GstQuery* decide_query, GstQuery* query) {
  return guarded(GST_ELEMENT(agg), "proposing an allocation", gboolean(FALSE),
                 [&] { return propose_allocation_unguarded(agg, pad, decide_query, query); });
}

gboolean gst_vmaf_exact_src_query(GstAggregator* agg, GstQuery* query) {
  return guarded(GST_ELEMENT(agg), "answering a query", gboolean(FALSE),
                 [&] { return src_query_unguarded(agg, query); });
}

GstFlowReturn gst_vmaf_exact_update_src_caps(GstAggregator* agg, GstCaps* downstream_caps,
                                             GstCaps** result) {
  return guarded(GST_ELEMENT(agg), "choosing the output caps", GstFlowReturn(GST_FLOW_ERROR),
                 [&] { return update_src_caps_unguarded(agg, downstream_caps, result); });
}

GstClockTime gst_vmaf_exact_get_next_time(GstAggregator* agg) {
  return guarded(GST_ELEMENT(agg), "waiting for frames", GstClockTime(GST_CLOCK_TIME_NONE),
                 [&] { return get_next_time_unguarded(agg); });
}

gboolean gst_vmaf_exact_start(GstAggregator* agg) {
  return guarded(GST_ELEMENT(agg), "starting", gboolean(FALSE),
                 [&] { return start_unguarded(agg); });
}

gboolean gst_vmaf_exact_stop(GstAggregator* agg) {
  return guarded(GST_ELEMENT(agg), "stopping", gboolean(FALSE),
                 [&] { return stop_unguarded(agg); });
}

GstFlowReturn gst_vmaf_exact_flush(GstAggregator* agg) {
  return guarded(GST_ELEMENT(agg), "flushing", GstFlowReturn(GST_FLOW_ERROR),
                 [&] { return flush_unguarded(agg); });
}

void gst_vmaf_exact_set_context(GstElement* element, GstContext* context) {
  guarded(element, "setting a context", 0, [&] {
    set_context_unguarded(element, context);
    return 0;
  });
}

// Live sources linked without a queue (a udpsrc beside a videotestsrc) report
// latencies that GstAggregator finds impossible (one input's minimum above
// another's maximum): it then works as if not live and waits for a frame on
// both pads, so an input that never sends blocks the other's streaming thread
// for ever, and with it an EOS sent to the pipeline (gst-launch-1.0 -e). The
// element's pads hold each input's frames for the latency themselves, so an
// input's maximum is no limit here: its answer, seen on the way back through
// the pad, is made unbounded.
GstPadProbeReturn unbounded_live_latency(GstPad* pad, GstPadProbeInfo* info, gpointer) {
  GstQuery* query = GST_PAD_PROBE_INFO_QUERY(info);
  if (!query || GST_QUERY_TYPE(query) != GST_QUERY_LATENCY || !gst_query_is_writable(query))
    return GST_PAD_PROBE_OK;
  gboolean live = FALSE;
  GstClockTime min = 0;
  GstClockTime max = GST_CLOCK_TIME_NONE;
  gst_query_parse_latency(query, &live, &min, &max);
  if (live && GST_CLOCK_TIME_IS_VALID(max)) {
    GST_DEBUG_OBJECT(pad, "upstream latency min %" GST_TIME_FORMAT " max %" GST_TIME_FORMAT
                     ": taken as unbounded", GST_TIME_ARGS(min), GST_TIME_ARGS(max));
    gst_query_set_latency(query, live, min, GST_CLOCK_TIME_NONE);
  }
  return GST_PAD_PROBE_OK;
}

// ---- GObject ---------------------------------------------------------------

void gst_vmaf_exact_set_property(GObject* object, guint prop_id, const GValue* value,
                                 GParamSpec* pspec) {
  const bool known = guarded(GST_ELEMENT(object), "setting a property", true, [&] {
    const ObjectLock lock(object);
    return set_setting(priv_of(GST_VMAF_EXACT(object))->settings, prop_id, value);
  });
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

void gst_vmaf_exact_get_property(GObject* object, guint prop_id, GValue* value,
                                 GParamSpec* pspec) {
  const bool known = guarded(GST_ELEMENT(object), "reading a property", true, [&] {
    const ObjectLock lock(object);
    return get_setting(priv_of(GST_VMAF_EXACT(object))->settings, prop_id, value);
  });
  if (!known) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
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
  install_properties(gobject_class);

  // Same caps on all three pads: CUDA memory (when built with CUDA) and system memory.
  CapsPtr caps(CudaContextHandler::template_caps(kFormats));
  for (const auto& [name, direction] : {std::pair{"ref_sink", GST_PAD_SINK},
                                        std::pair{"dist_sink", GST_PAD_SINK},
                                        std::pair{"src", GST_PAD_SRC}})
    gst_element_class_add_pad_template(
        element_class, gst_pad_template_new_with_gtype(name, direction, GST_PAD_ALWAYS, caps.get(),
                                                       GST_TYPE_AGGREGATOR_PAD));
  gst_element_class_set_static_metadata(
      element_class, "VMAF (exact)", "Filter/Analyzer/Video",
      "Scores a distorted video against its reference with libvmaf " VMAFEXACT_LIBVMAF_VERSION
      "'s arithmetic, bit for bit; posts per-frame scores and summaries as element messages "
      "(see Messages) and passes the distorted video through",
      "vmafexact developers");
  gst_element_class_add_static_metadata(element_class, "messages", kPostedMessages);

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

static void gst_vmaf_exact_init(GstVmafExact* self) {
  GstVmafExactPrivate* priv = new (priv_of(self)) GstVmafExactPrivate();
  priv->reporter = Reporter(GST_ELEMENT(self));
  priv->monitor.attach(GST_ELEMENT(self));
  const char* roles[] = {"reference", "distorted"};
  for (unsigned i : {kRef, kDist}) {
    Input& input = priv->inputs[i];
    input.role = roles[i];
    GstPadTemplate* pad_template =
        gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(self), i == kRef ? "ref_sink" : "dist_sink");
    input.pad = GST_AGGREGATOR_PAD(g_object_new(GST_TYPE_AGGREGATOR_PAD, "name",
                                                GST_PAD_TEMPLATE_NAME_TEMPLATE(pad_template),
                                                "direction", GST_PAD_SINK, "template",
                                                pad_template, nullptr));
    gst_element_add_pad(GST_ELEMENT(self), GST_PAD(input.pad));  // takes the floating ref
    gst_pad_add_probe(GST_PAD(input.pad),
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_UPSTREAM |
                                                   GST_PAD_PROBE_TYPE_PULL),
                      unbounded_live_latency, nullptr, nullptr);
  }
}
