#include "session_start.h"

#include <gst/video/video.h>

#include <utility>

#include "common/cpu.h"
#include "common/error.h"
#include "element_debug.h"
#include "log_file.h"
#include "video_picture.h"
#include "vmafexact_config.h"

namespace vmafexact::gst {
namespace {

constexpr unsigned kRef = static_cast<unsigned>(Side::kRef);
constexpr unsigned kDist = static_cast<unsigned>(Side::kDist);

// backend=auto scores on the device only what has a twin there: else the
// CPU, which reads CUDA memory through a host map (backend=cuda fails when
// the session starts instead, naming the feature). Warns once a run.
bool auto_stays_on_cuda(GstElement* element, const std::vector<ScoredModel>& models,
                        const StartPlan& plan, StartWarnings& warnings) {
  const auto missing = features_without_cuda_twin(models, plan.features);
  if (missing.empty()) return true;
  if (!warnings.cpu_fallback) {
    warnings.cpu_fallback = true;
    std::string names;
    for (const auto& name : missing) names += (names.empty() ? "" : ", ") + name;
    GST_ELEMENT_WARNING(
        element, STREAM, NOT_IMPLEMENTED,
        ("Scoring on the CPU: backend=auto does not use the GPU for this run, because of "
         "%s.",
         names.c_str()),
        ("Frames in CUDA memory are read through a host map: the scores are the same, "
         "but slower. Set backend=cpu to silence this warning, or score models and "
         "features that all have CUDA twins (docs/cuda.md lists them)."));
  }
  return false;
}

ScorerOptions scorer_options(const Settings& settings, bool live) {
  ScorerOptions options;
  options.subsample = settings.subsample;
  options.threads = settings.threads;
  options.frames_in_flight = settings.frames_in_flight;
  // Auto: a live pipeline wants each frame's scores as soon as possible, so
  // one frame at a time with its bands on every thread; otherwise the most
  // frames per second, with frames side by side.
  if (options.frames_in_flight == 0 && live) options.frames_in_flight = 1;
  return options;
}

}  // namespace

bool ensure_cuda_for_backend(GstElement* element, const Settings& settings,
                             CudaContextHandler& cuda) {
  if (settings.backend != Backend::kCuda || cuda.ensure(element, settings.cuda_device_id))
    return true;
  GST_ELEMENT_ERROR(
      element, RESOURCE, NOT_FOUND,
      ("backend=cuda, but no usable CUDA device (cuda-device-id=%d).", settings.cuda_device_id),
      ("Check the NVIDIA driver and the device id, or use backend=auto or cpu. "
       "After a fault of the device earlier in this process, restart the "
       "process."));
  return false;
}

std::optional<PictureFormat> scoring_format(GstElement* element,
                                            const std::array<Input, 2>& inputs,
                                            const ScoringSession* running,
                                            StartWarnings& warnings) {
  const auto format = common_format(element, inputs[kRef], inputs[kDist]);
  if (!format) return std::nullopt;
  const std::string format_text = describe_video_info(*inputs[kRef].info);
  if (running) {
    if (running->scorer().format() == *format) return format;
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("The video format changed mid-stream to %s; scores cannot be pooled "
                       "across picture formats.",
                       format_text.c_str()),
                      ("Scale both inputs to one fixed size and format before vmafexact."));
    return std::nullopt;
  }
  const auto ref_format = picture_format_from_info(*inputs[kRef].info);
  const auto dist_format = picture_format_from_info(*inputs[kDist].info);
  if (pairs_gray_with_yuv(*ref_format, *dist_format) && !warnings.luma_only) {
    warnings.luma_only = true;
    const std::string dist_text = describe_video_info(*inputs[kDist].info);
    GST_ELEMENT_WARNING(
        element, STREAM, FORMAT,
        ("Scoring the luma only: the reference is %s and the distorted video %s; the gray "
         "samples are compared with the other's luma as they are, and chroma scores (psnr_cb, "
         "psnr_cr, ...) are not computed.",
         format_text.c_str(), dist_text.c_str()),
        ("VMAF reads only the luma. Give both inputs in one YUV format to score chroma too; "
         "a conversion between gray and YUV (videoconvert) may change the luma's range."));
  }
  return format;
}

