#include "common/cpu.h"

#include <atomic>
#include <cstdlib>

namespace vmafexact::cpu {

namespace {

unsigned detect() {
  unsigned flags = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // libgcc's and compiler-rt's checks include the operating system's support
  // of the AVX and AVX-512 register state (XGETBV).
  if (__builtin_cpu_supports("avx2")) flags |= kAvx2;
  if ((flags & kAvx2) && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    flags |= kAvx512;
  if ((flags & kAvx512) && __builtin_cpu_supports("avx512vnni")) flags |= kAvx512Vnni;
#endif
  return flags;
}

unsigned initial_mask() {
  const char* text = std::getenv("VMAFEXACT_CPU_MASK");
  if (!text || !*text) return kAllFlags;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 0);
  if (*end != '\0') return kAllFlags;  // not a number: ignored
  return static_cast<unsigned>(value) & kAllFlags;
}

std::atomic<unsigned>& mask_storage() {
  static std::atomic<unsigned> mask{initial_mask()};
  return mask;
}

}  // namespace

unsigned detected_flags() {
  static const unsigned flags = detect();
  return flags;
}

unsigned flags() { return detected_flags() & mask_storage().load(std::memory_order_relaxed); }

unsigned set_cpu_mask(unsigned mask) {
  return mask_storage().exchange(mask & kAllFlags, std::memory_order_relaxed);
}

unsigned cpu_mask() { return mask_storage().load(std::memory_order_relaxed); }

const char* best_isa_name(unsigned flags) {
  if (flags & kAvx512) return "avx512";
  if (flags & kAvx2) return "avx2";
  return "scalar";
}

}  // namespace vmafexact::cpu
