// The CPU worker threads of one scoring session, shared by the two levels of
// parallelism: whole frames (Scorer, threads > 1) and the bands of one frame's
// stages (bands.h). Tasks carry a priority, the index of the frame they belong
// to, and the oldest frame's work goes first: when the workers are not all
// busy with frames of their own (a live source, the last frames of a stream,
// a frame holding up the rest), they help the oldest frame with its bands, so
// a frame's scores are ready sooner.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "common/bands.h"

namespace vmafexact {

class ThreadPool {
 public:
  // Starts `workers` threads (at least 1).
  explicit ThreadPool(unsigned workers);
  ~ThreadPool();  // runs what is queued, then joins the workers
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

  // Runs `task` on a worker; lower priorities first, then in the order posted.
  // The future holds its exception, if any.
  std::future<void> post(std::uint64_t priority, std::function<void()> task);

  // Calls body(i) for every i in [0, count) on the calling thread and on the
  // workers that are free (at `priority`), and returns when all have returned;
  // rethrows the first exception once every call has ended. The calling thread
  // takes indices itself until none is left, so this never waits for a worker
  // to become free: a worker's task may call it.
  void parallel_for(std::uint64_t priority, unsigned count,
                    const std::function<void(unsigned)>& body);

 private:
  struct Task {
    std::uint64_t priority;
    std::uint64_t sequence;
    std::function<void()> run;
    bool operator<(const Task& other) const {  // std::priority_queue puts the largest first
      return priority != other.priority ? priority > other.priority : sequence > other.sequence;
    }
  };
  void enqueue(std::uint64_t priority, std::function<void()> run);
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::priority_queue<Task> queue_;
  std::uint64_t sequence_ = 0;
  bool stopping_ = false;
  unsigned sleeping_ = 0;            // workers waiting on wake_ (under mutex_)
  std::atomic<unsigned> queued_{0};  // tasks in queue_, read while spinning
  std::atomic<bool> stopping_flag_{false};
  std::vector<std::thread> workers_;
};

// Bands of one frame's stages on a pool, at the priority of that frame.
class PoolBandRunner final : public BandRunner {
 public:
  // `max_bands`: how far stages are cut (typically the pool's size).
  PoolBandRunner(ThreadPool& pool, unsigned max_bands) : pool_(&pool), max_bands_(max_bands) {}
  // The frame the next stages belong to (their priority in the pool).
  void set_frame(std::uint64_t index) { frame_ = index; }

  unsigned max_bands() const override { return max_bands_; }
  void run(unsigned bands, const std::function<void(unsigned)>& body) override {
    pool_->parallel_for(frame_, bands, body);
  }

 private:
  ThreadPool* pool_;
  unsigned max_bands_;
  std::uint64_t frame_ = 0;
};

}  // namespace vmafexact
