#include "output/log_stream.h"

#include <cmath>

#include "output/log_text.h"

namespace vmafexact {

namespace {

using log_text::json_escape;
using log_text::xml_escape;

std::string fps_text(double fps) { return log_text::printf_double("%.2f", fps); }

}  // namespace

void LogStream::write_frame(std::ostream& body, unsigned index,
                            const std::vector<std::pair<std::string, double>>& frame) {
  if (frame.empty()) return;
  const bool opens = part_ && frames_written_ == 0;
  ++frames_written_;
  switch (format_) {
    case LogFormat::kJson:
      body << (index > 0 && !opens ? ",\n" : "\n");
      body << "    {\n";
      body << "      \"frameNum\": " << index << ",\n";
      body << "      \"metrics\": {\n";
      for (std::size_t k = 0; k < frame.size(); ++k) {
        const char* comma = k + 1 < frame.size() ? "," : "";
        const auto& [name, value] = frame[k];
        if (std::isfinite(value))
          body << "        \"" << json_escape(name) << "\": " << format_score(value, precision_)
               << comma << "\n";
        else  // libvmaf prints no newline after a null score
          body << "        \"" << json_escape(name) << "\": null" << comma;
      }
      body << "      }\n";
      body << "    }";
      break;
    case LogFormat::kXml:
      body << "    <frame frameNum=\"" << index << "\" ";
      for (const auto& [name, value] : frame)
        body << xml_escape(name) << "=\"" << format_score(value, precision_) << "\" ";
      body << "/>\n";
      break;
    case LogFormat::kCsv:
      body << index << ",";
      for (const auto& entry : frame) body << format_score(entry.second, precision_) << ",";
      body << "\n";
      break;
    case LogFormat::kSub:
      write_sub_line(body, index, frame, precision_);
      break;
  }
}

void LogStream::write_head(std::ostream& out, const std::vector<std::string>& names,
                           const LogInfo& info) const {
  switch (format_) {
    case LogFormat::kJson:
      out << "{\n";
      out << "  \"version\": \"" << json_escape(info.version) << "\",\n";
      if (std::isfinite(info.fps))
        out << "  \"fps\": " << fps_text(info.fps) << ",\n";
      else
        out << "  \"fps\": null,\n";
      if (!info.provenance.empty()) {
        out << "  \"provenance\": {";
        for (std::size_t k = 0; k < info.provenance.size(); ++k)
          out << (k > 0 ? ",\n" : "\n") << "    \"" << json_escape(info.provenance[k].first)
              << "\": \"" << json_escape(info.provenance[k].second) << "\"";
        out << "\n  },\n";
      }
      out << "  \"frames\": [";
      break;
    case LogFormat::kXml:
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
      break;
    case LogFormat::kCsv:
      out << "Frame,";
      for (const auto& name : names) out << name << ",";
      out << "\n";
      break;
    case LogFormat::kSub:  // frame lines only
      break;
  }
}

void LogStream::write_tail(std::ostream& out, const std::vector<std::string>& names,
                           const RunningPools& pools,
                           const std::vector<std::pair<std::string, double>>& aggregates) const {
  switch (format_) {
    case LogFormat::kJson: {
      out << "\n  ],\n";
      out << "  \"pooled_metrics\": {";
      for (std::size_t k = 0; k < names.size(); ++k) {
        out << (k > 0 ? ",\n" : "\n");
        out << "    \"" << json_escape(names[k]) << "\": {";
        if (const auto pooled = pools.pooled(names[k])) {
          const std::pair<const char*, double> entries[] = {
              {"min", pooled->min},
              {"max", pooled->max},
              {"mean", pooled->mean},
              {"harmonic_mean", pooled->harmonic_mean}};
          for (std::size_t m = 0; m < std::size(entries); ++m) {
            out << (m > 0 ? ",\n" : "\n");
            out << "      \"" << entries[m].first << "\": ";
            if (std::isfinite(entries[m].second))
              out << format_score(entries[m].second, precision_);
            else
              out << "null";
          }
        }
        out << "\n";
        out << "    }";
      }
      out << "\n  },\n";
      out << "  \"aggregate_metrics\": {";
      for (std::size_t k = 0; k < aggregates.size(); ++k) {
        out << "\n    \"" << json_escape(aggregates[k].first) << "\": ";
        if (std::isfinite(aggregates[k].second))
          out << format_score(aggregates[k].second, precision_);
        else
          out << "null";
        out << (k + 1 < aggregates.size() ? "," : "");
      }
      out << "\n  }\n";
      out << "}\n";
      break;
    }
    case LogFormat::kXml:
      out << "  </frames>\n";
      out << "  <pooled_metrics>\n";
      for (const auto& name : names) {
        out << "    <metric name=\"" << xml_escape(name) << "\" ";
        if (const auto pooled = pools.pooled(name))
          out << "min=\"" << format_score(pooled->min, precision_) << "\" max=\""
              << format_score(pooled->max, precision_) << "\" mean=\""
              << format_score(pooled->mean, precision_) << "\" harmonic_mean=\""
              << format_score(pooled->harmonic_mean, precision_) << "\" ";
        out << "/>\n";
      }
      out << "  </pooled_metrics>\n";
      out << "  <aggregate_metrics ";
      // libvmaf prints every aggregate with printf, non-finite ones too ("inf", "-nan").
      for (const auto& [name, value] : aggregates)
        out << xml_escape(name) << "=\"" << format_score(value, precision_) << "\" ";
      out << "/>\n";
      out << "</VMAF>\n";
      break;
    case LogFormat::kCsv:
    case LogFormat::kSub:
      break;
  }
}

}  // namespace vmafexact
