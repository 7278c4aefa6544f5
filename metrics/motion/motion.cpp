#include "motion/motion.h"

#include <cstdlib>

#include "motion/motion_pixel.h"

namespace vmafexact::motion {

namespace {

using pixel::mirror;

static_assert(kFilter[0] == 3571 && kFilter[1] == 16004 && kFilter[2] == 26386 &&
                  kFilter[3] == 16004 && kFilter[4] == 3571,
              "motion_pixel.h's filter5() spells out kFilter");

template <typename Sample>
std::uint32_t row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc, unsigned y,
                      std::int32_t* blurred) {
  const int width = static_cast<int>(cur.width);
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
  std::int32_t any_nonzero = 0;
  for (int x = 0; x < width; ++x) {
    std::array<std::int64_t, 5> diff{};
    for (int k = 0; k < 5; ++k)
      diff[k] = static_cast<std::int32_t>(prev_rows[k][x]) - static_cast<std::int32_t>(cur_rows[k][x]);
    blurred[x] = pixel::vertical_round(pixel::filter5(diff[0], diff[1], diff[2], diff[3], diff[4]), bpc);
    any_nonzero |= blurred[x];
  }
  if (!any_nonzero) return 0;  // the horizontal pass of zeros is zero

  // Horizontal pass, then |value| summed in 32 bits (wrapping as libvmaf's does).
  std::uint32_t sad = 0;
  auto add = [&](std::int64_t sum) { sad += pixel::horizontal_abs(sum); };
  auto mirrored_sum = [&](int x) {
    const auto at = [&](int k) { return std::int64_t{blurred[mirror(x - kFilterRadius + k, width)]}; };
    return pixel::filter5(at(0), at(1), at(2), at(3), at(4));
  };
  const int interior_begin = kFilterRadius;
  const int interior_end = width - kFilterRadius;  // exclusive
  for (int x = 0; x < interior_begin && x < width; ++x) add(mirrored_sum(x));
  for (int x = interior_begin; x < interior_end; ++x) {
    const std::int32_t* b = blurred + x - kFilterRadius;
    add(pixel::filter5(b[0], b[1], b[2], b[3], b[4]));
  }
  for (int x = interior_end > interior_begin ? interior_end : interior_begin; x < width; ++x)
    add(mirrored_sum(x));
  return sad;
}

}  // namespace

std::uint32_t motion_row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                             unsigned y, std::int32_t* blurred) {
  return bpc == 8 ? row_sad<std::uint8_t>(prev, cur, bpc, y, blurred)
                  : row_sad<std::uint16_t>(prev, cur, bpc, y, blurred);
}

std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int32_t>& scratch) {
  if (scratch.size() < cur.width) scratch.resize(cur.width);
  std::uint64_t sad = 0;
  for (unsigned y = 0; y < cur.height; ++y)
    sad += motion_row_sad(prev, cur, bpc, y, scratch.data());
  return sad;
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
  if (ended_) return index < sads_.size();
  const std::size_t known = sads_.size();
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
  if (next >= sads_.size()) return sads_[index];  // the last frame keeps its own
  const double later = sads_[next];
  const long earlier_index = static_cast<long>(index) - static_cast<long>(params_.frame_distance() - 1);
  if (earlier_index >= static_cast<long>(first)) {
    const double earlier = sads_[static_cast<std::size_t>(earlier_index)];
    return earlier < later ? earlier : later;
  }
  return later;
}

std::vector<FrameMotion> MotionSequence::take_ready() {
  std::vector<FrameMotion> out;
  const unsigned first = params_.first_scored_index();
  while (next_ < sads_.size() && ready(next_)) {
    const unsigned i = next_++;
    if (i == 0) {
      // Decided once, on what libvmaf's flush sees: sad[first] if the stream
      // has more than `first` frames, else nothing.
      stamp_ = 0.0;
      if (sads_.size() > first) {
        const double blended =
            motion_blend(sads_[first], params_.blend_factor, params_.blend_offset);
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
  return out;
}

}  // namespace vmafexact::motion
