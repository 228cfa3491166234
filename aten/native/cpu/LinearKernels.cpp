// linear: out = input @ weight^T + bias as one matrix product whose initial value is the bias
// (beta = 1), so the bias costs one pass of row copies instead of a second elementwise op. Rows of
// the flattened input are split across threads; each block is one single-threaded BLAS call.
// float16/bfloat16 are computed in float32, integers by GemmOrLoop's plain loop.
#include <algorithm>
#include <cstring>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/GemmOrLoop.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/expand.h"
#include "generated/ops/add.h"
#include "generated/ops/linear.h"
#include "generated/ops/matmul.h"
#include "generated/ops/t.h"

namespace tl::native {

namespace {

constexpr int64_t kMinTaskMacs = int64_t(1) << 20;  // multiply-adds worth a parallel task

// res (contiguous, rows x out_f) = [bias +] x (rows x in_f) @ w^T.
template <typename T>
void linear_rows(const Tensor& x, const Tensor& w, const Tensor& bias_rows, Tensor& res, int64_t rows, int64_t in_f,
                 int64_t out_f) {
  const T* xp = x.data_ptr<T>();
  T* rp = res.data_ptr<T>();
  // The weight as the BLAS's B operand: (out_f, in_f) with unit column stride is B^T; its transpose
  // stored row-major (a transposed contiguous weight) is B itself.
  const bool w_rows = w.dim() == 1 || w.strides()[1] == 1;
  const int64_t ldw = w.dim() == 1 ? in_f : (w_rows ? w.strides()[0] : w.strides()[1]);
  const T* wp = w.data_ptr<T>();
  const T* bp = bias_rows.defined() ? bias_rows.data_ptr<T>() : nullptr;
  const bool bias_is_row = bias_rows.defined() && bias_rows.numel() == out_f;
  const int64_t grain = std::max<int64_t>(1, kMinTaskMacs / std::max<int64_t>(1, in_f * out_f));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    T* dst = rp + r0 * out_f;
    if (bp) {
      if (bias_is_row) {
        for (int64_t r = r0; r < r1; ++r) std::memcpy(rp + r * out_f, bp, sizeof(T) * static_cast<size_t>(out_f));
      } else {
        std::memcpy(dst, bp + r0 * out_f, sizeof(T) * static_cast<size_t>((r1 - r0) * out_f));
      }
    }
    gemm_or_loop<T>(false, w_rows, r1 - r0, out_f, in_f, xp + r0 * in_f, in_f, wp, ldw, bp != nullptr, dst, out_f);
  });
}

}  // namespace

