#include "frame_pairer.h"

#include <algorithm>

namespace vmafexact::gst {

namespace {
PairStep step_of(PairAction action) {
  PairStep step;
  step.action = action;
  return step;
}
}  // namespace

PairStep FramePairer::drop(Side side, bool trailing, std::optional<Nanoseconds> other_time) {
  PairStep step = step_of(side == Side::kRef ? PairAction::kDropRef : PairAction::kDropDist);
  step.trailing = trailing;
  ++unpaired_[index(side)];
  if (trailing) {
    ++trailing_[index(side)];
    return step;
  }
  step.other_time = other_time;
  if (warnings_ < kMaxUnpairedWarnings) {
    ++warnings_;
    step.warn = true;
    step.last_warning = warnings_ == kMaxUnpairedWarnings;
  }
  return step;
}

PairStep FramePairer::next(const InputHead& ref, const InputHead& dist, bool timeout) {
  if (ref.frame && dist.frame) {
    const auto ref_time = ref.frame->running_time;
    const auto dist_time = dist.frame->running_time;
    // Without a timestamp on either side, frames pair in arrival order.
    if (!ref_time || !dist_time) {
      ++paired_;
      PairStep step = step_of(PairAction::kPair);
      step.untimed = {!ref_time, !dist_time};
      step.warn_arrival_order = paired_by_arrival_order_++ == 0;
      return step;
    }
    // Within half the shorter frame duration; equal times when one is unknown.
    Nanoseconds tolerance = 0;
    if (ref.frame->duration && dist.frame->duration)
      tolerance = std::min(*ref.frame->duration, *dist.frame->duration) / 2;
    const Nanoseconds difference =
        *ref_time > *dist_time ? *ref_time - *dist_time : *dist_time - *ref_time;
    if (difference == 0 || difference < tolerance) {
      ++paired_;
      return step_of(PairAction::kPair);
    }
    // The earlier frame has no partner; the later one waits for the next.
    return *ref_time < *dist_time ? drop(Side::kRef, false, dist_time)
                                  : drop(Side::kDist, false, ref_time);
  }
  const bool ref_ended = !ref.frame && ref.eos;
  const bool dist_ended = !dist.frame && dist.eos;
  if (ref.frame && (dist_ended || timeout)) return drop(Side::kRef, dist_ended, std::nullopt);
  if (dist.frame && (ref_ended || timeout)) return drop(Side::kDist, ref_ended, std::nullopt);
  if (ref_ended && dist_ended) return step_of(PairAction::kFinish);
  return step_of(PairAction::kWait);
}

}  // namespace vmafexact::gst
