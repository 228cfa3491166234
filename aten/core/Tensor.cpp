#include "aten/core/Tensor.h"

#include <algorithm>
#include <cstring>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"

namespace tl {

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-d tensor accepts dim 0 and -1, like PyTorch
  TL_CHECK_INDEX(dim >= -n && dim < n, op, ": Dimension out of range (expected to be in range of [", -n, ", ",
                 n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t Tensor::size(int64_t d) const {
  TL_CHECK_INDEX(dim() > 0, "size: dimension specified as ", d, " but tensor has no dimensions");
  return impl_->size(maybe_wrap_dim(d, dim(), "size"));
}

int64_t Tensor::stride(int64_t d) const {
  TL_CHECK_INDEX(dim() > 0, "stride: dimension specified as ", d, " but tensor has no dimensions");
  return impl_->stride(maybe_wrap_dim(d, dim(), "stride"));
}

Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t numel = compute_numel(sizes);
  int64_t nbytes = 0;  // checked: a wrapped-around byte count would allocate too little
  TL_CHECK(!__builtin_mul_overflow(numel, static_cast<int64_t>(element_size(dtype)), &nbytes),
           "Storage size calculation overflowed with sizes=", sizes);
  auto storage = StorageImpl::allocate(static_cast<size_t>(nbytes), device);
  return Tensor(intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  TL_CHECK(sizes.size() == strides.size(), "empty_strided: sizes ", sizes, " and strides ", strides,
           " must have the same length");
  int64_t extent = 1;  // elements needed: 1 + sum((size-1)*stride), or 0 if any size is 0
  for (size_t i = 0; i < sizes.size(); ++i) {
    TL_CHECK(sizes[i] >= 0, "empty_strided: negative size ", sizes[i]);
    TL_CHECK(strides[i] >= 0, "empty_strided: negative stride ", strides[i]);
    if (sizes[i] == 0) {
      extent = 0;
      break;
    }
    int64_t term = 0;
    TL_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &term) &&
                 !__builtin_add_overflow(extent, term, &extent),
             "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  }
  int64_t nbytes = 0;
  TL_CHECK(!__builtin_mul_overflow(extent, static_cast<int64_t>(element_size(dtype)), &nbytes),
           "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  auto storage = StorageImpl::allocate(static_cast<size_t>(nbytes), device);
  return Tensor(intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  auto impl = intrusive_ptr<TensorImpl>::make(base.storage(), base.dtype(), sizes, strides, storage_offset);
  impl->share_version_counter(base.impl()->version_counter());
  // Views of views point at the root base, as PyTorch does.
  impl->set_view_base(base.impl()->view_base() ? base.impl()->view_base() : base.impl_ptr());
  // PyTorch's propagate_creation_meta: a view keeps the restriction of the view it was made from
  // (a view of a split output is refused in-place changes too).
  const CreationMeta made = autograd::InferenceMode::is_enabled() ? CreationMeta::InferenceMode
                            : autograd::GradMode::is_enabled()    ? CreationMeta::Default
                                                                  : CreationMeta::NoGradMode;
  impl->set_creation_meta(made, base.impl()->view_base() ? base.impl()->creation_meta() : CreationMeta::Default);
  impl->set_inference(base.impl()->is_inference());
  impl->set_math_bits(base.impl()->math_bits());  // views keep the lazy conj/neg bits
  return Tensor(std::move(impl));
}

Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device, bool wrapped_number) {
  Tensor t = empty_tensor({}, dtype, device);
  t.impl()->set_wrapped_number(wrapped_number);
  if (device.is_meta()) return t;
  if (dtype == ScalarType::Complex32) {  // through complex<float>, each part rounded to float16
    *t.data_ptr<ComplexHalf>() = ComplexHalf(static_cast<std::complex<float>>(s.to_complex()));
    return t;
  }
  TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(dtype, "scalar_to_tensor",
                               [&] { *t.data_ptr<scalar_t>() = s.to<opmath_t<scalar_t>>(); });
  return t;
}

// (A template: `if constexpr` discards the branches of the other types only in templates.)
template <typename T>
static Scalar element_scalar(T v) {
  if constexpr (std::is_same_v<T, bool>) return Scalar(v);
  else if constexpr (is_complex_v<T>) return Scalar(std::complex<double>(v));
  else if constexpr (std::is_same_v<T, ComplexHalf>) return Scalar(std::complex<double>(v.to_cfloat()));
  else if constexpr (std::is_integral_v<T>) return Scalar(static_cast<int64_t>(v));
  else return Scalar(static_cast<double>(static_cast<opmath_t<T>>(v)));
}

Scalar tensor_item(const Tensor& t) {
  TL_CHECK(t.numel() == 1, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  TL_CHECK(!t.is_meta(), "item: cannot read the value of a meta tensor: it has no data");
  // A bool element is read as its byte (!= 0): loading a byte other than 0/1 as bool is UB.
  if (t.dtype() == ScalarType::Bool) return Scalar(*static_cast<const uint8_t*>(t.data_ptr()) != 0);
  const Scalar s = TL_DISPATCH_EVERY_DTYPE(t.dtype(), "item",
                                              [&]() -> Scalar { return element_scalar(*t.data_ptr<scalar_t>()); });
  if (t.math_bits() == 0) return s;
  // The lazy bits (conj(), imag of a conj() view): the value, not what the memory holds.
  if (s.is_complex()) {
    std::complex<double> v = s.to_complex();
    if (t.is_conj()) v = std::conj(v);
    return Scalar(t.is_neg() ? -v : v);
  }
  if (!t.is_neg()) return s;
  return s.is_floating_point() ? Scalar(-s.to_double()) : Scalar(-s.to_long());
}

}  // namespace tl
