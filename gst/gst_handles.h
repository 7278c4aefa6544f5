// RAII owners for the GLib and GStreamer handles the element holds, shared
// with the programs in tools/ (tools/support/handles.h adds theirs).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>

namespace vmafexact::gst {

template <typename T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* handle) const {
    if (handle) Release(handle);
  }
};

inline void release_buffer(GstBuffer* buffer) { gst_buffer_unref(buffer); }
inline void release_caps(GstCaps* caps) { gst_caps_unref(caps); }
inline void release_structure(GstStructure* structure) { gst_structure_free(structure); }
inline void release_message(GstMessage* message) { gst_message_unref(message); }
inline void release_event(GstEvent* event) { gst_event_unref(event); }
inline void release_gfree(gchar* text) { g_free(text); }
inline void release_error(GError* error) { g_error_free(error); }
template <typename T>
void release_gobject(T* object) {
  g_object_unref(object);
}
template <typename T>
void release_gst_object(T* object) {
  gst_object_unref(object);
}

using BufferPtr = std::unique_ptr<GstBuffer, Releaser<GstBuffer, release_buffer>>;
using CapsPtr = std::unique_ptr<GstCaps, Releaser<GstCaps, release_caps>>;
using StructurePtr = std::unique_ptr<GstStructure, Releaser<GstStructure, release_structure>>;
using MessagePtr = std::unique_ptr<GstMessage, Releaser<GstMessage, release_message>>;
using EventPtr = std::unique_ptr<GstEvent, Releaser<GstEvent, release_event>>;
using GCharPtr = std::unique_ptr<gchar, Releaser<gchar, release_gfree>>;
using ErrorPtr = std::unique_ptr<GError, Releaser<GError, release_error>>;
template <typename T>
using GObjectPtr = std::unique_ptr<T, Releaser<T, release_gobject<T>>>;
template <typename T>
using GstObjectPtr = std::unique_ptr<T, Releaser<T, release_gst_object<T>>>;

// Holds an object's lock for a scope, so that an exception (a failed string
// copy) cannot leave it locked.
class ObjectLock {
 public:
  explicit ObjectLock(gpointer object) : object_(GST_OBJECT(object)) { GST_OBJECT_LOCK(object_); }
  ~ObjectLock() { GST_OBJECT_UNLOCK(object_); }
  ObjectLock(const ObjectLock&) = delete;
  ObjectLock& operator=(const ObjectLock&) = delete;

 private:
  GstObject* object_;
};

// A buffer mapped as a video frame for reading; unmapped when it goes.
class MappedVideoFrame {
 public:
  MappedVideoFrame(const GstVideoInfo& info, GstBuffer* buffer, GstMapFlags flags = GST_MAP_READ) {
    GstVideoInfo info_copy = info;  // gst_video_frame_map takes a non-const info
    mapped_ = gst_video_frame_map(&frame_, &info_copy, buffer, flags);
  }
  ~MappedVideoFrame() {
    if (mapped_) gst_video_frame_unmap(&frame_);
  }
  MappedVideoFrame(const MappedVideoFrame&) = delete;
  MappedVideoFrame& operator=(const MappedVideoFrame&) = delete;

  bool mapped() const { return mapped_; }
  const GstVideoFrame& frame() const { return frame_; }

 private:
  GstVideoFrame frame_{};
  bool mapped_ = false;
};

}  // namespace vmafexact::gst
