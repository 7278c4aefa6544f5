// vmafexact-gst-bench: frames per second of the vmafexact element inside a
// GStreamer pipeline whose frames are already in memory, replayed through two
// appsrcs into vmafexact and fakesink, so that neither a file source, a parser
// nor the start of a process limits the figure. Set beside vmafexact-bench on
// the same frames, it is what the element itself costs over its scorer: pads,
// pairing, the scoring session, the streaming threads beside the scorer's.
//
//   GST_PLUGIN_PATH=build/gst vmafexact-gst-bench [--yuv REF DIST] [--size WxH]
//       [--format I420|I420_10LE|...] [--frames N] [--distinct N] [--threads N]
//       [--backend cpu|cuda|auto] [--model NAME]
//
// --yuv: system memory; the first --distinct frames (default: all of --frames
// that the files hold) of two raw, tightly packed files of --format (default
// I420; GStreamer's or ffmpeg's names), read once and cycled. Without it (CUDA
// builds): frames already in CUDA memory, as behind a hardware decoder: 8
// frames of videotestsrc uploaded once with cudaupload. The time runs from
// PLAYING to the EOS message: the session's construction at the first caps is
// in it, gst_init and the reading of the files are not. Over the same span it
// prints the process's CPU time (user and system, the feeders' threads
// included) and the cores it kept busy. Defaults: 1920x1080, 2000 frames,
// backend cuda without --yuv and cpu with it, threads 0 (the element's
// default), model vmaf_v0.6.1.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#ifdef VMAFEXACT_GST_BENCH_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "gst_handles.h"
#include "process_cpu.h"
#include "support/raw_video.h"

namespace {

using vmafexact::gst::BufferPtr;
using vmafexact::gst::CapsPtr;
using vmafexact::gst::ErrorPtr;
using vmafexact::gst::GstObjectPtr;
using vmafexact::gst::MessagePtr;

struct Options {
  unsigned width = 1920, height = 1080, frames = 2000, distinct = 0, threads = 0;
  std::string format = "I420", backend, model = "vmaf_v0.6.1";
  std::string ref_path, dist_path;
};

// The frames each input replays, and their caps.
struct Frames {
  std::vector<BufferPtr> ref, dist;
  CapsPtr caps;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "vmafexact-gst-bench: %s\n", message.c_str());
  std::exit(1);
}

// A bad command line exits 2, as vmafexact-bench's does.
[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "vmafexact-gst-bench: %s (usage: the comment at the top of tests/bench/gst_bench.cpp)\n",
               message.c_str());
  std::exit(2);
}

unsigned count_of(const std::string& arg, const std::string& value) {
  try {
    return vmafexact::bench::count_of(value);
  } catch (const std::logic_error&) {
    usage_error(arg + " takes a count, not " + value);
  }
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--size") {
      const std::string size = value();
      if (std::sscanf(size.c_str(), "%ux%u", &options.width, &options.height) != 2)
        usage_error("--size takes WxH, not " + size);
    } else if (arg == "--format") {
      options.format = value();
    } else if (arg == "--frames") {
      options.frames = count_of(arg, value());
    } else if (arg == "--distinct") {
      options.distinct = count_of(arg, value());
    } else if (arg == "--threads") {
      options.threads = count_of(arg, value());
    } else if (arg == "--backend") {
      options.backend = value();
    } else if (arg == "--model") {
      options.model = value();
    } else if (arg == "--yuv") {
      options.ref_path = value();
      options.dist_path = value();
    } else {
      usage_error("unknown argument " + arg);
    }
  }
  if (options.backend.empty()) options.backend = options.ref_path.empty() ? "cuda" : "cpu";
  return options;
}

GstVideoInfo video_info_of(const Options& options) {
  const GstVideoFormat format = vmafexact::tools::raw_format_from_name(options.format);
  if (format == GST_VIDEO_FORMAT_UNKNOWN)
    fail("unknown --format " + options.format + " (formats: " +
         vmafexact::tools::raw_format_names() + ")");
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, options.width, options.height);
  GST_VIDEO_INFO_FPS_N(&info) = 25;
  GST_VIDEO_INFO_FPS_D(&info) = 1;
  return info;
}

