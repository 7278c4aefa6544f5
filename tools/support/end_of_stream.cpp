#include "end_of_stream.h"

namespace vmafexact::tools {

void send_eos_once_settled(GstElement* pipeline, std::chrono::milliseconds settle_bound) {
  const auto deadline = std::chrono::steady_clock::now() + settle_bound;
  // Short waits, for the bound. A change that failed (a source that cannot
  // start) ends the wait: the EOS then finds no streaming thread to block on.
  while (std::chrono::steady_clock::now() < deadline &&
         gst_element_get_state(pipeline, nullptr, nullptr, 20 * GST_MSECOND) ==
             GST_STATE_CHANGE_ASYNC) {
  }
  gst_element_send_event(pipeline, gst_event_new_eos());
}

}  // namespace vmafexact::tools
