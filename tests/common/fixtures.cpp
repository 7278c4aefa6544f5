#include "fixtures.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "build_paths.h"

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
  return kDefaultSharedDir;
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

// Writes beside the file and renames into place, so a reader never sees half of it.
void write_file_atomically(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, path);
}

// FNV-1a 64: a key for the generator's inputs that is the same in every build
// (std::hash is not).
std::string fnv1a_hex(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  std::ostringstream hex;
  hex << std::hex << hash;
  return hex.str();
}

// The process that started this one, as "pid:start time" (field 22 of
// /proc/PID/stat, so a reused pid is another process): every test binary of one
// `meson test` run has the same parent. Empty where /proc cannot tell.
std::string parent_process_identity() {
  const pid_t parent = ::getppid();
  std::ifstream stat("/proc/" + std::to_string(parent) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return {};
  // The command name (field 2) is in parentheses and may hold spaces.
  const auto name_end = line.rfind(')');
  if (name_end == std::string::npos) return {};
  std::istringstream fields(line.substr(name_end + 1));
  std::string field;
  for (int number = 3; number <= 22; ++number)
    if (!(fields >> field)) return {};
  return std::to_string(parent) + ":" + field;
}

// The last non-empty line of a log, to quote in an error.
std::string last_line_of(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::string last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

// The files that `sha256sum --quiet -c` reported ("NAME: FAILED", "NAME: FAILED open or read").
std::vector<std::string> files_failing_check(const fs::path& check_output) {
  std::ifstream in(check_output);
  std::vector<std::string> failing;
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.rfind(": FAILED");
    if (colon != std::string::npos) failing.push_back(line.substr(0, colon));
  }
  return failing;
}

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

int exit_status(int system_result) {
  if (system_result == -1) return -1;
  return WIFEXITED(system_result) ? WEXITSTATUS(system_result) : 128 + WTERMSIG(system_result);
}

// A failed generation is remembered in the cache, keyed on SHA256SUMS and the
// generator's text, so that the other test binaries of the same `meson test`
// run (same parent process, within kFailureMemory) fail at once with the same
// message instead of each spending minutes generating again. A new run, a
// changed generator or SHA256SUMS, or deleting the file tries again.
constexpr std::chrono::minutes kFailureMemory{15};

class FailureMarker {
 public:
  FailureMarker(fs::path path, std::string key)
      : path_(std::move(path)), key_(std::move(key)), run_(parent_process_identity()) {}

  // The remembered message, if this run already failed to generate these fixtures.
  std::optional<std::string> recalled() const {
    if (run_.empty() || !fs::exists(path_)) return std::nullopt;
    std::istringstream text(read_file(path_));
    std::string key, run, written, message;
    std::getline(text, key);
    std::getline(text, run);
    std::getline(text, written);
    std::getline(text, message, '\0');
    if (key != "key " + key_ || run != "run " + run_ || written.rfind("time ", 0) != 0)
      return std::nullopt;
    long long written_at = 0;
    try {
      written_at = std::stoll(written.substr(5));
    } catch (const std::exception&) {
      return std::nullopt;  // not a marker of ours: generate again
    }
    const auto age =
        std::chrono::system_clock::now().time_since_epoch() - std::chrono::seconds(written_at);
    if (age < std::chrono::seconds(0) || age > kFailureMemory) return std::nullopt;
    return message + " [remembered from an earlier attempt in this test run; delete " +
           path_.string() + " to generate again at once]";
  }

  // Best effort: without the marker, the next binary only generates again.
  void remember(const std::string& message) const noexcept {
    if (run_.empty()) return;
    try {
      const auto now = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::system_clock::now().time_since_epoch());
      write_file_atomically(path_, "key " + key_ + "\nrun " + run_ + "\ntime " +
                                       std::to_string(now.count()) + "\n" + message);
    } catch (const std::exception&) {
    }
  }

  void forget() const {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }

 private:
  fs::path path_;
  std::string key_;
  std::string run_;
};

// Runs make_fixtures.sh into root and checks its output against sums; returns
// why it failed, or nothing when the files are right.
std::optional<std::string> generate(const fs::path& script, const fs::path& sums,
                                    const std::string& expected, const fs::path& root) {
  const fs::path log = root / "make_fixtures.log";
  const fs::path check = root / "sha256sum-check.log";
  const fs::path readme = fixtures_dir() / "README.md";
  // meson sets MALLOC_PERTURB_ for tests; the encoders in the generator must run
  // without it to reproduce the recorded bytes.
  const std::string generate_command =
      "env -u MALLOC_PERTURB_ bash " + shell_quote(script.string()) + " " +
      shell_quote(root.string()) + " >" + shell_quote(log.string()) + " 2>&1";
  if (const int status = exit_status(std::system(generate_command.c_str())); status != 0)
    return "generating the fixtures failed: " + script.string() + " exited with status " +
           std::to_string(status) + " (\"" + last_line_of(log) + "\"; whole log: " + log.string() +
           "). It needs an x86-64 CPU with AVX2, Debian 12's ffmpeg with libx264 "
           "and python3: see " +
           readme.string();

  const std::string check_command = "cd " + shell_quote((root / "yuv").string()) +
                                    " && sha256sum --quiet -c " + shell_quote(sums.string()) +
                                    " >" + shell_quote(check.string()) + " 2>&1";
  if (exit_status(std::system(check_command.c_str())) == 0) return std::nullopt;
  const auto failing = files_failing_check(check);
  std::string names;
  for (const auto& name : failing) names += (names.empty() ? "" : ", ") + name;
  return "the generated fixtures do not match " + sums.string() + ": " +
         std::to_string(failing.size()) + " of " + std::to_string(line_count(expected)) +
         " files differ (" + (names.empty() ? "see " + check.string() : names) +
         "). Their bytes depend on the ffmpeg and libx264 builds and on the CPU: see " +
         readme.string() + ", \"Reproducibility\" (generator log: " + log.string() + ")";
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

  // An earlier failure of this run (this binary or another) with the same generator.
  const FailureMarker failure(root / "generation-failed", fnv1a_hex(expected + read_file(script)));
  if (const auto message = failure.recalled()) throw std::runtime_error(*message);

  FileLock lock(root / ".lock");
  if (verified()) return yuv;
  if (const auto message = failure.recalled()) throw std::runtime_error(*message);
  // The files are about to change: until they are checked again, nothing is verified.
  std::error_code ignored;
  fs::remove(marker, ignored);
  if (const auto message = generate(script, sums, expected, root)) {
    failure.remember(*message);
    throw std::runtime_error(*message);
  }
  failure.forget();
  write_file_atomically(marker, expected);
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
