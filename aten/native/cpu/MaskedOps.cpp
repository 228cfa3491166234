// Mask ops and flat puts: nonzero, masked_fill, masked_select, masked_scatter, put. The mask walks
// share MaskCounts (aten/native/AdvancedIndex.h): count the trues of each chunk in parallel, then
// each chunk packs or unpacks its elements from where its trues start.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>

#include "aten/native/AdvancedIndex.h"
#include "aten/native/IndexEngine.h"
#include "aten/native/ShapeUtils.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/ComplexDispatch.h"
#include "aten/native/cpu/Complex32Math.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/copy.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/masked_scatter.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/put.h"

namespace tl::native {

MaskCounts count_mask(const Tensor& mask) {
  MaskCounts mc;
  mc.len = mask.numel();
  if (mask.is_contiguous() && (mask.dtype() == ScalarType::Bool || mask.dtype() == ScalarType::UInt8)) {
    mc.mask = mask;
  } else {
    mc.mask = empty_tensor(mask.sizes(), ScalarType::Bool);
    copy_kernel(mc.mask, mask, false);
  }
  const int64_t chunks =
      std::clamp<int64_t>(mc.len / kGrainSize, 1, std::max<int64_t>(4 * get_num_threads(), 1));
  mc.start.assign(chunks + 1, 0);
  const uint8_t* m = mc.data();
  std::vector<int64_t> counts(chunks, 0);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t n = 0;
      for (int64_t i = mc.len * c / chunks, end = mc.len * (c + 1) / chunks; i < end; ++i) n += m[i] != 0;
      counts[c] = n;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) mc.start[c + 1] = mc.start[c] + counts[c];
  mc.total = mc.start[chunks];
  mc.start.pop_back();
  return mc;
}

namespace {

// The truth of every element of self (x != 0, NaN included) as a mask.
MaskCounts count_nonzero_elements(const Tensor& self) {
  if (self.dtype() == ScalarType::Bool) return count_mask(self);
  Tensor truth = empty_tensor(self.sizes(), ScalarType::Bool);
  copy_kernel(truth, self, false);  // conversion to bool is x != 0
  return count_mask(truth);
}

void nonzero_into(const Tensor& self, Tensor& out) {
  check_not_barebones_unsigned(self.dtype(), "nonzero");
  const MaskCounts mc = count_nonzero_elements(self);
  const int64_t nd = self.dim();
  prepare_output(out, DimVector{mc.total, nd}, ScalarType::Int64, self, OutDtype::Exact, "nonzero");
  if (mc.total == 0 || nd == 0) return;
  const bool direct = out.is_contiguous();
  Tensor res = direct ? out : empty_tensor(out.sizes(), ScalarType::Int64);
  int64_t* y = res.data_ptr<int64_t>();
  const uint8_t* m = mc.data();
  const IntArrayRef sizes = self.sizes();
  mc.for_each_chunk([&](int64_t b, int64_t e, int64_t pos) {
    if (nd == 1) {  // branch-free up to the chunk's last true (see index_lone_mask)
      int64_t last = e - 1;
      while (last >= b && !m[last]) --last;
      for (int64_t i = b; i <= last; ++i) {
        y[pos] = i;
        pos += m[i] != 0;
      }
      return;
    }
    DimVector coord(nd, 0);  // the coordinates of element b, then kept up to date
    for (int64_t d = nd - 1, rem = b; d >= 0; --d) {
      coord[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    int64_t* row = y + pos * nd;
    for (int64_t i = b; i < e; ++i) {
      if (m[i]) {
        for (int64_t d = 0; d < nd; ++d) row[d] = coord[d];
        row += nd;
      }
      for (int64_t d = nd - 1; d >= 0 && ++coord[d] == sizes[d]; --d) coord[d] = 0;
    }
  });
  if (!direct) copy_kernel(out, res, false);
}

// The C++ type name PyTorch's masked_fill_ message uses for a dtype.
const char* c_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8: return "unsigned char";
    case ScalarType::Int8: return "signed char";
    case ScalarType::Int16: return "short";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "long";
    case ScalarType::Float16: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    default: return scalar_type_name(t);
  }
}

void check_bool_mask(const Tensor& mask, const char* op) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, op, " only supports boolean masks, but got mask with dtype ",
           c_type_name(mask.dtype()));
}

// A masked_fill value as complex32, with PyTorch's checked conversion.
ComplexHalf checked_complex_half(const Scalar& value) { return c32::checked(value); }