void linear_kernel(const Tensor& input_arg, const Tensor& weight_arg, const std::optional<Tensor>& bias_arg,
                   Tensor& out) {
  // linear(a, w, out=a): resizing `out` must not change what is read.
  const Tensor input = input_unaffected_by_resize(input_arg, out);
  const Tensor weight = input_unaffected_by_resize(weight_arg, out);
  std::optional<Tensor> bias;
  if (bias_arg) bias = input_unaffected_by_resize(*bias_arg, out);
  TL_CHECK(input.dim() >= 1 && weight.dim() >= 1, "linear: both arguments to linear need to be at least 1D, but they are ",
           input.dim(), "D and ", weight.dim(), "D");
  TL_CHECK(weight.dim() <= 2, "linear: t() expects a tensor with <= 2 dimensions, but self is ", weight.dim(), "D");
  const ScalarType st = input.dtype();
  const int64_t in_f = input.sizes()[input.dim() - 1];
  const int64_t out_f = weight.dim() == 2 ? weight.sizes()[0] : 1;
  const int64_t w_in = weight.sizes()[weight.dim() - 1];
  DimVector shape(input.sizes());
  shape.resize(shape.size() - 1);
  int64_t lead = 1;
  for (int64_t v : shape) lead *= v;
  const int64_t rows = lead;
  if (weight.dim() == 2) shape.push_back(out_f);
  TL_CHECK(in_f == w_in, "linear: mat1 and mat2 shapes cannot be multiplied (", input.dim() == 1 ? 1 : lead, "x", in_f,
           " and ", w_in, "x", out_f, ")");
  TL_CHECK(st == weight.dtype(), "linear: expected m1 and m2 to have the same dtype, but got: ", scalar_type_name(st),
           " != ", scalar_type_name(weight.dtype()));
  if (bias)
    TL_CHECK(bias->dtype() == st, "linear: self and mat2 must have the same dtype, but got ",
             scalar_type_name(bias->dtype()), " and ", scalar_type_name(st));
  TL_CHECK_AS(NotImplementedError, st != ScalarType::Bool, "linear: not implemented for dtype bool");
  // PyTorch sends a 2-D input with a bias, and a contiguous 3-D one with a 1-D bias, to addmm, which
  // refuses a 1-D weight.
  const bool addmm_path = bias && (input.dim() == 2 || (input.dim() == 3 && bias->dim() == 1 && input.is_contiguous()));
  TL_CHECK(!(addmm_path && weight.dim() == 1), "linear: mat2 must be a matrix, got 1-D tensor");
  // The bias as full rows of the result (raises PyTorch's expand error when it does not broadcast).
  const Tensor bias_full = bias ? expand(*bias, shape) : Tensor();
  if (out.defined()) {
    TL_CHECK(out.dtype() == st, "linear: Expected out tensor to have dtype ", scalar_type_name(st), ", but got ",
             scalar_type_name(out.dtype()), " instead");
    resize_output(out, shape, "linear");
  }
  if (input.is_meta() || weight.is_meta()) {
    if (!out.defined()) out = empty_tensor(shape, st, input.device());
    return;
  }
  if (is_complex_type(st)) {
    // Complex: matmul (cgemm/zgemm) and an add, the plain transpose of the weight (no conjugate), as PyTorch.
    TL_CHECK_AS(NotImplementedError, st != ScalarType::Complex32, "linear: not implemented for dtype complex32");
    Tensor r = matmul(input, weight.dim() == 2 ? t(weight) : weight);
    if (bias) r = add(r, bias_full);
    if (out.defined()) copy_(out, r);
    else out = r;
    return;
  }
  if (is_reduced_float(st)) {
    Tensor r32;
    std::optional<Tensor> b32;
    if (bias) b32 = _to_copy(*bias, ScalarType::Float32);
    linear_kernel(_to_copy(input, ScalarType::Float32), _to_copy(weight, ScalarType::Float32), b32, r32);
    if (out.defined()) {
      copy_(out, r32);
    } else {
      out = _to_copy(r32, st);
    }
    return;
  }
  // Write straight into `out` when it is contiguous and cannot overlap an input.
  const bool direct = out.defined() && out.is_contiguous() && out.storage() != input.storage() &&
                      out.storage() != weight.storage() && !(bias && out.storage() == bias->storage());
  Tensor res = direct ? out : empty_tensor(shape, st, input.device());
  if (res.numel() > 0) {
    const Tensor x = contiguous(input);
    const bool w_ok = weight.dim() == 1 ? weight.strides()[0] == 1
                                        : (weight.strides()[1] == 1 && weight.strides()[0] >= std::max<int64_t>(in_f, 1)) ||
                                              (weight.strides()[0] == 1 && weight.strides()[1] >= std::max<int64_t>(out_f, 1));
    const Tensor w = w_ok ? weight : contiguous(weight);
    // A bias that is one row (the usual (out,)) is repeated per row; anything else is copied whole.
    Tensor b;
    if (bias) b = (bias->numel() == out_f && bias->dim() <= 1) ? contiguous(*bias) : contiguous(bias_full);
    TL_DISPATCH_SWITCH(st, "linear",
                       TL_DISPATCH_CASE(Float32, float, [&] { linear_rows<float>(x, w, b, res, rows, in_f, out_f); })
                           TL_DISPATCH_CASE(Float64, double, [&] { linear_rows<double>(x, w, b, res, rows, in_f, out_f); })
                               TL_CASES_INTEGRAL([&] { linear_rows<scalar_t>(x, w, b, res, rows, in_f, out_f); }));
  }
  if (!out.defined()) {
    out = res;
  } else if (!direct) {
    copy_(out, res);
  }
}

}  // namespace tl::native
