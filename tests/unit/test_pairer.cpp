// The frame pairer on its own, without GStreamer: which frames pair, which are
// dropped as unpaired (and with what warning), trailing frames after one
// input's end, timeouts in live mode, and the counts the summary reports.
#include <gtest/gtest.h>

#include <array>
#include <optional>

#include "frame_pairer.h"

using namespace vmafexact::gst;

namespace {

constexpr Nanoseconds kFrame = 41'666'666;  // 24 fps

InputHead frame_at(std::optional<Nanoseconds> time, std::optional<Nanoseconds> duration = kFrame) {
  return InputHead{WaitingFrame{time, duration}, false, std::nullopt};
}
InputHead empty() { return InputHead{}; }
InputHead ended() { return InputHead{std::nullopt, true, std::nullopt}; }

TEST(FramePairer, EqualRunningTimesPair) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(0), frame_at(0), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(frame_at(kFrame), frame_at(kFrame), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.paired(), 2u);
  EXPECT_EQ(pairer.unpaired(Side::kRef), 0u);
  EXPECT_EQ(pairer.unpaired(Side::kDist), 0u);
}

TEST(FramePairer, PairsWithinHalfTheShorterDuration) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(kFrame), frame_at(kFrame + kFrame / 2 - 1), false).action,
            PairAction::kPair);
  // Half the shorter duration: the longer one does not widen the window.
  EXPECT_EQ(pairer.next(frame_at(0, 4 * kFrame), frame_at(kFrame / 2 - 1), false).action,
            PairAction::kPair);
  // Exactly half a frame apart is not within it.
  const PairStep step = pairer.next(frame_at(0), frame_at(kFrame / 2), false);
  EXPECT_EQ(step.action, PairAction::kDropRef);
}

TEST(FramePairer, UnknownDurationPairsOnlyEqualTimes) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(0, std::nullopt), frame_at(0), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(frame_at(kFrame, std::nullopt), frame_at(kFrame + 1), false).action,
            PairAction::kDropRef);
}

TEST(FramePairer, FramesWithoutTimestampsPairInArrivalOrder) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(std::nullopt), frame_at(5 * kFrame), false).action,
            PairAction::kPair);
  EXPECT_EQ(pairer.next(frame_at(3 * kFrame), frame_at(std::nullopt), false).action,
            PairAction::kPair);
}

TEST(FramePairer, ArrivalOrderPairsAreCountedAndWarnedOnce) {
  // A dropped frame on an input without timestamps shifts every later pair:
  // the element must say so once and count such pairs in its summary.
  FramePairer pairer;
  using Untimed = std::array<bool, 2>;  // reference, distorted
  PairStep step = pairer.next(frame_at(0), frame_at(std::nullopt), false);
  EXPECT_EQ(step.action, PairAction::kPair);
  EXPECT_TRUE(step.by_arrival_order());
  EXPECT_TRUE(step.warn_arrival_order);
  EXPECT_EQ(step.untimed, (Untimed{false, true}));
  step = pairer.next(frame_at(std::nullopt), frame_at(std::nullopt), false);
  EXPECT_TRUE(step.by_arrival_order());
  EXPECT_FALSE(step.warn_arrival_order);
  EXPECT_EQ(step.untimed, (Untimed{true, true}));
  step = pairer.next(frame_at(kFrame), frame_at(kFrame), false);
  EXPECT_FALSE(step.by_arrival_order());
  EXPECT_FALSE(step.warn_arrival_order);
  step = pairer.next(frame_at(std::nullopt), frame_at(2 * kFrame), false);
  EXPECT_TRUE(step.by_arrival_order());
  EXPECT_FALSE(step.warn_arrival_order);
  EXPECT_EQ(step.untimed, (Untimed{true, false}));
  EXPECT_EQ(pairer.paired(), 4u);
  EXPECT_EQ(pairer.paired_by_arrival_order(), 3u);
}

TEST(FramePairer, TheEarlierFrameIsDroppedWithTheOtherTime) {
  FramePairer pairer;
  PairStep step = pairer.next(frame_at(kFrame), frame_at(2 * kFrame), false);
  EXPECT_EQ(step.action, PairAction::kDropRef);
  EXPECT_FALSE(step.trailing);
  EXPECT_TRUE(step.warn);
  EXPECT_FALSE(step.last_warning);
  EXPECT_EQ(step.other_time, 2 * kFrame);
  step = pairer.next(frame_at(3 * kFrame), frame_at(2 * kFrame), false);
  EXPECT_EQ(step.action, PairAction::kDropDist);
  EXPECT_EQ(step.other_time, 3 * kFrame);
  EXPECT_EQ(pairer.unpaired(Side::kRef), 1u);
  EXPECT_EQ(pairer.unpaired(Side::kDist), 1u);
  EXPECT_EQ(pairer.trailing(Side::kRef), 0u);
  EXPECT_EQ(pairer.paired(), 0u);
}

