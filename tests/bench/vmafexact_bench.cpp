// vmafexact-bench: frames per second of the scoring path, steady state.
//
//   vmafexact-bench [--backend cpu|cuda] [--size WxH] [--bpc 8|10|12|16]
//                   [--frames N] [--warmup N] [--model NAME] [--features LIST]
//                   [--yuv REF DIST] [--libvmaf PATH/TO/vmaf] [--threads N]
//                   [--cpu-masks M1,M2,..] [--frames-in-flight N] [--pace FPS]
//                   [--devices D1,D2,..] [--distinct N] [--profile]
//
// Synthetic 4:2:0 clips (a moving gradient with hard edges and noise, and a
// noisier distorted copy) unless --yuv names two raw files. --distinct N frames
// (default 8) are made or read, held in memory and cycled through; with
// --distinct equal to --frames every frame scored is another frame of the files. With cuda, the
// frames are uploaded once and stay in device memory: the figure is the
// scoring itself, as in a pipeline whose decoder delivers CUDA memory. With
// --libvmaf, the libvmaf `vmaf` tool scores the same frames (written to a
// temporary file) in the same run, and the ratio is printed. --cpu-masks runs
// the cpu backend once per ISA mask (metrics/common/cpu.h: 0 scalar, 1 AVX2,
// 3 AVX-512) in the same process; the ratio uses the last.
//
// The cpu backend also prints each frame's latency: from the push() of its
// pair until push() or finish() hands its features back (frames_released()),
// mean and max, and the process's CPU time over the timed frames (user and
// system) with the cores it kept busy: set beside the element's whole process,
// it says how much CPU the pipeline around the scorer takes.
// --frames-in-flight sets the Scorer's (0: as many as threads, 1: one frame
// at a time, cut into bands); with cuda, the frames kept submitted on the
// device (0: two, as the element; 1 to 4). --pace FPS pushes frames at that
// rate, as a live source does (then fps is the pace, and latency is the figure
// to read); the default pushes as fast as the scorer takes them.
//
// --devices (cuda) runs one scoring session per listed CUDA device at the same
// time, each on its own host thread with its own frames, as two elements with
// cuda-device-id 0 and 1 do; it prints the first device alone, then all of
// them together (the sum of their fps) and the ratio of the two.
//
// --profile (cuda) measures each extractor's host time apart: before a
// frame's extract() the device is made idle, so that what extract() takes is
// the host's own work (read-back, finishing), not a wait for kernels. It
// prints microseconds per frame for each extractor's submit() and extract(),
// and the rest (the Scorer's models and pooling, the waits for the device).
// Frames then do not overlap: read the split, not the fps.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "common/cpu.h"
#include "common/error.h"
#include "process_cpu.h"
#include "scorer.h"
#ifdef VMAFEXACT_HAVE_CUDA
#include "common/device_picture.h"
#include "cuda_backend.h"
#endif

using namespace vmafexact;
using vmafexact::bench::process_cpu_seconds;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string backend = "cpu";
  unsigned width = 1920, height = 1080, bpc = 8;
  unsigned frames = 0;  // 0: a default per backend
  unsigned warmup = 0;
  std::string model = "vmaf_v0.6.1";
  std::string features;
  std::string ref_yuv, dist_yuv, libvmaf;
  unsigned distinct = 8;  // distinct frames cycled through
  unsigned threads = 0;   // vmafexact's scorer threads (0 or 1: one) and libvmaf's --threads when set
  unsigned frames_in_flight = 0;
  double pace = 0;        // frames per second pushed; 0: as fast as possible
  std::vector<unsigned> cpu_masks;  // empty: the mask in force (VMAFEXACT_CPU_MASK)
  std::vector<int> devices;         // cuda: the devices scored on at the same time (empty: the current one)
  bool profile = false;             // cuda: each extractor's host time, apart
};

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "vmafexact-bench: %s\n(see the comment at the top of tests/bench/vmafexact_bench.cpp)\n",
               message);
  std::exit(2);
}

using vmafexact::bench::count_of;

