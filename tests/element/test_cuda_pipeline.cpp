// The element on CUDA: pipelines with cudaupload in front of the inputs must
// write the same log, bit for bit, as the CPU path; also NV12/P010 in CUDA
// memory (repacked on the device) and system-memory input with backend=cuda.
// Skips cleanly where GStreamer's CUDA elements or a device are missing.
#include <gtest/gtest.h>
#include <gst/gst.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include "fixtures.h"
#include "pipelines.h"
#include "reference_setup.h"

using namespace vmafexact;

namespace {

using vmafexact::test::raw_parser;
using vmafexact::test::run_pipeline;

// cudaupload passes system memory through when downstream also takes it, as
// vmafexact does: the caps filter makes it upload.
const std::string kCudaCaps = "video/x-raw(memory:CUDAMemory)";


bool cuda_elements_usable() {
  GstElementFactory* upload = gst_element_factory_find("cudaupload");
  if (!upload) return false;
  gst_object_unref(upload);
  // A tiny pipeline proves the driver and a device are there.
  return run_pipeline(
             "videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=64,height=64 ! "
             "cudaupload ! cudadownload ! fakesink") == "";
}

class CudaPipeline : public ::testing::TestWithParam<test::FixturePair> {
 protected:
  void SetUp() override {
    if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  }
};

std::string temp_log(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vmafexact-cuda-" + std::to_string(::getpid()) + "-" + name))
      .string();
}


TEST_P(CudaPipeline, CudaUploadGivesTheCpuLog) {
  const auto& pair = GetParam();
  const auto log = test::load_reference_log(test::reference_dir() / pair.log_name);
  const auto setup = test::reference_setup(log);
  if (setup.empty()) GTEST_SKIP();
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair.ref_yuv) || !std::filesystem::exists(yuv / pair.dist_yuv))
    GTEST_SKIP() << pair.ref_yuv << " is not in this slice of the fixtures";
  const std::string parser = raw_parser(pair);
  const std::string element = "vmafexact name=v model=\"" + setup.models + "\" features=\"" +
                              setup.features + "\" log-precision=max";
  const std::string ref_src = "filesrc location=\"" + (yuv / pair.ref_yuv).string() + "\" ! " + parser;
  const std::string dist_src = "filesrc location=\"" + (yuv / pair.dist_yuv).string() + "\" ! " + parser;

  const std::string cpu_log = temp_log(pair.log_name + ".cpu.json");
  ASSERT_EQ(run_pipeline(element + " backend=cpu log-location=" + cpu_log + " ! fakesink " + ref_src +
                         " ! v.ref_sink " + dist_src + " ! v.dist_sink"),
            "");
  const std::string gpu_log = temp_log(pair.log_name + ".cuda.json");
  ASSERT_EQ(run_pipeline(element + " backend=auto log-location=" + gpu_log + " ! fakesink " + ref_src +
                         " ! cudaupload ! " + kCudaCaps + " ! v.ref_sink " + dist_src + " ! cudaupload ! " +
                         kCudaCaps + " ! v.dist_sink"),
            "");
  const auto cpu = test::load_reference_log(cpu_log);
  const auto gpu = test::load_reference_log(gpu_log);
  std::filesystem::remove(cpu_log);
  std::filesystem::remove(gpu_log);
  ASSERT_EQ(cpu.frame_key_order, gpu.frame_key_order);
  ASSERT_EQ(cpu.frames.size(), gpu.frames.size());
  unsigned compared = 0;
  for (std::size_t i = 0; i < cpu.frames.size(); ++i)
    for (const auto& [key, value] : cpu.frames[i]) {
      EXPECT_EQ(gpu.frames[i].at(key), value) << pair.log_name << " frame " << i << " " << key;
      ++compared;
    }
  for (const auto& [key, methods] : cpu.pooled)
    for (const auto& [method, value] : methods) {
      EXPECT_EQ(gpu.pooled.at(key).at(method), value) << key << " " << method;
      ++compared;
    }
  std::printf("[cuda pipeline] %s: %u values, CUDA log == CPU log\n", pair.log_name.c_str(), compared);
}

