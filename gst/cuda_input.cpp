#include "cuda_input.h"

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include "common/repack.h"

namespace vmafexact::gst {

void CudaContextRef::reset(GstCudaContext* owned) {
  if (context_) gst_object_unref(context_);
  context_ = owned;
}

CudaContextScope::CudaContextScope(GstCudaContext* context) {
  pushed_ = context && gst_cuda_context_push(context);
}

CudaContextScope::~CudaContextScope() {
  if (pushed_) gst_cuda_context_pop(nullptr);
}

bool is_cuda_buffer_of(GstBuffer* buffer, GstCudaContext* context) {
  if (!context || gst_buffer_n_memory(buffer) != 1) return false;
  GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_memory(memory) && GST_CUDA_MEMORY_CAST(memory)->context == context;
}

GstMapFlags cuda_map_flags() { return static_cast<GstMapFlags>(GST_MAP_CUDA); }

PictureView CudaFrameSource::device_view(const GstVideoFrame& frame, bool device_memory,
                                         const PictureFormat& format, cudaStream_t stream) {
  if (!device_memory) {
    // System memory: the host view (repacked on the host if needed), uploaded.
    upload_.upload(picture_view_of(frame, format, host_scratch_), stream);
    return upload_.view();
  }
  PictureView view;
  view.bpc = format.bpc;
  view.chroma = format.chroma;
  view.width = format.width;
  view.height = format.height;
  const unsigned sample_bytes = format.bpc > 8 ? 2 : 1;
  for (unsigned c = 0; c < view.plane_count(); ++c) {
    PlaneView& plane = view.planes[c];
    plane.width = c == 0 ? format.width : chroma_plane_width(format.width, format.chroma);
    plane.height = c == 0 ? format.height : chroma_plane_height(format.height, format.chroma);
    const ComponentLayout layout = component_layout(frame, c, sample_bytes);
    if (layout.in_place) {
      plane.data = layout.data;
      plane.stride = layout.stride;
      continue;
    }
    const std::ptrdiff_t pitch = (plane.width * sample_bytes + 255) / 256 * 256;
    repacked_[c].resize(static_cast<std::size_t>(pitch) * (plane.height ? plane.height : 1));
    cuda::enqueue_repack_component(layout.data, layout.stride, layout.pixel_stride, sample_bytes,
                                   layout.shift, plane.width, plane.height, repacked_[c].data(),
                                   pitch, stream);
    plane.data = repacked_[c].data();
    plane.stride = pitch;
  }
  return view;
}

}  // namespace vmafexact::gst
