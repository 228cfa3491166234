// embedding (a row gather), its weight gradient embedding_dense_backward (a row scatter-add), and
// embedding_renorm_ (F.embedding's max_norm).
//
// The backward runs in parallel over column blocks of the weight: every thread walks all the indices
// in order but owns its columns, so there are no races and each element accumulates in PyTorch's
// order (index_add's), which keeps float16/bfloat16 rounding the same.
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/embedding.h"
#include "generated/ops/embedding_dense_backward.h"
#include "generated/ops/embedding_renorm.h"
#include "generated/ops/index_select.h"
#include "generated/ops/reshape.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

void check_indices(const Tensor& indices, int arg, const char* op) {
  const ScalarType t = indices.dtype();
  TL_CHECK(t == ScalarType::Int64 || t == ScalarType::Int32, op, ": Expected tensor for argument #", arg,
           " 'indices' to have one of the following scalar types: Long, Int; but got ", scalar_type_name(t),
           " instead (while checking arguments for ", op, ")");
}

// The indices as int64, flattened and contiguous.
std::vector<int64_t> flat_indices(const Tensor& indices) {
  const Tensor c = tl::contiguous(indices);
  std::vector<int64_t> v(static_cast<size_t>(c.numel()));
  if (c.dtype() == ScalarType::Int64) {
    std::copy_n(c.data_ptr<int64_t>(), v.size(), v.begin());
  } else {
    std::copy_n(c.data_ptr<int32_t>(), v.size(), v.begin());
  }
  return v;
}

}  // namespace

Tensor embedding_kernel(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                        bool sparse) {
  (void)padding_idx, (void)scale_grad_by_freq, (void)sparse;  // they matter to the gradient only
  TL_CHECK(weight.dim() == 2, "embedding: 'weight' must be 2-D");
  check_indices(indices, 1, "embedding");
  DimVector shape(indices.sizes());
  shape.push_back(weight.sizes()[1]);
  if (weight.is_meta() || indices.is_meta()) return empty_tensor(shape, weight.dtype(), weight.device());
  // index_select raises PyTorch's IndexError for an index out of range.
  return tl::reshape(tl::index_select(weight, 0, tl::reshape(indices, {-1})), shape);
}

Tensor embedding_dense_backward_kernel(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                       int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  check_indices(indices, 2, "embedding_backward");
  const int64_t n = indices.numel();
  TL_CHECK_INDEX(grad_output.dim() >= 1, op, ": Dimension specified as -1 but grad_output has no dimensions");
  const int64_t dim = grad_output.sizes()[grad_output.dim() - 1];
  TL_CHECK(grad_output.numel() == n * dim, op, ": grad_output of shape ", grad_output.sizes(),
           " does not match indices of shape ", indices.sizes());
  TL_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  Tensor grad_weight = tl::zeros({num_weights, dim}, grad_output.dtype(), grad_output.device());
  if (grad_weight.is_meta() || n == 0 || dim == 0) return grad_weight;
  const std::vector<int64_t> idx = flat_indices(indices);
  for (int64_t i : idx)
    TL_CHECK_INDEX(i >= 0 && i < num_weights, op, ": index ", i, " is out of bounds for ", num_weights,
                   " embeddings");
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(static_cast<size_t>(num_weights), 0);
    for (int64_t i : idx) ++counts[static_cast<size_t>(i)];
  }
  const Tensor go = tl::contiguous(grad_output);
  // Every dtype, as PyTorch's index_add (integers scale by the truncated 1 / count, as there).
  TL_DISPATCH_ALL(go.dtype(), op, [&] {
    const scalar_t* g = go.data_ptr<scalar_t>();
    scalar_t* w = grad_weight.data_ptr<scalar_t>();
    const int64_t block = 64;  // columns per task
    parallel_for(0, (dim + block - 1) / block, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, n * block)),
                 [&](int64_t b, int64_t e) {
      const int64_t c0 = b * block, c1 = std::min(dim, e * block);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t row = idx[static_cast<size_t>(k)];
        if (row == padding_idx) continue;
        const scalar_t* src = g + k * dim;
        scalar_t* dst = w + row * dim;
        if (scale_grad_by_freq) {
          const scalar_t s = static_cast<scalar_t>(1.0 / static_cast<double>(counts[static_cast<size_t>(row)]));
          for (int64_t c = c0; c < c1; ++c) dst[c] = static_cast<scalar_t>(dst[c] + src[c] * s);
        } else {
          for (int64_t c = c0; c < c1; ++c) dst[c] = static_cast<scalar_t>(dst[c] + src[c]);
        }
      }
    });
  });
  return grad_weight;
}

