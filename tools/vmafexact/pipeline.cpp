#include "pipeline.h"

#include <gst/app/gstappsrc.h>

#include <cmath>

#include "errors.h"
#include "support/decoded_video.h"
#include "support/raw_video.h"
#include "support/y4m.h"

namespace vmafexact::cli {

struct SkippedStart {
  GstClockTime skip = 0;  // running time dropped at the start
  GstSegment segment{};   // the branch's segment, from its SEGMENT event
};

// A y4m input read frame by frame into its appsrc, on the appsrc's streaming
// thread: each frame a buffer of its tightly packed planes with their layout
// as video meta, timestamped from the header's rate.
struct Y4mFeed {
  explicit Y4mFeed(std::shared_ptr<tools::Y4mReader> input_reader)
      : reader(std::move(input_reader)) {
    const tools::Y4mHeader& header = reader->header();
    const tools::RawLayout layout =
        tools::packed_layout(header.format, header.width, header.height);
    planes = static_cast<guint>(layout.offsets.size());
    for (guint plane = 0; plane < planes; ++plane) {
      offsets[plane] = layout.offsets[plane];
      strides[plane] = static_cast<gint>(layout.strides[plane]);
    }
  }
  std::shared_ptr<tools::Y4mReader> reader;  // the one discovery opened
  // The frames' packed layout, as video meta.
  guint planes = 0;
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
};

namespace {

using tools::GstObjectPtr;

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

std::string rate_text(const Fraction& rate) {
  return std::to_string(rate.num) + "/" + std::to_string(rate.den);
}

bool same_rate(const Fraction& a, const Fraction& b) {
  return static_cast<gint64>(a.num) * b.den == static_cast<gint64>(b.num) * a.den;
}

// Drops the buffers of a branch whose running time lies before the skip.
GstPadProbeReturn skip_start(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* skipped = static_cast<SkippedStart*>(data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
    if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT)
      gst_event_copy_segment(event, &skipped->segment);
    return GST_PAD_PROBE_OK;
  }
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const GstClockTime time =
      GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
  const guint64 running_time =
      skipped->segment.format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(time)
          ? gst_segment_to_running_time(&skipped->segment, GST_FORMAT_TIME, time)
          : GST_CLOCK_TIME_NONE;
  // Without a timestamp a frame's place is unknown: it cannot be kept.
  return GST_CLOCK_TIME_IS_VALID(running_time) && running_time >= skipped->skip
             ? GST_PAD_PROBE_OK
             : GST_PAD_PROBE_DROP;
}

// Sets the caps' format field to one format, or to a list of them.
void set_formats(GstCaps* caps, const std::vector<GstVideoFormat>& formats) {
  GValue list = G_VALUE_INIT;
  g_value_init(&list, GST_TYPE_LIST);
  for (const GstVideoFormat format : formats) {
    GValue name = G_VALUE_INIT;
    g_value_init(&name, G_TYPE_STRING);
    g_value_set_static_string(&name, gst_video_format_to_string(format));
    gst_value_list_append_and_take_value(&list, &name);
  }
  GstStructure* structure = gst_caps_get_structure(caps, 0);
  gst_structure_set_value(structure, "format",
                          formats.size() == 1 ? gst_value_list_get_value(&list, 0) : &list);
  g_value_unset(&list);
}

// appsrc wants data: the next frame, or the end of the file, or an error
// naming the file and the frame.
void feed_y4m(GstAppSrc* source, guint, gpointer data) {
  auto* feed = static_cast<Y4mFeed*>(data);
  const tools::Y4mHeader& header = feed->reader->header();
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, header.frame_bytes, nullptr);
  bool read = false;
  std::string failure;
  {
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
      failure = "cannot map a buffer of " + std::to_string(header.frame_bytes) + " bytes";
    } else {
      try {
        read = feed->reader->read_frame(map.data);
      } catch (const tools::Y4mError& error) {
        failure = error.what();
      }
      gst_buffer_unmap(buffer, &map);
    }
  }
  if (!failure.empty() || !read) {
    gst_buffer_unref(buffer);
    if (!failure.empty()) {
      GError* error = g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE, "%s", failure.c_str());
      gst_element_post_message(
          GST_ELEMENT(source),
          gst_message_new_error(GST_OBJECT(source), error,
                                "The y4m file's frames do not follow its header."));
      g_error_free(error);
    }
    gst_app_src_end_of_stream(source);
    return;
  }
  const guint64 index = feed->reader->frames_read() - 1;
  const auto den = static_cast<guint64>(header.fps_den), num = static_cast<guint64>(header.fps_num);
  GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(index, GST_SECOND * den, num);
  GST_BUFFER_DURATION(buffer) =
      gst_util_uint64_scale(index + 1, GST_SECOND * den, num) - GST_BUFFER_PTS(buffer);
  GST_BUFFER_OFFSET(buffer) = index;
  gst_buffer_add_video_meta_full(
      buffer, GST_VIDEO_FRAME_FLAG_NONE, header.format, static_cast<guint>(header.width),
      static_cast<guint>(header.height), feed->planes, feed->offsets, feed->strides);
  gst_app_src_push_buffer(source, buffer);
}

}  // namespace

