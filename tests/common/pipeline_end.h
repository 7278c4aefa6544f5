// A gst-launch-1.0 description run in the test's process to its end (EOS or
// the first error), for tests that check what a whole run leaves behind.
// Header-only: the test binaries that use it link nothing else of tests/common.
#pragma once

#include <gst/gst.h>

#include <string>

namespace vmafexact::test {

// How a run ended: both empty at EOS; else the error's message and details
// ("timeout" when neither came within the time given).
struct PipelineEnd {
  std::string message, details;
};

inline PipelineEnd run_to_end(const std::string& description, GstClockTime timeout) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  if (!pipeline || error) {
    std::string text = error ? error->message : "no pipeline";
    g_clear_error(&error);
    if (pipeline) gst_object_unref(pipeline);
    return {text, ""};
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, timeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  PipelineEnd end;
  if (!message) {
    end.message = "timeout";
  } else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* gerror = nullptr;
    gchar* details = nullptr;
    gst_message_parse_error(message, &gerror, &details);
    end = {gerror->message, details ? details : ""};
    g_error_free(gerror);
    g_free(details);
  }
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return end;
}

}  // namespace vmafexact::test
