#include "ladder.h"

#include <glib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

#include "bd_rate.h"
#include "errors.h"

namespace vmafexact::cli {
namespace {

// Whether the element's features list (libvmaf's --feature syntax:
// name[=option=value:...], comma-separated) has the extractor `name`.
bool has_feature(const std::string& features, std::string_view name) {
  gchar** entries = g_strsplit(features.c_str(), ",", -1);
  bool found = false;
  for (gchar** entry = entries; *entry && !found; ++entry) {
    const std::string_view text = g_strstrip(*entry);
    found = text.substr(0, text.find('=')) == name;
  }
  g_strfreev(entries);
  return found;
}

// The pooled mean of `score` in the element's summary; NaN when not there.
double pooled_mean(const GstStructure* summary, const std::string& score) {
  double mean = report::kUnknown;
  const GValue* value = summary ? gst_structure_get_value(summary, score.c_str()) : nullptr;
  if (value && GST_VALUE_HOLDS_STRUCTURE(value))
    gst_structure_get_double(gst_value_get_structure(value), "mean", &mean);
  return mean;
}

// The first model's score name: the summary's "models" reads "vmaf=vmaf_v0.6.1, ...".
std::string first_model_score(const GstStructure* summary) {
  const gchar* models = summary ? gst_structure_get_string(summary, "models") : nullptr;
  if (!models || !*models) return "vmaf";
  const std::string_view first = std::string_view(models).substr(0, std::strcspn(models, ",="));
  return std::string(first);
}

report::LadderPoint ladder_point(const Outputs& encode) {
  const VideoInput& dist = encode.dist();
  const double seconds = GST_CLOCK_TIME_IS_VALID(dist.duration)
                             ? static_cast<double>(dist.duration) / GST_SECOND
                             : report::kUnknown;
  const GstStructure* summary = encode.summary();
  return {encode.name(), seconds > 0 ? file_size_bytes(dist.path) * 8 / seconds : report::kUnknown,
          pooled_mean(summary, first_model_score(summary)), pooled_mean(summary, "psnr_y")};
}

}  // namespace

Options prepare_ladders(Options options) {
  if (options.ladders.empty()) return options;
  for (const Options::Ladder& ladder : options.ladders) {
    if (ladder.paths.size() < report::kMinBdRatePoints) {
      throw CliError(kExitUsage,
                     "--ladder " + ladder.name + " has " + std::to_string(ladder.paths.size()) +
                         (ladder.paths.size() == 1 ? " encode" : " encodes") +
                         "; BD-rate needs 4 or more per ladder",
                     "Give each ladder 4 or more encodes of the reference at different "
                     "bitrates: --ladder " +
                         ladder.name + "=a.mp4,b.mp4,c.mp4,d.mp4");
    }
  }
  if (!has_feature(options.features, "psnr")) {
    options.features +=
        options.features.find_first_not_of(" \t") == std::string::npos ? "psnr" : ",psnr";
  }
  return options;
}

std::vector<report::Ladder> run_ladders(const Options& options,
                                        const std::vector<const Outputs*>& encodes) {
  std::vector<report::Ladder> ladders;
  for (const Options::Ladder& given : options.ladders) {
    report::Ladder ladder{given.name, {}};
    for (const std::string& path : given.paths) {
      const auto encode = std::ranges::find_if(
          encodes, [&](const Outputs* outputs) { return outputs->dist().path == path; });
      if (encode != encodes.end()) {
        ladder.points.push_back(ladder_point(**encode));
      } else {
        ladder.points.push_back({path, report::kUnknown, report::kUnknown, report::kUnknown});
      }
    }
    ladders.push_back(std::move(ladder));
  }
  return ladders;
}

void print_bd_rates(std::FILE* to, const std::vector<report::Ladder>& ladders) {
  if (ladders.empty()) return;
  const std::string table = report::bd_rate_table_text(report::compare_ladders(ladders));
  std::fprintf(to, "\n%s", table.c_str());
}

}  // namespace vmafexact::cli
