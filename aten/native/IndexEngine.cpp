#include "aten/native/IndexEngine.h"

#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/copy.h"

namespace tl::native {

void init_from_self(const Tensor& self, Tensor& out, const char* op, bool allow_overlap) {
  const bool inplace = out.defined() && out.is_same(self);
  if (inplace && !allow_overlap) check_no_internal_overlap(self, op);
  prepare_output(out, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (!inplace && !self.is_meta()) copy_kernel(out, self, false);
}

void check_index_int32_or_int64(const Tensor& index, const char* op, const char* what) {
  TL_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, op,
           ": Expected dtype int32/int64 for ", what);
}

void check_index_int64(const Tensor& index, const char* op, const char* what) {
  TL_CHECK(index.dtype() == ScalarType::Int64, op, ": Expected a long tensor for ", what, ", but got ",
           legacy_type_name(index.dtype()));
}

Tensor restrict_to(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  if (t.dim() == 0) return t;
  DimVector s(sizes);
  s[dim] = t.sizes()[dim];
  if (s == t.sizes()) return t;
  return make_view(t, s, t.strides(), t.storage_offset());
}

Tensor expand_index(const Tensor& index, IntArrayRef shape, int64_t dim) {
  if (shape.empty()) return index.dim() == 0 ? index : make_view(index, {}, {}, index.storage_offset());
  DimVector strides(shape.size(), 0);
  DimVector s(shape);
  s[dim] = index.numel();
  strides[dim] = index.dim() == 0 ? 0 : index.strides()[0];
  return make_view(index, s, strides, index.storage_offset());
}

void check_index_values(const Tensor& index, const IndexRule& rule) {
  if (index.is_meta() || index.numel() == 0) return;
  std::vector<int64_t> buf(index.numel());
  const int64_t stride = index.dim() ? index.strides()[0] : 0;
  if (index.dtype() == ScalarType::Int64) detail::load_checked(index.data_ptr<int64_t>(), stride, index.numel(), rule, buf.data());
  else detail::load_checked(index.data_ptr<int32_t>(), stride, index.numel(), rule, buf.data());
}

namespace detail {
namespace {
TL_TARGET_CLONES bool any_out_of_bounds(const int64_t* ix, int64_t n, int64_t bound) {
  int bad = 0;
#pragma omp simd reduction(| : bad)
  for (int64_t i = 0; i < n; ++i) bad |= (ix[i] < 0) | (ix[i] >= bound);
  return bad != 0;
}
}  // namespace

void check_in_place(const int64_t* ix, int64_t n, const IndexRule& rule) {
  if (__builtin_expect(any_out_of_bounds(ix, n, rule.bound), 0))
    for (int64_t i = 0; i < n; ++i)
      if (ix[i] < 0 || ix[i] >= rule.bound) throw_out_of_bounds(rule, ix[i]);
}

void throw_out_of_bounds(const IndexRule& rule, int64_t value) {
  std::string msg = str(rule.op, ": ", rule.prefix, "index ", value, " is out of bounds for dimension ",
                        rule.bound_dim, " with size ", rule.bound);
  if (rule.index_error) throw IndexError(msg);
  throw RuntimeError(msg);
}
}  // namespace detail

}  // namespace tl::native
