// Tensor is a reference-counted handle to a TensorImpl; copying a Tensor shares the data.
// Ops are free functions (tl::add(a, b)), generated from native_functions.yaml into
// generated/ops/<name>.h, so adding an op never touches this header.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "aten/core/Scalar.h"
#include "aten/core/TensorImpl.h"

namespace tl {
namespace autograd {
struct Node;
}

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  void reset() { impl_.reset(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t dim() const { return impl_->dim(); }
  // size(dim) / stride(dim) accept negative dims and raise IndexError when out of range.
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  ScalarType dtype() const { return impl_->dtype(); }
  size_t itemsize() const { return impl_->itemsize(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  Device device() const { return impl_->device(); }
  bool is_meta() const { return impl_->device().is_meta(); }
  bool is_cpu() const { return impl_->device().is_cpu(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_conj() const { return impl_->is_conj(); }
  bool is_neg() const { return impl_->is_neg(); }
  // The lazy conjugate/negative bits (0 when neither is set, or for an undefined tensor).
  uint8_t math_bits() const { return impl_ ? impl_->math_bits() : 0; }
  bool is_floating_point() const { return is_floating_type(dtype()); }
  const Storage& storage() const { return impl_->storage(); }
  void* data_ptr() const { return impl_->data(); }
  template <typename T>
  T* data_ptr() const { return static_cast<T*>(impl_->data()); }

  uint32_t version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }

  // Autograd accessors (defined in aten/autograd/Variable.cpp).
  bool requires_grad() const;
  void set_requires_grad(bool value) const;
  bool is_leaf() const;
  const Tensor& grad() const;  // undefined Tensor when there is no gradient
  Tensor& mutable_grad() const;
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  uint32_t output_nr() const;

 private:
  intrusive_ptr<TensorImpl> impl_;
};

using TensorList = ArrayRef<Tensor>;

// An uninitialised tensor of the given shape and dtype (contiguous).
Tensor empty_tensor(IntArrayRef sizes, ScalarType dtype, Device device = Device(DeviceType::CPU));
// An uninitialised tensor with explicit strides; storage covers the furthest element.
Tensor empty_strided_tensor(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);
// A new tensor sharing `base`'s storage and version counter with another geometry (a view).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
// 0-d tensor holding `s` as `dtype` (on CPU, or a meta tensor); wrapped_number marks Python numbers.
Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device = Device(DeviceType::CPU),
                        bool wrapped_number = false);
// Reads a 1-element tensor as a Scalar of its category.
Scalar tensor_item(const Tensor& t);

// Wraps a negative dim and checks range; `op` names the caller in the IndexError.
int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* op = "dim");

}  // namespace tl