std::string videoscale_method(const Options& options) {
  return options.scale_method == "ffmpeg" ? "catrom" : options.scale_method;
}

Alignment align(const Options& options, const VideoInput& ref, const VideoInput& dist) {
  Alignment alignment;
  alignment.format = scoring_format(ref);
  alignment.dist_formats = dist_scoring_formats(alignment.format, dist);
  alignment.scale = ref.width != dist.width || ref.height != dist.height;
  if (alignment.scale && options.no_scale)
    throw CliError(kExitNothingToCompare,
                   "the reference is " + size_text(ref.width, ref.height) +
                       " and the distorted video " + size_text(dist.width, dist.height) +
                       ", and --no-scale forbids scaling",
                   "Drop --no-scale to scale the distorted video to " +
                       size_text(ref.width, ref.height) + " (--scale-method picks how).");
  alignment.convert_rate =
      ref.framerate.num > 0 && dist.framerate.num > 0 && !same_rate(ref.framerate, dist.framerate);
  if (alignment.convert_rate && options.no_rate_conversion)
    throw CliError(kExitNothingToCompare,
                   "the reference runs at " + rate_text(ref.framerate) +
                       " frames per second and the distorted video at " +
                       rate_text(dist.framerate) + ", and --no-rate-conversion forbids converting",
                   "Drop --no-rate-conversion to drop or repeat distorted frames to the "
                   "reference's rate, or give both videos the same rate.");
  const auto skip =
      static_cast<GstClockTime>(std::llround(std::fabs(options.dist_delay) * GST_SECOND));
  (options.dist_delay > 0 ? alignment.dist_skip : alignment.ref_skip) = skip;
  return alignment;
}

