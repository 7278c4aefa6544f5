#include "speed/speed_linalg.h"

#include <cmath>
#include <cstddef>
#include <cstring>

namespace vmafexact::speed {

namespace {

// libvmaf's EIGENVALUE_EPS, a double: every comparison with it is in double.
constexpr double kEpsilon = 1e-6;
constexpr int kMaxQrSteps = 500;  // EIGENVALUE_MAX_ITERS

int sign_of(float x) { return x >= 0 ? 1 : -1; }

// libvmaf's pythagoras(): float squares and sum, sqrt() in double, back to float.
float hypotenuse(float x, float y) {
  return static_cast<float>(std::sqrt(static_cast<double>(x * x + y * y)));
}

float norm_of(const float* v, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += v[i] * v[i];
  return static_cast<float>(std::sqrt(static_cast<double>(sum)));
}

// ---- Eigenvalues -------------------------------------------------------------

// The Householder vector that annihilates a[start+1 .. n-1][col] below
// a[start][col] (compute_householder_transform): scales the column by
// 1 / (alpha - beta) in place, leaves beta on top, and returns tau.
float householder(float* a, int col, int start, int n) {
  if (n - start == 1) return 0.0f;
  float tail_norm = 0;
  for (int i = start + 1; i < n; ++i) tail_norm += a[i * n + col] * a[i * n + col];
  tail_norm = static_cast<float>(std::sqrt(static_cast<double>(tail_norm)));
  if (tail_norm == 0.0f) return 0.0f;
  const float alpha = a[start * n + col];
  const float beta = static_cast<float>(-sign_of(alpha)) * hypotenuse(alpha, tail_norm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int i = start; i < n; ++i) a[i * n + col] /= s;
    a[start * n + col] = beta;
  }
  return tau;
}

// convert_to_tridiagonal: n - 2 Householder similarity transforms, then the
// diagonal and subdiagonal.
void tridiagonalize(float* a, int n, float* diagonal, float* subdiagonal, float* v, float* x) {
  for (int i = 0; i < n - 2; ++i) {
    const float tau = householder(a, i, i + 1, n);
    for (int j = i + 1; j < n; ++j) v[j] = a[j * n + i];
    if (tau != 0.0f) {
      a[(i + 1) * n + i] = v[i + 1];
      v[i + 1] = 1.0f;
      const int start = i + 1;
      // x = tau A v (each x[r] adds its terms in column order; the rows side
      // by side)
      for (int r = start; r < n; ++r) x[r] = 0.0f;
      for (int c = start; c < n; ++c)
        for (int r = start; r < n; ++r) x[r] += tau * a[r * n + c] * v[c];
      // x -= 0.5 tau (x . v) v, the factor formed in double
      float xv = 0;
      for (int r = start; r < n; ++r) xv += x[r] * v[r];
      const float alpha = static_cast<float>(-0.5 * static_cast<double>(tau) * static_cast<double>(xv));
      for (int r = start; r < n; ++r) x[r] += alpha * v[r];
      // A -= x v' + v x'
      for (int r = start; r < n; ++r)
        for (int c = start; c < n; ++c) a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
    }
  }
  for (int i = 0; i < n; ++i) diagonal[i] = a[i * n + i];
  for (int i = 0; i < n - 1; ++i) subdiagonal[i] = a[(i + 1) * n + i];
}

void chop_small_elements(const float* d, float* sd, int n) {
  for (int i = 0; i < n - 1; ++i)
    if (static_cast<double>(std::fabs(sd[i])) <
        kEpsilon * static_cast<double>(std::fabs(d[i]) + std::fabs(d[i + 1])))
      sd[i] = 0.0f;
}

// Wilkinson's shift from the trailing 2x2 block.
float trailing_eigenvalue(const float* d, const float* sd, int n) {
  const float ta = d[n - 2];
  const float tb = d[n - 1];
  const float tab = sd[n - 2];
  const float dt = static_cast<float>(static_cast<double>(ta - tb) / 2.0);
  if (dt > 0) return tb - tab * (tab / (dt + hypotenuse(dt, tab)));
  if (dt == 0) return tb - std::fabs(tab);
  return tb + tab * (tab / (-dt + hypotenuse(dt, tab)));
}

// 1 / sqrt(1 + t^2) with the sum in float and the rest in double.
float inverse_hypotenuse_of_one(float t) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(1 + t * t)));
}

void givens(float a, float b, float& c, float& s) {
  if (b == 0) {
    c = 1;
    s = 0;
  } else if (std::fabs(b) > std::fabs(a)) {
    const float t = -a / b;
    const float s1 = inverse_hypotenuse_of_one(t);
    s = s1;
    c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = inverse_hypotenuse_of_one(t);
    c = c1;
    s = c1 * t;
  }
}

