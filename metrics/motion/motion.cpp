#include "motion/motion.h"

#include <algorithm>
#include <cstdlib>

#include "common/cpu.h"
#include "motion/motion_dsp.h"
#include "motion/motion_pixel.h"

namespace vmafexact::motion {

namespace {

using pixel::mirror;

static_assert(kFilter[0] == 3571 && kFilter[1] == 16004 && kFilter[2] == 26386 &&
                  kFilter[3] == 16004 && kFilter[4] == 3571,
              "motion_pixel.h's filter5() spells out kFilter");

template <typename Sample>
std::uint32_t row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc, unsigned y,
                      std::int16_t* blurred, MotionVerticalFn<Sample> vertical,
                      MotionHorizontalFn horizontal) {
  const int height = static_cast<int>(cur.height);

  // The five rows under the vertical filter, mirrored at the top and bottom.
  std::array<const Sample*, 5> prev_rows{};
  std::array<const Sample*, 5> cur_rows{};
  for (int k = 0; k < 5; ++k) {
    const auto row = static_cast<unsigned>(mirror(static_cast<int>(y) - kFilterRadius + k, height));
    prev_rows[k] = prev.row<Sample>(row);
    cur_rows[k] = cur.row<Sample>(row);
  }

  // Vertical pass over the difference (motion_pixel.h): an exact int64 sum,
  // rounded by adding half of the divisor 2^bpc and shifting arithmetically
  // (floor for negative sums).
  std::int16_t* hi = blurred;
  std::int16_t* lo = blurred + cur.width;
  if (!vertical(prev_rows.data(), cur_rows.data(), bpc, cur.width, hi, lo))
    return 0;  // the horizontal pass of zeros is zero
  // Horizontal pass, then |value| summed in 32 bits (wrapping as libvmaf's does).
  return horizontal(hi, lo, cur.width);
}

}  // namespace

std::uint32_t motion_row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc, unsigned y,
                             std::int16_t* blurred, const MotionDsp& dsp) {
  return bpc == 8
             ? row_sad<std::uint8_t>(prev, cur, bpc, y, blurred, dsp.vertical_8, dsp.horizontal)
             : row_sad<std::uint16_t>(prev, cur, bpc, y, blurred, dsp.vertical_16, dsp.horizontal);
}

std::uint32_t motion_row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc, unsigned y,
                             std::int16_t* blurred) {
  return motion_row_sad(prev, cur, bpc, y, blurred, motion_dsp(cpu::flags()));
}

std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch, const MotionDsp& dsp) {
  if (scratch.size() < 2 * std::size_t{cur.width}) scratch.resize(2 * std::size_t{cur.width});
  std::uint64_t sad = 0;
  for (unsigned y = 0; y < cur.height; ++y)
    sad += motion_row_sad(prev, cur, bpc, y, scratch.data(), dsp);
  return sad;
}

std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch, const MotionDsp& dsp,
                         BandRunner& runner) {
  const std::size_t row_size = 2 * std::size_t{cur.width};  // the split row (motion_dsp.h)
  const unsigned max_bands = runner.max_bands();
  if (scratch.size() < row_size * max_bands) scratch.resize(row_size * max_bands);
  // Each row's uint32 sum joins its band's uint64, the bands' join the total:
  // the same exact sum as one pass.
  return sum_row_bands<std::uint64_t>(
      runner, 0, static_cast<int>(cur.height), cur.width, [&](unsigned band, int first_row, int end_row) {
        std::int16_t* blurred = scratch.data() + row_size * band;
        std::uint64_t sad = 0;
        for (int y = first_row; y < end_row; ++y)
          sad += motion_row_sad(prev, cur, bpc, static_cast<unsigned>(y), blurred, dsp);
        return sad;
      });
}

std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch) {
  return motion_sad(prev, cur, bpc, scratch, motion_dsp(cpu::flags()));
}

double sad_to_score(std::uint64_t sad, unsigned width, unsigned height, const MotionParams& params) {
  // libvmaf: (double)sad / 256. / (w * h) * fps_weight, the product w * h
  // taken in unsigned 32 bits, each step a rounded double operation.
  const unsigned pixel_count = width * height;
  const double score =
      static_cast<double>(sad) / 256.0 / static_cast<double>(pixel_count) * params.fps_weight;
  return score < params.max_val ? score : params.max_val;
}

double motion_blend(double score, double factor, double offset) {
  const double floor_part = offset < score ? offset : score;
  return score * factor + (1.0 - factor) * floor_part;
}

bool MotionSequence::ready(unsigned index) const {
  if (ended_) return index < sads_given();
  const std::size_t known = sads_given();
  // motion2 needs the next frame's sad; the frames below the first scored one
  // need that frame's sad for motion3 (its "stamp").
  const std::size_t needed_next = std::size_t{index} + 2;
  const std::size_t needed_stamp = std::size_t{params_.first_scored_index()} + 1;
  return known >= needed_next && known >= needed_stamp;
}

double MotionSequence::motion2(unsigned index) const {
  const unsigned first = params_.first_scored_index();
  if (index < first) return 0.0;
  const std::size_t next = std::size_t{index} + 1;
  if (next >= sads_given()) return sad(index);  // the last frame keeps its own
  const double later = sad(next);
  const long earlier_index = static_cast<long>(index) - static_cast<long>(params_.frame_distance() - 1);
  if (earlier_index >= static_cast<long>(first)) {
    const double earlier = sad(static_cast<std::size_t>(earlier_index));
    return earlier < later ? earlier : later;
  }
  return later;
}

std::vector<FrameMotion> MotionSequence::take_ready() {
  std::vector<FrameMotion> out;
  const unsigned first = params_.first_scored_index();
  while (next_ < sads_given() && ready(next_)) {
    const unsigned i = next_++;
    if (i == 0) {
      // Decided once, on what libvmaf's flush sees: sad[first] if the stream
      // has more than `first` frames, else nothing.
      stamp_ = 0.0;
      if (sads_given() > first) {
        const double blended =
            motion_blend(sad(first), params_.blend_factor, params_.blend_offset);
        stamp_ = blended < params_.max_val ? blended : params_.max_val;
      }
    }
    FrameMotion frame;
    frame.index = i;
    frame.motion2 = motion2(i);
    if (i < first) {
      frame.motion3 = stamp_;
      previous_processed_ = stamp_;
    } else {
      const double blended =
          motion_blend(frame.motion2, params_.blend_factor, params_.blend_offset);
      const double processed = blended < params_.max_val ? blended : params_.max_val;
      frame.motion3 = params_.moving_average ? (processed + previous_processed_) / 2.0 : processed;
      previous_processed_ = processed;
    }
    out.push_back(frame);
  }
  // The oldest score a later frame reads is frame next_ - d + 1's (motion2);
  // the stamp was taken with frame 0. Older ones go, so nothing grows with the run.
  if (next_ > 0) {
    const std::size_t keep_from = next_ - std::min(next_, params_.frame_distance() - 1);
    while (first_held_ < keep_from && !sads_.empty()) {
      sads_.pop_front();
      ++first_held_;
    }
  }
  return out;
}

}  // namespace vmafexact::motion
