// The vmafexact element: a GstAggregator with two always sink pads (ref_sink,
// dist_sink) that pairs frames by running time, scores each pair through
// vmafexact::Scorer, posts the scores on the bus, writes libvmaf-format logs at
// end of stream, and pushes the distorted buffers out of its src pad unchanged.
//
// This file is glue over the element's parts: settings.h (properties and the
// plan taken at start), input.h (the pads), negotiation.h (caps),
// frame_pairer.h (what to do with the waiting frames), session_start.h (the
// scoring session started in parts), scoring_session.h (the Scorer and the
// frames it reads), frame_source.h and cuda_frame_source.h (buffers to
// pictures), cuda_context.h (the GstCudaContext), reporter.h and monitor.h
// (messages, warnings, log), entry_point.h (no exception leaves the element).
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

#include "common/error.h"
#include "cuda_context.h"
#include "element_debug.h"
#include "element_guard.h"
#include "entry_point.h"
#include "frame_pairer.h"
#include "gst_handles.h"
#include "input.h"
#include "monitor.h"
#include "negotiation.h"
#include "reporter.h"
#include "scoring_session.h"
#include "session_start.h"
#include "settings.h"
#include "streamed_log.h"
#include "vmafexact_config.h"

GST_DEBUG_CATEGORY(gst_vmaf_exact_debug);

using namespace vmafexact::gst;

namespace {

constexpr unsigned kRef = static_cast<unsigned>(Side::kRef);
constexpr unsigned kDist = static_cast<unsigned>(Side::kDist);

// One run, from start to stop.
struct Run {
  std::optional<StartPlan> plan;
  FramePairer pairer;
  std::unique_ptr<ScoringSession> scoring;  // from the first pair
  std::unique_ptr<StreamedLog> log;         // with the session, when log-location is set
  Provenance provenance = Provenance::of_build();  // the session's part from the first pair
  bool finished = false;
  StartWarnings warnings;  // once a run, not at every flushing seek
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
  const bool ok = priv->reporter.log_frames(priv->run.log.get(), frames, scoring);
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

// Checks both inputs against each other and starts the scoring session with
// the first pair (session_start.h). Returns false after posting an error.
bool ensure_scoring(GstVmafExact* self, const std::array<BufferPtr, 2>& heads) {
  GstVmafExactPrivate* priv = priv_of(self);
  Run& run = priv->run;
  GstElement* element = GST_ELEMENT(self);
  const auto format = scoring_format(element, priv->inputs, run.scoring.get(), run.warnings);
  if (!format || run.scoring) return format.has_value();
  if (!log_location_is_free(element, *run.plan)) return false;
  const bool live = GST_CLOCK_TIME_IS_VALID(gst_aggregator_get_latency(GST_AGGREGATOR(self)));
  priv->monitor.set_live(live);
  run.scoring = start_session(element, *run.plan, *format,
                              {priv->inputs, heads, priv->cuda, live}, run.warnings);
  if (!run.scoring) return false;
  run.provenance.session = session_provenance(*run.plan, *run.scoring);
  priv->monitor.set_provenance(run.provenance);
  if (!open_session_log(element, *run.plan, *format, run.provenance,
                        log_file_check(self, *run.plan), run.log))
    return false;
  // Features such as motion finish a frame's scores only when the next frame
  // has been scored; the aggregator is told so that live pipelines budget for it.
  if (const auto latency = score_latency(run.scoring->scorer(), *priv->inputs[kDist].info))
    gst_aggregator_set_latency(GST_AGGREGATOR(self), *latency, *latency);
  return true;
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
    priv->reporter.frame_unreadable(unreadable, priv->inputs[unreadable.input],
                                    heads[unreadable.input].get());
    return GST_FLOW_ERROR;
  } catch (const UnpreparedFrame& unprepared) {
    priv->reporter.frames_unprepared(unprepared);
    return GST_FLOW_ERROR;
  } catch (const vmafexact::Error& error) {
    priv->reporter.scoring_failed(error);
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
      priv->reporter.scoring_failed(error);
      return GST_FLOW_ERROR;
    }
  }
  priv->monitor.finish();
  priv->reporter.end_of_stream(scorer, run.pairer, run.provenance,
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

GstFlowReturn aggregate_step(GstAggregator* agg, gboolean timeout) {
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
        const unsigned silent = static_cast<unsigned>(*step.abandoned);
        priv->reporter.warn_abandoned(priv->inputs[1 - silent].role, priv->inputs[silent].role);
      }
      return finish_stream(self);
    case PairAction::kWait: break;
  }
  return GST_FLOW_OK;
}

