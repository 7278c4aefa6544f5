#include "output/log_writer.h"

#include <array>
#include <climits>
#include <cmath>
#include <cstdio>

#include "output/log_text.h"
#include "pooling/pooling.h"

namespace vmafexact {

namespace log_text {

std::string printf_double(const char* format, double value) {
  std::array<char, 512> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), format, value);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < buffer.size()) return std::string(buffer.data(), n);
  std::string large(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(large.data(), large.size(), format, value);
  large.resize(static_cast<std::size_t>(n));
  return large;
}

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

struct CodePoint {
  char32_t value = 0;
  std::size_t length = 0;  // 0: no valid UTF-8 sequence starts here
};

// The UTF-8 sequence at text[at]: overlong forms, surrogates and values past
// U+10FFFF are not valid, as in JSON's and XML's UTF-8.
CodePoint code_point_at(std::string_view text, std::size_t at) {
  const auto first = static_cast<unsigned char>(text[at]);
  if (first < 0x80) return {first, 1};
  std::size_t length = 0;
  char32_t value = 0, smallest = 0;
  if ((first & 0xE0) == 0xC0) {
    length = 2, value = first & 0x1F, smallest = 0x80;
  } else if ((first & 0xF0) == 0xE0) {
    length = 3, value = first & 0x0F, smallest = 0x800;
  } else if ((first & 0xF8) == 0xF0) {
    length = 4, value = first & 0x07, smallest = 0x10000;
  } else {
    return {};
  }
  if (text.size() - at < length) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0) != 0x80) return {};
    value = (value << 6) | (next & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length};
}

// Walks `text` by code point: a byte that starts no valid UTF-8 sequence
// becomes U+FFFD; each code point is given to `escape(value, bytes, out)`,
// which appends it as is or escaped.
template <typename Escape>
std::string escape_code_points(std::string_view text, Escape escape) {
  std::string escaped;
  for (std::size_t at = 0; at < text.size();) {
    const CodePoint point = code_point_at(text, at);
    if (point.length == 0) {
      escaped += kReplacement;
      ++at;
      continue;
    }
    escape(point.value, text.substr(at, point.length), escaped);
    at += point.length;
  }
  return escaped;
}

}  // namespace

// Every text a log quotes (names, provenance such as a model file's path) is
// made valid: control characters escaped, bytes that are not UTF-8 replaced by
// U+FFFD, so that the log parses whatever the text holds.
std::string json_escape(std::string_view text) {
  return escape_code_points(text, [](auto value, std::string_view bytes, std::string& out) {
    switch (value) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (value < 0x20) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04X", static_cast<unsigned>(value));
          out += code;
        } else {
          out += bytes;
        }
    }
  });
}

std::string xml_escape(std::string_view text) {
  return escape_code_points(text, [](auto value, std::string_view bytes, std::string& out) {
    switch (value) {
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      // As character references, so that a parser keeps them in an attribute.
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        // XML 1.0 has no other control character below 0x20, nor U+FFFE/U+FFFF,
        // not even as a reference.
        if (value < 0x20 || value == 0xFFFE || value == 0xFFFF)
          out += kReplacement;
        else
          out += bytes;
    }
  });
}

}  // namespace log_text

