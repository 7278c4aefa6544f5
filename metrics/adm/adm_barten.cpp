// The tables are libvmaf's (feature/barten_csf_tools.h at f85a8536; Netflix,
// BSD+Patent), the Barten parameters HDR-VDP 2.2.1's. Every operation keeps
// libvmaf's types: float variables, double library calls (pow, exp, log10 of
// promoted floats), each result rounded to float where libvmaf stores it.
#include "adm/adm_barten.h"

#include <array>
#include <cmath>
#include <numbers>

namespace vmafexact::adm {

namespace {

// The luminance levels (cd/m2) of the CSF measurements, and the parameters of
// the neural CSF at each (p0..p3 are columns 1..4; column 0 is unused).
constexpr std::array<float, 6> kLuminanceAnchors = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kCsfParams[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f},
};
// Rod-cone sensitivity (sa) and the optical MTF's four exponentials.
constexpr std::array<float, 4> kSa = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr std::array<float, 4> kMtfA = {0.424838596301290f, 0.572435103936480f,
                                        0.000167576239164937f, 0.00255872352306433f};
constexpr std::array<float, 4> kMtfB = {0.028f, 0.37f, 37.0f, 360.0f};

float lerp(float left_x, float left_y, float right_x, float right_y, float x) {
  return left_y + ((right_y - left_y) / (right_x - left_x)) * (x - left_x);
}

float rod_cone_sensitivity(float luminance) {
  const double d = static_cast<double>(kSa[1] / luminance);
  return static_cast<float>(kSa[0] * std::pow(std::pow(d, double{kSa[2]}) + 1, double{-kSa[3]}));
}

float optical_mtf(float frequency) {
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i)
    mtf = static_cast<float>(mtf + kMtfA[i] * std::exp(static_cast<double>(-kMtfB[i] * frequency)));
  return mtf;
}

// Tables of modes 2 and 3: [orientation: 0 h/v, 1 d][level].
using BlendTable = float[2][4];
constexpr BlendTable kBlend1080x3 = {{0.01183f, 0.025026f, 0.04295f, 0.058621f},
                                     {0.004302f, 0.011778f, 0.023918f, 0.035901f}};
constexpr BlendTable kBlend1080x5 = {{0.004212f, 0.014809f, 0.029642f, 0.047464f},
                                     {0.000984f, 0.005852f, 0.0146f, 0.027574f}};
constexpr BlendTable kBlend2160x3 = {{0.00226f, 0.01183f, 0.025026f, 0.04295f},
                                     {0.000479f, 0.004302f, 0.011778f, 0.023918f}};
constexpr BlendTable kBlend2160x5 = {{0.000092f, 0.004212f, 0.014809f, 0.029642f},
                                     {0.000050f, 0.000984f, 0.005852f, 0.0146f}};
constexpr BlendTable kBlend720x3 = {{0.018715f, 0.035637f, 0.052798f, 0.061509f},
                                    {0.007999f, 0.018396f, 0.031851f, 0.037718f}};
constexpr BlendTable kBlend720x5 = {{0.010144f, 0.022561f, 0.040309f, 0.05672f},
                                    {0.003463f, 0.010282f, 0.021839f, 0.034641f}};
constexpr BlendTable kBlend480x3 = {{0.027961f, 0.045875f, 0.060275f, 0.056234f},
                                    {0.013572f, 0.026277f, 0.036959f, 0.034511f}};
constexpr BlendTable kBlend480x5 = {{0.016781f, 0.032822f, 0.05032f, 0.061594f},
                                    {0.00691f, 0.016545f, 0.029917f, 0.037777f}};

constexpr BlendTable kMae1080x3 = {{0.011249f, 0.022606f, 0.035930f, 0.045673f},
                                   {0.004097f, 0.010921f, 0.021430f, 0.031313f}};
constexpr BlendTable kMae1080x5 = {{0.004052f, 0.013939f, 0.026298f, 0.038833f},
                                   {0.000927f, 0.005544f, 0.013415f, 0.024515f}};
constexpr BlendTable kMae2160x3 = {{0.002166f, 0.011249f, 0.022606f, 0.035930f},
                                   {0.000447f, 0.004097f, 0.010921f, 0.021430f}};
