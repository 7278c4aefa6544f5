#include "fixtures.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace vmafexact::test {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path shared_dir() {
  if (const char* env = std::getenv("VMAFEXACT_SHARED_DIR"); env && *env) return env;
  return VMAFEXACT_DEFAULT_SHARED_DIR;
}

fs::path fixtures_dir() { return shared_dir() / "fixtures"; }

fs::path reference_dir() { return fixtures_dir() / "ref"; }

namespace {

fs::path cache_root() {
  if (const char* env = std::getenv("VMAFEXACT_FIXTURE_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "vmafexact" / "fixtures";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "vmafexact" / "fixtures";
  return fs::temp_directory_path() / "vmafexact-fixtures";
}

// Holds an exclusive flock for its lifetime.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_CREAT | O_RDWR, 0644)) {
    if (fd_ < 0) throw std::runtime_error("cannot open lock file " + path.string());
    ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

fs::path fixture_yuv_dir() {
  // A folder of ready (possibly truncated) .yuv files, for machines without
  // ffmpeg such as the GPU machine: used as it is, without generation or checks.
  if (const char* env = std::getenv("VMAFEXACT_FIXTURE_YUV_DIR"); env && *env) return env;
  const fs::path sums = fixtures_dir() / "SHA256SUMS";
  const fs::path script = fixtures_dir() / "make_fixtures.sh";
  if (!fs::exists(sums) || !fs::exists(script))
    throw std::runtime_error("fixture generator not found in " + fixtures_dir().string() +
                             " (VMAFEXACT_SHARED_DIR or -Dshared_dir= must name a folder"
                             " holding fixtures/make_fixtures.sh and fixtures/SHA256SUMS)");
  const fs::path root = cache_root();
  fs::create_directories(root);
  const fs::path yuv = root / "yuv";
  const fs::path marker = root / "verified.sha256sums";
  const std::string expected = read_file(sums);
  auto verified = [&] { return fs::exists(marker) && read_file(marker) == expected; };
  if (verified()) return yuv;

  FileLock lock(root / ".lock");
  if (verified()) return yuv;
  // meson sets MALLOC_PERTURB_ for tests; the encoders in the generator must run
  // without it to reproduce the recorded bytes.
  const std::string command = "env -u MALLOC_PERTURB_ bash " + shell_quote(script.string()) + " " +
                              shell_quote(root.string()) + " >" +
                              shell_quote((root / "make_fixtures.log").string()) +
                              " 2>&1 && cd " + shell_quote(yuv.string()) +
                              " && sha256sum --quiet -c " + shell_quote(sums.string());
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("generating the fixtures failed: see " +
                             (root / "make_fixtures.log").string() +
                             " (needs ffmpeg with libx264 and python3)");
  std::ofstream(marker) << expected;
  return yuv;
}

std::vector<FixturePair> max_precision_pairs() { return max_precision_pairs(reference_dir()); }

std::vector<FixturePair> max_precision_pairs(const fs::path& dir) {
  // <letter>_<W>x<H>_<420|422|444>p<bits>_dis_<name>[.vmafcli|.neg|...].<kind>.max.json
  static const std::regex pattern(R"(^(([a-z])_(\d+)x(\d+)_(4[024][024])p(\d+))_dis_([^.]+)(\..*)?\.max\.json$)");
  if (!fs::is_directory(dir))
    throw std::runtime_error("no reference logs at " + dir.string() +
                             " (VMAFEXACT_SHARED_DIR or -Dshared_dir= must name a folder"
                             " holding fixtures/ref)");
  std::vector<FixturePair> pairs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, pattern)) continue;
    if (name.find("libvmaf-avx512") != std::string::npos) continue;  // information only
    FixturePair pair;
    pair.log_name = name;
    pair.ref_yuv = match[1].str() + "_ref.yuv";
    pair.dist_yuv = match[1].str() + "_dis_" + match[7].str() + ".yuv";
    pair.vmafcli_layout = name.find(".vmafcli.") != std::string::npos;
    pair.format.width = static_cast<unsigned>(std::stoul(match[3].str()));
    pair.format.height = static_cast<unsigned>(std::stoul(match[4].str()));
    pair.format.bpc = static_cast<unsigned>(std::stoul(match[6].str()));
    const std::string sampling = match[5].str();
    pair.format.chroma = sampling == "420"   ? ChromaFormat::k420
                         : sampling == "422" ? ChromaFormat::k422
                                             : ChromaFormat::k444;
    const char* base = sampling == "420" ? "I420" : sampling == "422" ? (pair.format.bpc > 8 ? "I422" : "Y42B") : "Y444";
    pair.gst_format = base;
    if (pair.format.bpc > 8) pair.gst_format += "_" + std::to_string(pair.format.bpc) + "LE";
    pairs.push_back(pair);
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const FixturePair& a, const FixturePair& b) { return a.log_name < b.log_name; });
  return pairs;
}