// One implicit-shift QR step on the unreduced block d[0 .. n-1] (qr_step).
void qr_step(float* d, float* sd, int n) {
  float mu = trailing_eigenvalue(d, sd, n);
  if (kEpsilon * static_cast<double>(std::fabs(mu)) >
      static_cast<double>(std::fabs(d[0]) + std::fabs(sd[0])))
    mu = 0;

  float x = d[0] - mu;
  float z = sd[0];
  float bk = 0;
  float zk = 0;
  float ap = d[0];
  float bp = sd[0];
  float aq = d[1];

  if (n == 2) {
    float c, s;
    givens(x, z, c, s);
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    d[0] = ap1;
    sd[0] = bp1;
    d[1] = aq1;
    return;
  }

  float bq = sd[1];
  for (int k = 0; k < n - 1; ++k) {
    float c, s;
    givens(x, z, c, s);
    // G' T G
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;

    const float ak = ap1;
    bk = bp1;
    zk = zp1;
    ap = aq1;
    bp = bq1;
    if (k < n - 2) aq = d[k + 2];
    if (k < n - 3) bq = sd[k + 2];
    d[k] = ak;
    if (k > 0) sd[k - 1] = bk1;
    if (k < n - 2) sd[k + 1] = bp;
    x = bk;
    z = zk;
  }
  d[n - 1] = ap;
  sd[n - 2] = bk;
}

// compute_eigenvalues_tridiagonal: QR steps on the largest unreduced block at
// the bottom until the matrix is diagonal (or 500 steps were taken: libvmaf
// then only logs a warning and takes the diagonal as it is).
void tridiagonal_eigenvalues(float* d, float* sd, float* eigenvalues, int n) {
  chop_small_elements(d, sd, n);
  int b = n - 1;
  int steps = 0;
  while (b > 0 && steps < kMaxQrSteps) {
    if (sd[b - 1] == 0.0f) {
      --b;
      continue;
    }
    int a = b - 1;
    while (a > 0) {
      if (sd[a - 1] == 0.0f) break;
      --a;
    }
    const int block = b - a + 1;
    qr_step(d + a, sd + a, block);
    chop_small_elements(d + a, sd + a, block);
    ++steps;
  }
  for (int i = 0; i < n; ++i) eigenvalues[i] = d[i];
}

}  // namespace

void symmetric_eigenvalues(const float* a, unsigned size, float* eigenvalues) {
  const int n = static_cast<int>(size);
  if (n == 1) {
    eigenvalues[0] = a[0];
    return;
  }
  std::vector<float> work(std::size_t(n) * n + 4 * std::size_t(n));
  float* copy = work.data();
  float* d = copy + n * n;
  float* sd = d + n;
  float* v = sd + n;
  float* x = v + n;
  std::memcpy(copy, a, sizeof(float) * n * n);
  tridiagonalize(copy, n, d, sd, v, x);
  tridiagonal_eigenvalues(d, sd, eigenvalues, n);
}

namespace {

// The scratch of a solve, laid out in `work`: Q (the product of the
// reflections so far), R (products, then R), the reflection, the matrix being
// reduced, Q' B (n x cols) and v.
struct SolveScratch {
  float *q, *r, *reflection, *reduced, *rect, *v;
};

SolveScratch scratch_of(std::vector<float>& work, int n, unsigned cols) {
  const std::size_t square = std::size_t(n) * n;
  work.resize(4 * square + std::size_t(n) * cols + n);
  float* q = work.data();
  return {q, q + square, q + 2 * square, q + 3 * square, q + 4 * square,
          q + 4 * square + std::size_t(n) * cols};
}

void set_identity(float* m, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[i * n + j] = i == j ? 1 : 0;
}

// v / length in place, then the m x m reflection I - 2 v v' as libvmaf forms it.
void make_reflection(float* v, int m, float length, float* reflection) {
  for (int i = 0; i < m; ++i) v[i] = v[i] / length;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) reflection[i * m + j] = -2.0f * v[i] * v[j];
  for (int i = 0; i < m; ++i) reflection[i * m + i] += 1;
}

