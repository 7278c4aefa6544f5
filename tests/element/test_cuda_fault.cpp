// The element after a device fault. A kernel that writes to an illegal address
// leaves its CUDA context unusable for good (a "sticky" error, as an Xid or an
// uncorrectable ECC error also can in a monitor that runs for months). The
// element must then end its stream with a clear error naming CUDA, and a
// later start must either score or fail clearly: never hang, crash or post
// scores. The fault is made here, on purpose, in the context the element is
// handed (a PTX kernel through GStreamer's CUDA loader), once while frames
// flow and once before a start; it may spoil CUDA for the whole process, so
// this is a program of its own, run after the others.
// Skips cleanly where there is no usable device.
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "element_info_log.h"

namespace {

struct ObjectUnref {
  void operator()(gpointer object) const { gst_object_unref(object); }
};
using CudaContextPtr = std::unique_ptr<GstCudaContext, ObjectUnref>;
using ElementPtr = std::unique_ptr<GstElement, ObjectUnref>;

// One thread writes 1 to the address it is given.
constexpr char kPoisonPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry vmafexact_poison(.param .u64 vmafexact_poison_address)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [vmafexact_poison_address];
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

// Runs the poison kernel on an unmapped address in `context`; the CUresult
// of the synchronisation that reports the fault (700, illegal address).
int poison(GstCudaContext* context) {
  if (!gst_cuda_context_push(context)) return -1;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  int result = CuModuleLoadData(&module, kPoisonPtx);
  if (result == CUDA_SUCCESS) result = CuModuleGetFunction(&function, module, "vmafexact_poison");
  if (result == CUDA_SUCCESS) {
    CUdeviceptr address = 0x10;
    void* params[] = {&address};
    result = CuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr);
    if (result == CUDA_SUCCESS) result = CuStreamSynchronize(nullptr);
  }
  gst_cuda_context_pop(nullptr);
  return result;
}

// Two 176x144 videotestsrc inputs of `frames` frames in system memory, the
// default model; a JSON log at `log` when given.
std::string pipeline_of(unsigned frames, const std::string& log) {
  const std::string caps = "video/x-raw,format=I420,width=176,height=144,framerate=24/1";
  const std::string count = std::to_string(frames);
  const std::string log_location = log.empty() ? "" : " log-location=\"" + log + "\"";
  return "vmafexact name=v backend=cuda" + log_location +
         " ! fakesink videotestsrc num-buffers=" + count + " ! " + caps +
         " ! v.ref_sink videotestsrc num-buffers=" + count + " pattern=ball ! " + caps +
         " ! v.dist_sink";
}

struct Outcome {
  bool ended = false;        // EOS or an error within the time allowed
  std::string error;         // the error's text and debug, empty at EOS
  std::string error_source;  // the name of the element that posted it
  bool resource_error = false;  // in GST_RESOURCE_ERROR's domain
  unsigned scored_frames = 0;
};

// Runs pipeline_of(frames, log) to EOS or an error, within 60 s; `context`
// (if any) is handed to the element first, as a neighbour or the application
// would. `on_frame` (if any) runs on this thread at each frame message, with
// the count of frames scored so far.
Outcome run(GstCudaContext* context, unsigned frames,
            const std::function<void(unsigned)>& on_frame = nullptr, const std::string& log = "") {
  Outcome outcome;
  GError* parse_error = nullptr;
  ElementPtr pipeline(gst_parse_launch(pipeline_of(frames, log).c_str(), &parse_error));
  if (!pipeline) {
    outcome.ended = true;
    outcome.error =
        std::string("the pipeline does not parse: ") + (parse_error ? parse_error->message : "?");
  }
  g_clear_error(&parse_error);
  if (!pipeline) return outcome;
  if (context) {
    ElementPtr element(gst_bin_get_by_name(GST_BIN(pipeline.get()), "v"));
    GstContext* gst_context = gst_context_new_cuda_context(context);
    gst_element_set_context(element.get(), gst_context);
    gst_context_unref(gst_context);
  }
  GstBus* bus = gst_element_get_bus(pipeline.get());
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  const gint64 deadline = g_get_monotonic_time() + 60 * G_TIME_SPAN_SECOND;
  while (!outcome.ended) {
    const gint64 left = deadline - g_get_monotonic_time();
    if (left <= 0) break;
    GstMessage* message = gst_bus_timed_pop_filtered(
        bus, left * GST_USECOND,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
    if (!message) break;
    switch (GST_MESSAGE_TYPE(message)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_message_has_name(message, "vmafexact-frame")) {
          ++outcome.scored_frames;
          if (on_frame) on_frame(outcome.scored_frames);
        }
        break;
      case GST_MESSAGE_ERROR: {
        GError* error = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_error(message, &error, &debug);
        outcome.error = std::string(error->message) + " | " + (debug ? debug : "");
        outcome.error_source = GST_OBJECT_NAME(GST_MESSAGE_SRC(message));
        outcome.resource_error = error->domain == GST_RESOURCE_ERROR;
        g_error_free(error);
        g_free(debug);
        outcome.ended = true;
        break;
      }
      default:
        outcome.ended = true;
        break;  // EOS
    }
    gst_message_unref(message);
  }
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  gst_object_unref(bus);
  return outcome;
}