// The whole text as an int or a finite double, else std::invalid_argument.
int int_of(const std::string& text) {
  std::size_t used = 0;
  const int value = std::stoi(text, &used);
  if (used != text.size()) throw std::invalid_argument(text);
  return value;
}
double rate_of(const std::string& text) {
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  if (used != text.size() || !std::isfinite(value) || value < 0) throw std::invalid_argument(text);
  return value;
}

// The items of a comma-separated list, empty ones included ("1,,2": three).
std::vector<std::string> comma_items(const std::string& list) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    items.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
      return argv[++i];
    };
    try {
      if (arg == "--backend") options.backend = value();
      else if (arg == "--size") {
        const std::string size = value();
        if (std::sscanf(size.c_str(), "%ux%u", &options.width, &options.height) != 2) usage("bad --size");
      } else if (arg == "--bpc") options.bpc = count_of(value());
      else if (arg == "--frames") options.frames = count_of(value());
      else if (arg == "--warmup") options.warmup = count_of(value());
      else if (arg == "--model") options.model = value();
      else if (arg == "--features") options.features = value();
      else if (arg == "--yuv") {
        options.ref_yuv = value();
        options.dist_yuv = value();
      } else if (arg == "--libvmaf") options.libvmaf = value();
      else if (arg == "--threads") options.threads = count_of(value());
      else if (arg == "--profile") options.profile = true;
      else if (arg == "--frames-in-flight") options.frames_in_flight = count_of(value());
      else if (arg == "--pace") options.pace = rate_of(value());
      else if (arg == "--distinct") options.distinct = std::max(1u, count_of(value()));
      else if (arg == "--devices") {
        for (const std::string& item : comma_items(value())) options.devices.push_back(int_of(item));
      } else if (arg == "--cpu-masks") {
        for (const std::string& item : comma_items(value())) options.cpu_masks.push_back(count_of(item, 0));
      }
      else usage(("unknown argument " + arg).c_str());
    } catch (const std::logic_error&) {  // the *_of() above and std::sto*: not a number, or out of range
      usage(("bad value after " + arg).c_str());
    }
  }
  if (options.frames == 0) options.frames = options.backend == "cuda" ? 400 : 20;
  if (options.warmup == 0) options.warmup = options.backend == "cuda" ? 20 : 2;
  return options;
}

// Planar 4:2:0 frames in libvmaf's layout (chroma rounded down), tightly packed.
struct Frame {
  std::vector<std::uint8_t> planes[3];
};

PictureView view_of(const Frame& frame, const PictureFormat& format) {
  PictureView view;
  view.bpc = format.bpc;
  view.chroma = format.chroma;
  view.width = format.width;
  view.height = format.height;
  const unsigned sample = format.bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < 3; ++p) {
    const unsigned w = p ? chroma_plane_width(format.width, format.chroma) : format.width;
    const unsigned h = p ? chroma_plane_height(format.height, format.chroma) : format.height;
    view.planes[p] = {frame.planes[p].data(), static_cast<std::ptrdiff_t>(w * sample), w, h};
  }
  return view;
}

void put(std::vector<std::uint8_t>& plane, std::size_t index, unsigned bpc, int value) {
  if (bpc == 8) {
    plane[index] = static_cast<std::uint8_t>(value);
  } else {
    const auto v = static_cast<std::uint16_t>(value);
    std::memcpy(&plane[index * 2], &v, 2);
  }
}

