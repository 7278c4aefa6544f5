#include "vif/vif_dsp.h"

#include <type_traits>

#include "common/dispatch.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {

namespace {

// Calls body(std::integral_constant<unsigned, W>) with W the filter's width
// (17, 9, 5, 3), so the scalar loops are compiled with a known trip count.
template <typename Body>
void with_width(const Filter& filter, Body body) {
  switch (filter.width) {
    case 17: return body(std::integral_constant<unsigned, 17>{});
    case 9: return body(std::integral_constant<unsigned, 9>{});
    case 5: return body(std::integral_constant<unsigned, 5>{});
    case 3: return body(std::integral_constant<unsigned, 3>{});
    default: return body(std::integral_constant<unsigned, 0>{});
  }
}

template <typename Sample>
void stat_vertical_c(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                     const VerticalRounding& rounding, unsigned w, const StatRows& out) {
  with_width(filter, [&](auto width) {
    scalar::stat_vertical<Sample, width()>(ref, dis, filter, rounding, 0, w, out);
  });
}

void stat_horizontal_c(const StatRows& in, const Filter& filter, unsigned w,
                       const std::uint16_t* log2_table, double enhn_gain_limit, ScaleSums& sums) {
  with_width(filter, [&](auto width) {
    scalar::stat_horizontal<width()>(in, filter, 0, w, log2_table, enhn_gain_limit, sums);
  });
}

template <typename Sample>
void lowpass_vertical_c(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                        std::uint32_t round, unsigned shift, unsigned w, std::int16_t* ref_out,
                        std::int16_t* dis_out) {
  with_width(filter, [&](auto width) {
    scalar::lowpass_vertical<Sample, width()>(ref, dis, filter, round, shift, 0, w, ref_out, dis_out);
  });
}

void stat_vertical_8_block_c(const std::uint8_t* const* ref, const std::uint8_t* const* dis,
                             const Filter& filter, const VerticalRounding& rounding, unsigned w,
                             const StatRows* out, const LowpassRows* lowpass) {
  for (unsigned n = 0; n < kStatBlock; ++n)
    stat_vertical_c<std::uint8_t>(ref + n, dis + n, filter, rounding, w, out[n]);
  if (lowpass == nullptr) return;
  const unsigned offset = filter.half() - lowpass->filter->half();
  for (unsigned m = 0; m < 2; ++m)
    lowpass_vertical_c<std::uint8_t>(ref + offset + 2 * m, dis + offset + 2 * m, *lowpass->filter,
                                     lowpass->round, lowpass->shift, w, lowpass->ref_out[m],
                                     lowpass->dis_out[m]);
}

void lowpass_horizontal_c(const std::int16_t* ref_in, const std::int16_t* dis_in,
                          const Filter& filter, unsigned out_w, std::uint16_t* ref_out,
                          std::uint16_t* dis_out) {
  with_width(filter, [&](auto width) {
    scalar::lowpass_horizontal<width()>(ref_in, dis_in, filter, 0, out_w, ref_out, dis_out);
  });
}

}  // namespace

const VifDsp& vif_dsp_scalar() {
  static constexpr VifDsp dsp{
      "scalar",
      stat_vertical_c<std::uint8_t>,
      stat_vertical_c<std::uint16_t>,
      stat_vertical_8_block_c,
      stat_horizontal_c,
      lowpass_vertical_c<std::uint8_t>,
      lowpass_vertical_c<std::uint16_t>,
      lowpass_horizontal_c,
  };
  return dsp;
}

namespace {

constexpr simd::IsaTables<VifDsp> kTables{
    vif_dsp_scalar,
#if defined(VMAFEXACT_X86_64_SIMD)
    vif_dsp_avx2,
    vif_dsp_avx512,
    vif_dsp_avx512vnni,
#endif
};

}  // namespace

const VifDsp* vif_dsp_isa(unsigned cpu_flag) { return kTables.isa(cpu_flag); }

const VifDsp& vif_dsp(unsigned cpu_flags) { return kTables.best(cpu_flags); }

}  // namespace vmafexact::vif
