// Decoding on the GPU with NVDEC (GStreamer's nvcodec: nvh264dec, nvh265dec,
// nvvp8dec, nvvp9dec, nvav1dec) for --backend cuda: which decoder takes an
// input, decided from its compressed caps before anything plays (so the
// provenance says what really decoded it), and the wiring that makes a
// uridecodebin hand over the compressed stream rather than decode it.
//
// Within decodebin an NVDEC decoder and libav's software one have the same
// rank (and decodebin picks libav's), and even when it picks the NVDEC one its
// downstream is not linked when it negotiates, so it delivers system memory.
// Here uridecodebin's `caps` also name the codec's compressed caps: it stops
// at the demuxer (or typefinder) and exposes the compressed stream, which is
// linked to `parser ! decoder` in the pipeline, whose downstream asks for
// CUDA memory (and shares the scorer's CUDA context through the bin).
//
// Only codecs whose decoding is exact by their specifications are taken
// (H.264, HEVC, VP8, VP9, AV1: a conforming decoder's pixels are the
// reference decoder's), and only 4:2:0 progressive video at 8 or 10 bits,
// which NVDEC delivers as NV12 or P010 and the CPU decoders as I420 or
// I420_10LE: formats that vmafexact scores alike, so scores equal the CPU's.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "handles.h"

namespace vmafexact::tools {

struct NvdecChoice {
  std::string decoder;     // factory name, e.g. "nvh264dec"; empty: not chosen
  std::string parser;      // factory name, e.g. "h264parse"; empty: none needed
  std::string media_type;  // the compressed stream's caps name, e.g. "video/x-h264"
  // What the decoder delivers (NV12, P010_10LE), and the format the CPU's
  // decoder delivers for the stream (I420, I420_10LE), which scores alike.
  GstVideoFormat decoded = GST_VIDEO_FORMAT_UNKNOWN;
  GstVideoFormat cpu_format = GST_VIDEO_FORMAT_UNKNOWN;
  // Why none was chosen (one line, no input named), e.g. "NVDEC is used for
  // H.264, HEVC, VP8, VP9 and AV1 only"; empty when chosen.
  std::string why_not;

  bool chosen() const { return !decoder.empty(); }
  // The provenance's: "nvh264dec (NVDEC)".
  std::string description() const { return decoder + " (NVDEC)"; }
};

// The pure choice: the first of `decoders` (in the given order: highest rank
// first) whose sink template accepts `stream` (the compressed caps, as
// GstDiscoverer reports them; packaging fields such as stream-format,
// alignment and codec_data are not compared, the parser converts those), and
// the parser it needs from `parsers`; or why not.
NvdecChoice choose_nvdec(const GstCaps* stream, const std::vector<GstElementFactory*>& decoders,
                         const std::vector<GstElementFactory*>& parsers);

// The NVDEC video decoders GStreamer has registered (nvcodec's decoders of
// klass Codec/Decoder/Video/Hardware), highest rank first. Scanned once and
// kept until the registry's features change (a decoder registered later is
// listed); thread-safe.
std::vector<GstObjectPtr<GstElementFactory>> nvdec_decoder_factories();

// choose_nvdec() with the registered decoders and parsers.
NvdecChoice choose_registered_nvdec(const GstCaps* stream);

// Makes `uridecodebin` expose the chosen codec's compressed stream (its
// `caps` property: its default ones and the codec's media type).
void expose_compressed_stream(GstElement* uridecodebin, const NvdecChoice& choice);

// For live inputs (vmafexact-monitor), whose caps come only as they play:
// the media types of the codecs some registered NVDEC decoder takes (for
// expose_compressed_streams()); empty where there is none.
std::vector<std::string> nvdec_media_types();
void expose_compressed_streams(GstElement* uridecodebin, const std::vector<std::string>& types);

// For a live input's compressed stream, before its parser has said what it
// holds: the parser NVDEC needs for `media_type` ("" for none, as for VP8),
// and the packaging (stream-format, alignment) the registered NVDEC decoders
// of that codec take, for a capsfilter after it. The parser's caps there say
// the profile, chroma format and bit depth choose_registered_nvdec() needs.
std::string nvdec_parser_for(const std::string& media_type);
CapsPtr nvdec_packaging_caps(const std::string& media_type);

// Whether `parsed` (a later caps event of the stream: chroma-format,
// bit-depth-luma, interlacing) is still of the format `choice` was made for: empty when it
// is, else what changed.
std::string check_parsed_format(const NvdecChoice& choice, const GstCaps* parsed);

// Whether an error's `source` is the chosen NVDEC decoder or inside it (not
// the demuxer or parser, which fail alike with --backend cpu).
bool posted_by_decoder(GstObject* source, const NvdecChoice& choice);

// Connects to `decoder` (a uridecodebin or decodebin) "pad-added": its first
// pad of caps `media_type` is linked to `first`'s sink pad (a parser or the
// NVDEC decoder); and "no-more-pads": none found posts an error naming the
// URI. Like link_decoded_video() for a compressed stream.
void link_compressed_video(GstElement* decoder, GstElement* first, const std::string& media_type);

// video/x-raw(memory:CUDAMemory): frames kept on the GPU.
CapsPtr cuda_memory_caps();

// NVDEC's frames (NV12 or P010 in CUDA memory) brought to system memory in the
// format the CPU's decoder gives the stream (`cpu_format`: I420 or I420_10LE),
// for the CPU's scaling and conversion: cudadownload ! videoconvert !
// capsfilter, the videoconvert repacking sample for sample (repack_exactly()),
// the capsfilter's caps the format with `decoded`'s colorimetry where given
// (pin_colour()). One chain for the tool and the monitor; each reports its
// own errors (missing, linked).
struct DownloadChain {
  std::string missing;  // a factory GStreamer lacks: then nothing was made
  std::string missing_package;  // the Debian package that installs it
  bool linked = false;  // download ! repack ! filter linked
  GstObjectPtr<GstElement> download, repack, filter;
  CapsPtr caps;  // the capsfilter's
};
// Made, added to `bin` and linked among themselves; the caller links into
// `download` and out of `filter`. Names: `prefix`-cudadownload, -repack and
// -decoded; GStreamer's own where `prefix` is empty.
DownloadChain add_download_chain(GstBin* bin, GstVideoFormat cpu_format, const GstCaps* decoded,
                                 const std::string& prefix);

}  // namespace vmafexact::tools