TEST(FramePairer, WaitsForTheOtherInput) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(0), empty(), false).action, PairAction::kWait);
  EXPECT_EQ(pairer.next(empty(), frame_at(0), false).action, PairAction::kWait);
  EXPECT_EQ(pairer.next(empty(), empty(), false).action, PairAction::kWait);
  EXPECT_EQ(pairer.next(ended(), empty(), false).action, PairAction::kWait);
  EXPECT_EQ(pairer.unpaired(Side::kRef) + pairer.unpaired(Side::kDist), 0u);
}

TEST(FramePairer, TimeoutDropsAWaitingFrameWithNoneWaitingOpposite) {
  FramePairer pairer;
  PairStep step = pairer.next(frame_at(0), empty(), true);
  EXPECT_EQ(step.action, PairAction::kDropRef);
  EXPECT_FALSE(step.trailing);
  EXPECT_TRUE(step.warn);
  EXPECT_FALSE(step.other_time);
  step = pairer.next(empty(), frame_at(0), true);
  EXPECT_EQ(step.action, PairAction::kDropDist);
  EXPECT_FALSE(step.other_time);
  // A timeout with both frames there still pairs them.
  EXPECT_EQ(pairer.next(frame_at(kFrame), frame_at(kFrame), true).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(empty(), empty(), true).action, PairAction::kWait);
}

TEST(FramePairer, FramesAfterTheOtherInputEndedAreTrailing) {
  FramePairer pairer;
  ASSERT_EQ(pairer.next(frame_at(0), frame_at(0), false).action, PairAction::kPair);
  for (int i = 0; i < 3; ++i) {
    const PairStep step = pairer.next(ended(), frame_at((i + 1) * kFrame), false);
    EXPECT_EQ(step.action, PairAction::kDropDist);
    EXPECT_TRUE(step.trailing);
    EXPECT_FALSE(step.warn);
  }
  EXPECT_EQ(pairer.trailing(Side::kDist), 3u);
  EXPECT_EQ(pairer.unpaired(Side::kDist), 3u);  // trailing frames count as unpaired too
  EXPECT_EQ(pairer.trailing(Side::kRef), 0u);
  const PairStep step = pairer.next(frame_at(kFrame), ended(), true);
  EXPECT_EQ(step.action, PairAction::kDropRef);
  EXPECT_TRUE(step.trailing);  // the end wins over the timeout
  EXPECT_EQ(pairer.trailing(Side::kRef), 1u);
}

TEST(FramePairer, FinishesWhenBothInputsEnded) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(ended(), ended(), false).action, PairAction::kFinish);
  EXPECT_EQ(pairer.next(ended(), ended(), true).action, PairAction::kFinish);
  // A queued frame is handled before the end, even when its pad says EOS.
  InputHead last = frame_at(0);
  last.eos = true;
  EXPECT_EQ(pairer.next(last, ended(), false).action, PairAction::kDropRef);
}

TEST(FramePairer, WarnsForTheFirstTwentyUnpairedFramesOnly) {
  FramePairer pairer;
  for (unsigned i = 1; i <= 25; ++i) {
    const PairStep step = pairer.next(frame_at(0), frame_at(kFrame * i), false);
    ASSERT_EQ(step.action, PairAction::kDropRef);
    EXPECT_EQ(step.warn, i <= FramePairer::kMaxUnpairedWarnings) << i;
    EXPECT_EQ(step.last_warning, i == FramePairer::kMaxUnpairedWarnings) << i;
  }
  EXPECT_EQ(pairer.unpaired(Side::kRef), 25u);
}

TEST(FramePairer, DroppedFrameOnEachSide) {
  // The element test's scenario: reference 1 and distorted 3 missing.
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(0), frame_at(0), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(frame_at(2 * kFrame), frame_at(kFrame), false).action, PairAction::kDropDist);
  EXPECT_EQ(pairer.next(frame_at(2 * kFrame), frame_at(2 * kFrame), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(frame_at(3 * kFrame), frame_at(4 * kFrame), false).action, PairAction::kDropRef);
  EXPECT_EQ(pairer.next(frame_at(4 * kFrame), frame_at(4 * kFrame), false).action, PairAction::kPair);
  EXPECT_EQ(pairer.next(ended(), ended(), false).action, PairAction::kFinish);
  EXPECT_EQ(pairer.paired(), 3u);
  EXPECT_EQ(pairer.unpaired(Side::kRef), 1u);
  EXPECT_EQ(pairer.unpaired(Side::kDist), 1u);
}