// Up to `count` frames of a raw file, tightly packed as ffmpeg and libvmaf's
// tools write them; each buffer carries that layout as its video meta (as
// rawvideoparse given the layout does), since GStreamer's default pads rows.
std::vector<BufferPtr> read_frames(const std::string& path, const GstVideoInfo& info,
                                   unsigned count) {
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  const auto layout = vmafexact::tools::packed_layout(format, GST_VIDEO_INFO_WIDTH(&info),
                                                         GST_VIDEO_INFO_HEIGHT(&info));
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  for (std::size_t p = 0; p < layout.strides.size(); ++p) {
    offsets[p] = layout.offsets[p];
    strides[p] = static_cast<gint>(layout.strides[p]);
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) fail("cannot open " + path);
  std::vector<BufferPtr> frames;
  const gsize size = layout.frame_size;
  while (frames.size() < count) {
    BufferPtr buffer(gst_buffer_new_allocate(nullptr, size, nullptr));
    GstMapInfo map;
    gst_buffer_map(buffer.get(), &map, GST_MAP_WRITE);
    file.read(reinterpret_cast<char*>(map.data), static_cast<std::streamsize>(size));
    const bool whole = file.gcount() == static_cast<std::streamsize>(size);
    gst_buffer_unmap(buffer.get(), &map);
    if (!whole) break;
    gst_buffer_add_video_meta_full(buffer.get(), GST_VIDEO_FRAME_FLAG_NONE, format,
                                   GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                   static_cast<guint>(layout.strides.size()), offsets, strides);
    frames.push_back(std::move(buffer));
  }
  if (frames.empty()) fail(path + " holds no whole frame of " + std::to_string(size) + " bytes");
  return frames;
}

Frames frames_from_files(const Options& options) {
  GstVideoInfo info = video_info_of(options);
  const unsigned count = options.distinct ? options.distinct : options.frames;
  Frames frames;
  frames.ref = read_frames(options.ref_path, info, count);
  frames.dist = read_frames(options.dist_path, info, count);
  const std::size_t common = std::min(frames.ref.size(), frames.dist.size());
  frames.ref.resize(common);
  frames.dist.resize(common);
  frames.caps.reset(gst_video_info_to_caps(&info));
  return frames;
}

#ifdef VMAFEXACT_GST_BENCH_CUDA
Frames frames_in_cuda_memory(const Options& options) {
  const std::string description =
      "videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=" + options.format +
      ",width=" + std::to_string(options.width) + ",height=" + std::to_string(options.height) +
      ",framerate=60/1 ! cudaupload ! video/x-raw(memory:CUDAMemory) ! appsink name=out sync=false";
  GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), nullptr));
  if (!pipeline) fail("cannot build " + description);
  GstObjectPtr<GstElement> sink(gst_bin_get_by_name(GST_BIN(pipeline.get()), "out"));
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  Frames frames;
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink.get()))) {
    frames.ref.emplace_back(gst_buffer_ref(gst_sample_get_buffer(sample)));
    if (!frames.caps) frames.caps.reset(gst_caps_ref(gst_sample_get_caps(sample)));
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  if (frames.ref.size() < 2 || !frames.caps)
    fail("could not upload frames (no cudaupload or no device)");
  // The distorted input replays the same frames, one further on.
  for (std::size_t i = 0; i < frames.ref.size(); ++i)
    frames.dist.emplace_back(gst_buffer_ref(frames.ref[(i + 1) % frames.ref.size()].get()));
  return frames;
}
#endif