ScoringPipeline::ScoringPipeline(const Options& options, const VideoInput& ref,
                                 const VideoInput& dist, const Alignment& alignment,
                                 const std::string& log_location, LogFormat log_format)
    : pipeline_(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("vmafexact")))),
      vmafexact_(tools::make_element("vmafexact", "v")) {
  if (!vmafexact_)
    throw CliError(kExitScoring, "the vmafexact GStreamer element is not installed",
                   "Install the project (meson install), or point GStreamer at the built "
                   "plugin: GST_PLUGIN_PATH=/path/to/build/gst.");
  GstElement* v = vmafexact_.get();
  g_object_set(v, "model", options.model.c_str(), "features", options.features.c_str(), "threads",
               static_cast<guint>(options.threads), "subsample",
               static_cast<guint>(options.subsample), nullptr);
  gst_util_set_object_arg(G_OBJECT(v), "backend", options.backend.c_str());
  if (!log_location.empty()) {
    gst_util_set_object_arg(G_OBJECT(v), "log-format", log_format_name(log_format));
    gst_util_set_object_arg(G_OBJECT(v), "log-precision",
                            options.precision == LogPrecision::kMax ? "max" : "default");
    g_object_set(v, "log-location", log_location.c_str(), nullptr);
  }
  auto sink = tools::make_element("fakesink", "sink");
  if (!sink)
    throw CliError(kExitScoring, "GStreamer's fakesink is missing",
                   "Install gstreamer1.0-plugins-base.");
  // As fast as the inputs decode: nothing here is live.
  g_object_set(sink.get(), "sync", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(pipeline_.get()), v, sink.get(), nullptr);
  if (!gst_element_link(v, sink.get()))
    throw CliError(kExitScoring, "cannot link vmafexact to fakesink");

  const char* format = gst_video_format_to_string(alignment.format);
  {
    Branch& branch =
        add_branch(ref, {"videoconvert", "capsfilter"}, "ref_sink", alignment.ref_skip);
    tools::CapsPtr caps(
        gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format, nullptr));
    g_object_set(branch.elements.back().get(), "caps", caps.get(), nullptr);
  }
  {
    std::vector<const char*> steps;
    if (alignment.convert_rate) steps.push_back("videorate");
    if (alignment.scale) steps.push_back("videoscale");
    steps.push_back("videoconvert");
    steps.push_back("capsfilter");
    Branch& branch = add_branch(dist, steps, "dist_sink", alignment.dist_skip);
    tools::CapsPtr caps(gst_caps_new_simple("video/x-raw", "width", G_TYPE_INT, ref.width,
                                               "height", G_TYPE_INT, ref.height, nullptr));
    set_formats(caps.get(), alignment.dist_formats);
    if (alignment.convert_rate)
      gst_caps_set_simple(caps.get(), "framerate", GST_TYPE_FRACTION, ref.framerate.num,
                          ref.framerate.den, nullptr);
    for (const auto& element : branch.elements) {
      GstElementFactory* factory = gst_element_get_factory(element.get());
      const std::string name = factory ? GST_OBJECT_NAME(factory) : "";
      if (name == "videoscale") {
        gst_util_set_object_arg(G_OBJECT(element.get()), "method",
                                videoscale_method(options).c_str());
        // Stretched to the reference's size, as ffmpeg's scale filter does,
        // rather than letterboxed to keep the aspect ratio.
        g_object_set(element.get(), "add-borders", FALSE, nullptr);
      } else if (name == "capsfilter") {
        g_object_set(element.get(), "caps", caps.get(), nullptr);
      }
    }
  }
}

ScoringPipeline::~ScoringPipeline() {
  // Streaming threads read the branches' skip state: stop them first.
  if (pipeline_) gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
}

GstElement* ScoringPipeline::make(Branch& branch, const char* factory) {
  const std::string name =
      std::string(branch.input->role == "reference" ? "ref" : "dist") + "-" + factory;
  auto element = tools::make_element(factory, name.c_str());
  if (!element)
    throw CliError(kExitScoring, std::string("GStreamer's ") + factory + " element is missing",
                   "Install gstreamer1.0-plugins-base (and -good for more formats).");
  GstElement* made = element.get();
  gst_bin_add(GST_BIN(pipeline_.get()), made);
  branch.elements.push_back(std::move(element));
  return made;
}

