// embedding_bag: _embedding_bag (sums, means or maxima of bags of weight rows), the gradient of its
// weight (_embedding_bag_backward) and of its per-sample weights.
//
// Bag b is indices[start[b] : start[b + 1]]: the first `bags` offsets start the bags and the last bag
// runs to the end of indices (so with include_last_offset the extra offset is read by no one, as in
// PyTorch's CPU kernel). The forward runs in parallel over bags, accumulating each bag in opmath_t and
// rounding once; the weight gradient runs in parallel over column blocks, every thread walking all
// indices in order (embedding_dense_backward's scheme: no races, PyTorch's summation order).
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_embedding_bag.h"
#include "generated/ops/_embedding_bag_forward_only.h"
#include "generated/ops/_embedding_bag_backward.h"
#include "generated/ops/_embedding_bag_per_sample_weights_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/to.h"
#include "generated/ops/zeros.h"

namespace tl::native {
namespace {

void check_index_tensor(const char* op, const Tensor& t, int arg, const char* name) {
  const ScalarType st = t.dtype();
  TL_CHECK(st == ScalarType::Int64 || st == ScalarType::Int32, op, ": Expected tensor for argument #", arg, " '", name,
           "' to have one of the following scalar types: Long, Int; but got ", scalar_type_name(st),
           " instead (while checking arguments for embedding_bag)");
}

std::vector<int64_t> as_int64(const Tensor& t) {
  const Tensor c = tl::contiguous(t);
  std::vector<int64_t> v(static_cast<size_t>(c.numel()));
  if (c.dtype() == ScalarType::Int64) {
    std::copy_n(c.data_ptr<int64_t>(), v.size(), v.begin());
  } else {
    std::copy_n(c.data_ptr<int32_t>(), v.size(), v.begin());
  }
  return v;
}

// Each index as int64, checked to lie in [0, rows).
std::vector<int64_t> checked_indices(const char* op, const Tensor& indices, int64_t rows) {
  std::vector<int64_t> idx = as_int64(indices);
  for (size_t i = 0; i < idx.size(); ++i)
    TL_CHECK(idx[i] >= 0 && idx[i] < rows, op, ": Index ", i, " of input takes value ", idx[i],
             " which is not in the valid range [0, ", rows, ")");
  return idx;
}

// start[b] for b < bags from offsets (checked: from 0, non-decreasing, within the n indices), start[bags] = n.
std::vector<int64_t> bag_starts(const char* op, const Tensor& offsets, int64_t bags, int64_t n) {
  const std::vector<int64_t> off = as_int64(offsets);
  if (!off.empty()) {
    TL_CHECK(off[0] == 0, op, ": offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
             "position 0. However, got ", off[0]);
    TL_CHECK(off.back() <= n, op, ": offsets[-1] can not be greater than input's length ", n, " but got offsets[-1] of ",
             off.back());
    for (size_t i = 1; i < off.size(); ++i)
      TL_CHECK(off[i] >= off[i - 1], op, ": offsets must be non-decreasing, but got offsets[", i, "] = ", off[i],
               " after ", off[i - 1]);
  }
  std::vector<int64_t> start(off.begin(), off.begin() + std::min<int64_t>(bags, static_cast<int64_t>(off.size())));
  start.resize(static_cast<size_t>(bags), n);
  start.push_back(n);
  return start;
}

// The non-padding rows of each bag.
std::vector<int64_t> bag_counts(const std::vector<int64_t>& idx, const std::vector<int64_t>& start, int64_t padding_idx) {
  std::vector<int64_t> counts(start.size() - 1, 0);
  for (size_t b = 0; b + 1 < start.size(); ++b)
    for (int64_t r = start[b]; r < start[b + 1]; ++r) counts[b] += idx[static_cast<size_t>(r)] != padding_idx;
  return counts;
}

// A 1-D tensor of `dtype` (int32 or int64) holding v.
Tensor index_tensor(const std::vector<int64_t>& v, ScalarType dtype, IntArrayRef shape) {
  Tensor t = empty_tensor(shape, dtype);
  if (dtype == ScalarType::Int64) {
    std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  } else {
    std::transform(v.begin(), v.end(), t.data_ptr<int32_t>(), [](int64_t x) { return static_cast<int32_t>(x); });
  }
  return t;
}

// The bags' inner loops over a unit-stride row, multi-versioned for the machine's vector width
// (omp simd: GCC's -O2 cost model leaves these loops scalar otherwise).
// acc += row
template <typename A, typename T>
TL_TARGET_CLONES void accumulate_row(A* acc, const T* row, int64_t n) {
#pragma omp simd
  for (int64_t d = 0; d < n; ++d) acc[d] += static_cast<A>(row[d]);
}

// best = max(best, row) column by column, arg = index where row wins (strictly: ties keep the first).
template <typename A, typename T>
TL_TARGET_CLONES void max_row(A* best, int64_t* arg, const T* row, int64_t index, int64_t n) {
#pragma omp simd
  for (int64_t d = 0; d < n; ++d) {
    const A v = static_cast<A>(row[d]);
    const bool wins = v > best[d];
    best[d] = wins ? v : best[d];
    arg[d] = wins ? index : arg[d];
  }
}

// dst += src * f, rounded to T per element (the weight gradient's row update).
template <typename A, typename T>
TL_TARGET_CLONES void axpy_row(T* dst, const T* src, A f, int64_t n) {
#pragma omp simd
  for (int64_t c = 0; c < n; ++c) dst[c] = static_cast<T>(static_cast<A>(dst[c]) + static_cast<A>(src[c]) * f);
}

constexpr int64_t kPrefetchDistance = 16;  // rows ahead

const char* mode_name(int64_t mode) { return mode == 0 ? "sum" : mode == 1 ? "mean" : "max"; }

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_kernel(const Tensor& weight, const Tensor& indices,
                                                                const Tensor& offsets, bool scale_grad_by_freq,
                                                                int64_t mode, bool sparse,
                                                                const std::optional<Tensor>& per_sample_weights,
                                                                bool include_last_offset, int64_t padding_idx) {
  (void)scale_grad_by_freq;  // it matters to the gradient only
  const char* op = "_embedding_bag";
  check_index_tensor(op, indices, 2, "indices");
  check_index_tensor(op, offsets, 3, "offsets");
  const ScalarType st = weight.dtype();
  TL_CHECK(is_floating_type(st), op, ": Expected tensor for argument #1 'weight' to have one of the following scalar "
           "types: Half, BFloat16, Float, Double; but got ", scalar_type_name(st),
           " instead (while checking arguments for embedding_bag)");
  TL_CHECK(weight.dim() == 2, op, ": weight has to be a 2D Tensor, but got Tensor of dimension ", weight.dim());
  TL_CHECK(indices.dim() == 1, op, ": input has to be a 1D Tensor, but got Tensor of dimension ", indices.dim());
  TL_CHECK(offsets.dim() == 1, op, ": offsets has to be a 1D Tensor, but got Tensor of dimension ", offsets.dim());
  TL_CHECK(mode >= 0 && mode <= 2, op, ": mode has to be one of sum, mean or max, got ", mode);
  TL_CHECK(!sparse, op, ": sparse=True is not supported: torchlite has no sparse tensors (use sparse=False)");
  const bool has_psw = per_sample_weights && per_sample_weights->defined();
  const int64_t n = indices.numel();
  if (has_psw) {
    TL_CHECK(mode == 0, op, ": embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
             "for mode='sum' (got mode='", mode_name(mode), "'). Please open a feature request on GitHub.");
    TL_CHECK(per_sample_weights->dtype() == st, op, ": Expected tensor for argument #1 'weight' to have the same type "
             "as tensor for argument #2 'per_sample_weights'; but type ", scalar_type_name(st), " does not equal ",
             scalar_type_name(per_sample_weights->dtype()));
    TL_CHECK(per_sample_weights->dim() == 1 && per_sample_weights->numel() == n, op,
             ": per_sample_weights must be 1-D with one weight per index (", n, "), got shape ",
             per_sample_weights->sizes());
  }
  TL_CHECK(!include_last_offset || offsets.numel() >= 1, op,
           ": include_last_offset: number of offsets should be at least 1");
  const int64_t bags = offsets.numel() - (include_last_offset ? 1 : 0);
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  const std::vector<int64_t> start = bag_starts(op, offsets, bags, n);
  const std::vector<int64_t> idx = checked_indices(op, indices, rows);
  // The index outputs take the wider of the two index dtypes, as PyTorch promotes them.
  const ScalarType index_st = indices.dtype() == ScalarType::Int64 || offsets.dtype() == ScalarType::Int64
                                  ? ScalarType::Int64 : ScalarType::Int32;

  Tensor output = empty_tensor({bags, dim}, st, weight.device());
  std::vector<int64_t> arg_max(mode == 2 ? static_cast<size_t>(bags * dim) : 0, 0);
  const std::vector<int64_t> counts = bag_counts(idx, start, padding_idx);
  const Tensor psw = has_psw ? tl::contiguous(*per_sample_weights) : Tensor();
  const int64_t ws0 = weight.strides()[0], ws1 = weight.strides()[1];
  TL_DISPATCH_FLOAT(st, op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* w = weight.data_ptr<scalar_t>();
    const scalar_t* pw = has_psw ? psw.data_ptr<scalar_t>() : nullptr;
    scalar_t* out = output.data_ptr<scalar_t>();
    const size_t row_bytes = static_cast<size_t>(dim) * sizeof(scalar_t);
    const int64_t work_per_bag = std::max<int64_t>(1, dim * std::max<int64_t>(1, n / std::max<int64_t>(1, bags)));
    parallel_for(0, bags, std::max<int64_t>(1, 32768 / work_per_bag), [&](int64_t b0, int64_t b1) {
      std::vector<acc_t> acc(static_cast<size_t>(dim));
      for (int64_t b = b0; b < b1; ++b) {
        std::fill(acc.begin(), acc.end(), acc_t(0));
        int64_t* am = mode == 2 ? arg_max.data() + b * dim : nullptr;
        bool first = true;
        for (int64_t r = start[b]; r < start[b + 1]; ++r) {
          const int64_t row = idx[static_cast<size_t>(r)];
          // Rows are random reads from a table larger than the caches: ask for a later row's first
          // lines now, so its memory latency overlaps this row's work.
          if (r + kPrefetchDistance < n && ws1 == 1) {
            const char* ahead = reinterpret_cast<const char*>(w + idx[static_cast<size_t>(r + kPrefetchDistance)] * ws0);
            for (size_t line = 0; line < row_bytes; line += 64) __builtin_prefetch(ahead + line);
          }
          if (row == padding_idx) continue;
          const scalar_t* src = w + row * ws0;
          if (mode == 2) {
            // The first maximum wins ties; NaN never replaces a maximum, as PyTorch's CPU kernel.
            if (first) {
              for (int64_t d = 0; d < dim; ++d) acc[d] = static_cast<acc_t>(src[d * ws1]), am[d] = row;
            } else if (ws1 == 1) {
              max_row(acc.data(), am, src, row, dim);
            } else {
              for (int64_t d = 0; d < dim; ++d) {
                const acc_t v = static_cast<acc_t>(src[d * ws1]);
                if (v > acc[d]) acc[d] = v, am[d] = row;
              }
            }
            first = false;
          } else if (pw) {
            const acc_t s = static_cast<acc_t>(pw[r]);
            for (int64_t d = 0; d < dim; ++d) acc[d] += static_cast<acc_t>(src[d * ws1]) * s;
          } else if (ws1 == 1) {
            accumulate_row(acc.data(), src, dim);
          } else {
            for (int64_t d = 0; d < dim; ++d) acc[d] += static_cast<acc_t>(src[d * ws1]);
          }
        }
        if (mode == 1 && counts[b] > 0)
          for (int64_t d = 0; d < dim; ++d) acc[d] /= static_cast<acc_t>(counts[b]);
        for (int64_t d = 0; d < dim; ++d) out[b * dim + d] = static_cast<scalar_t>(acc[d]);
      }
    });
  });

