#include "nvdec.h"

#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "conform.h"
#include "decoded_video.h"

namespace vmafexact::tools {
namespace {

// The codecs whose decoding is exact by specification, and the parser that
// turns a demuxer's packaging into what NVDEC takes (none for VP8).
struct Codec {
  std::string_view media_type;
  std::string_view name;
  std::string_view parser;
};
constexpr std::array<Codec, 5> kCodecs = {{
    {"video/x-h264", "H.264", "h264parse"},
    {"video/x-h265", "HEVC", "h265parse"},
    {"video/x-vp8", "VP8", ""},
    {"video/x-vp9", "VP9", "vp9parse"},
    {"video/x-av1", "AV1", "av1parse"},
}};

// Fields of how a stream is packaged, not what it holds: the parser converts them.
constexpr std::array<const char*, 6> kPackaging = {"stream-format", "alignment",    "parsed",
                                                   "codec_data",    "streamheader", "framed"};

// An integer field, whichever of int or uint the parser set; -1 when absent.
int int_field(const GstStructure* s, const char* field) {
  const GValue* value = gst_structure_get_value(s, field);
  if (!value) return -1;
  if (G_VALUE_HOLDS_INT(value)) return g_value_get_int(value);
  if (G_VALUE_HOLDS_UINT(value)) return static_cast<int>(g_value_get_uint(value));
  return -1;
}

CapsPtr sink_caps_of(GstElementFactory* factory) {
  for (const GList* item = gst_element_factory_get_static_pad_templates(factory); item;
       item = item->next) {
    auto* pad = static_cast<GstStaticPadTemplate*>(item->data);
    if (pad->direction == GST_PAD_SINK) return CapsPtr(gst_static_pad_template_get_caps(pad));
  }
  return {};
}

std::string name_of(GstElementFactory* factory) {
  return gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
}

// The pad-added handler's data: where the compressed stream goes.
struct CompressedLink {
  CompressedLink(GstElement* first_element, std::string type)
      : first(first_element), media_type(std::move(type)) {}
  GstElement* first;  // the pipeline holds it
  std::string media_type;
};

void link_compressed_pad(GstElement* decoder, GstPad* pad, gpointer data) {
  const auto* link = static_cast<const CompressedLink*>(data);
  link_pad_of_type(decoder, pad, link->first, link->media_type.c_str(), "compressed video");
}

void check_compressed_found(GstElement* decoder, gpointer data) {
  const auto* link = static_cast<const CompressedLink*>(data);
  GstObjectPtr<GstPad> sink(gst_element_get_static_pad(link->first, "sink"));
  if (gst_pad_is_linked(sink.get())) return;
  GCharPtr uri;
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(decoder), "uri"))
    g_object_get(decoder, "uri", &uri, nullptr);
  GError* error =
      g_error_new(GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE, "%s has no %s stream for %s.",
                  uri ? uri.get() : GST_ELEMENT_NAME(decoder), link->media_type.c_str(),
                  GST_ELEMENT_NAME(link->first));
  gst_element_post_message(
      decoder, gst_message_new_error(GST_OBJECT(decoder), error,
                                     "The stream found before playing is gone; decode on the CPU "
                                     "(--backend cpu)."));
  g_error_free(error);
}

void release_link(gpointer data, GClosure*) {
  std::unique_ptr<CompressedLink> owned(static_cast<CompressedLink*>(data));
}

// The NVDEC decoders registered now (nvdec_decoder_factories() keeps them).
std::vector<GstObjectPtr<GstElementFactory>> scan_nvdec_decoders() {
  GList* all = gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DECODER |
                                                         GST_ELEMENT_FACTORY_TYPE_MEDIA_VIDEO |
                                                         GST_ELEMENT_FACTORY_TYPE_HARDWARE,
                                                     GST_RANK_NONE);
  all = g_list_sort(all, gst_plugin_feature_rank_compare_func);
  std::vector<GstObjectPtr<GstElementFactory>> found;
  for (GList* item = all; item; item = item->next) {
    auto* factory = static_cast<GstElementFactory*>(item->data);
    const gchar* plugin = gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory));
    if (plugin && std::string_view(plugin) == "nvcodec")
      found.emplace_back(static_cast<GstElementFactory*>(gst_object_ref(factory)));
  }
  gst_plugin_feature_list_free(all);
  return found;
}

}  // namespace

