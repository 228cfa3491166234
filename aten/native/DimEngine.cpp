#include "aten/native/DimEngine.h"

#include "aten/native/Resize.h"
#include "aten/native/TypePromotion.h"
#include "generated/ops/copy.h"

namespace tl::native {

const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::UInt8: return "unsigned char";
    case ScalarType::Int8: return "signed char";
    case ScalarType::Int16: return "short int";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "long int";
    case ScalarType::Float16: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    default: return scalar_type_name(t);
  }
}

void prepare_output(Tensor& out, IntArrayRef shape, ScalarType dtype, const Tensor& like, OutDtype rule,
                    const char* op) {
  if (!out.defined()) {
    out = empty_tensor(shape, dtype, like.device());
    return;
  }
  TL_CHECK(out.device().type == like.device().type, op, ": Expected out tensor to be on device ",
           like.device().str(), ", but got ", out.device().str());
  if (rule == OutDtype::Exact)
    TL_CHECK(out.dtype() == dtype, op, ": Expected out tensor to have dtype ", cpp_type_name(dtype), ", but got ",
             cpp_type_name(out.dtype()), " instead");
  resize_output(out, shape, op);
}

void check_no_internal_overlap(const Tensor& out, const char* op) {
  if (out.numel() <= 1) return;
  for (int64_t d = 0; d < out.dim(); ++d)
    TL_CHECK(out.sizes()[d] <= 1 || out.strides()[d] != 0, op,
             ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
}

void check_out_pair(const Tensor& values, const Tensor& indices, const char* op) {
  TL_CHECK_TYPE(values.defined() == indices.defined(), op,
                ": out= needs both output tensors (values, indices), or neither");
}

Tensor cast_to(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor r = empty_tensor(t.sizes(), dtype, t.device());
  if (!t.is_meta()) copy_kernel(r, t, false);
  return r;
}

namespace detail {

void make_geometry(DimGeometry& g, ArrayRef<Tensor> outputs, ArrayRef<Tensor> inputs, int64_t dim, const char* op) {
  const int64_t nout = static_cast<int64_t>(outputs.size());
  g.nops = nout + static_cast<int64_t>(inputs.size());
  const auto operand = [&](int64_t k) -> const Tensor& { return k < nout ? outputs[k] : inputs[k - nout]; };
  const Tensor& t0 = operand(0);
  const int64_t nd = t0.dim();
  for (int64_t k = 0; k < g.nops; ++k)
    TL_CHECK(operand(k).dim() == nd, op, ": operands must have the same number of dimensions");
  const int64_t d = nd == 0 ? 0 : maybe_wrap_dim(dim, nd, op);
  const int64_t no = nd == 0 ? 0 : nd - 1;
  g.outer_sizes.resize(static_cast<size_t>(no));
  g.nslices = 1;
  for (int64_t i = 0, j = 0; i < nd; ++i) {
    if (i == d) continue;
    g.outer_sizes[j++] = t0.sizes()[i];
    g.nslices *= t0.sizes()[i];
    for (int64_t k = 0; k < g.nops; ++k)
      TL_CHECK(operand(k).sizes()[i] == t0.sizes()[i], op, ": operands differ in size at dimension ", i);
  }
  g.outer_strides.resize(static_cast<size_t>(g.nops * no));
  g.dim_strides.resize(static_cast<size_t>(g.nops));
  g.dim_sizes.resize(static_cast<size_t>(g.nops));
  g.itemsizes.resize(static_cast<size_t>(g.nops));
  g.bases.resize(static_cast<size_t>(g.nops));
  for (int64_t k = 0; k < g.nops; ++k) {
    const Tensor& t = operand(k);
    const int64_t isz = static_cast<int64_t>(t.itemsize());
    int64_t j = 0;
    for (int64_t i = 0; i < nd; ++i)
      if (i != d) g.outer_strides[k * no + j++] = t.strides()[i] * isz;
    g.dim_strides[k] = nd == 0 ? 1 : t.strides()[d];
    g.dim_sizes[k] = nd == 0 ? 1 : t.sizes()[d];
    g.itemsizes[k] = isz;
    g.bases[k] = static_cast<char*>(t.data_ptr());
    g.max_len = std::max(g.max_len, g.dim_sizes[k]);
  }
}

namespace {
template <typename E>
void gather_typed(E* buf, const char* src, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride) {
  for (int64_t i = 0; i < n; ++i) {
    const char* row = src + i * elem_stride;
    for (int64_t j = 0; j < count; ++j) buf[j * n + i] = *reinterpret_cast<const E*>(row + j * slice_step);
  }
}
template <typename E>
void scatter_typed(const E* buf, char* dst, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride) {
  for (int64_t i = 0; i < n; ++i) {
    char* row = dst + i * elem_stride;
    for (int64_t j = 0; j < count; ++j) *reinterpret_cast<E*>(row + j * slice_step) = buf[j * n + i];
  }
}
struct Bytes16 {  // a complex128 element, moved as a whole
  uint64_t w[2];
};
template <typename F>
void by_itemsize(int64_t itemsize, const F& f) {
  switch (itemsize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: return f(Bytes16{});
  }
}
}  // namespace

void gather_slices(char* buf, const char* src, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride,
                   int64_t itemsize) {
  by_itemsize(itemsize, [&](auto e) {
    using E = decltype(e);
    gather_typed(reinterpret_cast<E*>(buf), src, count, slice_step, n, elem_stride);
  });
}

void scatter_slices(const char* buf, char* dst, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride,
                    int64_t itemsize) {
  by_itemsize(itemsize, [&](auto e) {
    using E = decltype(e);
    scatter_typed(reinterpret_cast<const E*>(buf), dst, count, slice_step, n, elem_stride);
  });
}

}  // namespace detail
}  // namespace tl::native