std::unique_ptr<ScoringSession> start_session(GstElement* element, const StartPlan& plan,
                                              const PictureFormat& format,
                                              const SessionRequest& request,
                                              StartWarnings& warnings) {
  const Settings& settings = plan.settings;
  const std::string format_text = describe_video_info(*request.inputs[kRef].info);
  // backend=cuda: always (start() made sure there is a context); auto: when
  // either input arrives in CUDA memory and a context is there.
  bool on_cuda = request.cuda.has_context() &&
                 (settings.backend == Backend::kCuda ||
                  (settings.backend == Backend::kAuto &&
                   (request.inputs[kRef].is_cuda_memory() ||
                    request.inputs[kDist].is_cuda_memory())));
  std::unique_ptr<ScoringSession> session;
  try {
    if (on_cuda && settings.backend == Backend::kAuto)
      on_cuda = auto_stays_on_cuda(element, *plan.loaded_models, plan, warnings);
    if (on_cuda)
      for (const auto& head : request.heads) request.cuda.adopt_context_of(element, head.get());
    std::unique_ptr<ScoringDevice> device;
    if (on_cuda)
      device = request.cuda.make_device(settings.frames_in_flight);
    else
      device = std::make_unique<HostDevice>();
    session = std::make_unique<ScoringSession>(std::move(device), plan.loaded_models,
                                               plan.features, format,
                                               scorer_options(settings, request.live));
  } catch (const DeviceError& error) {
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                      ("Could not start scoring on the GPU: %s.", error.what()),
                      ("Input %s.", format_text.c_str()));
    return nullptr;
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT, ("Cannot score this video: %s.", error.what()),
                      ("Input %s.", format_text.c_str()));
    return nullptr;
  }
  GST_INFO_OBJECT(element, "scoring on the %s, %u threads, %u frames in flight, %s",
                  session->device_name(), session->scorer().threads(),
                  session->scorer().frames_at_once(),
                  session->read_mode().chroma
                      ? "chroma read"
                      : "luma only (no extractor reads chroma: it is neither repacked nor uploaded)");
  return session;
}

Provenance::Session session_provenance(const StartPlan& plan, const ScoringSession& session) {
  std::string backend = session.device_name();
  if (backend == "CPU") backend += std::string(" (") + cpu::best_isa_name(cpu::flags()) + ")";
  return {plan.models_described, backend, session.scorer().threads()};
}

bool open_session_log(GstElement* element, const StartPlan& plan, const PictureFormat& format,
                      const Provenance& provenance,
                      std::function<bool(const std::string& path)> may_write,
                      std::unique_ptr<StreamedLog>& log) {
  const Settings& settings = plan.settings;
  if (settings.log_location.empty()) return true;
  StreamedLog::Options options;
  options.location = settings.log_location;
  options.format = settings.log_format;
  options.precision = settings.log_precision;
  options.rotation = plan.log_rotation;
  options.version = "vmafexact " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
  options.provenance = provenance.as_text();
  options.width = format.width;
  options.height = format.height;
  options.subsample = settings.subsample;
  // Each rotated file's name is checked against the pipeline's files anew.
  options.may_write = std::move(may_write);
  try {
    log = std::make_unique<StreamedLog>(std::move(options));
  } catch (const Error& error) {
    // The path was checked at start: what changed since picks the fix.
    const auto problem = log_location_problem(settings.log_location);
    GST_ELEMENT_ERROR(element, RESOURCE, OPEN_WRITE,
                      ("Could not start the score log: %s.", error.what()),
                      ("%s", problem ? problem->advice.c_str()
                                     : "Check that the folder of log-location exists, is "
                                       "writable and has room."));
    return false;
  }
  return true;
}

std::optional<GstClockTime> score_latency(const Scorer& scorer, const GstVideoInfo& dist_info) {
  const unsigned frames = scorer.latency_frames();
  if (frames == 0 || GST_VIDEO_INFO_FPS_N(&dist_info) <= 0 || GST_VIDEO_INFO_FPS_D(&dist_info) <= 0)
    return std::nullopt;
  return gst_util_uint64_scale_int(frames * GST_SECOND, GST_VIDEO_INFO_FPS_D(&dist_info),
                                   GST_VIDEO_INFO_FPS_N(&dist_info));
}

}  // namespace vmafexact::gst
