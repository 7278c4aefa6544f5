// The twin harness (checktwins.cpp): every twin of every feature against the
// scalar reference, in the manner of dav1d's checkasm. A check is a GoogleTest
// test named after its feature and twin:
//  - SIMD twins: a test of a fixture instantiated with the feature's name as
//    prefix over harness::isa_values() ("vif/VifDsp.StatVertical/avx2");
//  - other twins: TEST(<feature>_<twin>, Name), e.g. TEST(vif_cuda_emulation, ...)
//    or TEST(adm_cuda_device, ...).
// Each check file names its feature once (HARNESS_FEATURE(vif)); the harness
// fails where a registry entry's `harness` name has no check, or a check names
// no entry.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test_pictures.h"

namespace vmafexact::harness {

// --seed N (default 0): every check's random generator starts from
// seed() ^ its own constant, so seed 0 gives the inputs of the old tests.
std::uint64_t seed();
// --full: the larger size sets (the CI default is the quick set).
bool full();

// The SIMD twins as GoogleTest parameters, named "avx2", "avx512".
::testing::internal::ParamGenerator<test::Isa> isa_values();
std::string isa_param_name(const ::testing::TestParamInfo<test::Isa>& info);
// Why an ISA's twins cannot run on this CPU ("" where they can). Asked before a
// twin's table is fetched: fetching it runs that ISA's code (its table is built
// by a function compiled for the ISA), which faults on a CPU without it.
std::string cpu_skip_reason(const test::Isa& isa);
// Why a twin this CPU can run is absent ("" where it is built).
std::string not_built_reason(const test::Isa& isa, bool built);
// Why the CUDA device twins cannot run here ("" where they run).
std::string cuda_skip_reason();

// A feature's checks, under the registry's harness name.
struct FeatureChecks {
  explicit FeatureChecks(const char* harness_name);
};
#define HARNESS_FEATURE(name) \
  static const ::vmafexact::harness::FeatureChecks harness_feature_##name(#name)
const std::vector<std::string>& registered_features();

// --bench: one timed twin of a feature. setup(w, h, bpc) prepares inputs and
// returns the call to time (one frame); nullptr where the twin cannot run here.
struct BenchTwin {
  const char* feature;
  const char* twin;  // "scalar" is the reference the others are compared with
  std::function<std::function<void()>(unsigned w, unsigned h, unsigned bpc)> setup;
};
struct BenchRegistration {
  BenchRegistration(std::vector<BenchTwin> twins);
};
const std::vector<BenchTwin>& bench_twins();

// Whether a picture's guards still hold their pattern; names the first changed byte.
inline ::testing::AssertionResult guards_intact(const test::TestPlane& plane, const char* what) {
  const auto at = plane.first_changed_guard();
  if (!at) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << " picture " << plane.width() << "x"
                                       << plane.height() << ": guard byte at offset " << *at
                                       << " from the first sample was written";
}

// run() on the pair with the guards painted with `pattern` first, and checked
// after: a twin run with another pattern than its reference gives another
// result if it reads outside the samples, and fails here if it writes there.
template <class Run>
auto run_guarded(test::TestPlane& ref, test::TestPlane& dist, std::uint32_t pattern, Run&& run) {
  ref.repaint_guards(pattern);
  dist.repaint_guards(~pattern);
  auto result = run();
  EXPECT_TRUE(guards_intact(ref, "reference"));
  EXPECT_TRUE(guards_intact(dist, "distorted"));
  return result;
}

// A picture for --bench: a smooth gradient with edges and noise; `distorted`
// adds more noise.
inline std::shared_ptr<test::TestPlane> bench_plane(unsigned w, unsigned h, unsigned bpc,
                                                    bool distorted) {
  auto plane = std::make_shared<test::TestPlane>(w, h, bpc);
  std::mt19937_64 rng(distorted ? 2 : 1);
  const std::uint32_t max = (1u << bpc) - 1;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      std::int64_t v = (std::int64_t{x} * 3 + y * 2) * (max / 255 + 1) % (max + 1);
      if ((x / 16 + y / 16) % 5 == 0) v = (x / 4) % 2 ? max : 0;
      v += static_cast<std::int64_t>(rng() % (distorted ? 33 : 9)) - (distorted ? 16 : 4);
      plane->set(x, y, static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, max)));
    }
  return plane;
}

// The CPU twins of a feature for --bench: the scalar table and each SIMD table
// this machine runs, timed through make(dsp, w, h, bpc), which returns the call
// that scores one frame.
template <class Dsp, class Make>
std::vector<BenchTwin> cpu_bench_twins(const char* feature, const Dsp& (*scalar)(),
                                       const Dsp* (*isa)(unsigned), Make make) {
  std::vector<BenchTwin> twins;
  twins.push_back({feature, "scalar", [=](unsigned w, unsigned h, unsigned bpc) {
                     return make(scalar(), w, h, bpc);
                   }});
  for (const test::Isa& i : test::simd_isas())
    twins.push_back({feature, i.name,
                     [=](unsigned w, unsigned h, unsigned bpc) -> std::function<void()> {
                       if (!cpu_skip_reason(i).empty()) return nullptr;
                       const Dsp* dsp = isa(i.flag);
                       if (!dsp) return nullptr;
                       return make(*dsp, w, h, bpc);
                     }});
  return twins;
}

// The fixture of CUDA device checks: skips, saying why, without a usable device.
class DeviceCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = cuda_skip_reason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

}  // namespace vmafexact::harness

// TEST_F(<feature>_cuda_device, Name) checks, skipped without a device.
#define HARNESS_DEVICE_FIXTURE(feature) \
  class feature##_cuda_device : public ::vmafexact::harness::DeviceCheck {}

// The fixture of a feature's SIMD twins: `Dsp` tables from `isa_fn(flag)`,
// compared with `scalar_fn()`; skips where the twin is not built or the CPU
// lacks it.
#define HARNESS_DSP_FIXTURE(Fixture, Dsp, scalar_fn, isa_fn, seed_constant)                   \
  class Fixture : public ::testing::TestWithParam<::vmafexact::test::Isa> {                  \
   protected:                                                                                \
    void SetUp() override {                                                                  \
      const auto isa = GetParam();                                                           \
      if (const std::string why = ::vmafexact::harness::cpu_skip_reason(isa); !why.empty())  \
        GTEST_SKIP() << why;                                                                 \
      twin_ = isa_fn(isa.flag);                                                              \
      const std::string why = ::vmafexact::harness::not_built_reason(isa, twin_ != nullptr); \
      if (!why.empty()) GTEST_SKIP() << why;                                                 \
    }                                                                                        \
    const Dsp& ref() const { return scalar_fn(); }                                           \
    const Dsp& twin() const { return *twin_; }                                               \
    const Dsp* twin_ = nullptr;                                                              \
    std::mt19937_64 rng_{::vmafexact::harness::seed() ^ (seed_constant)};                    \
  }