// masked_fill of contiguous tensors of one shape: a straight select loop, in parallel.
bool masked_fill_contiguous(const Tensor& self, const Tensor& mask, const Scalar& value, Tensor& out) {
  const bool inplace = out.defined() && out.is_same(self);
  if (self.is_meta() || !self.is_contiguous() || !mask.is_contiguous() || mask.sizes() != self.sizes() ||
      (out.defined() && !inplace))
    return false;
  if (!inplace) out = empty_tensor(self.sizes(), self.dtype(), self.device());
  const uint8_t* m = static_cast<const uint8_t*>(mask.data_ptr());
  auto run = [&](auto v) {
    using scalar_t = decltype(v);
    const scalar_t* x = self.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    parallel_for(0, self.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = m[i] ? v : x[i];
    });
  };
  if (self.dtype() == ScalarType::Complex32) {  // PyTorch fills complex32 too: the value rounded to it
    run(checked_complex_half(value));
    return true;
  }
  TL_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "masked_fill", [&] {
    // a complex value fits a real self only without an imaginary part (PyTorch's checked conversion)
    run(value.is_complex() ? checked_scalar_cast<scalar_t>(value) : value.to<scalar_t>());
  });
  return true;
}

void masked_fill_impl(const Tensor& self, const Tensor& mask, const Scalar& value, Tensor& out) {
  check_bool_mask(mask, "masked_fill_");
  if (masked_fill_contiguous(self, mask, value, out)) return;
  auto iter = TensorIteratorConfig()
                  .set_op_name("masked_fill")
                  .check_mem_overlap(false)  // PyTorch writes through an expanded self (with a warning)
                  .add_output(out)
                  .add_input(self)
                  .add_input_keep_dtype(mask)
                  .declare_static_common_dtype(self.dtype())
                  .build();
  if (self.is_meta()) return;
  if (self.dtype() == ScalarType::Complex32) {
    const ComplexHalf v = checked_complex_half(value);
    cpu_kernel(iter, [v](ComplexHalf x, bool m) -> ComplexHalf { return m ? v : x; });
    return;
  }
  TL_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "masked_fill", [&] {
    // a complex value fits a real self only without an imaginary part (PyTorch's checked conversion)
    const scalar_t v = value.is_complex() ? checked_scalar_cast<scalar_t>(value) : value.to<scalar_t>();
    cpu_kernel(iter, [v](scalar_t x, bool m) -> scalar_t { return m ? v : x; });
  });
}

// put_'s accumulation: bool `or`, every other type its sum.
template <typename T>
T sum_of(T t, T x) {
  if constexpr (std::is_same_v<T, bool>) return t || x;
  else return static_cast<T>(t + x);
}

// A contiguous copy of `t` (t itself when it already is one).
Tensor contiguous_of(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = empty_tensor(t.sizes(), t.dtype(), t.device());
  copy_kernel(c, t, false);
  return c;
}

Tensor expand_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  auto [sizes, strides] = infer_expand_geometry(t.sizes(), t.strides(), shape);
  return make_view(t, sizes, strides, t.storage_offset());
}

}  // namespace

Tensor nonzero_of(const Tensor& self) {
  Tensor out;
  nonzero_into(self, out);
  return out;
}

void nonzero_kernel(const Tensor& self, Tensor& out) {
  TL_CHECK(!out.defined() || out.dtype() == ScalarType::Int64,
           "nonzero: Expected out tensor to have scalar type Long but got scalar type", legacy_type_name(out.dtype()));
  if (self.is_meta())
    throw NotImplementedError(
        "nonzero: the number of nonzero elements depends on the data, which a meta tensor does not have");
  nonzero_into(self, out);
}

void masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value, Tensor& out) {
  masked_fill_impl(self, mask, value, out);
}

void masked_fill_tensor_kernel(const Tensor& self, const Tensor& mask, const Tensor& value, Tensor& out) {
  TL_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  masked_fill_impl(self, mask, value.is_meta() ? Scalar(0) : tensor_item(value), out);
}

void masked_select_kernel(const Tensor& self, const Tensor& mask, Tensor& out) {
  TL_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  check_not_barebones_unsigned(self.dtype(), "masked_select");
  TL_CHECK(!out.defined() || out.dtype() == self.dtype(), "masked_select(): self and result must have the same scalar type");
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes());
  const MaskCounts mc = count_mask(expand_to(mask, shape));
  prepare_output(out, DimVector{mc.total}, self.dtype(), self, OutDtype::Exact, "masked_select");
  if (mc.total == 0) return;
  const Tensor x = contiguous_of(expand_to(self, shape));
  const bool direct = out.is_contiguous() && !(out.storage() == self.storage());
  Tensor res = direct ? out : empty_tensor({mc.total}, self.dtype());
  const uint8_t* m = mc.data();
  dispatch_itemsize(self.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(x.data_ptr());
    T* y = static_cast<T*>(res.data_ptr());
    mc.for_each_chunk([&](int64_t b, int64_t e, int64_t pos) {
      int64_t last = e - 1;  // branch-free up to the chunk's last true (see index_lone_mask)
      while (last >= b && !m[last]) --last;
      for (int64_t i = b; i <= last; ++i) {
        y[pos] = src[i];
        pos += m[i] != 0;
      }
    });
  });
  if (!direct) copy_kernel(out, res, false);
}