INSTANTIATE_TEST_SUITE_P(SharedFixtures, CudaPipeline, ::testing::ValuesIn(test::max_precision_pairs()),
                         [](const ::testing::TestParamInfo<test::FixturePair>& info) {
                           std::string name = info.param.log_name.substr(0, info.param.log_name.size() - 9);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

class CudaLayouts : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!cuda_elements_usable()) GTEST_SKIP() << "no cudaupload or no usable CUDA device";
  }
};

TEST_P(CudaLayouts, DeviceRepackAndUploadEqualTheCpu) {
  // A fixture pair read as planar I420 (or I420_10LE) and scored on the CPU,
  // then converted losslessly into the tested layout (same subsampling) and
  // scored on CUDA: from CUDA memory (repacked on the device when
  // semi-planar) and from system memory (uploaded by the element).
  const std::string format = GetParam();
  const bool high = format.find("10") != std::string::npos;
  const auto pairs = test::max_precision_pairs();
  const char* wanted = high ? "c_1920x1080_420p10_dis_x264crf28.max.json"
                            : "g_640x360_420p8_dis_x264crf40.max.json";
  const auto pair = std::find_if(pairs.begin(), pairs.end(),
                                 [&](const test::FixturePair& p) { return p.log_name == wanted; });
  ASSERT_NE(pair, pairs.end());
  const auto yuv = test::fixture_yuv_dir();
  if (!std::filesystem::exists(yuv / pair->ref_yuv) || !std::filesystem::exists(yuv / pair->dist_yuv))
    GTEST_SKIP() << pair->ref_yuv << " is not in this slice of the fixtures";
  const std::string parser = raw_parser(*pair);
  auto run = [&](const std::string& backend, const std::string& layout, const std::string& log) {
    return run_pipeline("filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " + parser +
                        " ! " + layout + "v.ref_sink filesrc location=\"" +
                        (yuv / pair->dist_yuv).string() + "\" ! " + parser + " ! " + layout +
                        "v.dist_sink vmafexact name=v model=\"\" backend=" + backend +
                        " features=psnr log-format=csv log-precision=max log-location=" + log +
                        " ! fakesink");
  };
  const std::string cpu_log = temp_log(format + ".cpu.csv"), gpu_log = temp_log(format + ".gpu.csv");
  ASSERT_EQ(run("cpu", "", cpu_log), "");
  const std::string convert = "videoconvert dither=none ! video/x-raw,format=" + format + " ! ";
  ASSERT_EQ(run("auto", convert + "cudaupload ! " + kCudaCaps + " ! ", gpu_log), "");
  const std::string cpu = test::read_file(cpu_log);
  EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " in CUDA memory";
  ASSERT_EQ(run("cuda", convert, gpu_log), "");
  EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " in system memory, uploaded";
  // One input in CUDA memory, the other in system memory (uploaded).
  ASSERT_EQ(run_pipeline("filesrc location=\"" + (yuv / pair->ref_yuv).string() + "\" ! " + parser +
                         " ! " + convert + "cudaupload ! " + kCudaCaps + " ! v.ref_sink filesrc location=\"" +
                         (yuv / pair->dist_yuv).string() + "\" ! " + parser + " ! " + convert +
                         "v.dist_sink vmafexact name=v model=\"\" backend=auto features=psnr "
                         "log-format=csv log-precision=max log-location=" + gpu_log + " ! fakesink"),
            "");
  EXPECT_EQ(test::read_file(gpu_log), cpu) << format << " reference in CUDA memory, distorted in system memory";
  std::printf("[cuda layouts] %s: CUDA logs == CPU log (%zu bytes)\n", format.c_str(), cpu.size());
  std::filesystem::remove(cpu_log);
  std::filesystem::remove(gpu_log);
}

INSTANTIATE_TEST_SUITE_P(Formats, CudaLayouts,
                         ::testing::Values("I420", "NV12", "NV21", "YV12", "I420_10LE", "P010_10LE"));

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
