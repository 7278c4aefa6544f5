// The scoring pipeline: the reference decoded (or parsed as raw video) once
// and teed to one vmafexact element per encode; each distorted video (encode)
// in a branch of its own, brought to the reference's size, sample format and
// frame rate; each element's distorted output to a fakesink.
//
//   REF:  uridecodebin | filesrc ! rawvideoparse | appsrc (y4m) ! queue ! videoconvert
//         ! video/x-raw,format=F ! tee name=t
//         t. ! queue ! v0.ref_sink   t. ! queue ! v1.ref_sink   ...
//   DISTk: uridecodebin | filesrc ! rawvideoparse | appsrc ! queue [! videorate]
//         [! vmafexactscale flags=FLAGS | videoscale method=M add-borders=false]
//         ! videoconvert
//         ! video/x-raw,format={F,G},width=W,height=H[,framerate=R],colorimetry=C
//         ! vk.dist_sink
//   (G: a gray or planar format that vmafexact pairs with F by luma; see
//   dist_scoring_formats(); C: DISTk's own colorimetry and chroma siting, set
//   from its decoded caps, so that scaling and conversion never re-matrix it)
//   vmafexact name=vk ... ! fakesink sync=false
//
// With --backend cuda, an input an NVDEC decoder takes (VideoInput::nvdec,
// tools/support/nvdec.h) is decoded on the GPU: its uridecodebin exposes the
// compressed stream, linked to PARSER ! NVDEC-DECODER ! queue. The frames
// stay in CUDA memory where nothing converts them (a capsfilter of
// video/x-raw(memory:CUDAMemory) instead of videoconvert ! capsfilter): REF
// always; DISTk when it is not scaled and its CPU decoder's format is REF's
// scoring format. Otherwise DISTk is downloaded and brought to what the CPU
// decoder delivers (cudadownload ! videoconvert ! video/x-raw,format=I420 or
// I420_10LE, NV12 and P010 repacked) before the CPU path's own steps, so the
// scaler and videoconvert see the CPU path's pixels in its format.
//
// Each encode's start skip (--dist-delay, --align auto) and the frame range
// (--start, --frames, --duration) apply on that encode's branches only: its
// queue after the tee and the end of its distorted branch. With a range that
// starts after 0, each input is first sought (flushing, accurate) to a second
// before its part (REF: the earliest of the encodes'), where it can seek; the
// window probes still select the frames, so scores equal a decode from the
// start (see InputSeek in pipeline.cpp). VMAFEXACT_NO_SEEK=1 turns the seeks
// off; VMAFEXACT_DEBUG_SEEK=1 prints each input's seek and decoded frames.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inputs.h"
#include "options.h"
#include "support/handles.h"

namespace vmafexact::cli {

// How one distorted video is lined up with the reference.
struct Alignment {
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;  // the reference is scored in it
  // The distorted video's: `format`, or a gray one or, against a gray
  // reference, any planar one of its depth (see dist_scoring_formats()).
  std::vector<GstVideoFormat> dist_formats{GST_VIDEO_FORMAT_I420};
  bool scale = false;         // the sizes differ
  bool convert_rate = false;  // both rates known and different
  GstClockTime ref_skip = 0;  // running time skipped at the start
  GstClockTime dist_skip = 0;
  // How the skip was decided, for the notes and provenance key `alignment`
  // (e.g. "dist-delay 0.25 s"); empty: none.
  std::string description;
};

// Decides the alignment; throws CliError(kExitNothingToCompare) when
// --no-scale or --no-rate-conversion refuse the inputs.
Alignment align(const Options& options, const VideoInput& ref, const VideoInput& dist);

// The part of every input scored, in running time after each branch's skip:
// frames at [begin, end). Whole inputs: [0, none).
struct FrameWindow {
  GstClockTime begin = 0;
  GstClockTime end = GST_CLOCK_TIME_NONE;
  GstClockTime first = 0;  // the first frame's time (begin is half a frame earlier)
  // Frames expected in the window (--frames), when known.
  std::optional<guint64> frames;
};

// The window of --start, --frames and --duration on the reference's frame
// grid: from the first frame at or after --start, --frames frames or up to
// --start + --duration (half a frame's margin each side, so that timestamps
// rounded to the nanosecond are not cut). Throws CliError when --frames is
// given for a reference without a constant frame rate, or --start lies
// beyond the reference's end (kExitNothingToCompare).
FrameWindow frame_window(const Options& options, const VideoInput& ref);

// The scaler a DIST of another size goes through, as provenance names it:
// "vmafexactscale flags=bicubic (libswscale 6.7.100)", "videoscale
// method=catrom", or "none (same size)".
std::string scaler_description(const Options& options, const Alignment& alignment);

// Whether --scale-method ffmpeg scales with vmafexactscale (registered), or
// falls back to videoscale's catrom.
bool ffmpeg_scaler_available();

// The videoscale method for the options' --scale-method: "ffmpeg" is
// catrom while vmafexactscale is not there.
std::string videoscale_method(const Options& options);

// What a branch whose start or end is cut needs on its streaming thread.
struct KeptWindow;
struct ColourPin;
struct Y4mFeed;
struct InputSeek;

// One encode's part of the pipeline.
struct EncodeSetup {
  const VideoInput* dist = nullptr;
  Alignment alignment;
  std::string log_location;  // the file vmafexact writes its log to (empty: none)
  LogFormat log_format = LogFormat::kJson;
  // The element's extra-provenance (string fields, in order); null: none.
  const GstStructure* provenance = nullptr;
};

class ScoringPipeline {
 public:
  ScoringPipeline(const Options& options, const VideoInput& ref, const FrameWindow& window,
                  const std::vector<EncodeSetup>& encodes);
  ~ScoringPipeline();
  ScoringPipeline(const ScoringPipeline&) = delete;
  ScoringPipeline& operator=(const ScoringPipeline&) = delete;

