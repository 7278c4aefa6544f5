// A libvmaf-format log written in pieces, so that a stream of any length is
// logged without keeping its frames: each final frame's entry goes out at
// once (to a body file), and the parts that hold late values — the head
// (fps, the CSV's column names) and the pooled and aggregate blocks — are
// written at the end. Every layout is written here and only here: write_log()
// (the whole log) is head + entries + tail of a LogStream, so the streamed
// log equals it byte for byte (tests/unit/test_log_stream.cpp,
// test_log_writer.cpp).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "output/log_writer.h"
#include "pooling/pooling.h"

namespace vmafexact {

// A score's pooled values by name; nullopt where none are listed (libvmaf's
// pooling failed: no frame, or a frame without the score).
using PooledOf = std::function<std::optional<PooledScore>(const std::string& name)>;

class LogStream {
 public:
  // `part`: this log holds a part of a stream (log rotation) whose first
  // frame need not be frame 0; its first entry then opens the JSON list as
  // frame 0's would (libvmaf writes a comma before every frame but frame 0).
  LogStream(LogFormat format, LogPrecision precision, bool part = false)
      : format_(format), precision_(precision), part_(part) {}

  // One frame's entry: its scores in the collector's names() order. Frames
  // come in order, only those on the subsample grid; a frame without any
  // score is not listed (as libvmaf).
  void write_frame(std::ostream& body, unsigned index,
                   const std::vector<std::pair<std::string, double>>& scores);
  unsigned frames_written() const { return frames_written_; }

  void write_head(std::ostream& out, const std::vector<std::string>& names,
                  const LogInfo& info) const;
  // `pooled_of`: the pooled values of this log's frames; `aggregates`:
  // libvmaf's aggregate metrics (the collector's aggregates()).
  void write_tail(std::ostream& out, const std::vector<std::string>& names,
                  const PooledOf& pooled_of,
                  const std::vector<std::pair<std::string, double>>& aggregates) const;
  // `pools`: the frames of this log pooled as they were written.
  void write_tail(std::ostream& out, const std::vector<std::string>& names,
                  const RunningPools& pools,
                  const std::vector<std::pair<std::string, double>>& aggregates) const;

 private:
  LogFormat format_;
  LogPrecision precision_;
  bool part_;
  unsigned frames_written_ = 0;
};

}  // namespace vmafexact
