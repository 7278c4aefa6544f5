#include "channel_pipeline.h"

#include <gst/video/video.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/conform.h"
#include "support/decoded_video.h"
#include "support/nvdec.h"

namespace vmafexact::monitor_tool {

namespace {

using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GstObjectPtr;

// A URI as given, or a path turned into a file:// URI.
std::string uri_of(const std::string& text, const char* option) {
  if (gst_uri_is_valid(text.c_str())) return text;
  GError* raw_error = nullptr;
  GCharPtr uri(gst_filename_to_uri(text.c_str(), &raw_error));
  ErrorPtr error(raw_error);
  if (!uri || !g_file_test(text.c_str(), G_FILE_TEST_EXISTS))
    throw PipelineError("the " + std::string(option) + " input '" + text +
                        "' is neither a URI (scheme://...) nor an existing file; give a URI "
                        "such as srt://HOST:PORT or udp://@GROUP:PORT, or the path of a file.");
  return uri.get();
}

GstObjectPtr<GstElement> make(const char* factory, const std::string& name, const char* package) {
  auto element = tools::make_element(factory, name.c_str());
  if (!element)
    throw PipelineError(std::string("GStreamer's ") + factory + " element is missing; install " +
                        package + ".");
  return element;
}

// Adds `element` to `bin`, which then holds it; returns it for linking.
GstElement* add(GstElement* bin, const GstObjectPtr<GstElement>& element) {
  gst_bin_add(GST_BIN(bin), element.get());
  return element.get();
}

ChannelPipeline build_from_description(const std::string& description) {
  GError* raw_error = nullptr;
  GstElement* parsed =
      gst_parse_launch_full(description.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw_error);
  ErrorPtr error(raw_error);
  ChannelPipeline built;
  if (parsed) built.pipeline.reset(static_cast<GstElement*>(gst_object_ref_sink(parsed)));
  if (!parsed || error)
    throw PipelineError(std::string("could not build the pipeline: ") +
                        (error ? error->message : "unknown error") +
                        "; check the description with gst-launch-1.0.");
  if (!GST_IS_BIN(built.pipeline.get()))
    throw PipelineError(
        "the pipeline has no vmafexact element named v; write the element as 'vmafexact name=v'.");
  built.vmafexact.reset(gst_bin_get_by_name(GST_BIN(built.pipeline.get()), "v"));
  if (!built.vmafexact)
    throw PipelineError(
        "the pipeline has no element named v; write the element as 'vmafexact name=v'.");
  GstElementFactory* factory = gst_element_get_factory(built.vmafexact.get());
  if (!factory || std::string_view(GST_OBJECT_NAME(factory)) != "vmafexact")
    throw PipelineError(
        std::string("the element named v is a ") + (factory ? GST_OBJECT_NAME(factory) : "?") +
        ", not a vmafexact; name the vmafexact element v and the others otherwise.");
  return built;
}

// The inputs of a channel are live: their caps are known only when they
// arrive. The distorted input is brought to the reference as the vmafexact
// tool does (support/conform.h), with what each one's decoded caps say:
//
//   ref:  uridecodebin ! queue ! videoconvert ! capsfilter(F, ref's colorimetry) ! v.ref_sink
//   dist: uridecodebin ! queue [! scaler] ! videoconvert
//           ! capsfilter(F or gray, ref's size, dist's colorimetry) ! v.dist_sink
//
// F: the reference's scoring format. The dist's caps are held at its queue
// (a blocking probe) until the reference's caps are known; the scaler
// (vmafexactscale flags=scale-flags, or videoscale where it is missing) is
// linked in when the sizes differ. A later caps change on the dist conforms
// again (a scaler linked in if needed); on the reference, a change of size or
// scoring format is an error (the element cannot pool scores across them).
//
// Frames NVDEC decoded into CUDA memory (NV12, P010_10LE: they score as the
// CPU decoder's I420, I420_10LE do) stay there where nothing needs converting:
//   ref:  ... ! queue ! capsfilter(CUDAMemory, NVDEC's format) ! v.ref_sink
//   dist: ... ! queue ! capsfilter(CUDAMemory, NVDEC's format) ! v.dist_sink
// the dist only when, at its first caps, it has the reference's size and its
// CPU format is the reference's scoring format; else it is downloaded first:
//   dist: ... ! queue ! cudadownload ! videoconvert ! capsfilter(I420|I420_10LE)
//           [! scaler] ! videoconvert ! capsfilter(...) ! v.dist_sink
// (the frames the CPU's decoder gives, so scores equal backend=cpu's). A dist
// kept on the GPU that later changes size or format (an ABR switch) is an
// error: a station's channel (--config) is restarted, and chooses again on
// the new first caps (downloaded and scaled at another size).
enum class DistPath {
  kUndecided,  // before the reference's and the dist's first caps
  kSystem,     // system memory from its decoder: converted (and scaled) as on the CPU
  kResident,   // CUDA memory straight to the element
  kDownload,   // CUDA memory downloaded, then as kSystem
};

struct LiveConform {
  tools::ScalerChoice scaler_choice;
  std::string dist_name;
  // Owned by the pipeline, which outlives the probes that use them.
  GstElement* pipeline = nullptr;
  GstElement* ref_filter = nullptr;
  GstElement* ref_convert = nullptr;  // until bypassed for CUDA memory
  GstPad* ref_pad = nullptr;          // ref_queue's src pad
  GstElement* dist_queue = nullptr;
  GstElement* dist_convert = nullptr;
  GstElement* dist_filter = nullptr;
  GstPad* dist_pad = nullptr;   // dist_queue's src pad, where the dist is held
  GstPad* dist_tail = nullptr;  // the pad linked to dist_convert (dist_pad, or the download's)