NvdecChoice choose_nvdec(const GstCaps* stream, const std::vector<GstElementFactory*>& decoders,
                         const std::vector<GstElementFactory*>& parsers) {
  NvdecChoice choice;
  if (!stream || gst_caps_is_empty(stream) || gst_caps_is_any(stream)) {
    choice.why_not = "its compressed caps are unknown";
    return choice;
  }
  const GstStructure* s = gst_caps_get_structure(stream, 0);
  const std::string_view media_type = gst_structure_get_name(s);
  const Codec* codec = nullptr;
  for (const Codec& known : kCodecs)
    if (known.media_type == media_type) codec = &known;
  if (!codec) {
    choice.why_not =
        "NVDEC is used for H.264, HEVC, VP8, VP9 and AV1 only (codecs whose "
        "decoding is exact by specification)";
    return choice;
  }
  const std::string name(codec->name);
  choice.media_type = media_type;

  // What it holds: 4:2:0 at 8 or 10 bits, progressive (VP8 is always 8-bit 4:2:0).
  const gchar* chroma = gst_structure_get_string(s, "chroma-format");
  int depth = int_field(s, "bit-depth-luma");
  const int chroma_depth = int_field(s, "bit-depth-chroma");
  if (media_type == "video/x-vp8") {
    if (!chroma) chroma = "4:2:0";
    if (depth < 0) depth = 8;
  }
  if (!chroma || depth < 0) {
    // The parser is what reads them from the stream (a demuxer's caps lack them).
    const bool parser_missing =
        !codec->parser.empty() &&
        std::none_of(parsers.begin(), parsers.end(),
                     [&](GstElementFactory* factory) { return name_of(factory) == codec->parser; });
    choice.why_not = parser_missing ? "GStreamer has no " + std::string(codec->parser) +
                                          " to read its chroma format and bit depth "
                                          "(gstreamer1.0-plugins-bad)"
                                    : "its caps do not say its chroma format and bit depth";
    return choice;
  }
  if (std::string_view(chroma) != "4:2:0" || (depth != 8 && depth != 10) ||
      (chroma_depth >= 0 && chroma_depth != depth)) {
    choice.why_not = name + " " + chroma + " at " + std::to_string(depth) +
                     " bits: the NVDEC path takes 4:2:0 video at 8 or 10 bits";
    return choice;
  }
  if (const gchar* interlace = gst_structure_get_string(s, "interlace-mode");
      interlace && std::string_view(interlace) != "progressive") {
    choice.why_not =
        std::string("it is interlaced (") + interlace + "): the NVDEC path takes progressive video";
    return choice;
  }
  // h264parse says "field" (PAFF or MBAFF: frame_mbs_only_flag 0) here, not in
  // interlace-mode, and a demuxer's caps say neither.
  if (const gchar* structure = gst_structure_get_string(s, "coded-picture-structure");
      structure && std::string_view(structure) != "frame") {
    choice.why_not = std::string("it is field-coded (") + structure +
                     "): the NVDEC path takes progressive video";
    return choice;
  }
  // Without a profile every template's profiles match: a parser leaves it out
  // for a profile it does not know, which NVDEC need not decode (VP8 has none).
  if (media_type != "video/x-vp8" && !gst_structure_has_field(s, "profile")) {
    choice.why_not = "its caps do not say its profile";
    return choice;
  }
  choice.decoded = depth == 8 ? GST_VIDEO_FORMAT_NV12 : GST_VIDEO_FORMAT_P010_10LE;
  choice.cpu_format = depth == 8 ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_I420_10LE;

  // The decoder whose sink template accepts it, packaging aside.
  CapsPtr content(gst_caps_copy(stream));
  for (guint i = 0; i < gst_caps_get_size(content.get()); ++i)
    for (const char* field : kPackaging)
      gst_structure_remove_field(gst_caps_get_structure(content.get(), i), field);
  CapsPtr sizeless(gst_caps_copy(content.get()));
  for (guint i = 0; i < gst_caps_get_size(sizeless.get()); ++i)
    gst_structure_remove_fields(gst_caps_get_structure(sizeless.get(), i), "width", "height",
                                nullptr);
  std::string same_codec;  // decoders of this codec that refuse the stream
  std::string refusal = "profile";
  for (GstElementFactory* factory : decoders) {
    CapsPtr sink = sink_caps_of(factory);
    if (!sink) continue;
    bool codec_matches = false;
    for (guint i = 0; i < gst_caps_get_size(sink.get()); ++i)
      if (gst_structure_has_name(gst_caps_get_structure(sink.get(), i), codec->media_type.data()))
        codec_matches = true;
    if (!codec_matches) continue;
    if (gst_caps_can_intersect(content.get(), sink.get())) {
      choice.decoder = name_of(factory);
      break;
    }
    same_codec += (same_codec.empty() ? "" : ", ") + name_of(factory);
    if (gst_caps_can_intersect(sizeless.get(), sink.get())) refusal = "picture size";
  }
  if (!choice.chosen()) {
    const gchar* profile = gst_structure_get_string(s, "profile");
    if (same_codec.empty())
      choice.why_not = "no NVDEC decoder for " + name + " (GStreamer's nvcodec registers none)";
    else
      choice.why_not = same_codec + " refuses this stream's " + refusal +
                       (refusal == "profile" && profile ? std::string(" (") + profile + ")" : "");
    return choice;
  }
  if (!codec->parser.empty()) {
    for (GstElementFactory* factory : parsers)
      if (name_of(factory) == codec->parser) choice.parser = codec->parser;
    if (choice.parser.empty()) {
      choice.why_not = "GStreamer has no " + std::string(codec->parser) + " to feed " +
                       choice.decoder + " (gstreamer1.0-plugins-bad)";
      choice.decoder.clear();
      return choice;
    }
  }
  return choice;
}

