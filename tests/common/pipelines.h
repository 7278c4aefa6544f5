// Helpers for tests that run real pipelines: run to EOS, and rawvideoparse
// for the tightly packed fixture files.
#pragma once

#include <string>

#include "fixtures.h"

namespace vmafexact::test {

// rawvideoparse for a tightly packed file (it pads rows by default).
std::string raw_parser(const FixturePair& pair);

// Runs the pipeline to EOS; returns the error text, empty on success.
std::string run_pipeline(const std::string& description);

}  // namespace vmafexact::test