  GstElement* pipeline() const { return pipeline_.get(); }
  std::size_t encode_count() const { return scorers_.size(); }
  GstElement* vmafexact(std::size_t encode) const { return scorers_[encode].get(); }
  // The encode whose vmafexact element `source` is, or nullopt.
  std::optional<std::size_t> encode_of(const GstObject* source) const;

  // The input (ref or a dist) that `source` belongs to, or nullptr.
  const VideoInput* input_of(GstObject* source) const;

  // Ends every input (EOS into each vmafexact's sink pads), so that each
  // scores what it has, posts its summary and writes its log. From any thread.
  void end_inputs();

 private:
  struct Branch;
  // Adds the input's source (decoder, raw parser or y4m feed) and a queue,
  // then `steps` (factory names), linked; returns the last element.
  GstElement* add_source(Branch& branch, const VideoInput& input);
  GstElement* add_steps(Branch& branch, GstElement* previous,
                        const std::vector<const char*>& steps);
  // Keeps only [skip + window.begin, skip + window.end) of what leaves `pad`
  // and moves it back to start at 0 at `sink` (a vmafexact sink pad).
  void keep_window(Branch& branch, GstPad* pad, GstPad* sink, GstClockTime skip);
  // Named PREFIX-ROLE (ROLE: the factory's name unless given).
  GstElement* make(Branch& branch, const char* factory, const char* role = nullptr);
  // Starts the input whose decoded frames enter `head` (its first queue) at
  // running time `target` - a margin, by an accurate seek where it can seek
  // and `may_seek`, stopping it a margin past `stop` (none: its end); counts
  // its frames. See InputSeek.
  void seek_to_window(Branch& branch, GstElement* head, GstClockTime target, GstClockTime stop,
                      bool may_seek = true);

  FrameWindow window_;
  tools::GstObjectPtr<GstElement> pipeline_;
  std::vector<tools::GstObjectPtr<GstElement>> scorers_;  // vmafexact, one per encode
  struct Branch {
    const VideoInput* input = nullptr;
    std::string prefix;                                     // element names: "ref", "dist0", ...
    std::vector<tools::GstObjectPtr<GstElement>> elements;  // in link order
    std::vector<std::unique_ptr<KeptWindow>> windows;       // skips and the frame range
    std::unique_ptr<Y4mFeed> y4m;                           // a y4m input's appsrc feed
    std::vector<std::unique_ptr<ColourPin>> colours;        // its caps' colorimetry
    std::shared_ptr<InputSeek> seek;                        // its seek to the frame range
  };
  // Keeps the input's colorimetry and chroma siting through the steps from
  // `pad` (where the decoded caps pass) to `capsfilter` (whose caps are `caps`).
  void pin_colour(Branch& branch, GstPad* pad, GstElement* capsfilter, const GstCaps* caps);
  std::vector<std::unique_ptr<Branch>> branches_;
};

}  // namespace vmafexact::cli