std::vector<GstObjectPtr<GstElementFactory>> nvdec_decoder_factories() {
  // The scan walks every feature of the registry, and the tool and the monitor
  // ask several times per input: the list is kept until the registry's
  // features change (its cookie counts additions and removals, a test's fake
  // decoders too). Ranks set later would not reorder it; nothing here sets any.
  struct Cache {
    std::mutex mutex;
    std::optional<guint32> cookie;  // the registry's when scanned
    std::vector<GstObjectPtr<GstElementFactory>> decoders;
  };
  static Cache cache;
  std::lock_guard lock(cache.mutex);
  // Read before the scan: a feature added during it brings a rescan next time.
  const guint32 cookie = gst_registry_get_feature_list_cookie(gst_registry_get());
  if (cache.cookie != cookie) {
    cache.decoders = scan_nvdec_decoders();
    cache.cookie = cookie;
  }
  std::vector<GstObjectPtr<GstElementFactory>> decoders;
  for (const auto& factory : cache.decoders)
    decoders.emplace_back(static_cast<GstElementFactory*>(gst_object_ref(factory.get())));
  return decoders;
}

NvdecChoice choose_registered_nvdec(const GstCaps* stream) {
  const auto decoders = nvdec_decoder_factories();
  std::vector<GstObjectPtr<GstElementFactory>> parsers;
  for (const Codec& codec : kCodecs)
    if (!codec.parser.empty())
      if (GstElementFactory* factory = gst_element_factory_find(codec.parser.data()))
        parsers.emplace_back(factory);
  std::vector<GstElementFactory*> decoder_list, parser_list;
  for (const auto& factory : decoders) decoder_list.push_back(factory.get());
  for (const auto& factory : parsers) parser_list.push_back(factory.get());
  return choose_nvdec(stream, decoder_list, parser_list);
}

void expose_compressed_stream(GstElement* uridecodebin, const NvdecChoice& choice) {
  expose_compressed_streams(uridecodebin, {choice.media_type});
}

std::vector<std::string> nvdec_media_types() {
  std::vector<std::string> types;
  const auto decoders = nvdec_decoder_factories();
  for (const Codec& codec : kCodecs)
    for (const auto& factory : decoders) {
      CapsPtr sink = sink_caps_of(factory.get());
      CapsPtr wanted(gst_caps_new_empty_simple(codec.media_type.data()));
      if (sink && gst_caps_can_intersect(sink.get(), wanted.get())) {
        types.emplace_back(codec.media_type);
        break;
      }
    }
  return types;
}

void expose_compressed_streams(GstElement* uridecodebin, const std::vector<std::string>& types) {
  GstCaps* defaults = nullptr;
  g_object_get(uridecodebin, "caps", &defaults, nullptr);
  CapsPtr caps(defaults ? defaults : gst_caps_new_empty());
  caps.reset(gst_caps_make_writable(caps.release()));
  for (const std::string& type : types)
    gst_caps_append(caps.get(), gst_caps_new_empty_simple(type.c_str()));
  g_object_set(uridecodebin, "caps", caps.get(), nullptr);
}

std::string nvdec_parser_for(const std::string& media_type) {
  for (const Codec& codec : kCodecs)
    if (codec.media_type == media_type) return std::string(codec.parser);
  return {};
}

CapsPtr nvdec_packaging_caps(const std::string& media_type) {
  CapsPtr packaging(gst_caps_new_empty());
  for (const auto& factory : nvdec_decoder_factories()) {
    CapsPtr sink = sink_caps_of(factory.get());
    for (guint i = 0; sink && i < gst_caps_get_size(sink.get()); ++i) {
      const GstStructure* s = gst_caps_get_structure(sink.get(), i);
      if (!gst_structure_has_name(s, media_type.c_str())) continue;
      GstStructure* kept = gst_structure_new_empty(media_type.c_str());
      for (const char* field : kPackaging)
        if (const GValue* value = gst_structure_get_value(s, field))
          gst_structure_set_value(kept, field, value);
      packaging.reset(gst_caps_merge_structure(packaging.release(), kept));
    }
  }
  if (gst_caps_is_empty(packaging.get()))
    packaging.reset(gst_caps_new_empty_simple(media_type.c_str()));
  return packaging;
}

