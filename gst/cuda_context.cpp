#include "cuda_context.h"

#include <gst/video/video.h>

#include <string>

#include "common/error.h"
#include "element_debug.h"

#ifdef VMAFEXACT_HAVE_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cuda_frame_source.h"
#endif

namespace vmafexact::gst {

#ifdef VMAFEXACT_HAVE_CUDA

bool CudaContextHandler::in_build() { return true; }

GstCaps* CudaContextHandler::template_caps(const char* formats) {
  const std::string cuda = std::string("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
                                       "), format=(string)") + formats +
                           ", width=(int)[1, max], height=(int)[1, max], "
                           "framerate=(fraction)[0/1, max]";
  const std::string system = std::string("video/x-raw, format=(string)") + formats +
                             ", width=(int)[1, max], height=(int)[1, max], "
                             "framerate=(fraction)[0/1, max]";
  return gst_caps_from_string((cuda + "; " + system).c_str());
}

bool CudaContextHandler::is_cuda_memory_caps(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps)) return false;
  const GstCapsFeatures* features = gst_caps_get_features(caps, 0);
  return features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

GstCudaContext* CudaContextHandler::ref_context() const {
  std::lock_guard<std::mutex> guard(lock_);
  return context_ ? static_cast<GstCudaContext*>(gst_object_ref(context_)) : nullptr;
}

bool CudaContextHandler::has_context() const {
  std::lock_guard<std::mutex> guard(lock_);
  return context_ != nullptr;
}

void CudaContextHandler::set_context(GstElement* element, GstContext* context, int device_id) {
  // gst_cuda_load_library() first: without a driver every gst_cuda call aborts.
  if (!gst_cuda_load_library()) return;
  std::lock_guard<std::mutex> guard(lock_);
  GstCudaContext** target =
      ensuring_into_ && ensuring_thread_ == std::this_thread::get_id() ? ensuring_into_ : &context_;
  gst_cuda_handle_set_context(element, context, device_id, target);
}

bool CudaContextHandler::ensure(GstElement* element, int device_id) {
  const std::lock_guard<std::mutex> serial(ensure_lock_);
  if (has_context()) return true;
  if (!gst_cuda_load_library()) return false;
  GstCudaContext* found = nullptr;
  {
    std::lock_guard<std::mutex> guard(lock_);
    ensuring_thread_ = std::this_thread::get_id();
    ensuring_into_ = &found;
  }
  gst_cuda_ensure_element_context(element, device_id, &found);
  std::lock_guard<std::mutex> guard(lock_);
  ensuring_into_ = nullptr;
  // A context set from elsewhere meanwhile (the application) stays.
  if (!context_)
    context_ = found;
  else
    gst_clear_object(&found);
  GST_INFO_OBJECT(element, "CUDA context: %" GST_PTR_FORMAT, static_cast<void*>(context_));
  return context_ != nullptr;
}

void CudaContextHandler::clear() {
  std::lock_guard<std::mutex> guard(lock_);
  gst_clear_object(&context_);
}

bool CudaContextHandler::answer_query(GstElement* element, GstQuery* query) const {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT) return false;
  GstCudaContext* context = ref_context();
  const bool answered = context && gst_cuda_handle_context_query(element, query, context);
  gst_clear_object(&context);
  return answered;
}

void CudaContextHandler::propose_pool(GstElement* element, GstQuery* query) const {
  GstCaps* caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation(query, &caps, &need_pool);
  GstVideoInfo info;
  if (!is_cuda_memory_caps(caps) || !gst_video_info_from_caps(&info, caps)) return;
  GstCudaContext* context = ref_context();
  if (!context) return;
  // The pool allocates through the CUDA allocator, which nvcodec registers when
  // it loads; an application without nvcodec loaded has none until this.
  gst_cuda_memory_init_once();
  GstBufferPool* pool = gst_cuda_buffer_pool_new(context);
  gst_object_unref(context);
  GstStructure* config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
  if (gst_buffer_pool_set_config(pool, config)) {
    // The CUDA pool sets the size from the pitched device layout: read it back.
    config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
    gst_structure_free(config);
    gst_query_add_allocation_pool(query, pool, size, 0, 0);
  } else {
    GST_WARNING_OBJECT(element, "the CUDA buffer pool refused its configuration");
  }
  gst_object_unref(pool);
}

void CudaContextHandler::adopt_context_of(GstElement* element, GstBuffer* buffer) {
  GstCudaContext* other = cuda_context_of(buffer);
  std::lock_guard<std::mutex> guard(lock_);
  if (!context_ || !other || other == context_ ||
      cuda_device_of(other) != cuda_device_of(context_))
    return;
  GST_INFO_OBJECT(element, "CUDA memory of another context on device %d: scoring with that "
                  "context, in place", cuda_device_of(other));
  gst_object_replace(reinterpret_cast<GstObject**>(&context_), GST_OBJECT(other));
}

std::unique_ptr<ScoringDevice> CudaContextHandler::make_device(unsigned frames) const {
  CudaContextRef context(ref_context());
  if (!context.get()) throw Error("no CUDA context");
  return make_cuda_device(context.get(), frames);
}

#else  // no CUDA in this build

bool CudaContextHandler::in_build() { return false; }

GstCaps* CudaContextHandler::template_caps(const char* formats) {
  return gst_caps_from_string((std::string("video/x-raw, format=(string)") + formats +
                               ", width=(int)[1, max], height=(int)[1, max], "
                               "framerate=(fraction)[0/1, max]")
                                  .c_str());
}
bool CudaContextHandler::is_cuda_memory_caps(const GstCaps*) { return false; }
bool CudaContextHandler::has_context() const { return false; }
GstCudaContext* CudaContextHandler::ref_context() const { return nullptr; }
void CudaContextHandler::set_context(GstElement*, GstContext*, int) {}
bool CudaContextHandler::ensure(GstElement*, int) { return false; }
void CudaContextHandler::clear() {}
bool CudaContextHandler::answer_query(GstElement*, GstQuery*) const { return false; }
void CudaContextHandler::propose_pool(GstElement*, GstQuery*) const {}
void CudaContextHandler::adopt_context_of(GstElement*, GstBuffer*) {}
std::unique_ptr<ScoringDevice> CudaContextHandler::make_device(unsigned) const {
  throw Error("this build has no CUDA backend");
}

#endif

}  // namespace vmafexact::gst
