// The element's boundary with C: GStreamer calls the element's virtual methods
// from C code, where an escaping C++ exception terminates the host process (a
// gst-launch pipeline or a whole application). Every entry point runs its body
// through guarded(), which turns any exception into an element error (or, where
// the caller cannot take an error, a warning) and returns the caller's failure
// value.
#pragma once

#include <gst/gst.h>

#include <exception>
#include <new>
#include <utility>

#include "common/error.h"
#include "utf8_messages.h"

namespace vmafexact::gst {

// Posts the element error that stands for `exception`, thrown while `during`
// ("scoring a frame", "starting", ...).
inline void post_exception_error(GstElement* element, const char* during,
                                 std::exception_ptr exception) {
  GstElement* self = element;  // for GST_ELEMENT_ERROR
  try {
    std::rethrow_exception(std::move(exception));
  } catch (const std::bad_alloc&) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Out of memory while %s.", during),
                      ("The pictures or the models need more memory than the process can get; "
                       "score smaller pictures, lower threads and frames-in-flight, or raise "
                       "the memory limit."));
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Failed while %s: %s.", during, error.what()),
                      (nullptr));
  } catch (const std::exception& error) {
    GST_ELEMENT_ERROR(self, CORE, FAILED, ("Internal error while %s: %s.", during, error.what()),
                      ("This is a bug in vmafexact; please report it with the pipeline and "
                       "settings that led to it."));
  } catch (...) {
    GST_ELEMENT_ERROR(self, CORE, FAILED,
                      ("Internal error while %s: an unknown exception.", during),
                      ("This is a bug in vmafexact; please report it with the pipeline and "
                       "settings that led to it."));
  }
}

// Runs `body`; if it throws, posts the error for it and returns `on_failure`.
template <typename Result, typename Body>
Result guarded(GstElement* element, const char* during, Result on_failure, Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (...) {
    post_exception_error(element, during, std::current_exception());
    return on_failure;
  }
}

}  // namespace vmafexact::gst
