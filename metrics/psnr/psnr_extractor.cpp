#include "psnr/psnr_extractor.h"

#include <cfloat>

#include "common/cpu.h"
#include "psnr/psnr.h"
#include "psnr/psnr_dsp.h"

namespace vmafexact::psnr {

namespace {

constexpr std::string_view kProvided[] = {"psnr_y", "psnr_cb", "psnr_cr"};
constexpr std::string_view kMseKeys[] = {"mse_y", "mse_cb", "mse_cr"};
constexpr std::string_view kApsnrKeys[] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

// libvmaf's table (integer_psnr.c); none is a feature parameter.
constexpr OptionSpec kOptions[] = {
    {.name = "enable_chroma", .type = OptionType::kBool, .default_value = 1,
     .help = "also score the chroma planes (gray: luma only whatever this says)"},
    {.name = "enable_mse", .type = OptionType::kBool, .default_value = 0,
     .help = "also write mse_y, mse_cb, mse_cr"},
    {.name = "enable_apsnr", .type = OptionType::kBool, .default_value = 0,
     .help = "write the aggregates apsnr_y, apsnr_cb, apsnr_cr at end of stream"},
    {.name = "reduced_hbd_peak", .type = OptionType::kBool, .default_value = 0,
     .help = "above 8 bits, peak 255 << (bpc - 8) instead of 2^bpc - 1"},
    {.name = "min_sse", .type = OptionType::kDouble, .default_value = 0.0, .min = 0.0,
     .max = DBL_MAX, .help = "cap each plane's psnr as if its sse were at least this"},
};

class PsnrExtractor final : public StagedExtractor<PsnrSums> {
 public:
  PsnrExtractor(const FeatureDescriptor& descriptor, OptionValues options,
                StageFactory<PsnrSums> make_stage)
      : StagedExtractor(descriptor, std::move(options), std::move(make_stage)),
        enable_mse_(this->options().get_bool("enable_mse")),
        enable_apsnr_(this->options().get_bool("enable_apsnr")) {}

  bool reads_chroma() const override { return options().get_bool("enable_chroma"); }
  bool sees_every_frame() const override { return true; }  // libvmaf flags psnr TEMPORAL
  // apsnr sums every frame of the stream in one instance (flushed once).
  bool keeps_state() const override { return enable_apsnr_; }

  void flush(FeatureCollector& scores) override {
    if (!enable_apsnr_) return;
    // libvmaf sets all three, also for planes it never summed (then -inf).
    for (unsigned p = 0; p < 3; ++p)
      scores.set_aggregate(kApsnrKeys[p], apsnr(apsnr_sse_[p], apsnr_pixels_[p], peak_));
  }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("psnr", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("psnr: empty picture");
  }

  // libvmaf's init(): the peak, each plane's psnr_max, the planes scored.
  void start(const PictureFormat& f) override {
    peak_ = peak_value(f.bpc, options().get_bool("reduced_hbd_peak"));
    planes_ = options().get_bool("enable_chroma") && f.chroma != ChromaFormat::k400 ? 3 : 1;
    const double min_sse = options().get_double("min_sse");
    for (unsigned p = 0; p < 3; ++p)
      psnr_max_[p] = min_sse != 0.0 ? min_sse_psnr_max(min_sse, peak_, f.chroma, p, f.width, f.height)
                                    : default_psnr_max(f.bpc);
    apsnr_sse_ = {};
    apsnr_pixels_ = {};
  }

  void finish(const PsnrSums& sums, unsigned index, FeatureCollector& scores) override {
    const PictureFormat& f = format();
    for (unsigned p = 0; p < planes_; ++p) {
      // A 4:2:0 or 4:2:2 picture one pixel wide or high has empty chroma planes
      // in libvmaf's layout: mse is then 0/0, its max() with 1e-16 picks 1e-16,
      // and the score is psnr_max, as libvmaf reports it.
      const unsigned width = p == 0 ? f.width : chroma_plane_width(f.width, f.chroma);
      const unsigned height = p == 0 ? f.height : chroma_plane_height(f.height, f.chroma);
      if (enable_apsnr_) {
        apsnr_sse_[p] += sums.sse[p];
        apsnr_pixels_[p] += height * width;  // an unsigned 32-bit product, as libvmaf's
      }
      const double mse = mse_from_sse(sums.sse[p], width, height);
      scores.append(key(p), index, psnr_from_mse(mse, peak_, psnr_max_[p]));
      if (enable_mse_) scores.append(kMseKeys[p], index, mse);
    }
  }

  bool enable_mse_;
  bool enable_apsnr_;
  std::uint32_t peak_ = 0;
  unsigned planes_ = 3;
  std::array<double, 3> psnr_max_{};
  std::array<std::uint64_t, 3> apsnr_sse_{};
  std::array<std::uint64_t, 3> apsnr_pixels_{};
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "psnr",
      "PSNR of each plane (psnr_y, psnr_cb, psnr_cr; luma only for gray), optionally MSE and "
      "the aggregate apsnr",
      kProvided, kOptions};
  return descriptor;
}

PsnrCpuStage::PsnrCpuStage(const PsnrDsp& dsp, bool chroma) : dsp_(&dsp), chroma_(chroma) {}

PsnrSums PsnrCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  PsnrSums sums;
  const unsigned planes = chroma_ ? ref.plane_count() : 1;
  for (unsigned p = 0; p < planes; ++p)
    sums.sse[p] = plane_sse(ref.planes[p], dist.planes[p], ref.bpc, *dsp_, *runner_);
  return sums;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<PsnrSums> make_stage) {
  return std::make_unique<PsnrExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [chroma = options.get_bool("enable_chroma")](const PictureFormat&) {
    return std::make_unique<PsnrCpuStage>(psnr_dsp(cpu::flags()), chroma);  // chosen once per stream
  });
}

}  // namespace vmafexact::psnr
