// Test support: the fixtures (generated once into a cache by the repository's
// tests/fixtures/make_fixtures.sh), raw .yuv frames as PictureViews, and
// libvmaf's reference logs (tests/fixtures/ref).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/feature_extractor.h"
#include "common/picture.h"

namespace vmafexact::test {

// The folder holding fixtures/: the repository's tests/ by default, or another
// of the same layout named by $VMAFEXACT_SHARED_DIR or meson's -Dshared_dir=.
std::filesystem::path shared_dir();

// shared_dir()/fixtures: make_fixtures.sh, SHA256SUMS, FIXTURES.txt, ref/.
std::filesystem::path fixtures_dir();

// fixtures_dir()/ref: libvmaf 3.2.0's reference logs.
std::filesystem::path reference_dir();

// Generates the fixtures into the cache if they are not there yet (under a
// file lock, so parallel test binaries generate once), checks them against
// SHA256SUMS, and returns the folder holding the .yuv files. Throws with a
// clear message when that is impossible (the generator's exit status and last
// line, or the files that differ from SHA256SUMS); the other test binaries of
// the same `meson test` run then throw the same message at once instead of
// generating again. $VMAFEXACT_FIXTURE_YUV_DIR names a folder of ready .yuv
// files instead (used as it is, e.g. on the GPU machine).
std::filesystem::path fixture_yuv_dir();

// A pair described by the name of its reference log, e.g.
// "a_576x324_420p8_dis_x264crf23.max.json" or
// "d_1277x719_420p8_dis_x264crf30.vmafcli.max.json".
struct FixturePair {
  std::string log_name;          // file name in reference_dir()
  std::string ref_yuv;           // file names in fixture_yuv_dir()
  std::string dist_yuv;
  PictureFormat format;
  std::string gst_format;        // GStreamer format name of the files (I420, Y42B, ...)
  bool vmafcli_layout = false;   // reference made from floor-chroma copies
};
// How GoogleTest lists a parameter (else as its bytes, padding included).
inline void PrintTo(const FixturePair& pair, std::ostream* os) { *os << pair.log_name; }

// Every reference log with %.17g values, excluding logs kept for information
// only (libvmaf's own AVX-512 output).
std::vector<FixturePair> max_precision_pairs();
// The same from the logs in another folder.
std::vector<FixturePair> max_precision_pairs(const std::filesystem::path& dir);

// Frames of a tightly packed planar .yuv file in GStreamer/ffmpeg layout
// (chroma rounded up) — the view uses libvmaf's rounded-down chroma region.
class YuvFile {
 public:
  YuvFile(const std::filesystem::path& path, const PictureFormat& format);
  unsigned frame_count() const { return frame_count_; }
  PictureView frame(unsigned index) const;
  std::size_t frame_bytes() const { return frame_bytes_; }

 private:
  PictureFormat format_;
  std::vector<std::uint8_t> data_;
  std::size_t frame_bytes_ = 0;
  unsigned frame_count_ = 0;
};

// A libvmaf JSON log, parsed: per frame a map of score name -> value (NaN for
// null), pooled metrics per name and method, and key order of frame 0.
struct ReferenceLog {
  std::vector<std::map<std::string, double>> frames;
  std::map<std::string, std::map<std::string, double>> pooled;
  std::vector<std::string> frame_key_order;
  std::vector<std::string> pooled_key_order;
  // "aggregate_metrics" in the log's order (NaN for null: libvmaf prints any
  // non-finite value so).
  std::vector<std::pair<std::string, double>> aggregates;
};
ReferenceLog load_reference_log(const std::filesystem::path& path);
ReferenceLog parse_reference_log(const std::string& json_text);

std::string read_file(const std::filesystem::path& path);

}  // namespace vmafexact::test