namespace {

using log_text::json_escape;
using log_text::printf_double;
using log_text::xml_escape;


// libvmaf's count_leading_zeros_d(): how many times the fractional part must be
// multiplied by 10 to reach 1. Its (int) cast of a value past INT_MAX is
// undefined in C; x86-64 gives INT_MIN there, which this reproduces.
int count_leading_zeros(double x) {
  if (x < 0) x = std::fabs(x);
  const int int_part = (x < 2147483648.0) ? static_cast<int>(x) : INT_MIN;
  double fractional_part = x - int_part;
  int count = 0;
  while (fractional_part < 1.0 && fractional_part != 0) {
    fractional_part *= 10;
    ++count;
  }
  return count;
}


bool is_finite(double value) { return std::isfinite(value); }

struct PooledEntry {
  const char* method;
  double value;
};

// libvmaf lists min, max, mean, harmonic_mean in this order.
std::vector<PooledEntry> pooled_entries(const FeatureCollector& scores, const std::string& name,
                                        const LogInfo& info) {
  std::vector<PooledEntry> entries;
  const auto column = scores.column(name);
  if (!column || info.frame_count == 0) return entries;
  const auto pooled = pool_scores(*column, 0, info.frame_count - 1, info.subsample);
  if (!pooled) return entries;
  entries.push_back({"min", pooled->min});
  entries.push_back({"max", pooled->max});
  entries.push_back({"mean", pooled->mean});
  entries.push_back({"harmonic_mean", pooled->harmonic_mean});
  return entries;
}

// Frames libvmaf lists: those below the collector's capacity that are on the
// subsample grid and hold at least one score.
template <typename Visit>
void for_each_listed_frame(const FeatureCollector& scores, unsigned subsample, Visit visit) {
  for (unsigned i = 0; i < scores.frame_count(); ++i) {
    if (subsample > 1 && i % subsample) continue;
    const auto frame = scores.frame_scores(i);
    if (frame.empty()) continue;
    visit(i, frame);
  }
}



void write_json(std::ostream& out, LogPrecision precision, const FeatureCollector& scores,
                const LogInfo& info) {
  out << "{\n";
  out << "  \"version\": \"" << json_escape(info.version) << "\",\n";
  if (is_finite(info.fps))
    out << "  \"fps\": " << printf_double("%.2f", info.fps) << ",\n";
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
  for_each_listed_frame(scores, info.subsample, [&](unsigned i, const auto& frame) {
    out << (i > 0 ? ",\n" : "\n");
    out << "    {\n";
    out << "      \"frameNum\": " << i << ",\n";
    out << "      \"metrics\": {\n";
    for (std::size_t k = 0; k < frame.size(); ++k) {
      const char* comma = k + 1 < frame.size() ? "," : "";
      const auto& [name, value] = frame[k];
      if (is_finite(value))
        out << "        \"" << json_escape(name) << "\": " << format_score(value, precision) << comma
            << "\n";
      else  // libvmaf prints no newline after a null score
        out << "        \"" << json_escape(name) << "\": null" << comma;
    }
    out << "      }\n";
    out << "    }";
  });
  out << "\n  ],\n";

  out << "  \"pooled_metrics\": {";
  const auto& names = scores.names();
  for (std::size_t k = 0; k < names.size(); ++k) {
    out << (k > 0 ? ",\n" : "\n");
    out << "    \"" << json_escape(names[k]) << "\": {";
    const auto entries = pooled_entries(scores, names[k], info);
    for (std::size_t m = 0; m < entries.size(); ++m) {
      out << (m > 0 ? ",\n" : "\n");
      out << "      \"" << entries[m].method << "\": ";
      if (is_finite(entries[m].value))
        out << format_score(entries[m].value, precision);
      else
        out << "null";
    }
    out << "\n";
    out << "    }";
  }
  out << "\n  },\n";

  out << "  \"aggregate_metrics\": {";
  const auto& aggregates = scores.aggregates();
  for (std::size_t k = 0; k < aggregates.size(); ++k) {
    out << "\n    \"" << json_escape(aggregates[k].first) << "\": ";
    if (is_finite(aggregates[k].second))
      out << format_score(aggregates[k].second, precision);
    else
      out << "null";
    out << (k + 1 < aggregates.size() ? "," : "");
  }
  out << "\n  }\n";
  out << "}\n";
}

void write_xml(std::ostream& out, LogPrecision precision, const FeatureCollector& scores,
               const LogInfo& info) {
  out << "<VMAF version=\"" << xml_escape(info.version) << "\">\n";
  out << "  <params qualityWidth=\"" << info.width << "\" qualityHeight=\"" << info.height
      << "\" />\n";
  out << "  <fyi fps=\"" << printf_double("%.2f", info.fps) << "\" />\n";
  if (!info.provenance.empty()) {
    out << "  <provenance ";
    for (const auto& [key, value] : info.provenance)
      out << xml_escape(key) << "=\"" << xml_escape(value) << "\" ";
    out << "/>\n";
  }
  out << "  <frames>\n";
  for_each_listed_frame(scores, info.subsample, [&](unsigned i, const auto& frame) {
    out << "    <frame frameNum=\"" << i << "\" ";
    for (const auto& [name, value] : frame)
      out << xml_escape(name) << "=\"" << format_score(value, precision) << "\" ";
    out << "/>\n";
  });
  out << "  </frames>\n";
  out << "  <pooled_metrics>\n";
  for (const auto& name : scores.names()) {
    out << "    <metric name=\"" << xml_escape(name) << "\" ";
    for (const auto& entry : pooled_entries(scores, name, info))
      out << entry.method << "=\"" << format_score(entry.value, precision) << "\" ";
    out << "/>\n";
  }
  out << "  </pooled_metrics>\n";
  out << "  <aggregate_metrics ";
  // libvmaf prints every aggregate with printf, non-finite ones too ("inf", "-nan").
  for (const auto& [name, value] : scores.aggregates())
    out << xml_escape(name) << "=\"" << format_score(value, precision) << "\" ";
  out << "/>\n";
  out << "</VMAF>\n";
}

void write_csv(std::ostream& out, LogPrecision precision, const FeatureCollector& scores,
               const LogInfo& info) {
  out << "Frame,";
  for (const auto& name : scores.names()) out << name << ",";
  out << "\n";
  for_each_listed_frame(scores, info.subsample, [&](unsigned i, const auto& frame) {
    out << i << ",";
    for (const auto& entry : frame) out << format_score(entry.second, precision) << ",";
    out << "\n";
  });
}

void write_sub(std::ostream& out, LogPrecision precision, const FeatureCollector& scores,
               const LogInfo& info) {
  for_each_listed_frame(scores, info.subsample, [&](unsigned i, const auto& frame) {
    write_sub_line(out, i, frame, precision);
  });
}

}  // namespace

