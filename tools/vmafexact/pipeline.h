// The scoring pipeline: each input decoded (or parsed as raw video), the
// distorted one brought to the reference's size, sample format and frame rate,
// both into vmafexact, whose distorted output goes to a fakesink.
//
//   REF:  uridecodebin | filesrc ! rawvideoparse  ! queue ! videoconvert
//         ! video/x-raw,format=F                                  ! v.ref_sink
//   DIST: uridecodebin | filesrc ! rawvideoparse  ! queue [! videorate]
//         [! videoscale method=M add-borders=false] ! videoconvert
//         ! video/x-raw,format={F,G},width=W,height=H[,framerate=R] ! v.dist_sink
//   (G: a gray or planar format that vmafexact pairs with F by luma; see
//   dist_scoring_formats())
//   vmafexact name=v ... ! fakesink sync=false
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>
#include <vector>

#include "inputs.h"
#include "options.h"
#include "support/handles.h"

namespace vmafexact::cli {

// How the distorted video is lined up with the reference.
struct Alignment {
  GstVideoFormat format = GST_VIDEO_FORMAT_I420;  // the reference is scored in it
  // The distorted video's: `format`, or a gray one or, against a gray
  // reference, any planar one of its depth (see dist_scoring_formats()).
  std::vector<GstVideoFormat> dist_formats{GST_VIDEO_FORMAT_I420};
  bool scale = false;         // the sizes differ
  bool convert_rate = false;  // both rates known and different
  GstClockTime ref_skip = 0;  // running time skipped at the start
  GstClockTime dist_skip = 0;
};

// The videoscale method for the options' --scale-method: "ffmpeg" is
// catrom while vmafexactscale is not there.
std::string videoscale_method(const Options& options);

// Decides the alignment; throws CliError(kExitNothingToCompare) when
// --no-scale or --no-rate-conversion refuse the inputs.
Alignment align(const Options& options, const VideoInput& ref, const VideoInput& dist);

// What a branch whose start is skipped needs on its streaming thread.
struct SkippedStart;
struct Y4mFeed;

class ScoringPipeline {
 public:
  // `log_location`: the file vmafexact writes its log to (empty: none).
  ScoringPipeline(const Options& options, const VideoInput& ref, const VideoInput& dist,
                  const Alignment& alignment, const std::string& log_location,
                  LogFormat log_format);
  ~ScoringPipeline();
  ScoringPipeline(const ScoringPipeline&) = delete;
  ScoringPipeline& operator=(const ScoringPipeline&) = delete;

  GstElement* pipeline() const { return pipeline_.get(); }
  GstElement* vmafexact() const { return vmafexact_.get(); }

  // The input (ref or dist) that `source` belongs to, or nullptr.
  const VideoInput* input_of(GstObject* source) const;

  // Ends both inputs (EOS into vmafexact's sink pads), so that it scores
  // what it has, posts its summary and writes its log. From any thread.
  void end_inputs();

 private:
  struct Branch;
  // Adds the input's source (decoder or raw parser) and `steps` (factory
  // names, "capsfilter" last), linked, the last to vmafexact's `pad_name`.
  Branch& add_branch(const VideoInput& input, const std::vector<const char*>& steps,
                     const char* pad_name, GstClockTime skip);
  GstElement* make(Branch& branch, const char* factory);

  tools::GstObjectPtr<GstElement> pipeline_;
  tools::GstObjectPtr<GstElement> vmafexact_;
  struct Branch {
    const VideoInput* input = nullptr;
    std::vector<tools::GstObjectPtr<GstElement>> elements;  // in link order
    std::unique_ptr<SkippedStart> skip;                        // --dist-delay
    std::unique_ptr<Y4mFeed> y4m;                              // a y4m input's appsrc feed
  };
  std::vector<std::unique_ptr<Branch>> branches_;
};

}  // namespace vmafexact::cli
