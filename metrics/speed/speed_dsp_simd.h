// The SIMD twins of the SpEED DSP routines, written once over a float/double
// vector layer `V` (speed_dsp_avx2.cpp and speed_dsp_avx512.cpp define theirs
// and include this file inside their own namespace).
//
// Exactness against speed_dsp_scalar.h: each lane computes one output with
// the scalar code's operations in its order (IEEE add, sub, mul, div and
// conversions round the same in a lane as in a scalar register; no fused
// multiply-add, no reassociation):
//  * rows: lane x is column x;
//  * covariance: lane y is the partner position y of a broadcast position x,
//    and every lane adds its products for e = 0, 1, .. in order;
//  * matmul: lane j is column j of the output row, adding k = 0, 1, .. in order.
// Columns beyond the last whole vector go to the scalar reference or to
// masked loads and stores whose lanes outside the range are not stored.
//
// Not a normal header: an ISA translation unit includes <cstdint>,
// speed/speed_dsp.h, speed/speed_dsp_scalar.h and defines its layer V first.

template <class V>
void convert_row_8(const std::uint8_t* src, unsigned w, float* dst) {
  constexpr unsigned N = V::kFloats;
  const typename V::F offset = V::set1f(scalar::kSampleOffset);
  unsigned x = 0;
  for (; x + N <= w; x += N) V::storef(dst + x, V::addf(V::cvt_u8(src + x), offset));
  scalar::convert_row_8(src, x, w, dst);
}

template <class V>
void convert_row_16(const std::uint16_t* src, unsigned w, float scaler, float* dst) {
  constexpr unsigned N = V::kFloats;
  const typename V::F offset = V::set1f(scalar::kSampleOffset);
  const typename V::F divisor = V::set1f(scaler);
  unsigned x = 0;
  for (; x + N <= w; x += N)
    V::storef(dst + x, V::addf(V::divf(V::cvt_u16(src + x), divisor), offset));
  scalar::convert_row_16(src, x, w, scaler, dst);
}

template <class V>
void subtract_row(float* dst, const float* sub, unsigned w) {
  constexpr unsigned N = V::kFloats;
  unsigned x = 0;
  for (; x + N <= w; x += N) V::storef(dst + x, V::subf(V::loadf(dst + x), V::loadf(sub + x)));
  scalar::subtract_row(dst, sub, x, w);
}

template <class V>
void accumulate_row(float* acc, const float* row, float coeff, unsigned w) {
  constexpr unsigned N = V::kFloats;
  const typename V::F c = V::set1f(coeff);
  unsigned x = 0;
  for (; x + 2 * N <= w; x += 2 * N) {
    V::storef(acc + x, V::addf(V::loadf(acc + x), V::mulf(c, V::loadf(row + x))));
    V::storef(acc + x + N, V::addf(V::loadf(acc + x + N), V::mulf(c, V::loadf(row + x + N))));
  }
  for (; x + N <= w; x += N)
    V::storef(acc + x, V::addf(V::loadf(acc + x), V::mulf(c, V::loadf(row + x))));
  scalar::accumulate_row(acc, row, coeff, x, w);
}

// For each vector of partners y (lanes yb .. yb + D - 1), positions x from yb
// up, at most kChunk at a time so that the accumulators stay in registers.
template <class V>
void covariance(const double* centered, unsigned count, double* sums) {
  using D = typename V::D;
  constexpr unsigned L = V::kDoubles;
  constexpr unsigned kChunk = 8;
  for (unsigned yb = 0; yb < 25; yb += L) {
    for (unsigned x0 = yb; x0 < 25; x0 += kChunk) {
      const unsigned xs = 25 - x0 < kChunk ? 25 - x0 : kChunk;
      D acc[kChunk];
      for (unsigned i = 0; i < kChunk; ++i)
        acc[i] = i < xs ? V::loadd(sums + (x0 + i) * kCovLanes + yb) : V::zerod();
      const double* c = centered;
      for (unsigned e = 0; e < count; ++e, c += kCovLanes) {
        const D partners = V::loadd(c + yb);
        for (unsigned i = 0; i < kChunk; ++i)
          if (i < xs) acc[i] = V::addd(acc[i], V::muld(V::set1d(c[x0 + i]), partners));
      }
      for (unsigned i = 0; i < xs; ++i) V::stored(sums + (x0 + i) * kCovLanes + yb, acc[i]);
    }
  }
}

// B vectors of one output row at a time, in registers, the last one masked
// to the `last` lanes left (1 <= last <= N).
template <class V, unsigned B>
void matmul_row(const float* xi, const float* y, unsigned inner, unsigned cols,
                typename V::Mask last, float* out) {
  using F = typename V::F;
  constexpr unsigned N = V::kFloats;
  F acc[B];
  for (unsigned b = 0; b < B; ++b) acc[b] = V::zerof();
  for (unsigned k = 0; k < inner; ++k) {
    const F xik = V::set1f(xi[k]);
    const float* yk = y + std::size_t{k} * cols;
    for (unsigned b = 0; b + 1 < B; ++b) acc[b] = V::addf(acc[b], V::mulf(xik, V::loadf(yk + b * N)));
    acc[B - 1] = V::addf(acc[B - 1], V::mulf(xik, V::loadf_masked(yk + (B - 1) * N, last)));
  }
  for (unsigned b = 0; b + 1 < B; ++b) V::storef(out + b * N, acc[b]);
  V::storef_masked(out + (B - 1) * N, acc[B - 1], last);
}

template <class V>
void matmul(const float* x, const float* y, unsigned rows, unsigned inner, unsigned cols,
            float* dst) {
  constexpr unsigned N = V::kFloats;
  constexpr unsigned kBlocks = 4;
  if (cols == 0) return;
  for (unsigned i = 0; i < rows; ++i) {
    const float* xi = x + std::size_t{i} * inner;
    float* out = dst + std::size_t{i} * cols;
    unsigned j0 = 0;
    for (; j0 + kBlocks * N < cols; j0 += kBlocks * N)
      matmul_row<V, kBlocks>(xi, y + j0, inner, cols, V::mask_first(N), out + j0);
    // The rest: 1 to kBlocks vectors, the last one partial.
    const unsigned left = cols - j0;
    const unsigned blocks = (left + N - 1) / N;
    const typename V::Mask last = V::mask_first(left - (blocks - 1) * N);
    switch (blocks) {
      case 1: matmul_row<V, 1>(xi, y + j0, inner, cols, last, out + j0); break;
      case 2: matmul_row<V, 2>(xi, y + j0, inner, cols, last, out + j0); break;
      case 3: matmul_row<V, 3>(xi, y + j0, inner, cols, last, out + j0); break;
      default: matmul_row<V, 4>(xi, y + j0, inner, cols, last, out + j0); break;
    }
  }
}

template <class V>
constexpr SpeedDsp make_dsp(const char* isa) {
  return SpeedDsp{isa,          convert_row_8<V>, convert_row_16<V>, subtract_row<V>,
                  accumulate_row<V>, covariance<V>, matmul<V>};
}