const Tensor& embedding_renorm_kernel(const Tensor& self, const Tensor& indices, double max_norm, double norm_type) {
  const char* op = "embedding_renorm_";
  TL_CHECK(self.dim() == 2, op, ": Expected 2-dimensional tensor, but got ", self.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for embedding_renorm_)");
  check_indices(indices, 2, op);
  // As PyTorch: the indices are checked first, the dtype only when a row is normed.
  if (self.is_meta() || indices.numel() == 0) return self;
  std::vector<int64_t> idx = flat_indices(indices);
  const int64_t rows = self.sizes()[0], cols = self.sizes()[1];
  for (int64_t i : idx)
    TL_CHECK_INDEX(i >= 0 && i < rows, op, ": index ", i, " is out of bounds for dimension 0 with size ", rows);
  const bool cplx = self.dtype() == ScalarType::Complex64 || self.dtype() == ScalarType::Complex128;
  TL_CHECK(is_floating_type(self.dtype()) || cplx, op,
           ": norm(): input dtype should be either floating point or complex. Got ", scalar_type_name(self.dtype()),
           " instead.");
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const int64_t s0 = self.strides()[0], s1 = self.strides()[1];
  if (cplx) {
    // As PyTorch's (row.norm(p), a real norm of the magnitudes, then row *= max_norm / (norm + 1e-7)).
    TL_DISPATCH_SWITCH(self.dtype(), op, TL_CASES_COMPLEX([&] {
      using real_t = typename scalar_t::value_type;
      scalar_t* base = self.data_ptr<scalar_t>();
      for (int64_t r : idx) {
        scalar_t* row = base + r * s0;
        real_t norm = 0;
        for (int64_t c = 0; c < cols; ++c) {
          const real_t a = std::abs(row[c * s1]);
          if (norm_type == 1) norm += a;
          else if (norm_type == 2) norm += a * a;
          else if (std::isinf(norm_type)) norm = std::max(norm, a);
          else norm += std::pow(a, static_cast<real_t>(norm_type));
        }
        if (norm_type == 2) norm = std::sqrt(norm);
        else if (norm_type != 1 && !std::isinf(norm_type)) norm = std::pow(norm, static_cast<real_t>(1.0 / norm_type));
        if (norm > static_cast<real_t>(max_norm)) {
          const real_t scale = static_cast<real_t>(max_norm) / (norm + static_cast<real_t>(1e-7));
          for (int64_t c = 0; c < cols; ++c) row[c * s1] *= scale;
        }
      }
    }));
    return self;
  }
  TL_DISPATCH_FLOAT(self.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    scalar_t* base = self.data_ptr<scalar_t>();
    for (int64_t r : idx) {
      scalar_t* row = base + r * s0;
      // The row's norm_type-norm (max for inf), in acc_t as PyTorch's CPU kernel.
      acc_t norm = 0;
      if (norm_type == 1) {
        for (int64_t c = 0; c < cols; ++c) norm += std::abs(static_cast<acc_t>(row[c * s1]));
      } else if (norm_type == 2) {
        for (int64_t c = 0; c < cols; ++c) norm += static_cast<acc_t>(row[c * s1]) * static_cast<acc_t>(row[c * s1]);
        norm = std::sqrt(norm);
      } else if (std::isinf(norm_type)) {
        for (int64_t c = 0; c < cols; ++c) norm = std::max(norm, std::abs(static_cast<acc_t>(row[c * s1])));
      } else {
        for (int64_t c = 0; c < cols; ++c)
          norm += std::pow(std::abs(static_cast<acc_t>(row[c * s1])), static_cast<acc_t>(norm_type));
        norm = std::pow(norm, static_cast<acc_t>(1.0 / norm_type));
      }
      if (norm > static_cast<acc_t>(max_norm)) {
        const acc_t scale = static_cast<acc_t>(max_norm) / (norm + static_cast<acc_t>(1e-7));
        for (int64_t c = 0; c < cols; ++c) row[c * s1] = static_cast<scalar_t>(static_cast<acc_t>(row[c * s1]) * scale);
      }
    }
  });
  return self;
}

}  // namespace tl::native
