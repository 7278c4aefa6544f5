// A stage's per-frame work replayed as CUDA graphs. What a stage enqueues for
// a frame (kernels, memsets, the read-back copy) differs from frame to frame
// only in a few values: its input pointers and strides, the read-back slot, a
// ring position. Captured once per distinct key, a frame then costs one graph
// launch instead of one call per kernel: on the H200 machine's host a CUDA
// call costs about 3.5 us, which was most of a 1080p frame's time.
//
// Inputs that never repeat (pointers of ever new buffers) would make each
// frame a capture: after kMaxMissRun misses in a row the cache gives up and
// the work is enqueued directly, as it is with graphs disabled
// (VMAFEXACT_CUDA_GRAPHS=0, or set_graphs_enabled(false) in tests).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/cuda_util.h"
#include "common/picture.h"

namespace vmafexact::cuda {

// Whether stages capture graphs (default: yes unless VMAFEXACT_CUDA_GRAPHS=0).
bool graphs_enabled();
void set_graphs_enabled(bool enabled);

class FrameGraphs {
 public:
  using Key = std::array<std::uintptr_t, 16>;  // unused entries 0
  static constexpr std::size_t kCapacity = 32;  // graphs kept, least recently used dropped
  static constexpr unsigned kMaxMissRun = 64;

  FrameGraphs() = default;
  ~FrameGraphs();
  FrameGraphs(const FrameGraphs&) = delete;
  FrameGraphs& operator=(const FrameGraphs&) = delete;

  // Enqueues on `stream` what `enqueue` enqueues there for `key`: the graph
  // captured from it for that key, captured now if there is none. `enqueue`
  // must enqueue only capturable work on `stream` (kernels, async memsets and
  // copies; no events, no synchronization) and must enqueue the same work
  // whenever the key is the same.
  void run(const Key& key, cudaStream_t stream, const std::function<void()>& enqueue);

  // Counters for tests and benchmarks.
  std::size_t captures() const { return captures_; }
  std::size_t replays() const { return replays_; }

 private:
  struct Entry {
    Key key{};
    cudaGraphExec_t exec = nullptr;
    std::uint64_t last_use = 0;
  };
  void clear();

  std::vector<Entry> entries_;
  std::uint64_t clock_ = 0;
  unsigned miss_run_ = 0;
  bool given_up_ = false;
  std::size_t captures_ = 0, replays_ = 0;
};

// A key from pointers and integers (at most 16).
template <typename... Values>
FrameGraphs::Key graph_key(Values... values) {
  static_assert(sizeof...(Values) <= std::tuple_size_v<FrameGraphs::Key>);
  const auto word = []<typename V>(V value) -> std::uintptr_t {
    if constexpr (std::is_pointer_v<V>)
      return reinterpret_cast<std::uintptr_t>(value);
    else
      return static_cast<std::uintptr_t>(value);
  };
  return FrameGraphs::Key{word(values)...};
}

// A frame of a stage without state from frame to frame that reads the luma
// planes and reads back one array: `enqueue` (the frame's passes) and the copy
// of `results` into the frame's read-back slot, as one graph keyed by the
// luma planes and the slot (the backend spreads the frames over instances of
// such a stage, so each reserves only its frames' slots).
template <typename T>
void submit_luma_frame(FrameGraphs& graphs, FrameReadback<T>& readback, const PictureView& ref,
                       const PictureView& dist, unsigned index, const T* results,
                       cudaStream_t stream, const std::function<void()>& enqueue) {
  readback.reserve(index);
  const PlaneView& r = ref.planes[0];
  const PlaneView& d = dist.planes[0];
  graphs.run(graph_key(r.data, r.stride, d.data, d.stride, frame_slot(index)), stream, [&] {
    enqueue();
    readback.copy(results, index, stream);
  });
  readback.mark(index, stream);
}

}  // namespace vmafexact::cuda