  std::mutex mutex;  // the two inputs' streaming threads
  gulong hold = 0;   // the blocking probe on dist_pad, until the reference's caps are known
  bool ref_known = false;
  bool ref_resident = false;  // the reference's frames reach the element in CUDA memory
  int ref_width = 0, ref_height = 0;
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;  // the reference's scoring format
  std::string ref_text;                              // "640x360 I420", for messages
  tools::CapsPtr dist_caps;                          // the dist's decoded caps, once known
  std::string resident_text;  // the dist's "1920x1080 NV12" when kept on the GPU
  bool scaler_linked = false;
  DistPath dist_path = DistPath::kUndecided;
};

// A LiveConform shared by the probes (each holds a reference, released with
// the probe).
gpointer share(const std::shared_ptr<LiveConform>& conform) {
  return std::make_unique<std::shared_ptr<LiveConform>>(conform).release();
}
void release_shared(gpointer data) {
  std::unique_ptr<std::shared_ptr<LiveConform>> owned(
      static_cast<std::shared_ptr<LiveConform>*>(data));
}
LiveConform& conform_of(gpointer data) {
  return **static_cast<std::shared_ptr<LiveConform>*>(data);
}

std::string video_text(const GstVideoInfo& info) {
  return std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
         std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + " " + GST_VIDEO_INFO_NAME(&info);
}

void post_error(GstElement* element, const std::string& problem, const std::string& fix) {
  GError* error = g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "%s", problem.c_str());
  gst_element_post_message(element, gst_message_new_error(GST_OBJECT(element), error, fix.c_str()));
  g_error_free(error);
}

bool is_cuda_memory(const GstCaps* caps) {
  const GstCapsFeatures* features =
      caps && !gst_caps_is_empty(caps) ? gst_caps_get_features(caps, 0) : nullptr;
  return features && gst_caps_features_contains(features, "memory:CUDAMemory");
}

// video/x-raw(memory:CUDAMemory) in `format`: what a branch kept on the GPU ends in.
tools::CapsPtr cuda_caps_of(GstVideoFormat format) {
  tools::CapsPtr caps = tools::cuda_memory_caps();
  gst_caps_set_simple(caps.get(), "format", G_TYPE_STRING, gst_video_format_to_string(format),
                      nullptr);
  return caps;
}

// Takes `convert` out of its branch: `from` (the queue's src pad) linked
// straight to `filter`. In a probe on `from`, before anything but sticky
// events went through. False after posting the error.
bool bypass_convert(GstElement* pipeline, GstPad* from, GstElement* convert, GstElement* filter) {
  GstObjectPtr<GstPad> convert_sink(gst_element_get_static_pad(convert, "sink"));
  GstObjectPtr<GstPad> filter_sink(gst_element_get_static_pad(filter, "sink"));
  gst_pad_unlink(from, convert_sink.get());
  GstObjectPtr<GstElement> removed(static_cast<GstElement*>(gst_object_ref(convert)));
  gst_element_unlink(convert, filter);
  gst_bin_remove(GST_BIN(pipeline), convert);
  gst_element_set_state(removed.get(), GST_STATE_NULL);
  if (GST_PAD_LINK_FAILED(gst_pad_link(from, filter_sink.get()))) {
    post_error(filter, "could not link the decoder's CUDA memory to vmafexact",
               "Set backend=cpu for this channel (--set backend=cpu).");
    return false;
  }
  return true;
}

// The dist's CUDA memory downloaded into `cpu_format` (the CPU decoder's)
// between its queue and videoconvert. With the mutex held, in the dist's
// probe. False after posting the error.
bool link_download(LiveConform& conform, GstVideoFormat cpu_format) {
  tools::DownloadChain chain =
      tools::add_download_chain(GST_BIN(conform.pipeline), cpu_format, conform.dist_caps.get(), "");
  if (!chain.missing.empty()) {
    post_error(conform.dist_filter, "GStreamer's " + chain.missing + " element is missing",
               "Set backend=cpu for this channel, or install " + chain.missing_package + ".");
    return false;
  }
  GstObjectPtr<GstPad> convert_sink(gst_element_get_static_pad(conform.dist_convert, "sink"));
  gst_pad_unlink(conform.dist_pad, convert_sink.get());
  GstObjectPtr<GstPad> first(gst_element_get_static_pad(chain.download.get(), "sink"));
  GstObjectPtr<GstPad> last(gst_element_get_static_pad(chain.filter.get(), "src"));
  const bool linked =
      chain.linked && !GST_PAD_LINK_FAILED(gst_pad_link(last.get(), convert_sink.get()));
  for (GstElement* element : {chain.filter.get(), chain.repack.get(), chain.download.get()})
    gst_element_sync_state_with_parent(element);
  if (!linked || GST_PAD_LINK_FAILED(gst_pad_link(conform.dist_pad, first.get()))) {
    post_error(conform.dist_filter, "could not link cudadownload into the distorted input's branch",
               "Set backend=cpu for this channel (--set backend=cpu).");
    return false;
  }
  conform.dist_tail = last.get();  // the capsfilter, in the pipeline, holds it
  return true;
}

// Links the scaler in before the dist's videoconvert. Called with
// the mutex held, while nothing flows on dist_pad (held, or in its own probe
// before the caps event goes on). False after posting the error.
bool link_scaler(LiveConform& conform) {
  auto scaler = tools::make_scaler(conform.scaler_choice, "dist_scale");
  if (!scaler) {
    post_error(conform.dist_filter,
               "the distorted input is " + conform.dist_name +
                   " of another size than the reference, and neither vmafexactscale nor "
                   "videoscale is installed to scale it",
               "Install the project's plugin and gstreamer1.0-plugins-base.");
    return false;
  }
  GstObjectPtr<GstPad> convert_sink(gst_element_get_static_pad(conform.dist_convert, "sink"));
  GstObjectPtr<GstPad> scaler_sink(gst_element_get_static_pad(scaler.get(), "sink"));
  GstObjectPtr<GstPad> scaler_src(gst_element_get_static_pad(scaler.get(), "src"));
  gst_bin_add(GST_BIN(conform.pipeline), scaler.get());
  gst_pad_unlink(conform.dist_tail, convert_sink.get());
  if (GST_PAD_LINK_FAILED(gst_pad_link(conform.dist_tail, scaler_sink.get())) ||
      GST_PAD_LINK_FAILED(gst_pad_link(scaler_src.get(), convert_sink.get()))) {
    post_error(conform.dist_filter, "could not link the scaler into the distorted input's branch",
               "Check the GStreamer installation (gst-inspect-1.0 vmafexactscale).");
    return false;
  }
  gst_element_sync_state_with_parent(scaler.get());
  conform.scaler_linked = true;
  return true;
}

// Sets the dist's capsfilter to the reference's size and scoring format with
// the dist's own colorimetry, linking the scaler in when the sizes differ.
// With the mutex held, the reference's and the dist's caps known.
void conform_dist(LiveConform& conform) {
  GstVideoInfo dist;
  if (!gst_video_info_from_caps(&dist, conform.dist_caps.get())) return;  // videoconvert says why
  const bool same_size = GST_VIDEO_INFO_WIDTH(&dist) == conform.ref_width &&
                         GST_VIDEO_INFO_HEIGHT(&dist) == conform.ref_height;
  // NVDEC's NV12 and P010 score as the CPU decoder's I420 and I420_10LE.
  const GstVideoFormat cpu_format = tools::scoring_format(GST_VIDEO_INFO_FORMAT(&dist));
  const bool on_gpu = is_cuda_memory(conform.dist_caps.get());
  if (conform.dist_path == DistPath::kUndecided) {
    if (!on_gpu) {
      conform.dist_path = DistPath::kSystem;
    } else if (same_size && cpu_format == conform.format) {
      conform.dist_path = DistPath::kResident;
      if (!bypass_convert(conform.pipeline, conform.dist_pad, conform.dist_convert,
                          conform.dist_filter))
        return;
      conform.dist_convert = nullptr;
      conform.resident_text = video_text(dist);
      // No size here: a later one reaches this probe, which says what changed.
      g_object_set(conform.dist_filter, "caps", cuda_caps_of(GST_VIDEO_INFO_FORMAT(&dist)).get(),
                   nullptr);
      return;
    } else {
      conform.dist_path = DistPath::kDownload;
      if (!link_download(conform, cpu_format)) return;
    }
  }
  if (conform.dist_path == DistPath::kResident) {
    if (on_gpu && same_size && video_text(dist) == conform.resident_text) return;
    post_error(conform.dist_filter,
               "the distorted input " + conform.dist_name + " changed mid-stream from " +
                   conform.resident_text + ", the reference's size, kept in GPU memory, to " +
                   video_text(dist) + (same_size ? "" : ", which needs scaling"),
               "With --config the channel is restarted and chooses again at the new size "
               "(downloaded and scaled on the CPU where it differs from the reference's); or set "
               "backend=cpu for this channel.");
    return;
  }
  if (conform.dist_path == DistPath::kDownload) {
    // Conformed as the CPU decoder's frames, which the download delivers.
    if (!on_gpu) {
      post_error(conform.dist_filter,
                 "the distorted input " + conform.dist_name +
                     " left GPU memory mid-stream; its decoder delivers " + video_text(dist),
                 "Set backend=cpu for this channel (--set backend=cpu).");
      return;
    }
    gst_video_info_set_format(&dist, cpu_format, GST_VIDEO_INFO_WIDTH(&dist),
                              GST_VIDEO_INFO_HEIGHT(&dist));
  }
  std::vector<GstVideoFormat> formats;
  try {
    formats = tools::dist_scoring_formats(conform.format, GST_VIDEO_INFO_FORMAT(&dist),
                                          conform.dist_name);
  } catch (const tools::ConformError& error) {
    post_error(conform.dist_filter, error.what(), error.fix());
    return;
  }
  if (!conform.scaler_linked && !same_size)
    if (!link_scaler(conform)) return;
  tools::CapsPtr target = tools::dist_target_caps(conform.ref_width, conform.ref_height, formats);
  tools::CapsPtr pinned = tools::pin_colour(target.get(), conform.dist_caps.get());
  g_object_set(conform.dist_filter, "caps", pinned ? pinned.get() : target.get(), nullptr);
}

// On the reference's decoded caps (ref queue's src pad): its capsfilter to
// its scoring format with its own colorimetry; then the dist conformed to it
// and let go.
GstPadProbeReturn ref_caps_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
  LiveConform& conform = conform_of(data);
  GstCaps* decoded = nullptr;
  gst_event_parse_caps(event, &decoded);
  GstVideoInfo ref;
  if (!gst_video_info_from_caps(&ref, decoded)) return GST_PAD_PROBE_OK;  // videoconvert says why
  const GstVideoFormat format = tools::scoring_format(GST_VIDEO_INFO_FORMAT(&ref));
  const bool resident = is_cuda_memory(decoded);
  gulong hold = 0;
  {
    std::lock_guard lock(conform.mutex);
    if (conform.ref_known && (GST_VIDEO_INFO_WIDTH(&ref) != conform.ref_width ||
                              GST_VIDEO_INFO_HEIGHT(&ref) != conform.ref_height ||
                              format != conform.format || resident != conform.ref_resident)) {
      // The element refuses it too; this says which input changed and how.
      post_error(conform.ref_filter,
                 "the reference changed mid-stream from " + conform.ref_text + " to " +
                     video_text(ref) + "; scores cannot be pooled across picture sizes or formats",
                 "Give the reference at one size and format; with --config the channel is "
                 "restarted and scores the new one.");
      return GST_PAD_PROBE_OK;
    }
    if (resident) {
      // NVDEC's frames as they are: nothing to convert.
      if (!conform.ref_known && !bypass_convert(conform.pipeline, conform.ref_pad,
                                                conform.ref_convert, conform.ref_filter))
        return GST_PAD_PROBE_OK;
      g_object_set(conform.ref_filter, "caps", cuda_caps_of(GST_VIDEO_INFO_FORMAT(&ref)).get(),
                   nullptr);
    } else {
      tools::CapsPtr target(gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                                gst_video_format_to_string(format), nullptr));
      tools::CapsPtr pinned = tools::pin_colour(target.get(), decoded);
      g_object_set(conform.ref_filter, "caps", pinned ? pinned.get() : target.get(), nullptr);
    }
    conform.ref_resident = resident;
    conform.ref_known = true;
    conform.ref_width = GST_VIDEO_INFO_WIDTH(&ref);
    conform.ref_height = GST_VIDEO_INFO_HEIGHT(&ref);
    conform.format = format;
    conform.ref_text = video_text(ref);
    if (conform.dist_caps) conform_dist(conform);
    hold = std::exchange(conform.hold, 0);
  }
  if (hold) gst_pad_remove_probe(conform.dist_pad, hold);
  return GST_PAD_PROBE_OK;
}