YuvFile::YuvFile(const fs::path& path, const PictureFormat& format) : format_(format) {
  const std::string bytes = read_file(path);
  data_.assign(bytes.begin(), bytes.end());
  const std::size_t sample = format.bpc > 8 ? 2 : 1;
  const std::size_t luma = std::size_t{format.width} * format.height;
  std::size_t chroma = 0;
  switch (format.chroma) {
    case ChromaFormat::k400: break;
    case ChromaFormat::k420: chroma = std::size_t{(format.width + 1) / 2} * ((format.height + 1) / 2); break;
    case ChromaFormat::k422: chroma = std::size_t{(format.width + 1) / 2} * format.height; break;
    case ChromaFormat::k444: chroma = luma; break;
  }
  frame_bytes_ = (luma + 2 * chroma) * sample;
  if (data_.size() % frame_bytes_ != 0)
    throw std::runtime_error(path.string() + " is not a whole number of frames");
  frame_count_ = static_cast<unsigned>(data_.size() / frame_bytes_);
}

PictureView YuvFile::frame(unsigned index) const {
  const std::size_t sample = format_.bpc > 8 ? 2 : 1;
  PictureView view;
  view.bpc = format_.bpc;
  view.chroma = format_.chroma;
  view.width = format_.width;
  view.height = format_.height;
  const std::uint8_t* base = data_.data() + index * frame_bytes_;
  const bool subsampled_w = format_.chroma == ChromaFormat::k420 || format_.chroma == ChromaFormat::k422;
  const bool subsampled_h = format_.chroma == ChromaFormat::k420;
  const unsigned stored_cw = subsampled_w ? (format_.width + 1) / 2 : format_.width;
  const unsigned stored_ch = subsampled_h ? (format_.height + 1) / 2 : format_.height;
  view.planes[0] = {base, static_cast<std::ptrdiff_t>(format_.width * sample), format_.width,
                    format_.height};
  const std::uint8_t* chroma_base = base + std::size_t{format_.width} * format_.height * sample;
  for (unsigned p = 1; p < view.plane_count(); ++p) {
    view.planes[p] = {chroma_base + (p - 1) * std::size_t{stored_cw} * stored_ch * sample,
                      static_cast<std::ptrdiff_t>(stored_cw * sample),
                      chroma_plane_width(format_.width, format_.chroma),
                      chroma_plane_height(format_.height, format_.chroma)};
  }
  return view;
}

ReferenceLog parse_reference_log(const std::string& json_text) {
  const auto json = nlohmann::ordered_json::parse(json_text);
  ReferenceLog log;
  for (const auto& frame : json.at("frames")) {
    const unsigned index = frame.at("frameNum").get<unsigned>();
    if (log.frames.size() <= index) log.frames.resize(index + 1);
    for (const auto& [name, value] : frame.at("metrics").items()) {
      log.frames[index][name] = value.is_null() ? std::nan("") : value.get<double>();
      if (index == 0) log.frame_key_order.push_back(name);
    }
  }
  for (const auto& [name, methods] : json.at("pooled_metrics").items()) {
    log.pooled_key_order.push_back(name);
    for (const auto& [method, value] : methods.items())
      log.pooled[name][method] = value.is_null() ? std::nan("") : value.get<double>();
  }
  if (json.contains("aggregate_metrics"))
    for (const auto& [name, value] : json.at("aggregate_metrics").items())
      log.aggregates.emplace_back(name, value.is_null() ? std::nan("") : value.get<double>());
  return log;
}

ReferenceLog load_reference_log(const fs::path& path) { return parse_reference_log(read_file(path)); }

}  // namespace vmafexact::test