constexpr BlendTable kMae2160x5 = {{0.000077f, 0.004052f, 0.013939f, 0.026298f},
                                   {0.000045f, 0.000927f, 0.005544f, 0.013415f}};
constexpr BlendTable kMae720x3 = {{0.017329f, 0.030870f, 0.042134f, 0.047410f},
                                  {0.007509f, 0.016707f, 0.028072f, 0.032722f}};
constexpr BlendTable kMae720x5 = {{0.009689f, 0.020577f, 0.034162f, 0.044523f},
                                  {0.003302f, 0.009579f, 0.019661f, 0.030318f}};
constexpr BlendTable kMae480x3 = {{0.024969f, 0.037825f, 0.046676f, 0.043974f},
                                  {0.012511f, 0.023424f, 0.032139f, 0.030166f}};
constexpr BlendTable kMae480x5 = {{0.015665f, 0.028766f, 0.040612f, 0.047483f},
                                  {0.006514f, 0.015107f, 0.026476f, 0.032776f}};

struct BlendEntry {
  int height;
  double distance;  // compared with ==, as libvmaf does
  const BlendTable* blend;
  const BlendTable* mae;
};

// 2160 lines at 1.5 heights is the same angular resolution as 1080 at 3.
constexpr BlendEntry kBlendTables[] = {
    {1080, 3.0, &kBlend1080x3, &kMae1080x3}, {1080, 5.0, &kBlend1080x5, &kMae1080x5},
    {2160, 1.5, &kBlend1080x3, &kMae1080x3}, {2160, 3.0, &kBlend2160x3, &kMae2160x3},
    {2160, 5.0, &kBlend2160x5, &kMae2160x5}, {720, 3.0, &kBlend720x3, &kMae720x3},
    {720, 5.0, &kBlend720x5, &kMae720x5},    {480, 3.0, &kBlend480x3, &kMae480x3},
    {480, 5.0, &kBlend480x5, &kMae480x5},
};

}  // namespace

float barten_csf(int level, double norm_view_dist, int ref_display_height, double luminance,
                 double scale) {
  // Display resolution in pixels per degree, and the level's nominal frequency
  // (level 0 at half of it).
  const float r = static_cast<float>(norm_view_dist * ref_display_height * std::numbers::pi / 180.0);
  const float frequency = static_cast<float>(r / std::pow(2.0, level + 1));

  const double clamped = luminance > kLuminanceAnchors[5]   ? kLuminanceAnchors[5]
                         : luminance < kLuminanceAnchors[0] ? kLuminanceAnchors[0]
                                                            : luminance;
  int left = 0, right = 0;
  for (int i = 0; i < 5; ++i)
    if (clamped >= kLuminanceAnchors[i] && clamped <= kLuminanceAnchors[i + 1]) {
      left = i;
      right = i + 1;
      break;
    }
  const float left_x = static_cast<float>(std::log10(double{kLuminanceAnchors[left]}));
  const float right_x = static_cast<float>(std::log10(double{kLuminanceAnchors[right]}));
  const float x = static_cast<float>(std::log10(clamped));
  float p[4];
  for (int k = 0; k < 4; ++k)
    p[k] = lerp(left_x, kCsfParams[left][k + 1], right_x, kCsfParams[right][k + 1], x);

  const float a = static_cast<float>(1.0f + std::pow(double{p[0] * frequency}, double{p[1]}));
  const double steep = std::pow(double{frequency / 7}, 2.0);
  const float b = static_cast<float>(1.0f / std::pow(1 - std::exp(-steep), double{p[2]}));
  const float neural = static_cast<float>(p[3] / std::pow(double{a * b}, 0.5));
  return static_cast<float>(neural * optical_mtf(frequency) *
                            rod_cone_sensitivity(static_cast<float>(luminance)) * scale);
}

std::optional<float> blended_csf(int mode, int level, bool diagonal, double norm_view_dist,
                                 int ref_display_height) {
  for (const auto& entry : kBlendTables)
    if (entry.height == ref_display_height && entry.distance == norm_view_dist) {
      const BlendTable& table = mode == kCsfBartenWatsonBlendMae ? *entry.mae : *entry.blend;
      return table[diagonal ? 1 : 0][level];
    }
  return std::nullopt;
}

}  // namespace vmafexact::adm