// Pushes `count` frames, cycling through `buffers` (each push shares the
// memory of a held frame), then EOS.
void feed(GstElement* src, const std::vector<BufferPtr>& buffers, unsigned count) {
  const GstClockTime duration = GST_SECOND / 25;
  for (unsigned i = 0; i < count; ++i) {
    GstBuffer* buffer = gst_buffer_copy(buffers[i % buffers.size()].get());
    GST_BUFFER_PTS(buffer) = i * duration;
    GST_BUFFER_DURATION(buffer) = duration;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  const Options options = parse_options(argc, argv);
  Frames frames;
  if (!options.ref_path.empty()) {
    frames = frames_from_files(options);
  } else {
#ifdef VMAFEXACT_GST_BENCH_CUDA
    frames = frames_in_cuda_memory(options);
#else
    fail("--yuv REF DIST is needed: this build has no CUDA");
#endif
  }

  const std::string description =
      "appsrc name=ref format=time is-live=false block=true max-bytes=0 max-buffers=4 ! v.ref_sink "
      "appsrc name=dist format=time is-live=false block=true max-bytes=0 max-buffers=4 ! v.dist_sink "
      "vmafexact name=v frame-message=false model=\"" + options.model + "\" backend=" +
      options.backend + " threads=" + std::to_string(options.threads) + " ! fakesink sync=false";
  GError* parse_error = nullptr;
  GstObjectPtr<GstElement> pipeline(gst_parse_launch(description.c_str(), &parse_error));
  if (parse_error) {
    ErrorPtr error(parse_error);
    fail(std::string(error->message) + " (is GST_PLUGIN_PATH set to the build's gst folder?)");
  }
  GstObjectPtr<GstElement> ref(gst_bin_get_by_name(GST_BIN(pipeline.get()), "ref"));
  GstObjectPtr<GstElement> dist(gst_bin_get_by_name(GST_BIN(pipeline.get()), "dist"));
  g_object_set(ref.get(), "caps", frames.caps.get(), nullptr);
  g_object_set(dist.get(), "caps", frames.caps.get(), nullptr);
#ifdef VMAFEXACT_GST_BENCH_CUDA
  if (GstMemory* memory = gst_buffer_peek_memory(frames.ref[0].get(), 0);
      gst_is_cuda_memory(memory)) {
    // The frames' CUDA context, as a decoder upstream would share it.
    GstObjectPtr<GstElement> element(gst_bin_get_by_name(GST_BIN(pipeline.get()), "v"));
    GstContext* context = gst_context_new_cuda_context(GST_CUDA_MEMORY_CAST(memory)->context);
    gst_element_set_context(element.get(), context);
    gst_context_unref(context);
  }
#endif

  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline.get()));
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = vmafexact::bench::process_cpu_seconds();
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  std::thread ref_feeder(feed, ref.get(), std::cref(frames.ref), options.frames);
  std::thread dist_feeder(feed, dist.get(), std::cref(frames.dist), options.frames);
  MessagePtr message(gst_bus_timed_pop_filtered(
      bus.get(), GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = vmafexact::bench::process_cpu_seconds() - cpu_start;
  int status = 0;
  if (GST_MESSAGE_TYPE(message.get()) == GST_MESSAGE_ERROR) {
    GError* error = nullptr;
    gst_message_parse_error(message.get(), &error, nullptr);
    ErrorPtr owned(error);
    std::fprintf(stderr, "vmafexact-gst-bench: %s\n", owned->message);
    status = 1;
  } else {
    const bool cuda_memory = options.ref_path.empty();
    std::printf("gst pipeline, frames in %s memory (%zu distinct), vmafexact backend=%s threads=%u "
                "model=%s %ux%u %s: %.1f fps (%u frames); CPU %.3f s, %.2f cores busy\n",
                cuda_memory ? "CUDA" : "system", frames.ref.size(), options.backend.c_str(),
                options.threads, options.model.c_str(), options.width, options.height,
                options.format.c_str(), options.frames / seconds, options.frames, cpu_seconds,
                cpu_seconds / seconds);
  }
  // Setting NULL unblocks a feeder that an error left waiting in its appsrc.
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  ref_feeder.join();
  dist_feeder.join();
  return status;
}