// The dist's decoded caps (dist queue's src pad), kept; conformed at once when
// the reference's are known. Whether they are.
bool take_dist_caps(LiveConform& conform, GstEvent* event) {
  GstCaps* decoded = nullptr;
  gst_event_parse_caps(event, &decoded);
  std::lock_guard lock(conform.mutex);
  conform.dist_caps.reset(gst_caps_ref(decoded));
  if (conform.ref_known) conform_dist(conform);
  return conform.ref_known;
}

GstPadProbeReturn dist_caps_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) take_dist_caps(conform_of(data), event);
  return GST_PAD_PROBE_OK;
}

// Blocking: the dist's caps wait here until the reference's are known (the
// reference's probe removes this one); anything before them passes. Setting
// the pipeline to NULL flushes the pad, which ends the wait.
GstPadProbeReturn dist_hold_probe(GstPad*, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_PASS;
  return take_dist_caps(conform_of(data), event) ? GST_PAD_PROBE_PASS : GST_PAD_PROBE_OK;
}

// backend=cuda: an input whose codec NVDEC decodes (tools/support/nvdec.h)
// is decoded on the GPU. Its caps are known only as it plays: the
// uridecodebin (told to expose those codecs' compressed streams) hands the
// stream over at pad-added, to its parser and a capsfilter of the packaging
// NVDEC takes; a demuxer's caps do not always say the profile, chroma format
// and bit depth (an MPEG-TS's never do), the parser's do, so the decoder is
// chosen on the capsfilter's first caps, and linked there:
//   uridecodebin ! PARSER ! capsfilter ! NVDEC-DECODER ! queue ...
// (its CUDA memory kept or downloaded as LiveConform decides), or, where
// NVDEC does not take the stream, ! decodebin ! queue (the CPU), with a note
// on standard error.
struct LiveDecoding {
  GstElement* pipeline = nullptr;  // holds the elements below
  GstElement* queue = nullptr;     // the branch's head
  std::string input;               // "channel NAME: the reference URI", for messages
  std::vector<std::string> types;  // media types exposed compressed
  std::mutex mutex;
  bool taken = false;  // a compressed video stream went to its parser
};

