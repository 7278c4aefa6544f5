#include "common/thread_pool.h"

#include <atomic>
#include <exception>
#include <memory>

namespace vmafexact {

namespace {

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
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void ThreadPool::enqueue(std::uint64_t priority, std::function<void()> run) {
  {
    std::lock_guard lock(mutex_);
    queue_.push(Task{priority, sequence_++, std::move(run)});
  }
  wake_.notify_one();
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
    std::function<void()> run;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      run = std::move(const_cast<Task&>(queue_.top()).run);
      queue_.pop();
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
    unsigned done = 0;
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
        if (++done == count) all_done.notify_all();
      }
    }
  };
  auto loop = std::make_shared<Loop>();
  loop->body = &body;
  loop->count = count;
  const unsigned helpers = std::min(count - 1, size());
  for (unsigned h = 0; h < helpers; ++h) enqueue(priority, [loop] { loop->take(); });
  loop->take();
  std::unique_lock lock(loop->mutex);
  loop->all_done.wait(lock, [&] { return loop->done == loop->count; });
  if (loop->error) std::rethrow_exception(loop->error);
}

}  // namespace vmafexact
