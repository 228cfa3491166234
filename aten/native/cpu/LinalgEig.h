// The eigenvalues of general matrices without their vectors (geev with jobvr = 'N'): what
// linalg.eigvals computes when no gradient is recorded (cpu/LinalgEig.cpp).
#pragma once
#include "aten/core/Tensor.h"

namespace tl::native {

// Complex eigenvalues (batch x n) of each square matrix of A, with linalg.eigvals's checks.
Tensor linalg_eigvals_values(const Tensor& A);

}  // namespace tl::native
