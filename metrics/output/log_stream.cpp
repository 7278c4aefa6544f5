#include "output/log_stream.h"

#include <cmath>

#include "output/log_text.h"

namespace vmafexact {

namespace {

using log_text::json_escape;
using log_text::xml_escape;
using FrameScores = std::vector<std::pair<std::string, double>>;

std::string fps_text(double fps) { return log_text::printf_double("%.2f", fps); }

// Each layout's pieces, as libvmaf 3.2.0's output.c writes them, in one place
// per layout: the streamed log and write_log() (the whole log) both write
// through them.

// --- JSON ---

void json_head(std::ostream& out, const LogInfo& info) {
  out << "{\n";
  out << "  \"version\": \"" << json_escape(info.version) << "\",\n";
  if (std::isfinite(info.fps))
    out << "  \"fps\": " << fps_text(info.fps) << ",\n";
  else
    out << "  \"fps\": null,\n";
  if (!info.provenance.empty()) {
    out << "  \"provenance\": {";
    for (std::size_t k = 0; k < info.provenance.size(); ++k)
      out << (k > 0 ? ",\n" : "\n") << "    \"" << json_escape(info.provenance[k].first) << "\": \""
          << json_escape(info.provenance[k].second) << "\"";
    out << "\n  },\n";
  }
  out << "  \"frames\": [";
}

// `opens`: the entry opens the list. libvmaf writes a comma before every frame
// but frame 0, even where frame 0 is not listed; a part of a rotated log opens
// its list as frame 0 would.
void json_frame(std::ostream& out, LogPrecision precision, unsigned index, const FrameScores& frame,
                bool opens) {
  out << (index > 0 && !opens ? ",\n" : "\n");
  out << "    {\n";
  out << "      \"frameNum\": " << index << ",\n";
  out << "      \"metrics\": {\n";
  for (std::size_t k = 0; k < frame.size(); ++k) {
    const char* comma = k + 1 < frame.size() ? "," : "";
    const auto& [name, value] = frame[k];
    if (std::isfinite(value))
      out << "        \"" << json_escape(name) << "\": " << format_score(value, precision) << comma
          << "\n";
    else  // libvmaf prints no newline after a null score
      out << "        \"" << json_escape(name) << "\": null" << comma;
  }
  out << "      }\n";
  out << "    }";
}

void json_tail(std::ostream& out, LogPrecision precision, const std::vector<std::string>& names,
               const PooledOf& pooled_of, const FrameScores& aggregates) {
  const auto number = [&](double value) {
    return std::isfinite(value) ? format_score(value, precision) : std::string("null");
  };
  out << "\n  ],\n";
  out << "  \"pooled_metrics\": {";
  for (std::size_t k = 0; k < names.size(); ++k) {
    out << (k > 0 ? ",\n" : "\n");
    out << "    \"" << json_escape(names[k]) << "\": {";
    if (const auto pooled = pooled_of(names[k])) {
      // libvmaf lists min, max, mean, harmonic_mean in this order.
      const std::pair<const char*, double> entries[] = {{"min", pooled->min},
                                                        {"max", pooled->max},
                                                        {"mean", pooled->mean},
                                                        {"harmonic_mean", pooled->harmonic_mean}};
      for (std::size_t m = 0; m < std::size(entries); ++m)
        out << (m > 0 ? ",\n" : "\n") << "      \"" << entries[m].first
            << "\": " << number(entries[m].second);
    }
    out << "\n";
    out << "    }";
  }
  out << "\n  },\n";
  out << "  \"aggregate_metrics\": {";
  for (std::size_t k = 0; k < aggregates.size(); ++k)
    out << "\n    \"" << json_escape(aggregates[k].first) << "\": " << number(aggregates[k].second)
        << (k + 1 < aggregates.size() ? "," : "");
  out << "\n  }\n";
  out << "}\n";
}

// --- XML ---

void xml_head(std::ostream& out, const LogInfo& info) {
  out << "<VMAF version=\"" << xml_escape(info.version) << "\">\n";
  out << "  <params qualityWidth=\"" << info.width << "\" qualityHeight=\"" << info.height
      << "\" />\n";
  out << "  <fyi fps=\"" << fps_text(info.fps) << "\" />\n";
  if (!info.provenance.empty()) {
    out << "  <provenance ";
    for (const auto& [key, value] : info.provenance)
      out << xml_escape(key) << "=\"" << xml_escape(value) << "\" ";
    out << "/>\n";
  }
  out << "  <frames>\n";
}

void xml_frame(std::ostream& out, LogPrecision precision, unsigned index,
               const FrameScores& frame) {
  out << "    <frame frameNum=\"" << index << "\" ";
  for (const auto& [name, value] : frame)
    out << xml_escape(name) << "=\"" << format_score(value, precision) << "\" ";
  out << "/>\n";
}

// libvmaf prints every XML number with printf, non-finite ones too ("inf", "-nan").
void xml_tail(std::ostream& out, LogPrecision precision, const std::vector<std::string>& names,
              const PooledOf& pooled_of, const FrameScores& aggregates) {
  out << "  </frames>\n";
  out << "  <pooled_metrics>\n";
  for (const auto& name : names) {
    out << "    <metric name=\"" << xml_escape(name) << "\" ";
    if (const auto pooled = pooled_of(name))
      out << "min=\"" << format_score(pooled->min, precision) << "\" max=\""
          << format_score(pooled->max, precision) << "\" mean=\""
          << format_score(pooled->mean, precision) << "\" harmonic_mean=\""
          << format_score(pooled->harmonic_mean, precision) << "\" ";
    out << "/>\n";
  }
  out << "  </pooled_metrics>\n";
  out << "  <aggregate_metrics ";
  for (const auto& [name, value] : aggregates)
    out << xml_escape(name) << "=\"" << format_score(value, precision) << "\" ";
  out << "/>\n";
  out << "</VMAF>\n";
}

// --- CSV: the column names, then a line per frame; no pooled values ---

void csv_head(std::ostream& out, const std::vector<std::string>& names) {
  out << "Frame,";
  for (const auto& name : names) out << name << ",";
  out << "\n";
}

void csv_frame(std::ostream& out, LogPrecision precision, unsigned index,
               const FrameScores& frame) {
  out << index << ",";
  for (const auto& entry : frame) out << format_score(entry.second, precision) << ",";
  out << "\n";
}

// --- SUB: frame lines only. libvmaf's vmaf_write_output_sub(): each frame a
// MicroDVD subtitle shown from its frame to the next,
// "{i}{i+1}frame: i|name: value|...". ---

void sub_frame(std::ostream& out, LogPrecision precision, unsigned index,
               const FrameScores& frame) {
  out << "{" << index << "}{" << index + 1 << "}frame: " << index << "|";
  for (const auto& [name, value] : frame)
    out << name << ": " << format_score(value, precision) << "|";
  out << "\n";
}

}  // namespace

void LogStream::write_frame(std::ostream& body, unsigned index, const FrameScores& frame) {
  if (frame.empty()) return;
  const bool opens = part_ && frames_written_ == 0;
  ++frames_written_;
  switch (format_) {
    case LogFormat::kJson:
      json_frame(body, precision_, index, frame, opens);
      break;
    case LogFormat::kXml:
      xml_frame(body, precision_, index, frame);
      break;
    case LogFormat::kCsv:
      csv_frame(body, precision_, index, frame);
      break;
    case LogFormat::kSub:
      sub_frame(body, precision_, index, frame);
      break;
  }
}

void LogStream::write_head(std::ostream& out, const std::vector<std::string>& names,
                           const LogInfo& info) const {
  switch (format_) {
    case LogFormat::kJson:
      json_head(out, info);
      break;
    case LogFormat::kXml:
      xml_head(out, info);
      break;
    case LogFormat::kCsv:
      csv_head(out, names);
      break;
    case LogFormat::kSub:
      break;
  }
}

void LogStream::write_tail(std::ostream& out, const std::vector<std::string>& names,
                           const PooledOf& pooled_of, const FrameScores& aggregates) const {
  switch (format_) {
    case LogFormat::kJson:
      json_tail(out, precision_, names, pooled_of, aggregates);
      break;
    case LogFormat::kXml:
      xml_tail(out, precision_, names, pooled_of, aggregates);
      break;
    case LogFormat::kCsv:
    case LogFormat::kSub:
      break;
  }
}

void LogStream::write_tail(std::ostream& out, const std::vector<std::string>& names,
                           const RunningPools& pools, const FrameScores& aggregates) const {
  write_tail(
      out, names, [&pools](const std::string& name) { return pools.pooled(name); }, aggregates);
}

}  // namespace vmafexact