// The capsfilter after the parser: the decoder chosen on the first caps; later
// caps must keep the format it was chosen for.
struct LiveChoice {
  GstElement* pipeline = nullptr;
  GstElement* queue = nullptr;
  std::string input;
  bool decided = false;  // on the streaming thread only
  tools::NvdecChoice choice;
};

void release_choice(gpointer data) {
  std::unique_ptr<LiveChoice> owned(static_cast<LiveChoice*>(data));
}

// Adds `chain` (in link order) to `pipeline`, links it, `from` to its first
// element and, where `to`, its last to `to`; brings it to the pipeline's state.
// False after posting an error on `reporter`.
bool plug_chain(GstElement* pipeline, GstElement* reporter, const std::string& input, GstPad* from,
                const std::vector<GstObjectPtr<GstElement>>& chain, GstElement* to) {
  for (const auto& element : chain) gst_bin_add(GST_BIN(pipeline), element.get());
  bool linked = true;
  for (std::size_t i = 1; i < chain.size(); ++i)
    linked = linked && gst_element_link(chain[i - 1].get(), chain[i].get());
  if (to) linked = linked && gst_element_link(chain.back().get(), to);
  for (auto element = chain.rbegin(); element != chain.rend(); ++element)
    gst_element_sync_state_with_parent(element->get());
  GstObjectPtr<GstPad> sink(gst_element_get_static_pad(chain.front().get(), "sink"));
  if (!linked || GST_PAD_LINK_FAILED(gst_pad_link(from, sink.get()))) {
    post_error(reporter, "could not link the decoder of " + input,
               "Set backend=cpu for this channel (--set backend=cpu).");
    return false;
  }
  return true;
}

