// PyTorch's tolerance rule of linalg.pinv and linalg.matrix_rank (get_atol_rtol), shared by the pinv
// kernel (cpu/LinalgPinv.cpp) and the matrix_rank composites (composite/LinalgTolerances.cpp).
#pragma once
#include <optional>
#include <utility>

#include "aten/core/Tensor.h"

namespace tl::native::linalg {

// (atol, rtol) as tensors: atol defaults to 0, rtol to eps * max(m, n) of A's dtype, or to 0 where
// atol > 0 (float64 defaults). Raises PyTorch's IndexError for A below 2 dims when rtol is needed,
// and "This function doesn't handle types other than float and double" for other dtypes.
std::pair<Tensor, Tensor> tolerances(const Tensor& A, const std::optional<Tensor>& atol,
                                     const std::optional<Tensor>& rtol);
// max(atol, rtol * largest), a trailing dim added to each tolerance, to compare with the singular
// values of each matrix (`largest` keeps its reduced dim).
Tensor cutoff(const Tensor& atol, const Tensor& rtol, const Tensor& largest);

}  // namespace tl::native::linalg