ScoringPipeline::Branch& ScoringPipeline::add_branch(const VideoInput& input,
                                                     const std::vector<const char*>& steps,
                                                     const char* pad_name, GstClockTime skip) {
  branches_.push_back(std::make_unique<Branch>());
  Branch& branch = *branches_.back();
  branch.input = &input;
  GstElement* head = nullptr;  // the first element after the source
  if (input.y4m) {
    branch.y4m = std::make_unique<Y4mFeed>(input.y4m);
    GstElement* source = make(branch, "appsrc");
    const tools::Y4mHeader& header = input.y4m->header();
    tools::CapsPtr caps(gst_caps_new_simple(
        "video/x-raw", "format", G_TYPE_STRING, gst_video_format_to_string(header.format), "width",
        G_TYPE_INT, header.width, "height", G_TYPE_INT, header.height, "framerate",
        GST_TYPE_FRACTION, header.fps_num, header.fps_den, "interlace-mode", G_TYPE_STRING,
        "progressive", nullptr));
    if (header.par_num > 0)
      gst_caps_set_simple(caps.get(), "pixel-aspect-ratio", GST_TYPE_FRACTION, header.par_num,
                          header.par_den, nullptr);
    // Timestamped frames, a few at a time: the appsrc blocks its feed (and
    // asks for more) rather than reading the whole file ahead.
    g_object_set(source, "caps", caps.get(), "format", GST_FORMAT_TIME, "max-bytes",
                 static_cast<guint64>(4 * header.frame_bytes), nullptr);
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = feed_y4m;
    gst_app_src_set_callbacks(GST_APP_SRC(source), &callbacks, branch.y4m.get(), nullptr);
    head = make(branch, "queue");
    if (!gst_element_link(source, head))
      throw CliError(kExitScoring, "cannot link the " + input.role + "'s y4m source");
  } else if (input.raw) {
    GstElement* source = make(branch, "filesrc");
    g_object_set(source, "location", input.path.c_str(), nullptr);
    GstElement* parser = make(branch, "rawvideoparse");
    for (const auto& [property, value] : tools::rawvideoparse_properties(
             input.format, input.width, input.height, input.framerate.num, input.framerate.den))
      gst_util_set_object_arg(G_OBJECT(parser), property.c_str(), value.c_str());
    head = make(branch, "queue");
    if (!gst_element_link_many(source, parser, head, nullptr))
      throw CliError(kExitScoring, "cannot link the " + input.role + "'s raw parser");
  } else {
    GstElement* decoder = make(branch, "uridecodebin");
    g_object_set(decoder, "uri", input.uri.c_str(), nullptr);
    head = make(branch, "queue");
    tools::link_decoded_video(decoder, head);
  }
  GstElement* previous = head;
  for (const char* factory : steps) {
    GstElement* step = make(branch, factory);
    if (!gst_element_link(previous, step))
      throw CliError(kExitScoring, "cannot link " + std::string(GST_ELEMENT_NAME(previous)) +
                                       " to " + GST_ELEMENT_NAME(step));
    previous = step;
  }
  if (!gst_element_link_pads(previous, "src", vmafexact_.get(), pad_name))
    throw CliError(kExitScoring, "cannot link the " + input.role + " to vmafexact's " + pad_name);
  if (skip > 0) {
    // Frames before `skip` never reach vmafexact, and the pad offset moves the
    // rest back so that the first kept frame pairs with the other input's first.
    branch.skip = std::make_unique<SkippedStart>();
    branch.skip->skip = skip;
    gst_segment_init(&branch.skip->segment, GST_FORMAT_UNDEFINED);
    GstObjectPtr<GstPad> out(gst_element_get_static_pad(previous, "src"));
    gst_pad_add_probe(out.get(),
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER |
                                                   GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
                      skip_start, branch.skip.get(), nullptr);
    GstObjectPtr<GstPad> in(gst_element_get_static_pad(vmafexact_.get(), pad_name));
    gst_pad_set_offset(in.get(), -static_cast<gint64>(skip));
  }
  return branch;
}

const VideoInput* ScoringPipeline::input_of(GstObject* source) const {
  for (const auto& branch : branches_)
    for (const auto& element : branch->elements)
      if (source == GST_OBJECT(element.get()) ||
          gst_object_has_as_ancestor(source, GST_OBJECT(element.get())))
        return branch->input;
  return nullptr;
}

void ScoringPipeline::end_inputs() {
  for (const char* pad_name : {"ref_sink", "dist_sink"}) {
    GstObjectPtr<GstPad> pad(gst_element_get_static_pad(vmafexact_.get(), pad_name));
    gst_pad_send_event(pad.get(), gst_event_new_eos());
  }
}

}  // namespace vmafexact::cli