// The decoder after the parser's capsfilter (`pad`, its src pad), for the
// parsed caps: NVDEC's chain, or a decodebin.
void plug_decoder(LiveChoice& live, GstPad* pad, const GstCaps* parsed) {
  GstObjectPtr<GstElement> filter(gst_pad_get_parent_element(pad));
  live.choice = tools::choose_registered_nvdec(parsed);
  std::vector<GstObjectPtr<GstElement>> chain;
  if (!live.choice.chosen()) {
    g_printerr("vmafexact-monitor: note: %s: %s; decoding on the CPU\n", live.input.c_str(),
               live.choice.why_not.c_str());
    auto cpu = tools::make_element("decodebin", nullptr);
    if (!cpu) {
      post_error(filter.get(), "GStreamer's decodebin is missing",
                 "Install gstreamer1.0-plugins-base.");
      return;
    }
    tools::link_decoded_video(cpu.get(), live.queue);
    chain.push_back(std::move(cpu));
    plug_chain(live.pipeline, filter.get(), live.input, pad, chain, nullptr);
    return;
  }
  auto nvdec = tools::make_element(live.choice.decoder.c_str(), nullptr);
  if (!nvdec) {
    post_error(filter.get(), "GStreamer's " + live.choice.decoder + " element is missing",
               "Set backend=cpu for this channel, or install gstreamer1.0-plugins-bad.");
    return;
  }
  chain.push_back(std::move(nvdec));
  plug_chain(live.pipeline, filter.get(), live.input, pad, chain, live.queue);
}