GstFlowReturn aggregate_unguarded(GstAggregator* agg, gboolean timeout) {
  const GstFlowReturn ret = aggregate_step(agg, timeout);
  GstVmafExactPrivate* priv = priv_of(agg);
  priv->run.backlog = gst_aggregator_pad_has_buffer(priv->inputs[kRef].pad) &&
                      gst_aggregator_pad_has_buffer(priv->inputs[kDist].pad);
  return ret;
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
    const auto info = scorable_video_info(GST_ELEMENT(agg), GST_PAD(pad), caps);
    if (!info) {
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
    answer_distorted_caps_query(GST_ELEMENT(agg), GST_PAD(pad), GST_AGGREGATOR_SRC_PAD(agg),
                                query, priv->warned_downstream_caps);
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
  return output_caps(GST_ELEMENT(agg), dist_caps.get(), downstream_caps, result);
}

GstClockTime get_next_time_unguarded(GstAggregator* agg) {
  // Live: wait for a frame's partner until its running time plus the latency.
  GstClockTime earliest = earliest_waiting(priv_of(agg)->inputs);
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
  if (!ensure_cuda_for_backend(GST_ELEMENT(self), plan->settings, priv->cuda)) return FALSE;
  auto monitor_plan = plan_monitor(GST_ELEMENT(self), plan->settings);
  if (!monitor_plan) return FALSE;
  priv->monitor.start(std::move(*monitor_plan), {GST_PAD(priv->inputs[kRef].pad),
                                                  GST_PAD(priv->inputs[kDist].pad)});
  priv->run = Run{};
  priv->run.pairer = pairer_for(plan->settings);
  priv->run.provenance.extra = plan->settings.extra_provenance;
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
    run.scoring->finish_at_stop(GST_ELEMENT(agg), run.log.get());
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

void set_context_unguarded_entry(GstElement* element, GstContext* context) {
  guarded(element, "setting a context", 0, [&] {
    set_context_unguarded(element, context);
    return 0;
  });
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

  // No exception leaves the element (entry_point.h).
  aggregator_class->aggregate = entry_point<aggregate_unguarded, "scoring frames", GST_FLOW_ERROR>;
  aggregator_class->sink_event = entry_point<sink_event_unguarded, "handling an event", FALSE>;
  aggregator_class->sink_query = entry_point<sink_query_unguarded, "answering a query", FALSE>;
  aggregator_class->src_query = entry_point<src_query_unguarded, "answering a query", FALSE>;
  element_class->set_context = set_context_unguarded_entry;
  aggregator_class->propose_allocation =
      entry_point<propose_allocation_unguarded, "proposing an allocation", FALSE>;
  aggregator_class->update_src_caps =
      entry_point<update_src_caps_unguarded, "choosing the output caps", GST_FLOW_ERROR>;
  aggregator_class->get_next_time =
      entry_point<get_next_time_unguarded, "waiting for frames", GST_CLOCK_TIME_NONE>;
  aggregator_class->start = entry_point<start_unguarded, "starting", FALSE>;
  aggregator_class->stop = entry_point<stop_unguarded, "stopping", FALSE>;
  aggregator_class->flush = entry_point<flush_unguarded, "flushing", GST_FLOW_ERROR>;

  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_LOG_FORMAT, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_BACKEND, static_cast<GstPluginAPIFlags>(0));
  gst_type_mark_as_plugin_api(GST_TYPE_VMAF_EXACT_LOG_PRECISION,
                              static_cast<GstPluginAPIFlags>(0));
}

static void gst_vmaf_exact_init(GstVmafExact* self) {
  GstVmafExactPrivate* priv = new (priv_of(self)) GstVmafExactPrivate();
  priv->reporter = Reporter(GST_ELEMENT(self));
  priv->monitor.attach(GST_ELEMENT(self));
  priv->inputs[kRef].add_pad(GST_ELEMENT(self), "ref_sink", "reference");
  priv->inputs[kDist].add_pad(GST_ELEMENT(self), "dist_sink", "distorted");
}
