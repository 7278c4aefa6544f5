// vmafexact-gst-bench: frames per second of the vmafexact element in a
// GStreamer pipeline whose frames are already in CUDA memory, as behind a
// hardware decoder: a few frames are uploaded once (cudaupload into an
// appsink), then replayed through two appsrcs into vmafexact, so that neither
// a software source nor the upload limits the figure.
//
//   GST_PLUGIN_PATH=build/gst vmafexact-gst-bench [--size WxH] [--format I420|I420_10LE]
//                                                [--frames N] [--backend cuda|cpu]
//                                                [--model NAME]   (default vmaf_v0.6.1)
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  unsigned width = 1920, height = 1080, frames = 2000;
  std::string format = "I420", backend = "cuda";
  std::string model = "vmaf_v0.6.1";
};

std::vector<GstBuffer*> upload_frames(const Options& options, unsigned count, GstCaps** caps_out) {
  const std::string description =
      "videotestsrc num-buffers=" + std::to_string(count) +
      " pattern=ball ! video/x-raw,format=" + options.format + ",width=" +
      std::to_string(options.width) + ",height=" + std::to_string(options.height) +
      ",framerate=60/1 ! cudaupload ! video/x-raw(memory:CUDAMemory) ! appsink name=out sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<GstBuffer*> buffers;
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    buffers.push_back(gst_buffer_ref(gst_sample_get_buffer(sample)));
    if (!*caps_out) *caps_out = gst_caps_ref(gst_sample_get_caps(sample));
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return buffers;
}

void feed(GstElement* src, const std::vector<GstBuffer*>& buffers, unsigned offset, unsigned frames) {
  const GstClockTime duration = GST_SECOND / 60;
  for (unsigned i = 0; i < frames; ++i) {
    GstBuffer* buffer = gst_buffer_copy(buffers[(i + offset) % buffers.size()]);  // shares the memory
    GST_BUFFER_PTS(buffer) = i * duration;
    GST_BUFFER_DURATION(buffer) = duration;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--size") std::sscanf(value.c_str(), "%ux%u", &options.width, &options.height);
    else if (arg == "--format") options.format = value;
    else if (arg == "--frames") options.frames = static_cast<unsigned>(std::stoul(value));
    else if (arg == "--backend") options.backend = value;
    else if (arg == "--model") options.model = value;
  }
  GstCaps* caps = nullptr;
  const auto buffers = upload_frames(options, 8, &caps);
  if (buffers.size() < 2 || !caps) {
    std::fprintf(stderr, "vmafexact-gst-bench: could not upload frames (no cudaupload or no device)\n");
    return 1;
  }
  GstCudaContext* context = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(buffers[0], 0))->context;

  const std::string description =
      "appsrc name=ref format=time is-live=false block=true max-bytes=0 max-buffers=4 ! v.ref_sink "
      "appsrc name=dist format=time is-live=false block=true max-bytes=0 max-buffers=4 ! v.dist_sink "
      "vmafexact name=v frame-message=false model=\"" + options.model + "\" backend=" + options.backend +
      " ! fakesink sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  GstElement* ref = gst_bin_get_by_name(GST_BIN(pipeline), "ref");
  GstElement* dist = gst_bin_get_by_name(GST_BIN(pipeline), "dist");
  GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  g_object_set(ref, "caps", caps, nullptr);
  g_object_set(dist, "caps", caps, nullptr);
  // The frames' CUDA context, as a decoder upstream would share it.
  GstContext* gst_context = gst_context_new_cuda_context(context);
  gst_element_set_context(element, gst_context);
  gst_context_unref(gst_context);

  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  const auto start = std::chrono::steady_clock::now();
  std::thread ref_feeder(feed, ref, std::cref(buffers), 0u, options.frames);
  std::thread dist_feeder(feed, dist, std::cref(buffers), 1u, options.frames);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ref_feeder.join();
  dist_feeder.join();
  int status = 0;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    std::fprintf(stderr, "vmafexact-gst-bench: %s\n", error->message);
    g_error_free(error);
    status = 1;
  } else {
    std::printf("gst pipeline, frames in CUDA memory, vmafexact backend=%s model=%s %ux%u %s: %.1f fps (%u frames)\n",
                options.backend.c_str(), options.model.c_str(), options.width, options.height,
                options.format.c_str(), options.frames / seconds, options.frames);
  }
  gst_message_unref(message);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(element);
  gst_object_unref(ref);
  gst_object_unref(dist);
  gst_object_unref(pipeline);
  for (GstBuffer* buffer : buffers) gst_buffer_unref(buffer);
  gst_caps_unref(caps);
  return status;
}
