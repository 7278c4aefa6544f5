// One input pad of the element and what the element knows of it: its caps
// (kept until stop; a flushing seek keeps them), buffer counters (reset at a
// flush), the times of its buffers through its segment, and the check that
// both inputs carry the same picture format.
#pragma once

#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include <array>
#include <optional>

#include "common/feature_extractor.h"
#include "frame_pairer.h"
#include "gst_handles.h"

namespace vmafexact::gst {

struct Input {
  GstAggregatorPad* pad = nullptr;  // owned by the element as its child
  const char* role = "";            // "reference", "distorted": for messages
  std::optional<GstVideoInfo> info;
  CapsPtr caps;
  guint64 buffers = 0;  // taken since start or flush
  guint64 gaps = 0;     // GAP events seen
  // The running time at which the latest frame seen ends (since start or
  // flush); once the input has ended, the running time it ended at; and the
  // clock's running time when a frame of it was last seen waiting (live).
  std::optional<Nanoseconds> last_end;
  std::optional<Nanoseconds> ended_at;
  std::optional<Nanoseconds> last_seen;

  // The buffer's running time (or stream time) through the pad's segment.
  GstClockTime time_of(GstBuffer* buffer, bool running = true) const;
  // A frame's duration from the buffer, else from the caps' frame rate.
  GstClockTime duration_of(GstBuffer* buffer) const;
  // What the frame pairer needs of the buffer waiting on this input (if any);
  // notes the end of that frame (last_end).
  InputHead head(GstBuffer* buffer);
  // At this input's EOS: it ended at its last frame's end or at `now` (the
  // clock's running time, GST_CLOCK_TIME_NONE without a clock), the later:
  // an element behind real time sees the end well after the last frame's.
  void end(GstClockTime now);
  bool is_cuda_memory() const;
  // Makes the input's pad from the element's pad template `template_name`
  // and adds it to the element (which owns it); `role` names it in messages.
  void add_pad(GstElement* element, const char* template_name, const char* role);
  // A flush starts counting again; caps stay until new ones arrive.
  void reset_counters() {
    buffers = gaps = 0;
    last_end.reset();
    ended_at.reset();
    last_seen.reset();
  }
  void reset() {
    reset_counters();
    info.reset();
    caps.reset();
  }
};

// Whether one format is gray and the other YUV of the same size and depth:
// such inputs pair by luma (common_format() gives the gray format).
bool pairs_gray_with_yuv(const PictureFormat& ref, const PictureFormat& dist);

// The picture format both inputs share; nullopt after posting the element
// error that says what differs (or that a frame came before its caps).
// Live, one input ended and the other has nothing waiting: the running time
// from which the other is waited for (a latency and a grace): the later of
// the end and the last time a frame of the other was seen, so that an input
// still sending, only a little behind, is not taken for a silent one.
std::optional<Nanoseconds> end_wait_from(const Input& ended, const Input& other);

// What the clock of the inputs' aggregator says now, for the frame pairer; no
// time when not live.
LiveClock live_clock(GstAggregator* agg, bool timeout, bool backlog);

// The earliest running time of the frames waiting on the inputs' pads;
// GST_CLOCK_TIME_NONE when none waits.
GstClockTime earliest_waiting(const std::array<Input, 2>& inputs);

std::optional<PictureFormat> common_format(GstElement* element, const Input& ref,
                                           const Input& dist);

}  // namespace vmafexact::gst