std::pair<std::vector<Frame>, std::vector<Frame>> synthetic(const PictureFormat& format, unsigned count) {
  std::vector<Frame> ref(count), dist(count);
  std::mt19937 random(1234);
  const int max_value = (1 << format.bpc) - 1;
  std::normal_distribution<double> noise(0.0, max_value / 60.0);
  const unsigned sample = format.bpc > 8 ? 2 : 1;
  for (unsigned f = 0; f < count; ++f)
    for (unsigned p = 0; p < 3; ++p) {
      const unsigned w = p ? chroma_plane_width(format.width, format.chroma) : format.width;
      const unsigned h = p ? chroma_plane_height(format.height, format.chroma) : format.height;
      ref[f].planes[p].resize(std::size_t{w} * h * sample);
      dist[f].planes[p].resize(ref[f].planes[p].size());
      for (unsigned y = 0; y < h; ++y)
        for (unsigned x = 0; x < w; ++x) {
          double v = (std::sin((x + 4.0 * f) * 0.02) * 0.35 + std::cos((y + 2.0 * f) * 0.013) * 0.25 + 0.5) * max_value;
          if (((x + 3 * f) / 32 + y / 32) % 5 == 0) v = ((x / 4 + y / 4) % 2) ? max_value * 0.9 : max_value * 0.1;
          const int r = std::clamp(static_cast<int>(v + noise(random) * 0.5), 0, max_value);
          const int d = std::clamp(static_cast<int>(r + noise(random)), 0, max_value);
          put(ref[f].planes[p], std::size_t{y} * w + x, format.bpc, r);
          put(dist[f].planes[p], std::size_t{y} * w + x, format.bpc, d);
        }
    }
  return {ref, dist};
}

// Raw files in libvmaf's own layout for 4:2:0 (what the vmaf tool reads).
std::vector<Frame> read_yuv(const std::string& path, const PictureFormat& format, unsigned max_frames) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage(("cannot read " + path).c_str());
  const unsigned sample = format.bpc > 8 ? 2 : 1;
  const unsigned cw = (format.width + 1) / 2, ch = (format.height + 1) / 2;
  std::vector<Frame> frames;
  while (frames.size() < max_frames) {
    Frame frame;
    std::vector<std::uint8_t> luma(std::size_t{format.width} * format.height * sample);
    std::vector<std::uint8_t> cb(std::size_t{cw} * ch * sample), cr(cb.size());
    if (!in.read(reinterpret_cast<char*>(luma.data()), luma.size())) break;
    in.read(reinterpret_cast<char*>(cb.data()), cb.size());
    in.read(reinterpret_cast<char*>(cr.data()), cr.size());
    frame.planes[0] = std::move(luma);
    // libvmaf reads the rounded-down chroma region.
    const unsigned fw = format.width / 2, fh = format.height / 2;
    for (auto* chroma : {&cb, &cr}) {
      std::vector<std::uint8_t> cropped(std::size_t{fw} * fh * sample);
      for (unsigned y = 0; y < fh; ++y)
        std::memcpy(&cropped[std::size_t{y} * fw * sample], &(*chroma)[std::size_t{y} * cw * sample], fw * sample);
      frame.planes[chroma == &cb ? 1 : 2] = std::move(cropped);
    }
    frames.push_back(std::move(frame));
  }
  return frames;
}

void write_yuv(const std::string& path, const std::vector<Frame>& frames, unsigned repeat) {
  std::ofstream out(path, std::ios::binary);
  for (unsigned r = 0; r < repeat; ++r)
    for (const auto& frame : frames)
      for (const auto& plane : frame.planes) out.write(reinterpret_cast<const char*>(plane.data()), plane.size());
}

struct CpuRun {
  double fps = 0;
  // Of the timed frames: their ratio is how many cores the scorer kept busy.
  double cpu_seconds = 0, wall_seconds = 0;
  double mean_latency_ms = 0, max_latency_ms = 0;
  unsigned frames_in_flight = 1;
};

