// linalg.matrix_rank with tensor tolerances (the atol_rtol_tensor and tol_tensor overloads), pinv's
// rcond_tensor overload, and PyTorch's tolerance rule they share with the pinv kernel
// (cpu/LinalgPinv.cpp): the cut is max(atol, rtol * largest singular value) per matrix, atol and rtol
// broadcast against the batch (a trailing dim is added to each); atol defaults to 0 and rtol to
// eps * max(m, n), or to 0 where atol > 0. The float overloads stay in LinalgFunctions.cpp.
#include <algorithm>
#include <limits>
#include <utility>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/LinalgTolerances.h"
#include "aten/native/LinalgUtils.h"
#include "generated/ops/abs.h"
#include "generated/ops/amax.h"
#include "generated/ops/full.h"
#include "generated/ops/gt.h"
#include "generated/ops/linalg_eigvalsh.h"
#include "generated/ops/linalg_matrix_rank.h"
#include "generated/ops/linalg_pinv.h"
#include "generated/ops/linalg_svdvals.h"
#include "generated/ops/maximum.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/sum.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros.h"

namespace tl::native {

using namespace linalg;

namespace {

// PyTorch's _get_epsilon: float32 and float64 only.
double epsilon(ScalarType t) {
  if (is_complex_type(t)) t = to_real_type(t);  // the real type's epsilon, as PyTorch
  if (t == ScalarType::Float32) return std::numeric_limits<float>::epsilon();
  TL_CHECK(t == ScalarType::Float64, "This function doesn't handle types other than float and double");
  return std::numeric_limits<double>::epsilon();
}

// A's last two sizes for the default rtol, with PyTorch's IndexError below 2 dims.
int64_t max_matrix_size(const Tensor& A) {
  TL_CHECK_INDEX(A.dim() != 0, "Dimension specified as -2 but tensor has no dimensions");
  TL_CHECK_INDEX(A.dim() >= 2, "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  return std::max(A.size(-1), A.size(-2));
}

}  // namespace

namespace linalg {

std::pair<Tensor, Tensor> tolerances(const Tensor& A, const std::optional<Tensor>& atol,
                                     const std::optional<Tensor>& rtol) {
  Tensor a = atol ? *atol : zeros(IntArrayRef{}, ScalarType::Float64, A.device());
  if (rtol) return {a, *rtol};
  const double eps = epsilon(A.scalar_type()) * static_cast<double>(max_matrix_size(A));
  Tensor def = full(IntArrayRef{}, eps, ScalarType::Float64, A.device());
  Tensor r = atol ? where(gt(*atol, 0), zeros(IntArrayRef{}, ScalarType::Float64, A.device()), def) : def;
  return {a, r};
}

Tensor cutoff(const Tensor& atol, const Tensor& rtol, const Tensor& largest) {
  return maximum(unsqueeze(atol, -1), mul(unsqueeze(rtol, -1), largest));
}

}  // namespace linalg

Tensor linalg_pinv_rcond_tensor_composite(const Tensor& self, const Tensor& rcond, bool hermitian) {
  // rcond is a relative tolerance (NumPy's meaning).
  return linalg_pinv(self, std::optional<Tensor>(zeros(IntArrayRef{}, ScalarType::Float64, self.device())),
                     std::optional<Tensor>(rcond), hermitian);
}

Tensor linalg_matrix_rank_atol_rtol_tensor_composite(const Tensor& input, const std::optional<Tensor>& atol,
                                                     const std::optional<Tensor>& rtol, bool hermitian) {
  check_ge2("torch.linalg.matrix_rank", input, "input");
  auto [a, r] = tolerances(input, atol, rtol);
  if (input.numel() == 0) return zeros(batch_dims(input), ScalarType::Int64, input.device());
  Tensor S = hermitian ? abs(linalg_eigvalsh(input)) : linalg_svdvals(input);
  Tensor largest = hermitian ? amax(S, IntArrayRef{-1}, true) : narrow(S, -1, 0, 1);
  return sum(gt(S, cutoff(a, r, largest)), IntArrayRef{-1}, false, ScalarType::Int64);
}

Tensor linalg_matrix_rank_tol_tensor_composite(const Tensor& input, const Tensor& tol, bool hermitian) {
  // tol is an absolute tolerance (NumPy's meaning): rtol 0.
  return linalg_matrix_rank(input, std::optional<Tensor>(tol),
                            std::optional<Tensor>(zeros(IntArrayRef{}, tol.scalar_type(), tol.device())), hermitian);
}

}  // namespace tl::native
