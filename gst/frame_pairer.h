// The frame pairer: decides, from the frame waiting at the head of each input
// (its running time and duration), whether each input has ended and, live,
// what the clock says, what the element does next — score the pair, skip it
// (live, too late), drop the reference or the distorted frame as unpaired,
// wait, or finish — and counts the unpaired frames, those left over after the
// other input ended ("trailing"), the skipped pairs, and the warnings due.
// Pure logic with no GStreamer types, so it is unit-tested on its own
// (tests/unit/test_pairer.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace vmafexact::gst {

using Nanoseconds = std::uint64_t;

enum class Side : unsigned { kRef = 0, kDist = 1 };

// The frame waiting at the head of an input, if any.
struct WaitingFrame {
  std::optional<Nanoseconds> running_time;  // none: no timestamp, paired in arrival order
  std::optional<Nanoseconds> duration;      // none: unknown, only equal times pair
};

struct InputHead {
  std::optional<WaitingFrame> frame;  // none: nothing queued
  bool eos = false;                   // ended (only meaningful with no frame queued)
  // For an ended input: the running time it ended at (its last frame's end,
  // else when its end came); none: unknown.
  std::optional<Nanoseconds> ended_at;
};

enum class PairAction { kPair, kSkipPair, kDropRef, kDropDist, kWait, kFinish };

// What a live pipeline's clock says when the element is called.
struct LiveClock {
  // The aggregator's deadline for the waiting frames passed (its timeout).
  bool timeout = false;
  // The clock's running time; none: no clock (not live, or not yet playing).
  std::optional<Nanoseconds> now;
  // The pipeline's latency: a frame is due at its running time plus this.
  Nanoseconds latency = 0;
  // Both waiting frames were already queued when the element finished its
  // previous step: the element, not upstream, is what holds the frames back.
  // Only then does skipping a late pair help (frames that come late from a
  // slow upstream would be just as late after a skip).
  bool backlog = false;
};

struct PairerSettings {
  // Live: a pair due longer ago than this, and held back by the element
  // (LiveClock::backlog), is skipped rather than scored, so that an
  // overloaded scorer keeps up with real time (none: never skip).
  std::optional<Nanoseconds> max_lateness;
  // Live: how long a lone frame whose deadline passed still waits for its
  // partner (at least), unless the other input is known to have stalled.
  Nanoseconds partner_grace = 100'000'000;
  // Live: at most one skipped-pairs warning per this much running time (a
  // station overloaded for days would otherwise flood the bus; the windows
  // and the summary count every skip).
  Nanoseconds skip_warning_interval = 60'000'000'000;
};

struct PairStep {
  PairAction action = PairAction::kWait;
  // For a drop: the frame is left over after the other input ended (counted,
  // summed up in one warning at the end) rather than unpaired mid-stream.
  bool trailing = false;
  // For a mid-stream drop: post a warning (the first kMaxUnpairedWarnings
  // only); the last one says that further ones are only counted.
  bool warn = false;
  bool last_warning = false;
  // For a mid-stream drop: the running time of the other input's waiting
  // frame, if one was waiting.
  std::optional<Nanoseconds> other_time;
  // For a skip: how late the pair is, and whether to warn (rate-limited).
  Nanoseconds late_by = 0;
  bool warn_skipped = false;
  // For a wait: when to be called again even if no frame arrives (a running
  // time on the clock); none: when a frame arrives or an input ends.
  std::optional<Nanoseconds> wake_at;
  // For a finish (live): the input that had not ended, and sent nothing
  // within the latency and a grace after the other one ended.
  std::optional<Side> abandoned;
  // For a pair: which frames have no timestamp (indexed by Side). Either one
  // makes the pair one of arrival order; `warn_arrival_order` on the first
  // such pair only, so the element warns once.
  std::array<bool, 2> untimed{};
  bool warn_arrival_order = false;
  bool by_arrival_order() const { return untimed[0] || untimed[1]; }
};

class FramePairer {
 public:
  static constexpr unsigned kMaxUnpairedWarnings = 20;

  FramePairer() = default;
  explicit FramePairer(PairerSettings settings) : settings_(settings) {}

  // Decides the next step and counts it. On a timeout (a live aggregator's
  // deadline passed) a lone frame stops waiting for its partner: at once when
  // there is no clock or the other input has stalled, otherwise after the
  // partner grace (a partner only delayed, as when the scorer was busy,
  // still pairs; dropping it would leave the next frame of the other input
  // alone in turn, and so on).
  PairStep next(const InputHead& ref, const InputHead& dist, const LiveClock& clock);
  PairStep next(const InputHead& ref, const InputHead& dist, bool timeout) {
    return next(ref, dist, LiveClock{timeout, std::nullopt, 0, false});
  }

  // Live: once an input has ended and the other has nothing waiting, the
  // other is waited for until this running time plus the latency (then the
  // run finishes: anything it sends later could only be unpaired).
  Nanoseconds end_wait_until(std::optional<Nanoseconds> ended_at) const {
    return ended_at.value_or(0) + settings_.partner_grace;
  }

  std::uint64_t paired() const { return paired_; }
  // Pairs skipped unscored because they came later than max_lateness.
  std::uint64_t skipped() const { return skipped_; }
  // Frames not scored on one side, trailing ones included.
  std::uint64_t unpaired(Side side) const { return unpaired_[index(side)]; }
  std::uint64_t trailing(Side side) const { return trailing_[index(side)]; }
  // Pairs made in arrival order (a frame without a timestamp): a dropped
  // frame on either input then shifts every later pair.
  std::uint64_t paired_by_arrival_order() const { return paired_by_arrival_order_; }

 private:
  static unsigned index(Side side) { return static_cast<unsigned>(side); }
  PairStep drop(Side side, bool trailing, std::optional<Nanoseconds> other_time);
  PairStep pair_or_skip(Nanoseconds time, const LiveClock& clock);
  PairStep lone_on_timeout(Side side, const WaitingFrame& frame, const LiveClock& clock);

  PairerSettings settings_;
  // The lone frame given a grace for its partner, and until when.
  struct Grace {
    Side side;
    std::optional<Nanoseconds> running_time;
    Nanoseconds until;
  };
  std::optional<Grace> grace_;
  // An input whose partner frame did not come within a grace: later lone
  // frames of the other input are dropped at once until it sends a frame.
  std::array<bool, 2> stalled_{};
  std::optional<Nanoseconds> last_skip_warning_;
  std::uint64_t skipped_ = 0;
  std::uint64_t paired_ = 0;
  std::array<std::uint64_t, 2> unpaired_{};
  std::array<std::uint64_t, 2> trailing_{};
  std::uint64_t paired_by_arrival_order_ = 0;
  unsigned warnings_ = 0;
};

}  // namespace vmafexact::gst
