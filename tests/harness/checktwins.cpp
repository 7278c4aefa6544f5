// vmafexact-checktwins: every twin of every feature against its scalar
// reference (docs/architecture.md, "Twin harness"). One line per feature and
// twin, OK / FAILED / SKIPPED; the exit status is non-zero on any failure.
//
//   vmafexact-checktwins [--feature vif,adm] [--isa avx2,cuda_device] [--seed N]
//                        [--full] [--list] [--bench] [--verbose] [--gtest_...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/cpu.h"
#include "harness.h"
#include "registry.h"

#if VMAFEXACT_HAVE_CUDA
#include "common/cuda_util.h"
#endif

namespace vmafexact::harness {

namespace {

std::uint64_t g_seed = 0;
bool g_full = false;

std::vector<std::string>& features() {
  static std::vector<std::string> names;
  return names;
}

std::vector<BenchTwin>& benches() {
  static std::vector<BenchTwin> twins;
  return twins;
}

}  // namespace

std::uint64_t seed() { return g_seed; }
bool full() { return g_full; }

::testing::internal::ParamGenerator<test::Isa> isa_values() {
  return ::testing::ValuesIn(test::simd_isas());
}
std::string isa_param_name(const ::testing::TestParamInfo<test::Isa>& info) {
  return info.param.name;
}

std::string cpu_skip_reason(const test::Isa& isa) {
  if (!(cpu::detected_flags() & isa.flag))
    return std::string(isa.name) + ": not supported by this CPU";
  return "";
}

std::string not_built_reason(const test::Isa& isa, bool built) {
  return built ? "" : std::string(isa.name) + ": not built (x86-64 only)";
}

std::string cuda_skip_reason() {
#if VMAFEXACT_HAVE_CUDA
  static const std::string reason = [] {
    std::string why;
    return cuda::device_available(&why) ? std::string() : "no usable CUDA device (" + why + ")";
  }();
  return reason;
#else
  return "CUDA twins not built";
#endif
}

FeatureChecks::FeatureChecks(const char* harness_name) { features().push_back(harness_name); }
const std::vector<std::string>& registered_features() { return features(); }

BenchRegistration::BenchRegistration(std::vector<BenchTwin> twins) {
  for (auto& t : twins) benches().push_back(std::move(t));
}
const std::vector<BenchTwin>& bench_twins() { return benches(); }

}  // namespace vmafexact::harness

namespace {

using namespace vmafexact;

// Twins in the order lines are printed.
const std::vector<std::string> kTwinOrder = {"avx2", "avx512", "cuda_emulation", "cuda_device"};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// (feature, twin) of a check: "vif/VifDsp.StatVertical/avx2", "vif_cuda_device.X" or
// "speed_chroma_cuda_emulation.X".
std::pair<std::string, std::string> feature_twin(const std::string& suite, const std::string& name) {
  if (const auto slash = suite.find('/'); slash != std::string::npos)
    return {suite.substr(0, slash), name.substr(name.rfind('/') + 1)};
  // A CUDA check of a feature whose name has underscores ("speed_chroma_cuda_device").
  if (const auto cuda = suite.rfind("_cuda_"); cuda != std::string::npos)
    return {suite.substr(0, cuda), suite.substr(cuda + 1)};
  const auto underscore = suite.find('_');
  if (underscore == std::string::npos) return {suite, ""};
  return {suite.substr(0, underscore), suite.substr(underscore + 1)};
}

struct TwinResult {
  unsigned passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> failed_checks;
  std::string skip_reason;
};

class LinePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit LinePrinter(bool verbose) : verbose_(verbose) {}
  std::map<std::pair<std::string, std::string>, TwinResult> results;

 private:
  void OnTestStart(const ::testing::TestInfo& info) override {
    // (OnTestPartResult runs under GoogleTest's lock: no current_test_info() there.)
    current_ = std::string(info.test_suite_name()) + "." + info.name();
    if (verbose_) std::printf("   %s ...\n", current_.c_str());
    std::fflush(stdout);
  }
  void OnTestPartResult(const ::testing::TestPartResult& part) override {
    if (!part.failed()) return;
    std::printf("FAILED %s (seed %llu)\n  %s:%d\n  %s\n", current_.c_str(),
                static_cast<unsigned long long>(harness::seed()),
                part.file_name() ? part.file_name() : "?", part.line_number(), part.message());
    std::fflush(stdout);
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    auto& r = results[feature_twin(info.test_suite_name(), info.name())];
    const auto* result = info.result();
    if (result->Failed()) {
      ++r.failed;
      r.failed_checks.push_back(std::string(info.test_suite_name()) + "." + info.name());
    } else if (result->Skipped()) {
      ++r.skipped;
      for (int i = 0; i < result->total_part_count(); ++i)
        if (result->GetTestPartResult(i).skipped()) {
          std::string message = result->GetTestPartResult(i).message();
          if (const auto nl = message.find('\n'); nl != std::string::npos)
            message = message.substr(nl + 1);  // "Skipped\n<reason>"
          if (r.skip_reason.empty()) r.skip_reason = message;
        }
    } else {
      ++r.passed;
    }
  }
  bool verbose_;
  std::string current_;
};

