// Integer motion as libvmaf 3.2.0's "motion" extractor computes it
// (integer_motion.c at master f85a8536).
//
// The per-pixel stage blurs the DIFFERENCE of two luma planes (the current
// reference frame and an earlier one) with a 5-tap integer filter, vertically
// then horizontally, and sums the absolute values: an exact integer per row
// (motion_row_sad) and per frame (motion_sad). Everything after that is the
// finishing stage shared by every backend: sad_to_score() turns a frame's sum
// into its "sad" score, and MotionSequence turns the sequence of sad scores
// into motion2 and motion3, in libvmaf's order of double operations.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/bands.h"
#include "common/picture.h"

namespace vmafexact::motion {

// libvmaf's 5-tap filter (a Gaussian in 16-bit fixed point; the taps add to 65536).
inline constexpr std::array<std::int32_t, 5> kFilter = {3571, 16004, 26386, 16004, 3571};
inline constexpr int kFilterRadius = 2;

// The smallest width and height the filter can mirror at the borders without
// reading outside the picture (libvmaf reads outside below it).
inline constexpr unsigned kMinSide = 3;

// The per-pixel stage for row `y` of width x height planes `prev` and `cur`
// (same size, bpc bits): the vertical blur of prev - cur rounded to
// (sum + 2^(bpc-1)) >> bpc into `blurred` (width values), then the horizontal
// blur of that rounded to (sum + 2^15) >> 16, and the sum of the absolute
// values, which libvmaf keeps in a uint32 (it wraps only for rows wider than
// about 65 000 samples). `blurred` must hold 2 * width values: the vertical
// pass's row, split in two int16 rows (motion_dsp.h).
// Runs the routines of motion_dsp(cpu::flags()) (motion_dsp.h), or of `dsp`.
struct MotionDsp;
std::uint32_t motion_row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                             unsigned y, std::int16_t* blurred);
std::uint32_t motion_row_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                             unsigned y, std::int16_t* blurred, const MotionDsp& dsp);

// The frame's sum: every row's uint32 sum added in a uint64 (exact in any order).
// `scratch` is resized to twice the width as needed.
std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch);
std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch, const MotionDsp& dsp);
// The same sum with the rows cut into bands run by `runner` (bands.h), one
// scratch row per band (`scratch` holds runner.max_bands() rows after the call).
std::uint64_t motion_sad(const PlaneView& prev, const PlaneView& cur, unsigned bpc,
                         std::vector<std::int16_t>& scratch, const MotionDsp& dsp,
                         BandRunner& runner);

// The options that change the arithmetic (libvmaf's names; defaults as libvmaf's).
struct MotionParams {
  bool force_zero = false;         // motion_force_zero
  double blend_factor = 1.0;       // motion_blend_factor
  double blend_offset = 40.0;      // motion_blend_offset
  double fps_weight = 1.0;         // motion_fps_weight
  double max_val = 10000.0;        // motion_max_val
  bool five_frame_window = false;  // motion_five_frame_window
  bool moving_average = false;     // motion_moving_average

  // The first frame index that has a sad score of its own (the frames before
  // it have no earlier frame at the window's distance): 1, or 2 with the
  // five-frame window, which compares frame i with frame i - 2.
  unsigned first_scored_index() const { return five_frame_window ? 2u : 1u; }
  unsigned frame_distance() const { return five_frame_window ? 2u : 1u; }
};

// Finishing a frame's sum: min(sad / 256 / (width * height) * fps_weight, max_val)
// in double, the pixel count being a 32-bit unsigned product as in libvmaf.
double sad_to_score(std::uint64_t sad, unsigned width, unsigned height, const MotionParams& params);

// libvmaf's blend: score * factor + (1 - factor) * min(offset, score).
double motion_blend(double score, double factor, double offset);

// motion2 and motion3 of one frame.
struct FrameMotion {
  unsigned index = 0;
  double motion2 = 0.0;
  double motion3 = 0.0;
};

// The temporal finishing stage. Feed the sad score of every frame in order;
// take_ready() hands out each frame's motion2 and motion3 as soon as the later
// sad scores they depend on are known (or the stream has ended), with exactly
// the values libvmaf's flush computes over the whole sequence:
//   motion2[i] = 0 for i below first_scored_index(),
//              = sad[i] for the last frame,
//              = min(sad[i - d + 1], sad[i + 1]) where i - d + 1 >= first_scored_index()
//                (d = frame_distance()),
//              = sad[i + 1] otherwise;
//   motion3[i] = min(blend(motion2[i]), max_val), or with moving_average its mean
//                with the previous frame's; the frames below first_scored_index()
//                all take min(blend(sad[first_scored_index()]), max_val), or 0 if
//                the stream is not longer than that.
class MotionSequence {
 public:
  explicit MotionSequence(const MotionParams& params) : params_(params) {}

  void add_sad(double sad_score) { sads_.push_back(sad_score); }
  // Marks the end of the stream: every frame becomes ready.
  void end_of_stream() { ended_ = true; }

  std::vector<FrameMotion> take_ready();

  // Frames a frame waits for: its motion2 needs the next frame's sad score, and
  // with the five-frame window frames 0 and 1 need frame 2's.
  unsigned latency_frames() const { return params_.five_frame_window ? 2u : 1u; }

  // The sad scores held: only those a frame not yet handed out can still read
  // (frame_distance() + 1 when take_ready() follows each add_sad()), so that a
  // run of months holds no more than its first frames did.
  std::size_t sads_held() const { return sads_.size(); }

 private:
  bool ready(unsigned index) const;
  double motion2(unsigned index) const;
  // Sad scores given so far, and the one of frame `index` (not yet dropped).
  std::size_t sads_given() const { return first_held_ + sads_.size(); }
  double sad(std::size_t index) const { return sads_[index - first_held_]; }

  MotionParams params_;
  std::deque<double> sads_;  // of frames first_held_, first_held_ + 1, ...
  std::size_t first_held_ = 0;
  unsigned next_ = 0;  // the first frame not handed out yet
  bool ended_ = false;
  double stamp_ = 0.0;            // motion3 of the frames below first_scored_index()
  double previous_processed_ = 0.0;
};

}  // namespace vmafexact::motion