  // offset2bag is left empty where PyTorch's sum takes its fast path (float32 / 16-bit weights with
  // unit column stride, no padding row, unit-stride per-sample weights), and filled otherwise.
  const bool fast_sum = mode == 0 && st != ScalarType::Float64 && ws1 == 1 && padding_idx < 0 &&
                        (!has_psw || per_sample_weights->strides()[0] == 1);
  std::vector<int64_t> o2b;
  if (!fast_sum) {
    o2b.reserve(static_cast<size_t>(n));
    for (int64_t b = 0; b < bags; ++b) o2b.insert(o2b.end(), static_cast<size_t>(start[b + 1] - start[b]), b);
    o2b.resize(static_cast<size_t>(n), std::max<int64_t>(bags - 1, 0));  // indices before no bag: none, as offsets[0] == 0
  }
  Tensor offset2bag = index_tensor(o2b, index_st, {static_cast<int64_t>(o2b.size())});
  const std::vector<int64_t> zeros(static_cast<size_t>(bags), 0);
  Tensor bag_size = index_tensor(mode == 0 ? zeros : counts, index_st, {bags});
  Tensor max_indices = mode == 2 ? index_tensor(arg_max, index_st, {bags, dim})
                                 : index_tensor(mode == 0 ? zeros : counts, index_st, {bags});
  return {output, offset2bag, bag_size, max_indices};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag_forward_only_kernel(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
    bool sparse, const std::optional<Tensor>& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  return embedding_bag_kernel(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                              include_last_offset, padding_idx);
}

Tensor embedding_bag_backward_kernel(const Tensor& grad_output, const Tensor& indices, const Tensor& offsets,
                                     const Tensor& offset2bag, const Tensor& bag_size, const Tensor& maximum_indices,
                                     int64_t num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                                     const std::optional<Tensor>& per_sample_weights, int64_t padding_idx) {
  (void)offset2bag, (void)bag_size;  // recomputed from offsets, which the fast path always leaves
  const char* op = "_embedding_bag_backward";
  check_index_tensor(op, indices, 2, "indices");
  check_index_tensor(op, offsets, 3, "offsets");
  TL_CHECK(!sparse, op, ": sparse=True is not supported: torchlite has no sparse tensors (use sparse=False)");
  TL_CHECK(mode >= 0 && mode <= 2, op, ": mode has to be one of sum, mean or max, got ", mode);
  TL_CHECK(grad_output.dim() == 2, op, ": expected a 2-D grad_output (bags, dim), got ", grad_output.dim(), "-D");
  TL_CHECK(indices.dim() == 1 && offsets.dim() == 1, op, ": indices and offsets must be 1-D");
  TL_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, got ", num_weights);
  TL_CHECK(is_floating_type(grad_output.dtype()), op, ": expected a floating-point grad_output, got ",
           scalar_type_name(grad_output.dtype()));
  const int64_t bags = grad_output.sizes()[0], dim = grad_output.sizes()[1], n = indices.numel();
  TL_CHECK(offsets.numel() >= bags, op, ": ", offsets.numel(), " offsets for ", bags, " bags");
  const bool has_psw = per_sample_weights && per_sample_weights->defined();
  if (has_psw)
    TL_CHECK(mode == 0 && per_sample_weights->numel() == n, op,
             ": per_sample_weights must have one weight per index and mode sum");
  const std::vector<int64_t> start = bag_starts(op, offsets, bags, n);
  const std::vector<int64_t> idx = checked_indices(op, indices, num_weights);
  const std::vector<int64_t> counts = bag_counts(idx, start, padding_idx);
  std::vector<int64_t> arg_max;
  if (mode == 2) {
    TL_CHECK(maximum_indices.dim() == 2 && maximum_indices.sizes()[0] == bags && maximum_indices.sizes()[1] == dim,
             op, ": maximum_indices of shape ", maximum_indices.sizes(), " for ", bags, " bags of ", dim, " columns");
    check_index_tensor(op, maximum_indices, 6, "maximum_indices");
    arg_max = as_int64(maximum_indices);
    for (size_t i = 0; i < arg_max.size(); ++i)
      TL_CHECK(counts[i / static_cast<size_t>(std::max<int64_t>(dim, 1))] == 0 ||
               (arg_max[i] >= 0 && arg_max[i] < num_weights), op, ": maximum index ", arg_max[i],
               " is out of range for ", num_weights, " embeddings");
  }
  // The factor of each index: its per-sample weight, 1 / its bag's size (mean), 1 / its frequency.
  std::vector<double> factor(static_cast<size_t>(n), 1.0);
  std::vector<int64_t> bag_of(static_cast<size_t>(n));
  std::unordered_map<int64_t, int64_t> freq;
  if (scale_grad_by_freq)
    for (int64_t i : idx) ++freq[i];
  const Tensor psw = has_psw ? tl::contiguous(tl::to(*per_sample_weights, ScalarType::Float64)) : Tensor();
  for (int64_t b = 0; b < bags; ++b)
    for (int64_t r = start[b]; r < start[b + 1]; ++r) {
      double f = has_psw ? psw.data_ptr<double>()[r] : 1.0;
      if (mode == 1) f /= static_cast<double>(counts[b]);
      if (scale_grad_by_freq) f /= static_cast<double>(freq[idx[static_cast<size_t>(r)]]);
      factor[static_cast<size_t>(r)] = f;
      bag_of[static_cast<size_t>(r)] = b;
    }
  Tensor grad_weight = tl::zeros({num_weights, dim}, grad_output.dtype(), grad_output.device());
  if (dim == 0 || bags == 0) return grad_weight;
  const Tensor go = tl::contiguous(grad_output);
  TL_DISPATCH_FLOAT(go.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* g = go.data_ptr<scalar_t>();
    scalar_t* gw = grad_weight.data_ptr<scalar_t>();
    const int64_t block = 64;  // columns per task
    parallel_for(0, (dim + block - 1) / block, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, (n + bags) * block)),
                 [&](int64_t c_b, int64_t c_e) {
      const int64_t c0 = c_b * block, c1 = std::min(dim, c_e * block);
      if (mode == 2) {
        for (int64_t b = 0; b < bags; ++b) {
          if (counts[b] == 0) continue;
          for (int64_t c = c0; c < c1; ++c) {
            scalar_t& dst = gw[arg_max[b * dim + c] * dim + c];
            dst = static_cast<scalar_t>(static_cast<acc_t>(dst) + static_cast<acc_t>(g[b * dim + c]));
          }
        }
        return;
      }
      for (int64_t r = 0; r < n; ++r) {
        const int64_t row = idx[static_cast<size_t>(r)];
        if (row == padding_idx) continue;
        const scalar_t* src = g + bag_of[static_cast<size_t>(r)] * dim;
        const acc_t f = static_cast<acc_t>(factor[static_cast<size_t>(r)]);
        axpy_row(gw + row * dim + c0, src + c0, f, c1 - c0);
      }
    });
  });
  return grad_weight;
}