CpuRun run_cpu(const Options& options, const PictureFormat& format, const std::vector<Frame>& ref,
               const std::vector<Frame>& dist) {
  ScorerOptions scorer_options;
  scorer_options.threads = std::max(1u, options.threads);  // the same count as libvmaf's --threads
  scorer_options.frames_in_flight = options.frames_in_flight;
  Scorer scorer(load_models(parse_model_list(options.model)), parse_feature_list(options.features), format,
                scorer_options);
  const unsigned n = static_cast<unsigned>(ref.size());
  const unsigned warmup = options.warmup, total = options.warmup + options.frames;
  std::vector<Clock::time_point> pushed(total);
  std::vector<double> latency_ms;
  unsigned released = 0;
  // Frames whose features came back since the last look: their latency.
  auto collect = [&] {
    const auto now = Clock::now();
    for (; released < scorer.frames_released(); ++released)
      if (released >= warmup)
        latency_ms.push_back(std::chrono::duration<double, std::milli>(now - pushed[released]).count());
  };
  Clock::time_point start;
  double cpu_start = 0;
  for (unsigned i = 0; i < total; ++i) {
    if (i == warmup) {
      start = Clock::now();
      cpu_start = process_cpu_seconds();
    }
    if (options.pace > 0 && i >= warmup)
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>((i - warmup) / options.pace)));
    pushed[i] = Clock::now();
    scorer.push(view_of(ref[i % n], format), view_of(dist[i % n], format));
    collect();
  }
  scorer.finish();
  collect();
  CpuRun run;
  run.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.cpu_seconds = process_cpu_seconds() - cpu_start;
  run.fps = options.frames / run.wall_seconds;
  run.frames_in_flight = scorer.frames_in_flight();
  for (const double ms : latency_ms) {
    run.mean_latency_ms += ms / static_cast<double>(latency_ms.size());
    run.max_latency_ms = std::max(run.max_latency_ms, ms);
  }
  return run;
}

#ifdef VMAFEXACT_HAVE_CUDA
// --profile: an extractor's calls timed on the host, the device idle before
// each extract() (see the comment at the top).
struct HostTimes {
  std::string name;
  double submit_seconds = 0, extract_seconds = 0;
};

class TimedExtractor final : public FeatureExtractor {
 public:
  TimedExtractor(std::unique_ptr<FeatureExtractor> inner, HostTimes& times)
      : inner_(std::move(inner)), times_(&times) {
    times_->name = std::string(inner_->name());
  }
  std::string_view name() const override { return inner_->name(); }
  std::vector<std::string> provided_features() const override { return inner_->provided_features(); }
  std::string score_key(std::string_view provided) const override { return inner_->score_key(provided); }
  void init(const PictureFormat& format) override { inner_->init(format); }
  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    const auto start = Clock::now();
    inner_->submit(ref, dist, index);
    times_->submit_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (--profile)");
    const auto start = Clock::now();
    inner_->extract(ref, dist, index, scores);
    times_->extract_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
  void set_band_runner(BandRunner& runner) override { inner_->set_band_runner(runner); }
  void flush(FeatureCollector& scores) override { inner_->flush(scores); }
  unsigned latency_frames() const override { return inner_->latency_frames(); }
  bool reads_chroma() const override { return inner_->reads_chroma(); }
  bool keeps_state() const override { return inner_->keeps_state(); }
  bool sees_every_frame() const override { return inner_->sees_every_frame(); }

 private:
  std::unique_ptr<FeatureExtractor> inner_;
  HostTimes* times_;
};

