// RAII owners and error checks for the CUDA runtime objects the twins hold.
// Host-only header (no kernels); included by .cu and .cpp files alike.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "common/error.h"

namespace vmafexact::cuda {

// True for the errors after which CUDA's documentation says the process is
// in an inconsistent state: every later call in it fails the same way, and only
// a new process can use the device again (a kernel's illegal access, an
// uncorrectable ECC error, a device-side assert, a timed-out launch).
constexpr bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable: return true;
    default: return false;
  }
}

// What a failed call's error says: the call, CUDA's reason and, for a sticky
// error, what the user can do about it.
inline std::string describe_failure(cudaError_t status, const char* what) {
  std::string text = std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(status);
  if (is_sticky(status))
    text += " (a fault of the device: CUDA cannot be used again in this process; restart the "
            "process, or score with backend=cpu)";
  return text;
}

// Throws vmafexact::DeviceError naming the call and CUDA's reason.
inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw DeviceError(describe_failure(status, what));
}

// True when the CUDA runtime sees at least one device (and a usable driver).
bool device_available(std::string* reason = nullptr);

// Device memory for `count` objects of T.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  // Reallocates (contents lost) when the size changes.
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count) check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
    count_ = count;
  }
  T* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host memory, so that small read-backs are true async copies.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) {
    if (count) check(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMallocHost");
    count_ = count;
  }
  ~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  void synchronize() const { check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Frames a stage may have submitted and not yet collected: the backend's
// frames in flight (the Scorer's overlap_frames + 1) are at most this many.
// A frame's read-back slot, and every per-frame device value a graph captures
// with it, is frame_slot(index).
inline constexpr unsigned kFrameSlots = 4;
inline unsigned frame_slot(unsigned index) { return index % kFrameSlots; }

// The read-back of one frame's partial sums, in kFrameSlots slots so that
// later frames can be submitted while frame i's sums are still to be read (the
// Scorer's overlap_frames). submit(): copy `count` values from the device into
// the frame's slot and mark it; collect(): wait for that copy and return the slot.
template <typename T>
class FrameReadback {
 public:
  // Pinned memory is taken on the first submit(), so that an extractor can be
  // made (and its names and options checked) without a device.
  explicit FrameReadback(std::size_t count) : count_(count) {}

  void submit(const T* device, unsigned index, cudaStream_t stream) {
    reserve();
    copy(device, index, stream);
    mark(index, stream);
  }
  // submit() in three steps, for a copy captured in a CUDA graph
  // (frame_graphs.h): reserve() takes the pinned memory and events (not
  // allowed during a capture), copy() enqueues the copy into the frame's slot
  // (capturable), mark() records its end on the stream after the graph.
  void reserve() {
    for (unsigned slot = 0; slot < kFrameSlots; ++slot) reserve_slot(slot);
  }
  // Only frame `index`'s slot: a stage that the backend gives some of the
  // frames (a stateless twin's lanes) uses only some slots, and a large
  // read-back (SSIM's terms) should not pin memory for the others.
  void reserve(unsigned index) { reserve_slot(frame_slot(index)); }
  void copy(const T* device, unsigned index, cudaStream_t stream) {
    check(cudaMemcpyAsync(host_[frame_slot(index)].data(), device, count_ * sizeof(T),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (read-back)");
  }
  void mark(unsigned index, cudaStream_t stream) {
    const unsigned slot = frame_slot(index);
    done_[slot]->record(stream);
    submitted_[slot] = index;
    pending_[slot] = true;
  }
  bool submitted(unsigned index) const {
    return pending_[frame_slot(index)] && submitted_[frame_slot(index)] == index;
  }
  const T* collect(unsigned index) {
    const unsigned slot = frame_slot(index);
    if (!submitted(index)) throw Error("CUDA read-back: frame " + std::to_string(index) + " was not submitted");
    done_[slot]->synchronize();
    pending_[slot] = false;
    return host_[slot].data();
  }

 private:
  void reserve_slot(unsigned slot) {
    if (!host_[slot].data()) host_[slot] = PinnedBuffer<T>(count_);
    if (!done_[slot]) done_[slot].emplace();
  }

  std::size_t count_;
  PinnedBuffer<T> host_[kFrameSlots];
  std::optional<Event> done_[kFrameSlots];  // made with the pinned memory
  unsigned submitted_[kFrameSlots] = {};
  bool pending_[kFrameSlots] = {};
};

}  // namespace vmafexact::cuda
