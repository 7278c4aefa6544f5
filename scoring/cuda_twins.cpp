#include "cuda_twins.h"

#include "adm/adm_cuda.h"
#include "adm/adm_extractor.h"
#include "cambi/cambi_cuda_stage.h"
#include "cambi/cambi_extractor.h"
#include "float_adm/float_adm_cuda_stage.h"
#include "float_ansnr/float_ansnr_cuda_stage.h"
#include "float_ansnr/float_ansnr_extractor.h"
#include "float_moment/float_moment_cuda_stage.h"
#include "float_moment/float_moment_extractor.h"
#include "float_motion/float_motion_cuda_stage.h"
#include "float_psnr/float_psnr_cuda_stage.h"
#include "float_psnr/float_psnr_extractor.h"
#include "float_vif/float_vif_cuda_stage.h"
#include "motion/motion_cuda_stage.h"
#include "psnr/psnr_cuda_stage.h"
#include "speed/speed_cuda_stage.h"
#include "speed/speed_extractor.h"
#include "ssim/ssim_cuda_stage.h"
#include "ssim/ssim_extractor.h"
#include "vif/vif_cuda.h"
#include "vif/vif_extractor.h"

namespace vmafexact::cuda {

std::unique_ptr<FeatureExtractor> adm::make_cuda_extractor(const OptionValues& options,
                                                           CudaStream stream) {
  return vmafexact::adm::make_extractor(
      options, [adm_options = vmafexact::adm::adm_options_of(options), stream](const PictureFormat& format) {
        return std::make_unique<AdmCudaStage>(format.width, format.height, adm_options, stream);
      });
}

std::unique_ptr<FeatureExtractor> cambi::make_cuda_extractor(const OptionValues& options,
                                                             CudaStream stream) {
  return vmafexact::cambi::make_extractor(options, [stream](const vmafexact::cambi::CambiSetup& setup) {
    return std::make_unique<CambiCudaStage>(setup, stream);
  });
}

std::unique_ptr<FeatureExtractor> float_adm::make_cuda_extractor(const OptionValues& options,
                                                                 CudaStream stream) {
  return vmafexact::float_adm::make_extractor(
      options,
      [stream](const PictureFormat& format, const vmafexact::float_adm::FloatAdmParams& params) {
        return std::make_unique<FloatAdmCudaStage>(format, params, stream);
      });
}

std::string float_adm::cuda_refusal(const OptionValues& options) {
  return cuda_refusal(vmafexact::float_adm::params_of(options));
}

std::unique_ptr<FeatureExtractor> float_ansnr::make_cuda_extractor(const OptionValues& options,
                                                                   CudaStream stream) {
  return vmafexact::float_ansnr::make_extractor(options, [stream](const PictureFormat& format) {
    return std::make_unique<FloatAnsnrCudaStage>(format, stream);
  });
}

std::unique_ptr<FeatureExtractor> float_moment::make_cuda_extractor(const OptionValues& options,
                                                                    CudaStream stream) {
  return vmafexact::float_moment::make_extractor(options, [stream](const PictureFormat& format) {
    return std::make_unique<FloatMomentCudaStage>(format, stream);
  });
}

std::unique_ptr<FeatureExtractor> float_motion::make_cuda_extractor(const OptionValues& options,
                                                                    CudaStream stream) {
  return vmafexact::float_motion::make_extractor(
      options, [stream](const PictureFormat& format,
                        const vmafexact::float_motion::FloatMotionParams& params) {
        return std::make_unique<FloatMotionCudaStage>(format, params, stream);
      });
}

std::unique_ptr<FeatureExtractor> float_psnr::make_cuda_extractor(const OptionValues& options,
                                                                  CudaStream stream) {
  return vmafexact::float_psnr::make_extractor(options, [stream](const PictureFormat& format) {
    return std::make_unique<FloatPsnrCudaStage>(format, stream);
  });
}

std::unique_ptr<FeatureExtractor> float_vif::make_cuda_extractor(const OptionValues& options,
                                                                 CudaStream stream) {
  return vmafexact::float_vif::make_extractor(
      options,
      [stream](const PictureFormat& format, const vmafexact::float_vif::FloatVifParams& params) {
        return std::make_unique<FloatVifCudaStage>(format, params, stream);
      });
}

std::unique_ptr<FeatureExtractor> motion::make_cuda_extractor(const OptionValues& options,
                                                              CudaStream stream) {
  return vmafexact::motion::make_extractor(
      options, [stream](const PictureFormat& format, unsigned depth) {
        return std::make_unique<MotionCudaStage>(format, depth, stream);
      });
}

std::unique_ptr<FeatureExtractor> psnr::make_cuda_extractor(const OptionValues& options,
                                                            CudaStream stream) {
  return vmafexact::psnr::make_extractor(
      options, [stream, chroma = options.get_bool("enable_chroma")](const PictureFormat&) {
        return std::make_unique<PsnrCudaStage>(stream, chroma);
      });
}

std::unique_ptr<FeatureExtractor> speed::make_chroma_cuda_extractor(const OptionValues& options,
                                                                   CudaStream stream) {
  return vmafexact::speed::make_chroma_extractor(
      options, [stream](const PictureFormat&, const vmafexact::speed::SpeedGeometry& chroma,
                        const vmafexact::speed::SpeedParams& params) {
        return std::make_unique<SpeedChromaCudaStage>(chroma, params, stream);
      });
}

std::unique_ptr<FeatureExtractor> ssim::make_cuda_extractor(const OptionValues& options,
                                                            CudaStream stream) {
  return vmafexact::ssim::make_ssim_extractor(
      options, [scale_option = options.get_int("scale"), stream](const PictureFormat& format) {
        return std::make_unique<SsimCudaStage>(
            format.width, format.height,
            vmafexact::ssim::ssim_scale(scale_option, format.width, format.height), stream);
      });
}

std::unique_ptr<FeatureExtractor> ssim::make_ms_ssim_cuda_extractor(const OptionValues& options,
                                                                    CudaStream stream) {
  return vmafexact::ssim::make_ms_ssim_extractor(options, [stream](const PictureFormat& format) {
    return std::make_unique<MsSsimCudaStage>(format.width, format.height, stream);
  });
}

std::unique_ptr<FeatureExtractor> vif::make_cuda_extractor(const OptionValues& options,
                                                           CudaStream stream) {
  return vmafexact::vif::make_extractor(
      options, [params = vmafexact::vif::params_of(options), stream](const PictureFormat& format) {
        return std::make_unique<VifCudaStage>(format.width, format.height, format.bpc, params, stream);
      });
}

}  // namespace vmafexact::cuda
