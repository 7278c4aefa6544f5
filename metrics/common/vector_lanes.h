// GCC's vector extensions over kLanes 32-bit lanes: the types and memory
// accesses the lane-generic twins (float_vif_lanes.h, float_adm_lanes.h) share.
// Arithmetic on them is IEEE per lane and a comparison gives a lane mask for
// `?:`, so a twin can write a scalar reference's operations once for all lanes.
// Not a normal header: included inside a twin's own namespace, after
// `constexpr int kLanes` (8 for AVX2, 16 for AVX-512), by a translation unit
// compiled for that ISA. Expects <cstdint>.

typedef float F __attribute__((vector_size(4 * kLanes)));
typedef std::int32_t I __attribute__((vector_size(4 * kLanes)));
typedef std::uint32_t U __attribute__((vector_size(4 * kLanes)));
typedef double D __attribute__((vector_size(8 * kLanes)));
// The same in memory at any float's alignment.
typedef float UnalignedF __attribute__((vector_size(4 * kLanes), aligned(4), may_alias));

inline F load(const float* p) { return *reinterpret_cast<const UnalignedF*>(p); }
inline void store(float* p, F v) { *reinterpret_cast<UnalignedF*>(p) = v; }
inline F splat(float x) { return F{} + x; }
// |x| per lane: the sign bit cleared, as fabs.
inline F abs_lanes(F x) { return (F)((U)x & 0x7FFFFFFFu); }
