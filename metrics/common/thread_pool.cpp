#include "common/thread_pool.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vmafexact {

namespace {

// How long an idle thread keeps looking for work before it sleeps. A frame's
// next stage posts its bands a few microseconds after the last one ended,
// while waking a sleeping thread takes tens of microseconds: at 1080p a
// frame has some 40 stages, so sleeping between them would cost milliseconds.
constexpr auto kSpin = std::chrono::microseconds(50);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until `ready()` or kSpin has passed (the caller then looks again
// under its lock, and sleeps if need be).
template <class Ready>
void spin_until(Ready&& ready) {
  const auto give_up = std::chrono::steady_clock::now() + kSpin;
  while (!ready() && std::chrono::steady_clock::now() < give_up)
    for (int i = 0; i < 32; ++i) cpu_relax();
}

class SerialBandRunner final : public BandRunner {
 public:
  unsigned max_bands() const override { return 1; }
  void run(unsigned bands, const std::function<void(unsigned)>& body) override {
    for (unsigned band = 0; band < bands; ++band) body(band);
  }
};

}  // namespace

BandRunner& serial_band_runner() {
  static SerialBandRunner runner;
  return runner;
}

ThreadPool::ThreadPool(unsigned workers) {
  workers_.reserve(std::max(workers, 1u));
  for (unsigned i = 0; i < std::max(workers, 1u); ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopping_flag_.store(true, std::memory_order_relaxed);
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void ThreadPool::enqueue(std::uint64_t priority, std::function<void()> run) {
  bool someone_sleeps;
  {
    std::lock_guard lock(mutex_);
    queue_.push(Task{priority, sequence_++, std::move(run)});
    queued_.fetch_add(1, std::memory_order_release);
    someone_sleeps = sleeping_ > 0;
  }
  // A spinning worker sees queued_; only a sleeping one needs the (slow) wake.
  if (someone_sleeps) wake_.notify_one();
}

std::future<void> ThreadPool::post(std::uint64_t priority, std::function<void()> task) {
  // std::function needs a copyable callable: the packaged task lives in a shared_ptr.
  auto packaged = std::make_shared<std::packaged_task<void()>>(std::move(task));
  std::future<void> done = packaged->get_future();
  enqueue(priority, [packaged] { (*packaged)(); });
  return done;
}

void ThreadPool::work() {
  while (true) {
    spin_until([this] {
      return queued_.load(std::memory_order_acquire) > 0 ||
             stopping_flag_.load(std::memory_order_relaxed);
    });
    std::function<void()> run;
    {
      std::unique_lock lock(mutex_);
      if (queue_.empty() && !stopping_) {
        ++sleeping_;
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        --sleeping_;
      }
      if (queue_.empty()) {
        if (stopping_) return;  // stopping, and nothing left
        continue;
      }
      run = std::move(const_cast<Task&>(queue_.top()).run);
      queue_.pop();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    run();
  }
}

void ThreadPool::parallel_for(std::uint64_t priority, unsigned count,
                              const std::function<void(unsigned)>& body) {
  if (count == 0) return;
  if (count == 1) {
    body(0);
    return;
  }
  // Shared with the helper tasks, which may start after this returns (then
  // they find no index left and end without touching `body`).
  struct Loop {
    const std::function<void(unsigned)>* body;
    unsigned count;
    std::atomic<unsigned> next{0};
    std::mutex mutex;
    std::condition_variable all_done;
    std::atomic<unsigned> done{0};  // changed under `mutex`, read while spinning
    std::exception_ptr error;

    // Takes indices until none is left.
    void take() {
      for (unsigned i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
        std::exception_ptr failed;
        try {
          (*body)(i);
        } catch (...) {
          failed = std::current_exception();
        }
        std::lock_guard lock(mutex);
        if (failed && !error) error = failed;
        if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == count) all_done.notify_all();
      }
    }
  };
  auto loop = std::make_shared<Loop>();
  loop->body = &body;
  loop->count = count;
  const unsigned helpers = std::min(count - 1, size());
  for (unsigned h = 0; h < helpers; ++h) enqueue(priority, [loop] { loop->take(); });
  loop->take();
  // The last bands taken by others end soon: look before sleeping.
  spin_until([&] { return loop->done.load(std::memory_order_acquire) == loop->count; });
  std::unique_lock lock(loop->mutex);
  loop->all_done.wait(lock, [&] { return loop->done.load(std::memory_order_relaxed) == loop->count; });
  if (loop->error) std::rethrow_exception(loop->error);
}

}  // namespace vmafexact
