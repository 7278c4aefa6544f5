// unique_ptr owners of the GLib and GStreamer handles the example programs
// hold (vmafexact-monitor, vmafexact), so that every handle is released on
// every path, exceptions included.
#pragma once

#include <gst/gst.h>

#include <memory>

namespace vmafexact::examples {

template <typename T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* handle) const {
    if (handle) Release(handle);
  }
};
template <typename T>
void release_gobject(T* object) {
  g_object_unref(object);
}
template <typename T>
void release_gst_object(T* object) {
  gst_object_unref(object);
}
inline void release_error(GError* error) { g_error_free(error); }
inline void release_gfree(gchar* text) { g_free(text); }
inline void release_loop(GMainLoop* loop) { g_main_loop_unref(loop); }
inline void release_caps(GstCaps* caps) { gst_caps_unref(caps); }
inline void release_message(GstMessage* message) { gst_message_unref(message); }
inline void release_structure(GstStructure* structure) { gst_structure_free(structure); }
inline void release_uris(GSList* uris) {
  g_slist_free_full(uris, reinterpret_cast<GDestroyNotify>(g_uri_unref));
}

template <typename T>
using GObjectPtr = std::unique_ptr<T, Releaser<T, release_gobject<T>>>;
template <typename T>
using GstObjectPtr = std::unique_ptr<T, Releaser<T, release_gst_object<T>>>;
using ErrorPtr = std::unique_ptr<GError, Releaser<GError, release_error>>;
using GCharPtr = std::unique_ptr<gchar, Releaser<gchar, release_gfree>>;
using LoopPtr = std::unique_ptr<GMainLoop, Releaser<GMainLoop, release_loop>>;
using CapsPtr = std::unique_ptr<GstCaps, Releaser<GstCaps, release_caps>>;
using MessagePtr = std::unique_ptr<GstMessage, Releaser<GstMessage, release_message>>;
using StructurePtr = std::unique_ptr<GstStructure, Releaser<GstStructure, release_structure>>;
using UriListPtr = std::unique_ptr<GSList, Releaser<GSList, release_uris>>;

// A new element, its floating reference sunk: the pointer owns one reference
// on every path, and a bin the element is added to takes its own (so never
// release() it into gst_bin_add). Null when the factory is not installed.
inline GstObjectPtr<GstElement> make_element(const char* factory, const char* name) {
  GstElement* element = gst_element_factory_make(factory, name);
  if (element) gst_object_ref_sink(element);
  return GstObjectPtr<GstElement>(element);
}

}  // namespace vmafexact::examples
