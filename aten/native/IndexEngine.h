// The index engine: ops that read or write a tensor at positions given by an integer index tensor
// along one dimension (gather, scatter, scatter_add, index_select, index_add, index_fill,
// index_copy), built on the dim engine (DimEngine.h).
//
// Each op becomes "for every 1-D slice along dim: a loop over checked indices". The engine:
//  * checks the index dtype (int64, and int32 where the op allows it) and shapes once;
//  * restricts self/src to the index's extent on the other dims (gather/scatter semantics) and
//    expands a 1-D index over every slice (index_select/index_add/... semantics), so every op
//    runs on the same slice walker;
//  * per slice, converts the index slice to int64, wraps negative values where the op allows
//    them, and checks every value against the bound *before* the kernel runs, so a kernel can
//    never read or write out of memory; errors name the op, the index and the size;
//  * runs slices in parallel: each slice writes only its own slice of the output, in index order,
//    so results (scatter_add's sums too) do not depend on the thread count.
//
// A kernel receives the DimSlice of each operand plus the checked indices of its slice:
//
//   index_apply({out}, {self}, index, dim, rule, [&](const DimSlice* s, const int64_t* idx, int64_t n) {
//     for (int64_t i = 0; i < n; ++i) out_slice[i] = self_slice[idx[i]];
//   });
#pragma once
#include <type_traits>
#include <vector>

#include "aten/native/DimEngine.h"

namespace tl::native {

struct IndexRule {
  const char* op;          // names the op in errors
  int64_t bound;           // valid indices are [0, bound) (and [-bound, 0) when negative_ok)
  int64_t bound_dim;       // the dim named in "out of bounds for dimension D"
  bool negative_ok = false;
  bool index_error = false;  // IndexError (index_select, index_fill, index_copy) vs RuntimeError
  const char* prefix = "";   // text before "index 5 is out of bounds..." after "op: "
};

// For ops that return a modified copy of self (scatter, index_add, ...): allocates out and copies
// self into it (functional form), or checks, resizes and fills the user's out= tensor; in place
// (out is self) it only refuses a self whose elements share memory (expanded), as PyTorch does,
// unless `allow_overlap` (index_fill_, which PyTorch merely warns about).
void init_from_self(const Tensor& self, Tensor& out, const char* op, bool allow_overlap = false);

// Index dtype checks with PyTorch's messages.
void check_index_int32_or_int64(const Tensor& index, const char* op, const char* what);
void check_index_int64(const Tensor& index, const char* op, const char* what);

// A view of `t` whose sizes are `sizes` except along `dim`, where t keeps its own (the part of
// self/src that a gather/scatter index covers). `t` must be at least that large.
Tensor restrict_to(const Tensor& t, IntArrayRef sizes, int64_t dim);
// A view of the 1-D (or 0-d) `index` as a tensor of `shape` with shape[dim] = index.numel(),
// stride 0 on every other dim (one index list shared by every slice).
Tensor expand_index(const Tensor& index, IntArrayRef shape, int64_t dim);

namespace detail {
[[noreturn]] void throw_out_of_bounds(const IndexRule& rule, int64_t value);

template <typename I>
void load_checked(const I* src, int64_t stride, int64_t n, const IndexRule& rule, int64_t* dst) {
  const int64_t bound = rule.bound;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = static_cast<int64_t>(src[i * stride]);
    if (v < 0 && rule.negative_ok) v += bound;
    if (__builtin_expect(v < 0 || v >= bound, 0)) throw_out_of_bounds(rule, static_cast<int64_t>(src[i * stride]));
    dst[i] = v;
  }
}

// Checks n contiguous int64 indices against [0, bound) without copying them: a branch-free pass
// compiled per ISA (it vectorizes), then the first bad one is looked up only when there is one.
void check_in_place(const int64_t* ix, int64_t n, const IndexRule& rule);

// Whether an index can be handed to kernels as it is (int64, stride 1, no wrapping to do).
inline bool usable_in_place(bool is64, int64_t stride, int64_t size, const IndexRule& rule) {
  return is64 && !rule.negative_ok && (stride == 1 || size <= 1);
}
}  // namespace detail

// Checks every value of a 1-D (or 0-d) index against `rule` (for ops that must raise even when
// there is nothing to write, as PyTorch does for an empty self).
void check_index_values(const Tensor& index, const IndexRule& rule);

// Runs f(const DimSlice* s, const int64_t* idx, int64_t n) on every slice along dim of the
// operands (outputs first, then inputs; `index` is not among them: its slice comes as idx).
// An f that returns bool checks indices itself (as PyTorch's loops do, saving a pass over a
// large index): it may then get unchecked values, must never touch memory at one outside
// [0, rule.bound), and returns false when it met one (the engine raises the op's error).
// Strided slices go through the dim engine's scratch buffers (outputs copied in too: kernels
// may read-modify-write them), so kernels index cache-resident, contiguous slices.
template <typename F>
void index_apply(ArrayRef<Tensor> outputs, ArrayRef<Tensor> inputs, const Tensor& index, int64_t dim,
                 const IndexRule& rule, const F& f) {
  std::vector<Tensor> ins(inputs.begin(), inputs.end());
  ins.push_back(index);
  const int64_t nops = static_cast<int64_t>(outputs.size() + ins.size());
  const bool is64 = index.dtype() == ScalarType::Int64;
  dim_apply(outputs, ins, dim, {/*contiguous=*/true, /*cost_per_element=*/2, /*read_outputs=*/true},
            [&](const DimSlice* s) {
    const DimSlice& is = s[nops - 1];
    if (detail::usable_in_place(is64, is.stride, is.size, rule)) {  // no int64 copy of the slice
      if constexpr (std::is_same_v<decltype(f(s, is.as<int64_t>(), is.size)), bool>) {
        // A self-checking kernel reads the index once: the engine raises only when it reports one.
        if (!f(s, is.as<int64_t>(), is.size)) detail::check_in_place(is.as<int64_t>(), is.size, rule);
      } else {
        detail::check_in_place(is.as<int64_t>(), is.size, rule);
        f(s, is.as<int64_t>(), is.size);
      }
      return;
    }
    thread_local std::vector<int64_t> idx;
    if (static_cast<int64_t>(idx.size()) < is.size) idx.resize(is.size);
    if (is64) detail::load_checked(is.as<int64_t>(), is.stride, is.size, rule, idx.data());
    else detail::load_checked(is.as<int32_t>(), is.stride, is.size, rule, idx.data());
    f(s, idx.data(), is.size);
  });
}

}  // namespace tl::native