// libvmaf's vmaf_write_output_sub(): each frame a MicroDVD subtitle shown from
// its frame to the next, "{i}{i+1}frame: i|name: value|...".
void write_sub_line(std::ostream& out, unsigned index,
                    const std::vector<std::pair<std::string, double>>& frame,
                    LogPrecision precision) {
  out << "{" << index << "}{" << index + 1 << "}frame: " << index << "|";
  for (const auto& [name, value] : frame)
    out << name << ": " << format_score(value, precision) << "|";
  out << "\n";
}

std::optional<LogFormat> parse_log_format(std::string_view name) {
  if (name == "json") return LogFormat::kJson;
  if (name == "xml") return LogFormat::kXml;
  if (name == "csv") return LogFormat::kCsv;
  if (name == "sub") return LogFormat::kSub;
  return std::nullopt;
}

const char* log_format_name(LogFormat format) {
  switch (format) {
    case LogFormat::kXml:
      return "xml";
    case LogFormat::kCsv:
      return "csv";
    case LogFormat::kSub:
      return "sub";
    case LogFormat::kJson:
      break;
  }
  return "json";
}

std::optional<LogFormat> log_format_of_path(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string_view leaf = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = leaf.find_last_of('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string extension(leaf.substr(dot + 1));
  for (char& c : extension)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return parse_log_format(extension);
}

std::optional<LogPrecision> parse_log_precision(std::string_view name) {
  if (name == "default") return LogPrecision::kDefault;
  if (name == "max") return LogPrecision::kMax;
  return std::nullopt;
}

std::string format_score(double value, LogPrecision precision) {
  if (precision == LogPrecision::kMax) return printf_double("%.17g", value);
  return printf_double(count_leading_zeros(value) <= 6 ? "%.6f" : "%.16f", value);
}

void write_log(std::ostream& out, LogFormat format, LogPrecision precision,
               const FeatureCollector& scores, const LogInfo& info) {
  switch (format) {
    case LogFormat::kJson: write_json(out, precision, scores, info); break;
    case LogFormat::kXml: write_xml(out, precision, scores, info); break;
    case LogFormat::kCsv: write_csv(out, precision, scores, info); break;
    case LogFormat::kSub:
      write_sub(out, precision, scores, info);
      break;
  }
}

}  // namespace vmafexact
