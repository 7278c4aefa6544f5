// Starting a scoring session with a run's first pair (or the first after a
// flushing seek), in parts that each post their own error or warning: the
// picture format both inputs share, the device (backend choice and the
// CPU-fallback warning) and the session, the provenance, the streamed log.
// The element's ensure_scoring() calls them in this order.
#pragma once

#include <gst/gst.h>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cuda_context.h"
#include "gst_handles.h"
#include "input.h"
#include "provenance.h"
#include "scoring_session.h"
#include "settings.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// What a run has said once and says no more (a flushing seek keeps them).
struct StartWarnings {
  bool luma_only = false;     // a gray input pairs with a YUV one by luma
  bool cpu_fallback = false;  // backend=auto scores on the CPU for lack of CUDA twins
};

// backend=cuda: the CUDA context, found or made at start; false after posting
// the error when there is no usable device. (backend=auto looks for one only
// when an input brings CUDA memory: a CPU pipeline never initialises CUDA.)
bool ensure_cuda_for_backend(GstElement* element, const Settings& settings,
                             CudaContextHandler& cuda);

// The format to score: both inputs' shared one (common_format()), which must
// be the `running` session's when there is one. Warns once a run when a gray
// input pairs with a YUV one. nullopt after posting the error.
std::optional<PictureFormat> scoring_format(GstElement* element,
                                            const std::array<Input, 2>& inputs,
                                            const ScoringSession* running,
                                            StartWarnings& warnings);

// How the element asks for a session.
struct SessionRequest {
  const std::array<Input, 2>& inputs;
  const std::array<BufferPtr, 2>& heads;  // the first pair
  CudaContextHandler& cuda;
  bool live = false;  // a live pipeline: frames-in-flight=0 means 1
};

// Starts the session: on CUDA for backend=cuda, and for backend=auto when an
// input brings CUDA memory, a context is there and every extractor has a CUDA
// twin (else on the CPU, saying why once a run); with the models loaded at
// start. Null after posting the error.
std::unique_ptr<ScoringSession> start_session(GstElement* element, const StartPlan& plan,
                                              const PictureFormat& format,
                                              const SessionRequest& request,
                                              StartWarnings& warnings);

// The session's part of the provenance: its models, device and threads.
Provenance::Session session_provenance(const StartPlan& plan, const ScoringSession& session);

// The streamed log of a session, when log-location is set (`log` stays null
// otherwise); `may_write` checks each rotated file's name. False after
// posting the error.
bool open_session_log(GstElement* element, const StartPlan& plan, const PictureFormat& format,
                      const Provenance& provenance,
                      std::function<bool(const std::string& path)> may_write,
                      std::unique_ptr<StreamedLog>& log);

// How long a frame's scores wait for later frames (motion, frames in flight)
// at the distorted input's frame rate; none without a rate or a wait.
std::optional<GstClockTime> score_latency(const Scorer& scorer, const GstVideoInfo& dist_info);

}  // namespace vmafexact::gst
