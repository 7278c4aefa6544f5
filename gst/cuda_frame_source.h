// The element's CUDA frames (built with -Dcuda; the only part of the element,
// with cuda_context.cpp, that knows CUDA): references on and scopes of a
// GstCudaContext, device views of incoming frames (in place for planar CUDA
// memory of the scoring context, repacked on the device for NV12/P010 CUDA
// memory, uploaded for system memory), and the CUDA ScoringDevice that owns
// the backend (stream and extractor twins).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>

#include "frame_source.h"

G_BEGIN_DECLS
typedef struct _GstCudaContext GstCudaContext;
G_END_DECLS

namespace vmafexact::gst {

// A reference on a GstCudaContext.
class CudaContextRef {
 public:
  CudaContextRef() = default;
  explicit CudaContextRef(GstCudaContext* owned) : context_(owned) {}
  ~CudaContextRef() { reset(); }
  CudaContextRef(const CudaContextRef&) = delete;
  CudaContextRef& operator=(const CudaContextRef&) = delete;
  void reset(GstCudaContext* owned = nullptr);
  GstCudaContext* get() const { return context_; }
  // For the gst_cuda_* helpers that fill in a context: GstCudaContext**.
  GstCudaContext** slot() { return &context_; }

 private:
  GstCudaContext* context_ = nullptr;
};

// Makes the context current for a scope (gst_cuda_context_push/pop), so that
// CUDA runtime calls work on GStreamer's context and its memory.
class CudaContextScope final : public ScoringDevice::Scope {
 public:
  explicit CudaContextScope(GstCudaContext* context);
  ~CudaContextScope() override;
  CudaContextScope(const CudaContextScope&) = delete;
  CudaContextScope& operator=(const CudaContextScope&) = delete;

 private:
  bool pushed_ = false;
};

// True when the buffer is one GstCudaMemory of this context.
bool is_cuda_buffer_of(GstBuffer* buffer, GstCudaContext* context);
// The context of a buffer that is one GstCudaMemory, else null (borrowed).
GstCudaContext* cuda_context_of(GstBuffer* buffer);
// The device of a context.
int cuda_device_of(GstCudaContext* context);

// Scores on the GPU of `context` with the CUDA twins, keeping `frames` frames
// in flight on the device (the frames-in-flight property: 1 to
// cuda::kFrameSlots, more taken as that; 0: VMAFEXACT_CUDA_FRAMES, else the
// backend's default); throws vmafexact::Error when the device is not usable.
std::unique_ptr<ScoringDevice> make_cuda_device(GstCudaContext* context, unsigned frames);

}  // namespace vmafexact::gst