// ---- Live: the clock ------------------------------------------------------

constexpr Nanoseconds kMs = 1'000'000;
constexpr Nanoseconds kLatency = 50 * kMs;

LiveClock at(Nanoseconds now, bool timeout = true) {
  return LiveClock{timeout, now, kLatency, false};
}
// Called with the next pair already waiting: the element holds the frames back.
LiveClock behind(Nanoseconds now) { return LiveClock{false, now, kLatency, true}; }

// The overload that scored almost nothing: the scorer was busy past a frame's
// deadline, so its partner, only a few milliseconds behind on the other
// input, was not there yet. Dropping the lone frame then left the partner
// alone in turn, which was dropped when the next frame came, and so on.
TEST(FramePairerLive, ALoneFramePastItsDeadlineWaitsForAPartnerThatIsLate) {
  FramePairer pairer;
  for (Nanoseconds n = 0; n < 10; ++n) {
    const Nanoseconds t = n * kFrame;
    const Nanoseconds now = t + kLatency + 30 * kMs;  // the deadline passed while scoring
    const PairStep wait = pairer.next(frame_at(t), empty(), at(now));
    ASSERT_EQ(wait.action, PairAction::kWait) << n;
    // Woken by the clock no earlier than the grace (100 ms, or a frame if longer).
    ASSERT_EQ(wait.wake_at, now + 100 * kMs);
    // Called again before the grace ends: still the same deadline.
    EXPECT_EQ(pairer.next(frame_at(t), empty(), at(now + kMs)).wake_at, now + 100 * kMs);
    ASSERT_EQ(pairer.next(frame_at(t), frame_at(t), at(now + 2 * kMs, false)).action,
              PairAction::kPair);
  }
  EXPECT_EQ(pairer.paired(), 10u);
  EXPECT_EQ(pairer.unpaired(Side::kRef) + pairer.unpaired(Side::kDist), 0u);
}

TEST(FramePairerLive, AStalledInputCostsOneGraceThenLoneFramesDropAtOnce) {
  FramePairer pairer;
  const Nanoseconds now = kLatency + kMs;
  EXPECT_EQ(pairer.next(empty(), frame_at(0), at(now)).action, PairAction::kWait);
  // The grace runs out: the reference input has stalled.
  const PairStep drop = pairer.next(empty(), frame_at(0), at(now + 100 * kMs));
  EXPECT_EQ(drop.action, PairAction::kDropDist);
  EXPECT_TRUE(drop.warn);
  EXPECT_EQ(pairer.next(empty(), frame_at(kFrame), at(now + 101 * kMs)).action,
            PairAction::kDropDist);
  EXPECT_EQ(pairer.next(empty(), frame_at(2 * kFrame), at(now + 102 * kMs)).action,
            PairAction::kDropDist);
  // The reference input sends again: the stall is over, pairs form, and a
  // later lone frame gets its grace again.
  EXPECT_EQ(pairer.next(frame_at(3 * kFrame), frame_at(3 * kFrame), at(now + 110 * kMs)).action,
            PairAction::kPair);
  EXPECT_EQ(pairer.next(empty(), frame_at(4 * kFrame), at(now + 200 * kMs)).action,
            PairAction::kWait);
  EXPECT_EQ(pairer.unpaired(Side::kDist), 3u);
  EXPECT_EQ(pairer.unpaired(Side::kRef), 0u);
}

TEST(FramePairerLive, TheGraceIsAtLeastAFrameDuration) {
  FramePairer pairer;
  const PairStep wait = pairer.next(frame_at(0, 500 * kMs), empty(), at(kLatency));
  EXPECT_EQ(wait.wake_at, kLatency + 500 * kMs);
}

TEST(FramePairerLive, WithoutAClockATimeoutDropsTheLoneFrameAtOnce) {
  FramePairer pairer;
  EXPECT_EQ(pairer.next(frame_at(0), empty(), LiveClock{true, std::nullopt, kLatency}).action,
            PairAction::kDropRef);
}