double run_cuda(const Options& options, const PictureFormat& format, const std::vector<Frame>& ref,
                const std::vector<Frame>& dist, int device = -1) {
  if (device >= 0) cuda::check(cudaSetDevice(device), "cudaSetDevice");
  // --frames-in-flight: the frames kept submitted on the device (0: the
  // element's default, two).
  cuda::CudaBackend backend(options.frames_in_flight ? options.frames_in_flight
                                                     : cuda::CudaBackend::kDefaultFramesInFlight);
  ScorerOptions scorer_options;
  scorer_options.overlap_frames = backend.frames_in_flight() - 1;  // as the element runs it
  std::vector<std::unique_ptr<HostTimes>> profile;
  scorer_options.make_extractor = [&](std::string_view name,
                                      const FeatureOptions& opts) -> std::unique_ptr<FeatureExtractor> {
    if (!options.profile) return backend.make_extractor(name, opts);
    profile.push_back(std::make_unique<HostTimes>());
    return std::make_unique<TimedExtractor>(backend.make_extractor(name, opts), *profile.back());
  };
  Scorer scorer(load_models(parse_model_list(options.model)), parse_feature_list(options.features), format,
                scorer_options);
  const unsigned n = static_cast<unsigned>(ref.size());
  std::vector<cuda::DevicePicture> ref_device(n), dist_device(n);
  for (unsigned i = 0; i < n; ++i) {
    ref_device[i].upload(view_of(ref[i], format), backend.stream());
    dist_device[i].upload(view_of(dist[i], format), backend.stream());
  }
  cuda::check(cudaStreamSynchronize(backend.stream()), "upload");
  for (unsigned i = 0; i < options.warmup; ++i) scorer.push(ref_device[i % n].view(), dist_device[i % n].view());
  for (auto& times : profile) times->submit_seconds = times->extract_seconds = 0;
  const auto start = Clock::now();
  for (unsigned i = 0; i < options.frames; ++i)
    scorer.push(ref_device[i % n].view(), dist_device[i % n].view());
  scorer.finish();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (options.profile) {
    const double frames = options.frames;
    double host = 0;
    for (const auto& times : profile) {
      std::printf("  host %-20s submit %7.1f us, extract %7.1f us per frame\n", times->name.c_str(),
                  1e6 * times->submit_seconds / frames, 1e6 * times->extract_seconds / frames);
      host += times->submit_seconds + times->extract_seconds;
    }
    std::printf("  host, all extractors: %.1f us per frame; the rest: %.1f us (device idle before "
                "each extract)\n",
                1e6 * host / frames, 1e6 * (seconds - host) / frames);
  }
  return options.frames / seconds;
}
// One session per device at the same time; the sum of their fps.
double run_cuda_devices(const Options& options, const PictureFormat& format,
                        const std::vector<Frame>& ref, const std::vector<Frame>& dist) {
  std::vector<double> fps(options.devices.size());
  std::vector<std::string> errors(options.devices.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < options.devices.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        fps[i] = run_cuda(options, format, ref, dist, options.devices[i]);
      } catch (const Error& error) {
        errors[i] = error.what();
      }
    });
  for (auto& thread : threads) thread.join();
  double total = 0;
  for (std::size_t i = 0; i < fps.size(); ++i) {
    if (!errors[i].empty()) throw Error("device " + std::to_string(options.devices[i]) + ": " + errors[i]);
    std::printf("  device %d: %.1f fps\n", options.devices[i], fps[i]);
    total += fps[i];
  }
  return total;
}
#endif