// The parsed caps at the capsfilter's src pad: the first choose the decoder,
// which is linked before the event goes on; later ones are checked.
GstPadProbeReturn parsed_caps_probe(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
  auto& live = *static_cast<LiveChoice*>(data);
  GstCaps* parsed = nullptr;
  gst_event_parse_caps(event, &parsed);
  if (!live.decided) {
    live.decided = true;
    plug_decoder(live, pad, parsed);
    return GST_PAD_PROBE_OK;
  }
  if (!live.choice.chosen()) return GST_PAD_PROBE_OK;
  const std::string problem = tools::check_parsed_format(live.choice, parsed);
  if (problem.empty()) return GST_PAD_PROBE_OK;
  GstObjectPtr<GstElement> filter(gst_pad_get_parent_element(pad));
  post_error(filter.get(),
             live.input + ": " + problem + "; decoded by " + live.choice.decoder +
                 " it would not score as on the CPU",
             "Set backend=cpu for this channel (--set backend=cpu).");
  return GST_PAD_PROBE_DROP;
}

void decode_live_pad(GstElement* decoder, GstPad* pad, gpointer data) {
  auto& live = *static_cast<LiveDecoding*>(data);
  tools::CapsPtr caps(gst_pad_get_current_caps(pad));
  if (!caps) caps.reset(gst_pad_query_caps(pad, nullptr));
  const GstStructure* s =
      caps && !gst_caps_is_empty(caps.get()) ? gst_caps_get_structure(caps.get(), 0) : nullptr;
  if (!s) return;
  if (gst_structure_has_name(s, "video/x-raw")) {
    tools::link_video_pad(decoder, pad, live.queue);
    return;
  }
  const std::string type = gst_structure_get_name(s);
  if (std::find(live.types.begin(), live.types.end(), type) == live.types.end()) return;
  {
    std::lock_guard lock(live.mutex);
    if (live.taken) return;  // the first video stream only
    live.taken = true;
  }
  std::vector<GstObjectPtr<GstElement>> chain;
  const std::string parser = tools::nvdec_parser_for(type);
  for (const char* factory : {parser.c_str(), "capsfilter"}) {
    if (!*factory) continue;
    auto element = tools::make_element(factory, nullptr);
    if (!element) {
      post_error(decoder, std::string("GStreamer's ") + factory + " element is missing",
                 "Set backend=cpu for this channel, or install gstreamer1.0-plugins-bad.");
      return;
    }
    chain.push_back(std::move(element));
  }
  g_object_set(chain.back().get(), "caps", tools::nvdec_packaging_caps(type).get(), nullptr);
  auto choice = std::make_unique<LiveChoice>();
  choice->pipeline = live.pipeline;
  choice->queue = live.queue;
  choice->input = live.input;
  GstObjectPtr<GstPad> parsed(gst_element_get_static_pad(chain.back().get(), "src"));
  gst_pad_add_probe(parsed.get(), GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, parsed_caps_probe,
                    choice.release(), release_choice);
  plug_chain(live.pipeline, decoder, live.input, pad, chain, nullptr);
}

