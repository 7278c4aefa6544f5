// The frame pairer: decides, from the frame waiting at the head of each input
// (its running time and duration) and whether each input has ended, what the
// element does next — score the pair, drop the reference or the distorted
// frame as unpaired, wait, or finish — and counts the unpaired frames, those
// left over after the other input ended ("trailing"), and the warnings due.
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
};

enum class PairAction { kPair, kDropRef, kDropDist, kWait, kFinish };

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

  // Decides the next step and counts it. `timeout`: a live aggregator's
  // deadline passed, so a frame stops waiting for its partner.
  PairStep next(const InputHead& ref, const InputHead& dist, bool timeout);

  std::uint64_t paired() const { return paired_; }
  // Frames not scored on one side, trailing ones included.
  std::uint64_t unpaired(Side side) const { return unpaired_[index(side)]; }
  std::uint64_t trailing(Side side) const { return trailing_[index(side)]; }
  // Pairs made in arrival order (a frame without a timestamp): a dropped
  // frame on either input then shifts every later pair.
  std::uint64_t paired_by_arrival_order() const { return paired_by_arrival_order_; }

 private:
  static unsigned index(Side side) { return static_cast<unsigned>(side); }
  PairStep drop(Side side, bool trailing, std::optional<Nanoseconds> other_time);

  std::uint64_t paired_ = 0;
  std::array<std::uint64_t, 2> unpaired_{};
  std::array<std::uint64_t, 2> trailing_{};
  std::uint64_t paired_by_arrival_order_ = 0;
  unsigned warnings_ = 0;
};

}  // namespace vmafexact::gst
