// vmafexact-monitor's /metrics: the channels' figures (figures.h) as the
// families docs/live-monitoring.md lists, in the format the scraper asks for:
// OpenMetrics 1.0.0, or Prometheus' text format 0.0.4.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "figures.h"
#include "monitor_http_request.h"

namespace vmafexact::monitor_tool {

enum class ExpositionFormat { kOpenMetrics, kText };

// OpenMetrics when the Accept header lists application/openmetrics-text (with
// a q above 0), else the text format ("" and "*/*" among them).
ExpositionFormat negotiate_format(std::string_view accept_header);

// The body and its Content-Type.
using Rendered = monitor_http::Rendered;

// What a score measures, which picks its family (vmafexact_frame_K, ...):
// a model's output (0-100 for VMAF models), a PSNR-like score in decibels, or
// any other feature (in libvmaf's unit for it).
enum class ScoreKind { kVmaf, kPsnrDecibels, kFeature };
// `model_keys`: the models' score names (ChannelFigures::model_keys(): the
// element's `models` field, or before a message had it, the model property's
// ":name=KEY"s); a model's bootstrap
// scores (KEY_bagging, KEY_stddev, KEY_ci_p95_lo, KEY_ci_p95_hi, KEY_0001, ...)
// are its kind too. Without the key, a name that is none of libvmaf's feature
// names is a model's.
ScoreKind score_kind(std::string_view score, const std::vector<std::string>& model_keys);

// The whole exposition over the channels, each family once with its samples
// contiguous, in the channels' order within it.
Rendered render_metrics(const std::vector<const ChannelFigures*>& channels,
                        std::string_view version, ExpositionFormat format);

}  // namespace vmafexact::monitor_tool
