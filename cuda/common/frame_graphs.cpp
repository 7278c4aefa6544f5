#include "common/frame_graphs.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/cuda_util.h"

namespace vmafexact::cuda {

namespace {

std::atomic<bool>& graphs_flag() {
  static std::atomic<bool> flag = [] {
    const char* value = std::getenv("VMAFEXACT_CUDA_GRAPHS");
    return !(value && std::strcmp(value, "0") == 0);
  }();
  return flag;
}

// Ends a capture that failed midway, so that the stream is usable again.
void abandon_capture(cudaStream_t stream) {
  cudaGraph_t partial = nullptr;
  if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial) cudaGraphDestroy(partial);
  cudaGetLastError();
}

}  // namespace

bool graphs_enabled() { return graphs_flag().load(); }
void set_graphs_enabled(bool enabled) { graphs_flag().store(enabled); }

FrameGraphs::~FrameGraphs() { clear(); }

void FrameGraphs::clear() {
  for (auto& entry : entries_)
    if (entry.exec) cudaGraphExecDestroy(entry.exec);
  entries_.clear();
}

void FrameGraphs::run(const Key& key, cudaStream_t stream, const std::function<void()>& enqueue) {
  if (given_up_ || !graphs_enabled()) {
    enqueue();
    return;
  }
  ++clock_;
  for (auto& entry : entries_)
    if (entry.key == key) {
      entry.last_use = clock_;
      miss_run_ = 0;
      ++replays_;
      check(cudaGraphLaunch(entry.exec, stream), "cudaGraphLaunch");
      return;
    }
  if (++miss_run_ > kMaxMissRun) {
    // The keys do not repeat: capturing costs more than it saves.
    given_up_ = true;
    clear();
    enqueue();
    return;
  }
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  try {
    enqueue();
  } catch (...) {
    abandon_capture(stream);
    throw;
  }
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  check(made, "cudaGraphInstantiate");
  if (entries_.size() == kCapacity) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
    cudaGraphExecDestroy(oldest->exec);
    entries_.erase(oldest);
  }
  entries_.push_back({key, exec, clock_});
  ++captures_;
  check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
}

}  // namespace vmafexact::cuda
