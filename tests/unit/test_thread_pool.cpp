// The thread pool and band runners behind threads > 1 (common/thread_pool.h,
// common/bands.h): every band runs exactly once, bands cover their rows,
// errors come back, and the oldest frame's work is taken first.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "band_runners.h"
#include "common/bands.h"
#include "common/thread_pool.h"

using namespace vmafexact;

TEST(Bands, CutRowsIntoContiguousBandsThatCoverThem) {
  for (int begin : {0, 3}) {
    for (int rows : {1, 2, 7, 100, 1080}) {
      for (unsigned bands = 1; bands <= 9; ++bands) {
        int expected_begin = begin;
        for (unsigned band = 0; band < bands; ++band) {
          const RowRange range = row_band(begin, begin + rows, band, bands);
          EXPECT_EQ(range.begin, expected_begin);
          EXPECT_GE(range.end, range.begin);
          expected_begin = range.end;
        }
        EXPECT_EQ(expected_begin, begin + rows);
      }
    }
  }
}

TEST(Bands, SmallStagesAreNotCut) {
  ThreadPool pool(2);
  PoolBandRunner runner(pool, 8);
  EXPECT_EQ(band_count(runner, 10, 100), 1u);               // 1000 samples
  EXPECT_EQ(band_count(runner, 1080, 1920), 8u);            // capped by the runner
  EXPECT_EQ(band_count(runner, 3, 1 << 20), 1u);            // no band under 2 rows
  EXPECT_EQ(band_count(serial_band_runner(), 1080, 1920), 1u);
  EXPECT_EQ(band_count(runner, 0, 1920), 1u);
}

TEST(Bands, SumRowBandsAddsEveryRowOnceWhateverTheCut) {
  // The sum of the row indices, with bands run on a pool and cut down to
  // single rows, and in reverse order on one thread.
  ThreadPool pool(2);
  PoolBandRunner runner(pool, 7);
  test::SmallBands small(runner);
  test::ReverseBands reverse(5);
  for (BandRunner* cut : std::initializer_list<BandRunner*>{&serial_band_runner(), &runner, &small, &reverse}) {
    std::atomic<unsigned> calls{0};
    const auto total = sum_row_bands<std::uint64_t>(*cut, 3, 103, 1, [&](unsigned, int first, int end) {
      calls.fetch_add(1);
      std::uint64_t sum = 0;
      for (int row = first; row < end; ++row) sum += static_cast<std::uint64_t>(row);
      return sum;
    });
    EXPECT_EQ(total, 5250u);  // 3 + 4 + ... + 102
    EXPECT_EQ(calls.load(), band_count(*cut, 100, 1));
  }
}

TEST(ThreadPool, ParallelForRunsEveryIndexOnce) {
  ThreadPool pool(3);
  for (unsigned count : {1u, 2u, 5u, 64u}) {
    std::vector<std::atomic<int>> runs(count);
    pool.parallel_for(0, count, [&](unsigned i) { runs[i].fetch_add(1); });
    for (unsigned i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
  }
}

TEST(ThreadPool, ParallelForRethrowsAfterEveryBandEnded) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.parallel_for(0, 16,
                                 [&](unsigned i) {
                                   ran.fetch_add(1);
                                   if (i == 5) throw std::runtime_error("band 5");
                                 }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 16);
}

TEST(ThreadPool, TasksMayCutTheirWorkIntoBandsWithoutDeadlock) {
  // Every worker busy with a frame whose stages wait for bands: the frames
  // take their own bands, so nothing waits for a free worker.
  ThreadPool pool(2);
  std::vector<std::future<void>> frames;
  std::atomic<int> bands{0};
  for (unsigned f = 0; f < 6; ++f)
    frames.push_back(pool.post(f, [&pool, &bands, f] {
      for (int stage = 0; stage < 20; ++stage)
        pool.parallel_for(f, 4, [&](unsigned) { bands.fetch_add(1); });
    }));
  for (auto& frame : frames) frame.get();
  EXPECT_EQ(bands.load(), 6 * 20 * 4);
}

TEST(ThreadPool, PostedTaskErrorsComeBackThroughTheFuture) {
  ThreadPool pool(1);
  auto failed = pool.post(0, [] { throw std::runtime_error("frame"); });
  EXPECT_THROW(failed.get(), std::runtime_error);
}

TEST(ThreadPool, OldestFrameFirst) {
  // One worker held by a gate while tasks of frames 5, 1, 3 queue up: they
  // run by frame, then in the order posted.
  ThreadPool pool(1);
  std::mutex gate;
  std::unique_lock held(gate);
  std::vector<int> order;
  std::mutex order_mutex;
  auto blocker = pool.post(0, [&] { std::lock_guard wait(gate); });
  std::vector<std::future<void>> tasks;
  for (int frame : {5, 1, 3, 1})
    tasks.push_back(pool.post(static_cast<std::uint64_t>(frame), [&, frame] {
      std::lock_guard lock(order_mutex);
      order.push_back(frame);
    }));
  held.unlock();
  blocker.get();
  for (auto& task : tasks) task.get();
  EXPECT_EQ(order, (std::vector<int>{1, 1, 3, 5}));
}