void masked_scatter_kernel(const Tensor& self, const Tensor& mask, const Tensor& source, Tensor& out) {
  const bool inplace = out.defined() && out.is_same(self);
  check_not_barebones_unsigned(self.dtype(), "masked_scatter");
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32,
              "\"masked_scatter\" not implemented for 'ComplexHalf'");
  TL_CHECK(mask.dtype() == ScalarType::Bool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
           legacy_type_name(mask.dtype()));
  TL_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got",
           legacy_type_name(self.dtype()), " and ", legacy_type_name(source.dtype()));
  const DimVector shape = inplace ? DimVector(self.sizes()) : broadcast_shapes(self.sizes(), mask.sizes());
  TL_CHECK(is_expandable_to(mask.sizes(), shape), "masked_scatter_: expected mask to be broadcastable to self, "
           "but got mask of shape ", mask.sizes(), " and self of shape ", self.sizes());
  if (inplace) {
    check_no_internal_overlap(self, "masked_scatter_");
  } else {
    prepare_output(out, shape, self.dtype(), self, OutDtype::Exact, "masked_scatter");
    if (!self.is_meta()) copy_kernel(out, expand_to(self, shape), false);
  }
  if (self.is_meta()) return;
  const MaskCounts mc = count_mask(expand_to(mask, shape));
  TL_CHECK(mc.total <= source.numel(), "Number of elements of source < number of ones in mask");
  if (mc.total == 0) return;
  const Tensor src = contiguous_of(source);
  const bool direct = out.is_contiguous();
  Tensor res = direct ? out : contiguous_of(out);
  const uint8_t* m = mc.data();
  dispatch_itemsize(self.itemsize(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(src.data_ptr());
    T* y = static_cast<T*>(res.data_ptr());
    mc.for_each_chunk([&](int64_t b, int64_t e, int64_t pos) {
      for (int64_t i = b; i < e; ++i)
        if (m[i]) y[i] = x[pos++];
    });
  });
  if (!direct) copy_kernel(out, res, false);
}

void put_kernel(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate, Tensor& out) {
  const char* op = "put_()";
  TL_CHECK(index.dtype() == ScalarType::Int64, op, ": Expected a long tensor for index, but got ",
           legacy_type_name(index.dtype()));
  TL_CHECK(self.dtype() == source.dtype(), op, ": self and source expected to have the same dtype, but got self.dtype = ",
           legacy_type_name(self.dtype()), " and source.dtype = ", legacy_type_name(source.dtype()));
  TL_CHECK_INDEX(source.numel() == index.numel(), op,
                 ": Expected source and index to have the same number of elements, but got source.numel() = ",
                 source.numel(), ", index.numel() = ", index.numel());
  TL_CHECK_INDEX(self.numel() > 0 || index.numel() == 0, op, ": Tried to put elements into an empty tensor");
  init_from_self(self, out, "put_");
  if (self.is_meta() || index.numel() == 0) return;
  const Tensor idx = contiguous_of(index);
  const Tensor src = contiguous_of(source);
  const int64_t numel = out.numel(), nd = out.dim();
  const int64_t* ix = idx.data_ptr<int64_t>();
  // Flat position -> element offset in out (out may be a strided view when in place).
  auto offset = [&](int64_t v) {
    TL_CHECK_INDEX(v >= -numel && v < numel, "out of range: tried to access index ", v, " on a tensor of ", numel,
                   " elements.");
    if (v < 0) v += numel;
    if (out.is_contiguous()) return v;
    int64_t off = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      off += (v % out.sizes()[d]) * out.strides()[d];
      v /= out.sizes()[d];
    }
    return off;
  };
  TL_DISPATCH_ALL_AND_COMPLEX(out.dtype(), "put_", [&] {
    const scalar_t* x = src.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < idx.numel(); ++i) {  // in index order: duplicates add up (or the last wins)
      scalar_t& t = y[offset(ix[i])];
      t = accumulate ? sum_of(t, x[i]) : x[i];
    }
  });
}

}  // namespace tl::native
