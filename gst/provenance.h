// Where a run's scores come from: vmafexact's and libvmaf's versions, and
// once a scoring session has started, its models, backend and CPU threads.
// The summary and the window and alert messages carry it as typed fields
// (threads a guint); the logs as text.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vmafexact::gst {

struct Provenance {
  // Of the scoring session, set when it starts.
  struct Session {
    std::string models;   // "vmaf=vmaf_v0.6.1, b=name (path)"
    std::string backend;  // "CPU (AVX2)", or the CUDA device's name
    unsigned threads = 0;
  };
  std::string vmafexact_version;
  std::string libvmaf_version;
  std::optional<Session> session;
  // The element's extra-provenance (settings.h): key and text, in order,
  // after every built-in entry.
  std::vector<std::pair<std::string, std::string>> extra;

  // vmafexact's and libvmaf's versions (libvmaf's with the commit of its
  // master that vmafexact follows), no session yet.
  static Provenance of_build();

  // Key and value in order, as the logs write them (threads in decimal), the
  // extra entries last.
  std::vector<std::pair<std::string, std::string>> as_text() const;
  // Sets the text fields on a message (versions, models, backend, the extra
  // entries).
  void set_text_fields(GstStructure* message) const;
  // Sets every field on a message: the built-in text fields, threads as a
  // guint, then the extra entries.
  void set_fields(GstStructure* message) const;
};

}  // namespace vmafexact::gst