// Features in the registry's order, each one's twins in kTwinOrder (others after).
std::vector<std::pair<std::string, std::string>> in_print_order(
    std::vector<std::pair<std::string, std::string>> keys) {
  const auto rank = [](const std::pair<std::string, std::string>& key) {
    std::size_t feature = 0;
    for (const auto& entry : feature_registry()) {
      if (entry.harness == key.first) break;
      ++feature;
    }
    const auto twin = std::find(kTwinOrder.begin(), kTwinOrder.end(), key.second);
    return std::tuple(feature, static_cast<std::size_t>(twin - kTwinOrder.begin()), key.second);
  };
  std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  return keys;
}

int usage() {
  std::printf(
      "usage: vmafexact-checktwins [options] [--gtest_...]\n"
      "  --feature a,b   only these features (registry names)\n"
      "  --isa a,b       only these twins: avx2, avx512, cuda_emulation, cuda_device\n"
      "  --seed N        vary the random inputs (default 0; printed on failure)\n"
      "  --full          the larger size sets (default: the quick CI set)\n"
      "  --list          every twin of every feature and its checks\n"
      "  --bench         time every twin against the scalar reference at 1920x1080\n"
      "                (--full: and 3840x2160)\n"
      "  --verbose       name every check as it starts\n");
  return 2;
}

