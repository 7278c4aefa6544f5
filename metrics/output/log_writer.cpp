#include "output/log_writer.h"

#include <climits>
#include <cmath>

#include "output/log_stream.h"
#include "output/log_text.h"
#include "pooling/pooling.h"

namespace vmafexact {

namespace {

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

}  // namespace

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
  if (precision == LogPrecision::kMax) return log_text::printf_double("%.17g", value);
  return log_text::printf_double(count_leading_zeros(value) <= 6 ? "%.6f" : "%.16f", value);
}

// The whole log through the one writer of each layout (LogStream), with the
// pooling over the collector's columns.
void write_log(std::ostream& out, LogFormat format, LogPrecision precision,
               const FeatureCollector& scores, const LogInfo& info) {
  LogStream log(format, precision);
  const auto& names = scores.names();
  log.write_head(out, names, info);
  // Frames on the subsample grid below the collector's capacity; write_frame
  // passes over those without any score.
  for (unsigned i = 0; i < scores.frame_count(); ++i)
    if (info.subsample <= 1 || i % info.subsample == 0)
      log.write_frame(out, i, scores.frame_scores(i));
  const auto pooled_of = [&](const std::string& name) -> std::optional<PooledScore> {
    const auto column = scores.column(name);
    if (!column || info.frame_count == 0) return std::nullopt;
    return pool_scores(*column, 0, info.frame_count - 1, info.subsample);
  };
  log.write_tail(out, names, pooled_of, scores.aggregates());
}

}  // namespace vmafexact