// The error of a run that met the fault: the element's, a resource's (the
// device failed, not the video), naming CUDA and saying what to do.
void expect_fault_error(const Outcome& outcome, const char* when) {
  EXPECT_EQ(outcome.error_source, "v") << when << ": " << outcome.error;
  EXPECT_TRUE(outcome.resource_error) << when << ": not a resource error: " << outcome.error;
  EXPECT_NE(outcome.error.find("CUDA"), std::string::npos) << when << ": " << outcome.error;
  EXPECT_NE(outcome.error.find("restart the process"), std::string::npos)
      << when << ": the error does not say what to do: " << outcome.error;
  std::printf("[cuda fault] %s: %s\n", when, outcome.error.c_str());
}

TEST(CudaFault, AFaultedContextEndsTheStreamWithAnErrorAndALaterStartNeverHangs) {
  if (!gst_cuda_load_library()) GTEST_SKIP() << "no CUDA driver";
  CudaContextPtr context(gst_cuda_context_new(0));
  if (!context) GTEST_SKIP() << "no usable CUDA device";

  // The same pipeline and context first, healthy: it scores every frame on
  // the GPU, so what fails later fails because of the fault.
  {
    ElementInfoLog log;
    const Outcome healthy = run(context.get(), 12);
    ASSERT_TRUE(healthy.ended) << "the healthy run did not end within 60 s";
    ASSERT_EQ(healthy.error, "");
    EXPECT_EQ(healthy.scored_frames, 12u);
    bool on_gpu = false;
    for (const auto& line : log.finish())
      on_gpu |= line.find("scoring on the GPU (CUDA)") != std::string::npos;
    ASSERT_TRUE(on_gpu) << "the element did not score on the GPU";
  }

  // The fault while frames flow: made from this thread after the third
  // frame's scores, in the context the element is scoring with. The stream
  // ends with the element's error, long before its last frame, and the log
  // keeps the frames scored before it, as a monitor's must.
  constexpr unsigned kLongRun = 5000;
  int fault = CUDA_SUCCESS;
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("vmafexact-cuda-fault-" + std::to_string(::getpid()) + ".json"))
                              .string();
  const Outcome midstream = run(
      context.get(), kLongRun,
      [&](unsigned scored) {
        if (scored == 3) fault = poison(context.get());
      },
      log);
  ASSERT_EQ(fault, CUDA_ERROR_ILLEGAL_ADDRESS) << "the poison kernel did not fault as meant";
  ASSERT_TRUE(midstream.ended) << "the element hung after a fault in mid-stream";
  expect_fault_error(midstream, "fault in mid-stream");
  EXPECT_GE(midstream.scored_frames, 3u);
  EXPECT_LT(midstream.scored_frames, kLongRun) << "scores were posted after the fault";
  std::printf("[cuda fault] fault in mid-stream: %u of %u frames scored\n", midstream.scored_frames,
              kLongRun);
  {
    std::ifstream file(log);
    ASSERT_TRUE(file) << "no log after the fault: " << log;
    const auto json = nlohmann::json::parse(file, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << "the log after the fault is not JSON";
    ASSERT_TRUE(json.contains("frames"));
    EXPECT_EQ(json["frames"].size(), midstream.scored_frames)
        << "the log does not hold the frames whose scores were posted";
    std::printf("[cuda fault] the log after the fault holds %zu frames\n", json["frames"].size());
  }
  std::filesystem::remove(log);

  // The faulted context handed to the element at start: its error, no scores.
  const Outcome faulted = run(context.get(), 12);
  ASSERT_TRUE(faulted.ended) << "the element hung on a faulted context";
  expect_fault_error(faulted, "faulted context at start");
  EXPECT_EQ(faulted.scored_frames, 0u);

  // A start with a context of the element's own: CUDA may be spoilt for the
  // whole process, so a clear error is as good as scores; a hang is not.
  context.reset();
  const Outcome later = run(nullptr, 12);
  ASSERT_TRUE(later.ended) << "the element hung when started after the fault";
  if (later.error.empty()) {
    EXPECT_EQ(later.scored_frames, 12u);
    std::printf("[cuda fault] later start: scored %u frames\n", later.scored_frames);
  } else {
    EXPECT_EQ(later.error_source, "v") << later.error;
    EXPECT_NE(later.error.find("CUDA"), std::string::npos) << later.error;
    EXPECT_EQ(later.scored_frames, 0u);
    std::printf("[cuda fault] later start: %s\n", later.error.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
