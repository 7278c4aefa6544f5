// CIEDE2000 as libvmaf 3.2.0's "ciede" extractor computes it (ciede.c at master
// f85a8536, a port of av-metrics' ciede2000): both pictures' chroma brought to
// the luma's size as libvmaf does it, each pixel converted from BT.709 YUV to
// CIE Lab (in double, with float Lab), the CIEDE2000 colour difference of the
// two pixels (libvmaf's mix of float and double steps), summed in double in
// raster order; the score is 45 - 20 log10(mean difference).
#pragma once

#include <cstddef>
#include <vector>

#include "common/feature_stage.h"

namespace vmafexact::ciede {

// A pixel in CIE Lab, as libvmaf's LABColor holds it (floats).
struct Lab {
  float l, a, b;
};

// get_lab_color(): BT.709 YUV samples (at `bpc` bits) to Lab.
Lab lab_of(double y, double u, double v, unsigned bpc);

// ciede2000() with libvmaf's weights (kL 0.65, kC 1, kH 4).
float delta_e_2000(const Lab& first, const Lab& second);

// Where libvmaf's chroma upsampling reads the chroma sample of luma pixel
// (x, y) of one plane: its row and column in the plane, or past it (a column
// at or beyond the plane's width reads libvmaf's zero padding). 4:2:2 is read
// as libvmaf reads it: rows halved as for 4:2:0 and columns not halved, each
// row's columns running on into the following rows of its buffer, whose
// rows are 32-sample aligned (docs/features/ciede.md).
struct ChromaSite {
  unsigned row, column;
};
class ChromaMap {
 public:
  explicit ChromaMap(const PictureFormat& format);
  ChromaSite site(unsigned x, unsigned y) const;
  // Whether every site lies inside libvmaf's chroma buffer (else libvmaf reads
  // another plane or past its allocation, and the format is refused).
  bool inside() const { return inside_; }

 private:
  ChromaFormat chroma_;
  unsigned chroma_width_, chroma_height_, stride_;
  bool inside_ = true;
};

// The per-pixel stage's result: libvmaf's de00_sum.
struct CiedeSums {
  double sum = 0;
};

// The finishing function: 45 - 20 log10(sum / (w * h)).
double ciede_score(double sum, unsigned width, unsigned height);

class CiedeCpuStage final : public FeatureStage<CiedeSums> {
 public:
  explicit CiedeCpuStage(const PictureFormat& format) : map_(format) {}
  CiedeSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  ChromaMap map_;
  BandRunner* runner_ = &serial_band_runner();
  std::vector<float> differences_;  // each pixel's, summed in raster order
};

}  // namespace vmafexact::ciede