double run_libvmaf(const Options& options, const PictureFormat& format, const std::vector<Frame>& ref,
                   const std::vector<Frame>& dist) {
  const auto folder = std::filesystem::temp_directory_path() / ("vmafexact-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  // libvmaf reads 4:2:0 chroma rounded up from files; even sizes keep it simple.
  if (format.width % 2 || format.height % 2) usage("--libvmaf needs even sizes");
  const unsigned repeat = std::max(1u, options.frames / static_cast<unsigned>(ref.size()));
  write_yuv((folder / "ref.yuv").string(), ref, repeat);
  write_yuv((folder / "dist.yuv").string(), dist, repeat);
  const unsigned frames = repeat * static_cast<unsigned>(ref.size());
  std::string command = options.libvmaf + " -r " + (folder / "ref.yuv").string() + " -d " +
                        (folder / "dist.yuv").string() + " -w " + std::to_string(format.width) + " -h " +
                        std::to_string(format.height) + " -p 420 -b " + std::to_string(format.bpc) +
                        " -q --json -o " + (folder / "out.json").string();
  if (options.threads) command += " --threads " + std::to_string(options.threads);
  // The same models (the vmaf tool's own default is vmaf_v0.6.1); without a
  // model it would still run its default one.
  if (options.model.empty()) command += " --no_prediction";
  std::stringstream models(options.model);
  for (std::string entry; std::getline(models, entry, ',');) {
    if (entry.empty()) continue;
    const bool path = entry.find('/') != std::string::npos || entry.ends_with(".json");
    command += " --model " + std::string(path ? "path=" : "version=") + entry;
  }
  // The same features with the same options, in libvmaf's --feature syntax.
  for (const auto& request : parse_feature_list(options.features)) {
    std::string feature = request.name;
    for (std::size_t i = 0; i < request.options.size(); ++i)
      feature += (i ? ":" : "=") + request.options[i].first + "=" + request.options[i].second;
    command += " --feature " + feature;
  }
  const auto start = Clock::now();
  const int status = std::system((command + " > /dev/null").c_str());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::filesystem::remove_all(folder);
  if (status != 0) usage(("libvmaf failed: " + command).c_str());
  return frames / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const PictureFormat format{options.width, options.height, options.bpc, ChromaFormat::k420};
  try {
    std::vector<Frame> ref, dist;
    if (!options.ref_yuv.empty()) {
      ref = read_yuv(options.ref_yuv, format, options.distinct);
      dist = read_yuv(options.dist_yuv, format, options.distinct);
      if (ref.empty() || ref.size() != dist.size()) usage("the two files hold no or different frame counts");
    } else {
      std::tie(ref, dist) = synthetic(format, options.distinct);
    }
    double fps = 0;
    auto print_cpu = [&](const CpuRun& run) {
      char paced[64] = "";
      if (options.pace > 0) std::snprintf(paced, sizeof paced, ", paced at %g fps", options.pace);
      std::printf("  threads %u, frames in flight %u%s: latency per frame mean %.1f ms, max %.1f ms; "
                  "CPU %.3f s, %.2f cores busy\n",
                  std::max(1u, options.threads), run.frames_in_flight, paced, run.mean_latency_ms,
                  run.max_latency_ms, run.cpu_seconds, run.cpu_seconds / run.wall_seconds);
    };
    auto print = [&](const std::string& backend) {
      const double ns_per_pixel = 1e9 / fps / (double(format.width) * format.height);
      std::printf("vmafexact %s %ux%u %u-bit model=%s features=%s: %.1f fps, %.3f ns/pixel (%u frames)\n",
                  backend.c_str(), format.width, format.height, format.bpc, options.model.c_str(),
                  options.features.empty() ? "-" : options.features.c_str(), fps, ns_per_pixel, options.frames);
    };
    if (options.backend == "cpu" && !options.cpu_masks.empty()) {
      for (unsigned mask : options.cpu_masks) {
        cpu::set_cpu_mask(mask);
        const CpuRun run = run_cpu(options, format, ref, dist);
        fps = run.fps;
        print(std::string("cpu[") + cpu::best_isa_name(cpu::flags()) + "]");
        print_cpu(run);
      }
    } else if (options.backend == "cpu") {
      const CpuRun run = run_cpu(options, format, ref, dist);
      fps = run.fps;
      print(std::string("cpu[") + cpu::best_isa_name(cpu::flags()) + "]");
      print_cpu(run);
    } else if (options.backend == "cuda") {
#ifdef VMAFEXACT_HAVE_CUDA
      if (options.devices.size() > 1) {
        const double one = run_cuda(options, format, ref, dist, options.devices.front());
        fps = one;
        print("cuda[device " + std::to_string(options.devices.front()) + " alone]");
        fps = run_cuda_devices(options, format, ref, dist);
        print("cuda[" + std::to_string(options.devices.size()) + " sessions on devices " +
              [&] {
                std::string list;
                for (int d : options.devices) list += (list.empty() ? "" : ",") + std::to_string(d);
                return list;
              }() + "]");
        std::printf("  together / alone: %.2f\n", fps / one);
      } else {
        fps = run_cuda(options, format, ref, dist, options.devices.empty() ? -1 : options.devices.front());
        print("cuda");
      }
#else
      usage("this build has no CUDA backend");
#endif
    } else {
      usage("--backend is cpu or cuda");
    }
    if (!options.libvmaf.empty()) {
      const double baseline = run_libvmaf(options, format, ref, dist);
      std::printf("libvmaf %s (threads %u): %.1f fps; vmafexact/libvmaf = %.2f\n", options.libvmaf.c_str(),
                  options.threads, baseline, fps / baseline);
    }
  } catch (const Error& error) {
    std::fprintf(stderr, "vmafexact-bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