// solve_triangular_system: back substitution, row by row from the bottom;
// each entry subtracts its terms in k order (the columns side by side).
bool back_substitute(const float* r, const float* rect, int n, unsigned cols, float* x) {
  for (int i = n - 1; i >= 0; --i) {
    const float pivot = r[i * n + i];
    if (static_cast<double>(std::fabs(pivot)) < kEpsilon) return false;
    float* xi = x + std::size_t(i) * cols;
    const float* bi = rect + std::size_t(i) * cols;
    for (unsigned j = 0; j < cols; ++j) xi[j] = bi[j];
    for (int k = i + 1; k < n; ++k) {
      const float rik = r[i * n + k];
      const float* xk = x + std::size_t(k) * cols;
      for (unsigned j = 0; j < cols; ++j) xi[j] -= xk[j] * rik;
    }
    for (unsigned j = 0; j < cols; ++j) xi[j] = xi[j] / pivot;
  }
  return true;
}

}  // namespace

bool solve_linear_system_dense(const float* a, unsigned size, const float* b, unsigned cols,
                               float* x, std::vector<float>& work, const SpeedDsp& dsp) {
  const int n = static_cast<int>(size);
  const std::size_t square = std::size_t(n) * n;
  const auto [q, r, reflection, reduced, rect, v] = scratch_of(work, n, cols);

  // matrix_qr_decomposition: Q' = H_{n-2} .. H_0 and R = Q' A.
  std::memcpy(reduced, a, sizeof(float) * square);
  set_identity(q, n);
  for (int k = 0; k < n - 1; ++k) {
    // matrix_minor: the first k rows and columns of the identity.
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i < k || j < k) reduced[i * n + j] = i == j ? 1 : 0;
    for (int i = 0; i < n; ++i) v[i] = reduced[i * n + k];
    const float norm = norm_of(v, n);
    // The sign of the ORIGINAL matrix's diagonal entry, as libvmaf takes it.
    v[k] += static_cast<float>(sign_of(a[k * n + k])) * norm;
    make_reflection(v, n, norm_of(v, n), reflection);
    dsp.matmul(reflection, reduced, size, size, size, r);
    std::memcpy(reduced, r, sizeof(float) * square);
    dsp.matmul(reflection, q, size, size, size, r);
    std::memcpy(q, r, sizeof(float) * square);
  }
  dsp.matmul(q, a, size, size, size, r);
  // libvmaf transposes Q twice (once to return Q, once to apply Q'): Q' B.
  dsp.matmul(q, b, size, size, cols, rect);

  return back_substitute(r, rect, n, cols, x);
}

bool solve_linear_system(const float* a, unsigned size, const float* b, unsigned cols, float* x,
                         std::vector<float>& work, const SpeedDsp& dsp) {
  const int n = static_cast<int>(size);
  // The reflection and the matrix being reduced hold their live m x m blocks.
  const auto [q, r, reflection, block, rect, v] = scratch_of(work, n, cols);

  // solve_linear_system_dense() step for step, less the products' terms that
  // are exactly zero. At step k the rows and columns before k of the reduced
  // matrix are the identity's (matrix_minor) and v's first k entries are +0,
  // so every term that mixes an index below k with one at or above it is a
  // product with a zero factor. Each sum starts at +0, and adding a signed
  // zero to a sum that started at +0 changes nothing, so leaving those terms
  // out keeps every bit; the rows of Q before k keep their values (the
  // identity rows of the reflection copy them). Where a step's v has no
  // length, the dense steps run instead: they make NaNs.
  std::memcpy(block, a, sizeof(float) * std::size_t(n) * n);
  set_identity(q, n);
  for (int k = 0; k < n - 1; ++k) {
    const int m = n - k;
    const auto live = static_cast<unsigned>(m);
    for (int i = 0; i < m; ++i) v[i] = block[i * m];
    const float norm = norm_of(v, m);
    v[0] += static_cast<float>(sign_of(a[k * n + k])) * norm;
    const float length = norm_of(v, m);
    if (!(length > 0.0f) || !std::isfinite(length))
      return solve_linear_system_dense(a, size, b, cols, x, work, dsp);
    make_reflection(v, m, length, reflection);
    if (k + 1 < n - 1) {
      // The next step reads the block less its first row and column.
      dsp.matmul(reflection + m, block, live - 1, live, live, r);
      for (int i = 0; i + 1 < m; ++i)
        for (int j = 0; j + 1 < m; ++j) block[i * (m - 1) + j] = r[i * m + j + 1];
    }
    dsp.matmul(reflection, q + std::size_t(k) * n, live, live, size, r);
    std::memcpy(q + std::size_t(k) * n, r, sizeof(float) * std::size_t(m) * n);
  }
  dsp.matmul(q, a, size, size, size, r);
  dsp.matmul(q, b, size, size, cols, rect);
  return back_substitute(r, rect, n, cols, x);
}

}  // namespace vmafexact::speed
