// Ending a running pipeline from outside its streaming threads (a signal, a
// shutdown), the way gst-launch's -e does, without its deadlock.
#pragma once

#include <gst/gst.h>

#include <chrono>

namespace vmafexact::tools {

// How long send_eos_once_settled() waits for a state change in flight.
inline constexpr std::chrono::milliseconds kEosSettleBound{2000};

// Sends an EOS to `pipeline` once no state change is in flight, waiting at
// most `settle_bound` for it. gst_element_send_event() holds the pipeline's
// state lock while each source takes its own stream lock; a source whose
// streaming thread is pushing into a sink that waits in preroll only returns
// when the pipeline reaches PLAYING, and the step to PLAYING needs that state
// lock: sent between a sink's preroll and PLAYING, the EOS would block the
// pipeline for ever. A pipeline that cannot preroll at all still gets the EOS
// after `settle_bound` (it is what ends such a preroll). Blocks the caller
// until the EOS is taken: call it from a thread of its own.
void send_eos_once_settled(GstElement* pipeline,
                           std::chrono::milliseconds settle_bound = kEosSettleBound);

}  // namespace vmafexact::tools