void check_live_video_found(GstElement* decoder, gpointer data) {
  auto& live = *static_cast<LiveDecoding*>(data);
  {
    std::lock_guard lock(live.mutex);
    if (live.taken) return;  // its decoder, linked later, reaches the queue
  }
  tools::check_video_found(decoder, live.queue);
}

void release_live(gpointer data, GClosure*) {
  std::unique_ptr<LiveDecoding> owned(static_cast<LiveDecoding*>(data));
}

// Connects `decoder` so that NVDEC decodes what it can (see LiveDecoding).
void decode_live(GstElement* pipeline, GstElement* decoder, GstElement* queue, std::string input,
                 const std::vector<std::string>& types) {
  tools::expose_compressed_streams(decoder, types);
  auto live = std::make_unique<LiveDecoding>();
  live->pipeline = pipeline;
  live->queue = queue;
  live->input = std::move(input);
  live->types = types;
  // The pad-added handler owns it; both handlers go with the decoder.
  LiveDecoding* shared = live.release();
  g_signal_connect_data(decoder, "pad-added", G_CALLBACK(decode_live_pad), shared, release_live,
                        GConnectFlags{});
  g_signal_connect(decoder, "no-more-pads", G_CALLBACK(check_live_video_found), shared);
}

ChannelPipeline build_from_uris(const ChannelConfig& channel) {
  const std::string ref_uri = uri_of(channel.ref, "ref");
  const std::string dist_uri = uri_of(channel.dist, "dist");
  if (const std::string problem = tools::sws_flags_problem(channel.scale_flags); !problem.empty())
    throw PipelineError("scale-flags " + channel.scale_flags + ": " + problem +
                        "; write FFmpeg's sws flags, e.g. bicubic or lanczos+accurate_rnd.");
  ChannelPipeline built;
  built.pipeline.reset(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("monitor"))));
  GstElement* pipeline = built.pipeline.get();
  auto vmafexact = tools::make_element("vmafexact", "v");
  if (!vmafexact)
    throw PipelineError(
        "the vmafexact element is not installed; point GStreamer at the build, e.g. "
        "GST_PLUGIN_PATH=$PWD/build/gst, or install the project.");
  auto sink = make("fakesink", "sink", "gstreamer1.0-plugins-base");
  // Scores come as fast as the inputs allow; a live source sets the pace itself.
  g_object_set(sink.get(), "sync", FALSE, nullptr);
  if (!gst_element_link(add(pipeline, vmafexact), add(pipeline, sink)))
    throw PipelineError("could not link vmafexact to fakesink; check the GStreamer installation.");

  // backend=cuda: NVDEC decodes the inputs it can (decode_live).
  bool cuda = false;
  for (const auto& [name, value] : channel.properties)
    if (name == "backend") cuda = value == "cuda";
  const std::vector<std::string> nvdec_types =
      cuda ? tools::nvdec_media_types() : std::vector<std::string>{};
  auto conform = std::make_shared<LiveConform>();
  conform->scaler_choice.flags = channel.scale_flags;
  conform->dist_name = channel.dist;
  conform->pipeline = pipeline;
  const std::pair<const std::string*, const char*> inputs[] = {{&ref_uri, "ref"},
                                                               {&dist_uri, "dist"}};
  for (const auto& [uri, side] : inputs) {
    const std::string prefix = side;
    auto decoder = make("uridecodebin", prefix + "_decoder", "gstreamer1.0-plugins-base");
    auto queue = make("queue", prefix + "_queue", "gstreamer1.0-plugins-base");
    auto convert = make("videoconvert", prefix + "_convert", "gstreamer1.0-plugins-base");
    // No dither: videoconvert converts even between caps that say the same
    // (10-bit caps silent on the colorimetry pinned), and would move samples.
    tools::repack_exactly(convert.get());
    auto filter = make("capsfilter", prefix + "_filter", "gstreamer1.0-plugins-base");
    g_object_set(decoder.get(), "uri", uri->c_str(), nullptr);
    add(pipeline, decoder);
    const std::string pad = prefix + "_sink";
    if (!gst_element_link_many(add(pipeline, queue), add(pipeline, convert), add(pipeline, filter),
                               nullptr) ||
        !gst_element_link_pads(filter.get(), "src", vmafexact.get(), pad.c_str()))
      throw PipelineError("could not link the " + prefix + " branch to vmafexact's " + pad +
                          "; check the GStreamer installation.");
    if (nvdec_types.empty())
      tools::link_decoded_video(decoder.get(), queue.get());
    else
      decode_live(
          pipeline, decoder.get(), queue.get(),
          "channel " + channel.name + ": the " +
              (prefix == "ref" ? "reference " + channel.ref : "distorted input " + channel.dist),
          nvdec_types);
    GstObjectPtr<GstPad> decoded(gst_element_get_static_pad(queue.get(), "src"));
    if (prefix == "ref") {
      conform->ref_filter = filter.get();
      conform->ref_convert = convert.get();
      conform->ref_pad = decoded.get();  // the queue holds it as long as the probes run
      gst_pad_add_probe(decoded.get(), GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, ref_caps_probe,
                        share(conform), release_shared);
    } else {
      conform->dist_queue = queue.get();
      conform->dist_convert = convert.get();
      conform->dist_filter = filter.get();
      conform->dist_pad = decoded.get();  // the queue holds it as long as the probes run
      conform->dist_tail = decoded.get();
      gst_pad_add_probe(decoded.get(), GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, dist_caps_probe,
                        share(conform), release_shared);
      std::lock_guard lock(conform->mutex);
      conform->hold =
          gst_pad_add_probe(decoded.get(),
                            static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BLOCK |
                                                         GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                            dist_hold_probe, share(conform), release_shared);
    }
  }
  built.vmafexact = std::move(vmafexact);
  return built;
}

}  // namespace

ChannelPipeline build_channel_pipeline(const ChannelConfig& channel) {
  if (!channel.pipeline.empty()) return build_from_description(channel.pipeline);
  if (channel.ref.empty() || channel.dist.empty())
    throw PipelineError("channel " + channel.name +
                        " has neither a pipeline nor both inputs; give ref and dist, or pipeline.");
  return build_from_uris(channel);
}

}  // namespace vmafexact::monitor_tool