Tensor embedding_bag_per_sample_weights_backward_kernel(const Tensor& grad_output, const Tensor& weight,
                                                        const Tensor& indices, const Tensor& offsets,
                                                        const Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  (void)offset2bag;  // recomputed from offsets, as in _embedding_bag_backward
  const char* op = "_embedding_bag_per_sample_weights_backward";
  TL_CHECK(mode == 0, op, ": embedding_bag_backward: per_sample_weights only supported for mode='sum'");
  check_index_tensor(op, indices, 3, "indices");
  check_index_tensor(op, offsets, 4, "offsets");
  TL_CHECK(grad_output.dim() == 2 && weight.dim() == 2 && grad_output.sizes()[1] == weight.sizes()[1], op,
           ": expected 2-D grad_output and weight with the same number of columns, got ", grad_output.sizes(), " and ",
           weight.sizes());
  TL_CHECK(indices.dim() == 1 && offsets.dim() == 1, op, ": indices and offsets must be 1-D");
  TL_CHECK(is_floating_type(grad_output.dtype()) && weight.dtype() == grad_output.dtype(), op,
           ": expected floating-point grad_output and weight of one dtype, got ", scalar_type_name(grad_output.dtype()),
           " and ", scalar_type_name(weight.dtype()));
  const int64_t bags = grad_output.sizes()[0], dim = grad_output.sizes()[1], n = indices.numel();
  TL_CHECK(offsets.numel() >= bags, op, ": ", offsets.numel(), " offsets for ", bags, " bags");
  const std::vector<int64_t> start = bag_starts(op, offsets, bags, n);
  const std::vector<int64_t> idx = checked_indices(op, indices, weight.sizes()[0]);
  Tensor result = tl::zeros({n}, grad_output.dtype(), grad_output.device());
  const Tensor go = tl::contiguous(grad_output), w = tl::contiguous(weight);
  TL_DISPATCH_FLOAT(go.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* g = go.data_ptr<scalar_t>();
    const scalar_t* wp = w.data_ptr<scalar_t>();
    scalar_t* res = result.data_ptr<scalar_t>();
    for (int64_t b = 0; b < bags; ++b)
      for (int64_t r = start[b]; r < start[b + 1]; ++r) {
        const int64_t row = idx[static_cast<size_t>(r)];
        if (row == padding_idx) continue;
        acc_t dot = 0;
        for (int64_t d = 0; d < dim; ++d)
          dot += static_cast<acc_t>(g[b * dim + d]) * static_cast<acc_t>(wp[row * dim + d]);
        res[r] = static_cast<scalar_t>(dot);
      }
  });
  return result;
}

}  // namespace tl::native
