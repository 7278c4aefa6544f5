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

PairStep FramePairer::pair_or_skip(Nanoseconds time, const LiveClock& clock) {
  const Nanoseconds due = time + clock.latency;
  if (settings_.max_lateness && clock.backlog && clock.now && *clock.now > due &&
      *clock.now - due > *settings_.max_lateness) {
    ++skipped_;
    PairStep step = step_of(PairAction::kSkipPair);
    step.late_by = *clock.now - due;
    if (!last_skip_warning_ || time >= *last_skip_warning_ + settings_.skip_warning_interval ||
        time < *last_skip_warning_) {
      last_skip_warning_ = time;
      step.warn_skipped = true;
    }
    return step;
  }
  ++paired_;
  return step_of(PairAction::kPair);
}

PairStep FramePairer::lone_on_timeout(Side side, const WaitingFrame& frame,
                                      const LiveClock& clock) {
  const Side other = side == Side::kRef ? Side::kDist : Side::kRef;
  if (!clock.now || stalled_[index(other)]) {
    grace_.reset();
    return drop(side, false, std::nullopt);
  }
  if (!grace_ || grace_->side != side || grace_->running_time != frame.running_time) {
    const Nanoseconds grace = std::max(settings_.partner_grace, frame.duration.value_or(0));
    grace_ = Grace{side, frame.running_time, *clock.now + grace};
  }
  if (*clock.now < grace_->until) {
    PairStep step = step_of(PairAction::kWait);
    step.wake_at = grace_->until;
    return step;
  }
  // No partner within the grace: the other input has stalled.
  grace_.reset();
  stalled_[index(other)] = true;
  return drop(side, false, std::nullopt);
}

PairStep FramePairer::next(const InputHead& ref, const InputHead& dist, const LiveClock& clock) {
  // A frame on an input ends its stall, and any grace given to the other's.
  if (ref.frame) stalled_[index(Side::kRef)] = false;
  if (dist.frame) stalled_[index(Side::kDist)] = false;
  if (ref.frame && dist.frame) {
    grace_.reset();
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
    if (difference == 0 || difference < tolerance)
      return pair_or_skip(std::min(*ref_time, *dist_time), clock);
    // The earlier frame has no partner; the later one waits for the next.
    return *ref_time < *dist_time ? drop(Side::kRef, false, dist_time)
                                  : drop(Side::kDist, false, ref_time);
  }
  const bool ref_ended = !ref.frame && ref.eos;
  const bool dist_ended = !dist.frame && dist.eos;
  if (ref.frame && dist_ended) return drop(Side::kRef, true, std::nullopt);
  if (dist.frame && ref_ended) return drop(Side::kDist, true, std::nullopt);
  if (ref.frame && clock.timeout) return lone_on_timeout(Side::kRef, *ref.frame, clock);
  if (dist.frame && clock.timeout) return lone_on_timeout(Side::kDist, *dist.frame, clock);
  if (ref_ended && dist_ended) return step_of(PairAction::kFinish);
  // Live, one input ended and the other has nothing waiting: its frames could
  // only be unpaired now, so it is waited for only until the ended input's
  // end plus the latency and a grace; an input that never sends (a silent
  // UDP port) then cannot hold the run open for ever.
  if ((ref_ended || dist_ended) && !ref.frame && !dist.frame && clock.now) {
    const Nanoseconds until = end_wait_until((ref_ended ? ref : dist).ended_at) + clock.latency;
    PairStep step = step_of(*clock.now >= until ? PairAction::kFinish : PairAction::kWait);
    if (step.action == PairAction::kFinish)
      step.abandoned = ref_ended ? Side::kDist : Side::kRef;
    else
      step.wake_at = until;
    return step;
  }
  return step_of(PairAction::kWait);
}

}  // namespace vmafexact::gst
