// One channel's pipeline, built from its configuration (config.h): either the
// user's gst-launch description, or the reference and distorted inputs
// decoded, the distorted one scaled and converted to the reference's size and
// scoring format as the vmafexact tool does (support/conform.h), into a
// vmafexact element whose output goes to a fakesink. Reference:
// docs/live-monitoring.md.
#pragma once

#include <gst/gst.h>

#include <stdexcept>

#include "config.h"
#include "support/handles.h"

namespace vmafexact::monitor_tool {

// A channel whose pipeline cannot be built. what(): the problem and the fix.
class PipelineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The pipeline (in NULL) and its vmafexact element, named "v".
struct ChannelPipeline {
  tools::GstObjectPtr<GstElement> pipeline, vmafexact;
};

// The channel's pipeline, with a vmafexact element named "v" whose src goes to
// a fakesink sync=false (ref/dist), or as the description says (pipeline).
// Element properties and offsets are not set here. Built for one run: to
// restart a channel, build it anew (the distorted input is held for the
// reference's caps once, at the start). Throws PipelineError.
ChannelPipeline build_channel_pipeline(const ChannelConfig& channel);

}  // namespace vmafexact::monitor_tool
