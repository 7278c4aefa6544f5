// The element's CUDA side (built with -Dcuda): GStreamer's CUDA context,
// pushing it around CUDA work, and device views of incoming frames — in place
// for planar CUDA memory, repacked on the device for NV12/P010 CUDA memory,
// uploaded for system memory.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <array>
#include <memory>
#include <vector>

#include "common/device_picture.h"
#include "common/feature_extractor.h"
#include "common/picture.h"
#include "cuda_backend.h"
#include "video_picture.h"

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
class CudaContextScope {
 public:
  explicit CudaContextScope(GstCudaContext* context);
  ~CudaContextScope();
  CudaContextScope(const CudaContextScope&) = delete;
  CudaContextScope& operator=(const CudaContextScope&) = delete;
  bool active() const { return pushed_; }

 private:
  bool pushed_ = false;
};

// True when the buffer is one GstCudaMemory of this context (else it is read
// through a system-memory map and uploaded).
bool is_cuda_buffer_of(GstBuffer* buffer, GstCudaContext* context);

// GST_MAP_CUDA, for MappedVideoFrame.
GstMapFlags cuda_map_flags();

// Device views of one pad's frames; owns the device planes it needs.
class CudaFrameSource {
 public:
  // `frame` is mapped with GST_MAP_CUDA when `device_memory`, else for reading
  // on the host. Valid until the next call or until the frame is unmapped.
  PictureView device_view(const GstVideoFrame& frame, bool device_memory,
                          const PictureFormat& format, cudaStream_t stream);

 private:
  ScratchPlanes host_scratch_;
  cuda::DevicePicture upload_;
  std::array<cuda::DeviceBuffer<std::uint8_t>, 3> repacked_;
};

}  // namespace vmafexact::gst
