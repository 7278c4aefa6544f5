// The scoring session: from the first pair of a run (or after a flushing
// seek) until stop or the next flush. Owns the Scorer, the device it scores
// on, a frame source per input, the frames the scorer may still read (mapped
// buffers, copies of frames in flight, device planes) until it releases them,
// each frame's timing until its message is posted, and the scoring time.
// Destroying it first drains the frames in flight (the Scorer waits for them),
// with the device current, and only then frees what they read.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame_source.h"
#include "scorer.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// The distorted buffer's timing, for its frame's message.
struct FrameTiming {
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

struct FinishedFrame {
  unsigned index = 0;
  FrameTiming timing;
};

// A buffer that cannot be mapped with its caps' layout (index of its input),
// or whose video meta's planes run outside its memory (`reason` says how).
struct UnreadableFrame {
  unsigned input = 0;
  std::string reason;  // empty: smaller than its caps say
};
// A frame that was mapped but could not be made into a picture.
struct UnpreparedFrame {
  std::string reason;
};

class ScoringSession {
 public:
  // Throws vmafexact::Error when the format cannot be scored.
  ScoringSession(std::unique_ptr<ScoringDevice> device, ScorerModels models,
                 const std::vector<FeatureRequest>& features, const PictureFormat& format,
                 ScorerOptions options);
  ~ScoringSession();
  ScoringSession(const ScoringSession&) = delete;
  ScoringSession& operator=(const ScoringSession&) = delete;

  // Reads and scores one pair (reference first); returns the frames whose
  // scores became final. Throws UnreadableFrame or UnpreparedFrame when
  // reading the frames fails, vmafexact::Error when scoring does.
  std::vector<FinishedFrame> push(const std::array<GstBuffer*, 2>& buffers,
                                  const std::array<const GstVideoInfo*, 2>& infos,
                                  const FrameTiming& timing);
  // End of stream (or stop): the frames held back. Throws vmafexact::Error.
  std::vector<FinishedFrame> finish();
  // Stopped before end of stream: the frames held back go into `log` (if
  // any; their messages are not posted at stop). A failure is only logged
  // in `element`'s debug log: what was written stays.
  void finish_at_stop(GstElement* element, StreamedLog* log);

  const Scorer& scorer() const { return *scorer_; }
  // Frees the scores of the frames returned so far, once they are reported.
  void release_final_frames() { scorer_->release_final_frames(); }
  const char* device_name() const { return device_->name(); }
  // How every frame is read (frame_source.h): detached when frames are scored
  // on other threads after push() returns (no buffer whose holding could stall
  // upstream is held past it: the source copies those); chroma only when an
  // extractor reads it.
  const ReadMode& read_mode() const { return read_mode_; }
  std::chrono::steady_clock::duration scoring_time() const { return scoring_time_; }

 private:
  struct HeldPair {
    unsigned index = 0;
    std::array<std::unique_ptr<SourceFrame>, 2> frames;
  };
  void release_read_frames();
  std::vector<FinishedFrame> with_timings(const std::vector<unsigned>& indices);

  // Destroyed last to first: the scorer (waiting for its frames in flight)
  // before the frames and sources, the device (CUDA stream, twins) last.
  std::unique_ptr<ScoringDevice> device_;
  std::array<std::unique_ptr<FrameSource>, 2> sources_;
  std::deque<HeldPair> held_;                            // frames the scorer may still read
  std::deque<std::pair<unsigned, FrameTiming>> timings_;  // frames not yet finished
  std::unique_ptr<Scorer> scorer_;
  ReadMode read_mode_;
  std::chrono::steady_clock::duration scoring_time_{};
};

}  // namespace vmafexact::gst
