// The element's GstCudaContext, handled as sys/nvcodec's elements handle
// theirs (gstcudabasetransform.c, gstcudamemorycopy.c in GStreamer 1.22):
// set_context -> gst_cuda_handle_set_context, start -> gst_cuda_ensure_element_context
// (neighbours' context, else a new one on cuda-device-id), context queries
// answered with gst_cuda_handle_context_query, the context dropped at stop (so
// a changed cuda-device-id takes effect at the next start), a CUDA buffer pool
// offered in the allocation query for CUDA-memory caps, and CUDA memory of
// another context on the same device read with that buffer's context rather
// than through the host. This header has no CUDA types; in a build without
// CUDA every call is a no-op and no context is ever there.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <mutex>
#include <thread>

#include "frame_source.h"

G_BEGIN_DECLS
typedef struct _GstCudaContext GstCudaContext;
G_END_DECLS

namespace vmafexact::gst {

class CudaContextHandler {
 public:
  CudaContextHandler() = default;
  ~CudaContextHandler() { clear(); }
  CudaContextHandler(const CudaContextHandler&) = delete;
  CudaContextHandler& operator=(const CudaContextHandler&) = delete;

  static bool in_build();
  // The pad template caps for `formats` (a GstVideoFormat list): CUDA memory
  // first when built with CUDA, then system memory.
  static GstCaps* template_caps(const char* formats);
  static bool is_cuda_memory_caps(const GstCaps* caps);

  // GstElement::set_context.
  void set_context(GstElement* element, GstContext* context, int device_id);
  // The neighbours' context or a new one; false when there is no usable
  // device. At start for backend=cuda; for backend=auto only once an input
  // brings CUDA-memory caps, so that a CPU pipeline on a GPU machine never
  // initialises CUDA (a context costs hundreds of ms and device memory).
  // Safe while data flows on the other input.
  bool ensure(GstElement* element, int device_id);
  // At stop.
  void clear();
  bool has_context() const;
  // Answers a context query with the context; false when not one for it.
  bool answer_query(GstElement* element, GstQuery* query) const;
  // Adds a CUDA buffer pool of the context to an allocation query whose caps
  // are CUDA memory.
  void propose_pool(GstElement* element, GstQuery* query) const;
  // Before scoring starts: when `buffer` is CUDA memory of another context on
  // this context's device, that context becomes the element's, so the frames
  // are read in place.
  void adopt_context_of(GstElement* element, GstBuffer* buffer);
  // The device to score on with this context, `frames` frames in flight
  // (make_cuda_device()); throws vmafexact::Error when it is not usable.
  std::unique_ptr<ScoringDevice> make_device(unsigned frames) const;

 private:
  // A new reference on the context, or null.
  GstCudaContext* ref_context() const;

  // Queries come from upstream threads while the src thread may adopt
  // another context and an input's caps may ensure one: all hold the lock.
  // ensure() cannot hold it while GStreamer searches the neighbours (their
  // own searches query this element under GStreamer's lock), so it searches
  // into a context of its own, which set_context() fills when called from
  // that search (same thread), and then publishes it.
  mutable std::mutex lock_;
  GstCudaContext* context_ = nullptr;  // owned reference
  std::mutex ensure_lock_;             // one ensure() at a time
  std::thread::id ensuring_thread_;
  GstCudaContext** ensuring_into_ = nullptr;
};

}  // namespace vmafexact::gst