std::string check_parsed_format(const NvdecChoice& choice, const GstCaps* parsed) {
  if (!parsed || gst_caps_is_empty(parsed)) return {};
  const GstStructure* s = gst_caps_get_structure(parsed, 0);
  const gchar* chroma = gst_structure_get_string(s, "chroma-format");
  const int depth = int_field(s, "bit-depth-luma");
  const int expected = choice.cpu_format == GST_VIDEO_FORMAT_I420_10LE ? 10 : 8;
  if ((chroma && std::string_view(chroma) != "4:2:0") || (depth >= 0 && depth != expected))
    return std::string("the stream is now ") + (chroma ? chroma : "4:2:0") + " at " +
           std::to_string(depth >= 0 ? depth : expected) + " bits, not 4:2:0 at " +
           std::to_string(expected) + " bits as when its decoder was chosen";
  const gchar* interlace = gst_structure_get_string(s, "interlace-mode");
  const gchar* structure = gst_structure_get_string(s, "coded-picture-structure");
  const bool interlaced = interlace && std::string_view(interlace) != "progressive";
  if (interlaced || (structure && std::string_view(structure) != "frame"))
    return std::string("the stream is now ") +
           (interlaced ? std::string("interlaced (") + interlace
                       : std::string("field-coded (") + structure) +
           "), not progressive as when its decoder was chosen";
  return {};
}

bool posted_by_decoder(GstObject* source, const NvdecChoice& choice) {
  if (!choice.chosen()) return false;
  // The decoder or an element inside it (a decoder may be a bin).
  for (GstObjectPtr<GstObject> object(source ? GST_OBJECT(gst_object_ref(source)) : nullptr);
       object; object.reset(gst_object_get_parent(object.get()))) {
    if (!GST_IS_ELEMENT(object.get())) continue;
    GstElementFactory* factory = gst_element_get_factory(GST_ELEMENT(object.get()));
    if (factory && name_of(factory) == choice.decoder) return true;
  }
  return false;
}

void link_compressed_video(GstElement* decoder, GstElement* first, const std::string& media_type) {
  g_signal_connect_data(decoder, "pad-added", G_CALLBACK(link_compressed_pad),
                        std::make_unique<CompressedLink>(first, media_type).release(), release_link,
                        GConnectFlags{});
  g_signal_connect_data(decoder, "no-more-pads", G_CALLBACK(check_compressed_found),
                        std::make_unique<CompressedLink>(first, media_type).release(), release_link,
                        GConnectFlags{});
}

CapsPtr cuda_memory_caps() {
  return CapsPtr(gst_caps_from_string("video/x-raw(memory:CUDAMemory)"));
}

DownloadChain add_download_chain(GstBin* bin, GstVideoFormat cpu_format, const GstCaps* decoded,
                                 const std::string& prefix) {
  DownloadChain chain;
  const auto make = [&](const char* factory, const char* role, const char* package) {
    const std::string name = prefix + "-" + role;
    auto element = make_element(factory, prefix.empty() ? nullptr : name.c_str());
    if (!element && chain.missing.empty()) {
      chain.missing = factory;
      chain.missing_package = package;
    }
    return element;
  };
  // cudadownload is nvcodec's (plugins-bad), videoconvert plugins-base's,
  // capsfilter GStreamer's core elements'.
  chain.download = make("cudadownload", "cudadownload", "gstreamer1.0-plugins-bad");
  chain.repack = make("videoconvert", "repack", "gstreamer1.0-plugins-base");
  chain.filter = make("capsfilter", "decoded", "libgstreamer1.0-0");
  if (!chain.missing.empty()) {
    chain.download.reset();
    chain.repack.reset();
    chain.filter.reset();
    return chain;
  }
  // NV12 or P010 into I420 or I420_10LE, sample for sample: videoconvert's
  // default dither would move P010's 10-bit samples by one.
  repack_exactly(chain.repack.get());
  chain.caps.reset(gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                       gst_video_format_to_string(cpu_format), nullptr));
  if (decoded)
    if (CapsPtr pinned = pin_colour(chain.caps.get(), decoded)) chain.caps = std::move(pinned);
  g_object_set(chain.filter.get(), "caps", chain.caps.get(), nullptr);
  gst_bin_add_many(bin, chain.download.get(), chain.repack.get(), chain.filter.get(), nullptr);
  chain.linked =
      gst_element_link_many(chain.download.get(), chain.repack.get(), chain.filter.get(), nullptr);
  return chain;
}

}  // namespace vmafexact::tools
