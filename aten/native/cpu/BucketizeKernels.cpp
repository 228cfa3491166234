// searchsorted and bucketize: a binary search of each value in the innermost dimension of a sorted
// sequence (1-D: the same sequence for every value; N-D: row i of the sequence for row i of the
// values), optionally through a `sorter` permutation of an unsorted sequence.
//
// The search is PyTorch's: `!(b >= v)` moves right for the lower bound and `!(b > v)` for the
// upper one, so a NaN value lands after every element and NaNs inside the sequence give the same
// indices as in PyTorch. Values and sequence are compared in their common dtype (result_type, a
// number argument taking part as a Python number).
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/TypePromotion.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/bucketize.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/searchsorted.h"

namespace tl::native {

namespace {

constexpr int64_t kSearchGrain = 200;  // values per task: each search is O(log n) work

// A contiguous copy of `t` in `dtype` (the tensor itself when it already is one).
Tensor contiguous_as(const Tensor& t, ScalarType dtype) {
  const Tensor c = t.dtype() == dtype ? t : tl::_to_copy(t, dtype);
  return c.is_contiguous() ? c : tl::contiguous(c);
}

bool leading_dims_match(const Tensor& boundaries, const Tensor& input) {
  if (boundaries.dim() != input.dim()) return false;
  for (int64_t d = 0; d + 1 < boundaries.dim(); ++d)
    if (boundaries.sizes()[d] != input.sizes()[d]) return false;
  return true;
}

// PyTorch's argument checks, in its order.
void check_search_args(const Tensor& boundaries, const Tensor& input, const Tensor& out, bool out_int32, bool right,
                       std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  if (side) {
    TL_CHECK(*side == "left" || *side == "right",
             "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    TL_CHECK(!right || *side == "right", "torch.searchsorted(): side and right can't be set to opposites, got side of ",
             *side, " while right was True");
  }
  TL_CHECK(boundaries.device() == input.device(),
           "torch.searchsorted(): boundaries and input value tensors should have same device type, but got "
           "boundaries tensor device type ", boundaries.device().str(), " and input value tensor device type ",
           input.device().str());
  if (sorter) {
    const Tensor& s = *sorter;
    TL_CHECK(s.device() == boundaries.device(),
             "torch.searchsorted(): sorter and boundary tensors should have same device type, but got sorter tensor "
             "device type ", s.device().str(), " and input value tensor device type ", boundaries.device().str());
    TL_CHECK(s.sizes() == boundaries.sizes(), "torch.searchsorted(): boundary and sorter must have the same size, "
             "but got boundary tensor ", boundaries.sizes(), "and got sorter tensor ", s.sizes());
    TL_CHECK(s.dtype() == ScalarType::Int64, "torch.searchsorted(): sorter must be a tensor of long dtype but got "
             "dtype ", legacy_type_name(s.dtype()));
    if (!s.is_meta() && s.numel() > 0) {
      const Tensor c = contiguous_as(s, ScalarType::Int64);
      const int64_t* p = c.data_ptr<int64_t>();
      const int64_t n = s.sizes().back();
      for (int64_t i = 0; i < c.numel(); ++i)
        TL_CHECK(p[i] >= 0 && p[i] < n, "torch.searchsorted(): sorter index out of range");
    }
  }
  TL_CHECK(input.dim() > 0 || boundaries.dim() == 1,
           "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got "
           "boundaries tensor dim(", boundaries.dim(), ") and input value's dim(", input.dim(), ") numel(",
           input.numel(), ")");
  TL_CHECK(boundaries.dim() != 0,
           "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  TL_CHECK(boundaries.dim() == 1 || leading_dims_match(boundaries, input),
           "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
           "tensor and input value tensor must match, but we got boundaries tensor ", boundaries.sizes(),
           " and input value tensor ", input.sizes());
  if (out.defined()) {
    const ScalarType st = out.dtype();
    TL_CHECK((st == ScalarType::Int64 && !out_int32) || (st == ScalarType::Int32 && out_int32),
             "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
             "depending on whether out_int32 flag is True, but we got output tensor's dtype ", legacy_type_name(st),
             " and out_int32 flag is ", out_int32 ? "True" : "False");
  }
  if (out_int32)
    TL_CHECK(boundaries.sizes().back() < std::numeric_limits<int32_t>::max(),
             "torch.searchsorted(): the size of boundaries' last dimension should be less than ",
             std::numeric_limits<int32_t>::max(), ", but we got ", boundaries.sizes().back());
}

// First index in [0, n) of row `bd` (through `order` when given) whose element is not below
// `v` (lower) or above it (upper).
template <bool kUpper, typename A, typename T>
TL_ALWAYS_INLINE int64_t bound(const T* bd, const int64_t* order, int64_t n, A v) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const A m = to_opmath(bd[order ? order[mid] : mid]);
    const bool go_right = kUpper ? !(m > v) : !(m >= v);
    if (go_right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <typename T, typename I, bool kUpper>
void search_all(const Tensor& input, const Tensor& boundaries, const Tensor& sorter, I* out) {
  const T* in = input.data_ptr<T>();
  const T* bd = boundaries.data_ptr<T>();
  const int64_t* order = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  const int64_t n = boundaries.sizes().back();
  const int64_t row_in = input.dim() == 0 ? 1 : input.sizes().back();
  const bool shared = boundaries.dim() == 1;
  parallel_for(0, input.numel(), kSearchGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t row = shared ? 0 : i / row_in * n;
      out[i] = static_cast<I>(bound<kUpper>(bd + row, order ? order + row : nullptr, n, to_opmath(in[i])));
    }
  });
}

void search(const Tensor& boundaries, const Tensor& self, bool out_int32, bool right,
            std::optional<std::string_view> side, const std::optional<Tensor>& sorter, Tensor& out) {
  check_search_args(boundaries, self, out, out_int32, right, side, sorter);
  const ScalarType out_st = out_int32 ? ScalarType::Int32 : ScalarType::Int64;
  prepare_output(out, {"searchsorted", self.sizes(), out_st, self.device(), OutDtype::Exact});
  if (self.is_meta() || self.numel() == 0) return;
  const bool upper = side ? *side == "right" : right;

  ResultTypeState state;
  state = update_result_type_state(boundaries, state);
  state = update_result_type_state(self, state);
  const ScalarType st = result_type(state);
  const Tensor in = contiguous_as(self, st), bd = contiguous_as(boundaries, st);
  const Tensor order = sorter ? contiguous_as(*sorter, ScalarType::Int64) : Tensor();
  Tensor buf = output_buffer(out, out_st, self);
  TL_DISPATCH_NUMERIC(st, "searchsorted", [&] {
    auto run = [&](auto* o) {
      using I = std::remove_pointer_t<decltype(o)>;
      if (upper) search_all<scalar_t, I, true>(in, bd, order, o);
      else search_all<scalar_t, I, false>(in, bd, order, o);
    };
    if (out_int32) run(buf.data_ptr<int32_t>());
    else run(buf.data_ptr<int64_t>());
  });
  commit_output(out, buf);
}

// A Python number as the 0-d tensor searched for, promoting as a number does.
Tensor number_tensor(const Scalar& value, const Tensor& like) {
  return scalar_to_tensor(value, scalar_default_dtype(value), like.device(), /*wrapped_number=*/true);
}

void check_bucketize_boundaries(const Tensor& boundaries) {
  TL_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(),
           ")");
}

}  // namespace

void searchsorted_kernel(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter, Tensor& out) {
  search(sorted_sequence, self, out_int32, right, side, sorter, out);
}

void searchsorted_scalar_kernel(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                                std::optional<std::string_view> side, const std::optional<Tensor>& sorter,
                                Tensor& out) {
  search(sorted_sequence, number_tensor(self, sorted_sequence), out_int32, right, side, sorter, out);
}

void bucketize_kernel(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, Tensor& out) {
  check_bucketize_boundaries(boundaries);
  search(boundaries, self, out_int32, right, std::nullopt, std::nullopt, out);
}

Tensor bucketize_scalar_kernel(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  check_bucketize_boundaries(boundaries);
  Tensor out;
  search(boundaries, number_tensor(self, boundaries), out_int32, right, std::nullopt, std::nullopt, out);
  return out;
}

}  // namespace tl::native
