// unique_ptr owners of the GLib and GStreamer handles the example programs
// hold (vmafexact-monitor, vmafexact), so that every handle is released on
// every path, exceptions included: the element's own (gst/gst_handles.h), and
// those only the programs hold.
#pragma once

#include <gst/gst.h>

#include <memory>

#include "gst_handles.h"

namespace vmafexact::tools {

using gst::CapsPtr;
using gst::ErrorPtr;
using gst::GCharPtr;
using gst::GObjectPtr;
using gst::GstObjectPtr;
using gst::MessagePtr;
using gst::Releaser;
using gst::StructurePtr;

inline void release_loop(GMainLoop* loop) { g_main_loop_unref(loop); }
inline void release_uris(GSList* uris) {
  g_slist_free_full(uris, reinterpret_cast<GDestroyNotify>(g_uri_unref));
}
using LoopPtr = std::unique_ptr<GMainLoop, Releaser<GMainLoop, release_loop>>;
using UriListPtr = std::unique_ptr<GSList, Releaser<GSList, release_uris>>;

// A new element, its floating reference sunk: the pointer owns one reference
// on every path, and a bin the element is added to takes its own (so never
// release() it into gst_bin_add). Null when the factory is not installed.
inline GstObjectPtr<GstElement> make_element(const char* factory, const char* name) {
  GstElement* element = gst_element_factory_make(factory, name);
  if (element) gst_object_ref_sink(element);
  return GstObjectPtr<GstElement>(element);
}

}  // namespace vmafexact::tools
