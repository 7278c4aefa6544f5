// SpEED's float linear algebra, step for step as libvmaf's speed.c does it:
// the eigenvalues of a symmetric matrix (Householder tridiagonalization and
// implicit-shift QR steps, adapted there from GSL's symmtd and eigen/symm) and
// the solution of A X = B through libvmaf's Householder QR decomposition.
// Every operation is libvmaf's, in float except where libvmaf's expression
// promotes to double (constants such as 1e-6, 0.5, 1.0 and sqrt()).
#pragma once

#include <vector>

#include "speed/speed_dsp.h"

namespace vmafexact::speed {

// The eigenvalues of the symmetric n x n matrix `a` (row-major, not changed),
// in libvmaf's order (not sorted). At most 500 QR steps, as libvmaf.
void symmetric_eigenvalues(const float* a, unsigned n, float* eigenvalues);

// Solves A X = B for the n x n matrix A and n x cols matrix B (row-major),
// writing X to `x`. False where libvmaf's back substitution meets a diagonal
// entry of R below 1e-6 in magnitude (x is then partly written). `work` is
// resized as needed.
bool solve_linear_system(const float* a, unsigned n, const float* b, unsigned cols, float* x,
                         std::vector<float>& work, const SpeedDsp& dsp);

// The same, step for step as libvmaf's code reads: every reflection and
// product over the whole n x n matrix. The reference solve_linear_system()
// equals bit for bit (it leaves out the terms that are exactly zero).
bool solve_linear_system_dense(const float* a, unsigned n, const float* b, unsigned cols,
                               float* x, std::vector<float>& work, const SpeedDsp& dsp);

}  // namespace vmafexact::speed
