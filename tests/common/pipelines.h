// Helpers for tests that run real pipelines: run to EOS, and rawvideoparse
// for the tightly packed fixture files.
#pragma once

#include <gst/gst.h>

#include <string>

#include "fixtures.h"

namespace vmafexact::test {

// rawvideoparse for a tightly packed file (it pads rows by default).
std::string raw_parser(const FixturePair& pair);

// Runs the pipeline to EOS; returns the error text, empty on success.
std::string run_pipeline(const std::string& description);

// The same for a pipeline already built (left in NULL, not unreferenced).
std::string run_to_eos(GstElement* pipeline);

}  // namespace vmafexact::test