// Issue 39: a live input that never sends (a silent UDP port) once held the
// run open for ever after the other input ended: no frame to time out, so the
// aggregator was never called again, and the summary and EOS never came.
TEST(FramePairerLive, AfterOneInputEndedTheOtherIsWaitedForOnlyTheLatencyAndAGrace) {
  const Nanoseconds end = 10 * kFrame;
  const InputHead ref_ended{std::nullopt, true, end};
  FramePairer pairer;
  EXPECT_EQ(pairer.end_wait_until(end), end + 100 * kMs);
  const PairStep wait = pairer.next(ref_ended, empty(), at(end + kLatency, false));
  EXPECT_EQ(wait.action, PairAction::kWait);
  EXPECT_EQ(wait.wake_at, end + kLatency + 100 * kMs);
  // A distorted frame within the wait is one left over: dropped as trailing.
  const PairStep trailing = pairer.next(ref_ended, frame_at(end), at(end + kLatency + kMs));
  EXPECT_EQ(trailing.action, PairAction::kDropDist);
  EXPECT_TRUE(trailing.trailing);
  const PairStep finish = pairer.next(ref_ended, empty(), at(end + kLatency + 100 * kMs));
  EXPECT_EQ(finish.action, PairAction::kFinish);
  EXPECT_EQ(finish.abandoned, Side::kDist);
  // The other way round, and an input that ended before any frame or clock.
  const PairStep other = pairer.next(empty(), InputHead{std::nullopt, true, std::nullopt},
                                     at(kLatency + 100 * kMs));
  EXPECT_EQ(other.action, PairAction::kFinish);
  EXPECT_EQ(other.abandoned, Side::kRef);
  // Without a clock (not live) the element keeps waiting: the aggregator
  // calls it again when a frame or the other end comes.
  EXPECT_EQ(pairer.next(ref_ended, empty(), LiveClock{true, std::nullopt, kLatency}).action,
            PairAction::kWait);
  // Both ended: an ordinary finish, nothing abandoned.
  EXPECT_FALSE(pairer.next(ref_ended, ended(), at(0)).abandoned);
}

TEST(FramePairerLive, PairsLaterThanMaxLatenessAreSkippedAndWarnedAtIntervals) {
  PairerSettings settings;
  settings.max_lateness = 1000 * kMs;
  FramePairer pairer(settings);
  // Due at t + latency: 1000 ms late is still scored, 1000 ms + 1 ns is not.
  EXPECT_EQ(pairer.next(frame_at(0), frame_at(0), behind(kLatency + 1000 * kMs)).action,
            PairAction::kPair);
  PairStep skip = pairer.next(frame_at(kFrame), frame_at(kFrame),
                              behind(kFrame + kLatency + 1000 * kMs + 1));
  EXPECT_EQ(skip.action, PairAction::kSkipPair);
  EXPECT_EQ(skip.late_by, 1000 * kMs + 1);
  EXPECT_TRUE(skip.warn_skipped);
  // The next skips within a minute of running time do not warn again.
  skip = pairer.next(frame_at(59'000 * kMs), frame_at(59'000 * kMs), behind(61'000 * kMs));
  EXPECT_EQ(skip.action, PairAction::kSkipPair);
  EXPECT_FALSE(skip.warn_skipped);
  skip = pairer.next(frame_at(kFrame + 60'000 * kMs), frame_at(kFrame + 60'000 * kMs),
                     behind(70'000 * kMs));
  EXPECT_TRUE(skip.warn_skipped);
  EXPECT_EQ(pairer.skipped(), 3u);
  EXPECT_EQ(pairer.paired(), 1u);
  // A late pair that the element had to wait for came late from upstream:
  // skipping it would not catch up, so it is scored.
  EXPECT_EQ(pairer.next(frame_at(3 * kFrame), frame_at(3 * kFrame), at(30'000 * kMs, false)).action,
            PairAction::kPair);
  EXPECT_EQ(pairer.unpaired(Side::kRef) + pairer.unpaired(Side::kDist), 0u);
}

TEST(FramePairerLive, NothingIsSkippedWithoutMaxLatenessOrWithoutAClock) {
  FramePairer unlimited;
  EXPECT_EQ(unlimited.next(frame_at(0), frame_at(0), behind(3'600'000 * kMs)).action,
            PairAction::kPair);
  PairerSettings settings;
  settings.max_lateness = 0;
  FramePairer strict(settings);
  EXPECT_EQ(strict.next(frame_at(0), frame_at(0), LiveClock{}).action, PairAction::kPair);
  EXPECT_EQ(strict.next(frame_at(kFrame), frame_at(kFrame), behind(kFrame + kLatency)).action,
            PairAction::kPair);  // on time to the nanosecond
}

}  // namespace
