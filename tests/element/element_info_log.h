// The element's INFO lines, collected from GStreamer's debug log (element and
// CUDA pipeline tests).
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <string>
#include <vector>

// The element's INFO lines from construction until finish() (or the end of
// its scope); streaming threads of several pipelines add to them.
class ElementInfoLog {
 public:
  ElementInfoLog() {
    gst_debug_set_threshold_for_name("vmafexact", GST_LEVEL_INFO);
    // Parenthesised: the macro compares function and data pointers (-Wpedantic).
    (gst_debug_add_log_function)(collect, this, nullptr);
  }
  ~ElementInfoLog() { finish(); }
  ElementInfoLog(const ElementInfoLog&) = delete;
  ElementInfoLog& operator=(const ElementInfoLog&) = delete;

  // Stops collecting and returns the lines collected.
  std::vector<std::string> finish() {
    if (collecting_) {
      (gst_debug_remove_log_function)(collect);
      gst_debug_set_threshold_for_name("vmafexact", GST_LEVEL_ERROR);
      collecting_ = false;
    }
    const std::lock_guard lock(mutex_);
    return std::move(lines_);
  }

 private:
  static void collect(GstDebugCategory* category, GstDebugLevel, const gchar*, const gchar*, gint,
                      GObject*, GstDebugMessage* message, gpointer data) {
    if (std::string(gst_debug_category_get_name(category)) != "vmafexact") return;
    auto* log = static_cast<ElementInfoLog*>(data);
    const std::lock_guard lock(log->mutex_);
    log->lines_.push_back(gst_debug_message_get(message));
  }

  bool collecting_ = true;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};