// --bench: ns per pixel of every twin, and its speedup over the scalar reference.
int bench(const std::set<std::string>& feature_filter, const std::set<std::string>& twin_filter) {
  std::printf("%-8s %-10s %-5s %-16s %12s %10s %9s\n", "feature", "size", "bpc", "twin",
              "ms/frame", "ns/pixel", "speedup");
  std::vector<std::pair<unsigned, unsigned>> sizes = {{1920, 1080}};
  if (harness::full()) sizes.push_back({3840, 2160});
  for (const auto& entry : feature_registry()) {
    const std::string feature(entry.harness);
    if (!feature_filter.empty() && !feature_filter.count(feature)) continue;
    for (const auto& [w, h] : sizes)
    for (unsigned bpc : {8u, 10u}) {
      const std::string size = std::to_string(w) + "x" + std::to_string(h);
      double scalar_ns = 0;
      for (const auto& twin : harness::bench_twins()) {
        if (twin.feature != feature) continue;
        const bool is_scalar = std::string(twin.twin) == "scalar";
        if (!is_scalar && !twin_filter.empty() && !twin_filter.count(twin.twin)) continue;
        auto run = twin.setup(w, h, bpc);
        if (!run) {
          std::printf("%-8s %-10s %-5u %-16s %12s\n", feature.c_str(), size.c_str(), bpc, twin.twin,
                      "skipped");
          continue;
        }
        run();  // warm-up
        using clock = std::chrono::steady_clock;
        std::vector<double> times;
        const auto begin = clock::now();
        while (times.size() < 5 ||
               (times.size() < 200 && clock::now() - begin < std::chrono::milliseconds(700))) {
          const auto t0 = clock::now();
          run();
          times.push_back(std::chrono::duration<double, std::nano>(clock::now() - t0).count());
        }
        std::sort(times.begin(), times.end());
        const double ns = times[times.size() / 2];  // median
        if (is_scalar) scalar_ns = ns;
        std::printf("%-8s %-10s %-5u %-16s %12.3f %10.3f %8.2fx\n", feature.c_str(), size.c_str(),
                    bpc, twin.twin, ns / 1e6, ns / (static_cast<double>(w) * h),
                    scalar_ns > 0 ? scalar_ns / ns : 0.0);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      usage();
      return 0;
    }
  ::testing::InitGoogleTest(&argc, argv);
  bool list = false, run_bench = false, verbose = false;
  std::set<std::string> feature_filter, twin_filter;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::printf("%s needs a value\n", arg.c_str());
        std::exit(usage());
      }
      return argv[++i];
    };
    if (arg == "--list") list = true;
    else if (arg == "--bench") run_bench = true;
    else if (arg == "--verbose") verbose = true;
    else if (arg == "--full") harness::g_full = true;
    else if (arg == "--quick") harness::g_full = false;
    else if (arg == "--seed") harness::g_seed = std::strtoull(value().c_str(), nullptr, 0);
    else if (arg == "--feature") for (auto& f : split(value())) feature_filter.insert(f);
    else if (arg == "--isa") for (auto& t : split(value())) twin_filter.insert(t);
    else return usage();
  }

  // Every registry entry has checks, and every check names an entry.
  const auto& registered = harness::registered_features();
  std::set<std::string> entry_names;
  bool registry_ok = true;
  for (const auto& entry : feature_registry()) {
    entry_names.insert(std::string(entry.harness));
    if (std::find(registered.begin(), registered.end(), entry.harness) == registered.end()) {
      std::printf("FAILED registry: feature '%.*s' names harness check '%.*s', which does not exist\n",
                  static_cast<int>(entry.name().size()), entry.name().data(),
                  static_cast<int>(entry.harness.size()), entry.harness.data());
      registry_ok = false;
    }
  }
  for (const auto& name : registered)
    if (!entry_names.count(name)) {
      std::printf("FAILED registry: harness check '%s' names no registry entry\n", name.c_str());
      registry_ok = false;
    }
  auto& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto* suite = unit.GetTestSuite(s);
    for (int t = 0; t < suite->total_test_count(); ++t) {
      const auto [feature, twin] = feature_twin(suite->name(), suite->GetTestInfo(t)->name());
      if (!entry_names.count(feature) || twin.empty()) {
        std::printf("FAILED registry: check %s.%s names no registry feature and twin\n",
                    suite->name(), suite->GetTestInfo(t)->name());
        registry_ok = false;
      }
    }
  }
  for (const auto& f : feature_filter)
    if (!entry_names.count(f)) {
      std::printf("unknown feature '%s'\n", f.c_str());
      return usage();
    }

  if (run_bench) return bench(feature_filter, twin_filter) | (registry_ok ? 0 : 1);

  // Checks of the selected features and twins: a GoogleTest filter.
  std::string filter;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const auto* suite = unit.GetTestSuite(s);
    for (int t = 0; t < suite->total_test_count(); ++t) {
      const auto* info = suite->GetTestInfo(t);
      const auto [feature, twin] = feature_twin(suite->name(), info->name());
      if ((feature_filter.empty() || feature_filter.count(feature)) &&
          (twin_filter.empty() || twin_filter.count(twin)))
        continue;
      filter += std::string(filter.empty() ? "-" : ":") + suite->name() + "." + info->name();
    }
  }
  if (!filter.empty()) {
    const std::string existing = ::testing::GTEST_FLAG(filter);
    ::testing::GTEST_FLAG(filter) = (existing == "*" ? std::string("*") : existing) + filter;
  }

  if (list) {
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> checks;
    for (int s = 0; s < unit.total_test_suite_count(); ++s) {
      const auto* suite = unit.GetTestSuite(s);
      for (int t = 0; t < suite->total_test_count(); ++t) {
        const auto* info = suite->GetTestInfo(t);
        const auto key = feature_twin(suite->name(), info->name());
        if ((feature_filter.empty() || feature_filter.count(key.first)) &&
            (twin_filter.empty() || twin_filter.count(key.second)))
          checks[key].push_back(std::string(suite->name()) + "." + info->name());
      }
    }
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& [key, names] : checks) keys.push_back(key);
    for (const auto& key : in_print_order(keys)) {
      const auto& names = checks[key];
      std::printf("%s.%s (%zu checks)\n", key.first.c_str(), key.second.c_str(), names.size());
      for (const auto& n : names) std::printf("    %s\n", n.c_str());
    }
    for (const auto& t : harness::bench_twins())
      if (feature_filter.empty() || feature_filter.count(t.feature))
        std::printf("bench %s.%s\n", t.feature, t.twin);
    return registry_ok ? 0 : 1;
  }

  auto& listeners = unit.listeners();
  if (!verbose) delete listeners.Release(listeners.default_result_printer());
  auto* printer = new LinePrinter(verbose);
  listeners.Append(printer);

  std::printf("checktwins: seed %llu, %s sizes, CPU %s (twins may use: %s)\n",
              static_cast<unsigned long long>(harness::seed()), harness::full() ? "full" : "quick",
              cpu::best_isa_name(cpu::detected_flags()), cpu::best_isa_name(cpu::flags()));
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const int status = RUN_ALL_TESTS();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  unsigned ok = 0, failed = 0, skipped = 0;
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& [key, r] : printer->results) keys.push_back(key);
  {
    const auto mine = in_print_order(keys);
    for (const auto& key : mine) {
      const TwinResult& r = printer->results[key];
      const std::string name = key.first + "." + key.second;
      if (r.failed) {
        ++failed;
        std::printf(" - %-22s [FAILED]  %u of %u checks failed:", name.c_str(), r.failed,
                    r.failed + r.passed);
        for (const auto& c : r.failed_checks) std::printf(" %s", c.c_str());
        std::printf("\n   rerun: vmafexact-checktwins --feature %s --isa %s --seed %llu\n",
                    key.first.c_str(), key.second.c_str(),
                    static_cast<unsigned long long>(harness::seed()));
      } else if (r.passed == 0) {
        ++skipped;
        std::printf(" - %-22s [SKIPPED] %s\n", name.c_str(), r.skip_reason.c_str());
      } else {
        ++ok;
        std::printf(" - %-22s [OK]      %u checks%s\n", name.c_str(), r.passed,
                    r.skipped ? (" (" + std::to_string(r.skipped) + " skipped: " + r.skip_reason + ")").c_str()
                              : "");
      }
    }
  }
  std::printf("checktwins: %u twins OK, %u FAILED, %u SKIPPED, registry %s (%.1f s, seed %llu)\n", ok,
              failed, skipped, registry_ok ? "OK" : "FAILED", seconds,
              static_cast<unsigned long long>(harness::seed()));
  return (status != 0 || failed || !registry_ok) ? 1 : 0;
}
