#include "channel_pipeline.h"

#include <string>
#include <string_view>

#include "support/decoded_video.h"

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
    throw PipelineError(std::string(option) + " '" + text +
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
  GstElement* parsed = gst_parse_launch_full(description.c_str(), nullptr,
                                             GST_PARSE_FLAG_FATAL_ERRORS, &raw_error);
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
    throw PipelineError(std::string("the element named v is a ") +
                        (factory ? GST_OBJECT_NAME(factory) : "?") +
                        ", not a vmafexact; name the vmafexact element v and the others otherwise.");
  return built;
}

ChannelPipeline build_from_uris(const ChannelConfig& channel) {
  const std::string ref_uri = uri_of(channel.ref, "--ref");
  const std::string dist_uri = uri_of(channel.dist, "--dist");
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
  const std::pair<const std::string*, const char*> inputs[] = {{&ref_uri, "ref"},
                                                               {&dist_uri, "dist"}};
  for (const auto& [uri, side] : inputs) {
    const std::string prefix = side;
    auto decoder = make("uridecodebin", prefix + "_decoder", "gstreamer1.0-plugins-base");
    auto queue = make("queue", prefix + "_queue", "gstreamer1.0-plugins-base");
    auto convert = make("videoconvert", prefix + "_convert", "gstreamer1.0-plugins-base");
    g_object_set(decoder.get(), "uri", uri->c_str(), nullptr);
    add(pipeline, decoder);
    const std::string pad = prefix + "_sink";
    if (!gst_element_link(add(pipeline, queue), add(pipeline, convert)) ||
        !gst_element_link_pads(convert.get(), "src", vmafexact.get(), pad.c_str()))
      throw PipelineError("could not link the " + prefix + " branch to vmafexact's " + pad +
                          "; check the GStreamer installation.");
    tools::link_decoded_video(decoder.get(), queue.get());
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
