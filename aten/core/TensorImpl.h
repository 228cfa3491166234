// The data behind a Tensor handle: storage + the view geometry (sizes, strides, offset),
// dtype, device, the version counter shared by views, and autograd state.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "aten/core/ArrayRef.h"
#include "aten/core/Device.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Storage.h"
#include "aten/core/intrusive_ptr.h"

namespace tl {
namespace autograd {
struct AutogradMeta;
}

// Counts in-place writes to a tensor and its views; saved tensors record the value they saw.
struct VersionCounter : intrusive_target {
  std::atomic<uint32_t> version{0};
};

// How a view was made, as PyTorch's CreationMeta: in grad mode (Default); as one of several views
// a single op returns (MultiOutputNode: split, unbind; autograd refuses in-place changes of them);
// in no_grad mode; in inference mode.
enum class CreationMeta : uint8_t { Default, MultiOutputNode, NoGradMode, InferenceMode };

class TensorImpl : public intrusive_target {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t size(int64_t dim) const { return sizes_[dim]; }
  int64_t stride(int64_t dim) const { return strides_[dim]; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  // `x.data = y` with another dtype (Module.double() keeps its Parameter objects this way, as PyTorch).
  void set_dtype(ScalarType dtype) { dtype_ = dtype; }
  size_t itemsize() const { return element_size(dtype_); }
  Device device() const { return storage_->device; }
  bool is_contiguous() const { return is_contiguous_; }
  const Storage& storage() const { return storage_; }
  // Address of element 0 (nullptr for meta tensors). An empty tensor's offset is never applied: it may
  // lie anywhere (as_strided allows any offset when nothing is read), and the product could overflow.
  void* data() const {
    char* base = static_cast<char*>(storage_->data());
    if (!base || numel_ == 0) return base;
    return base + storage_offset_ * static_cast<int64_t>(itemsize());
  }

  // Replaces the geometry (views, resize_, as_strided). Recomputes numel and contiguity.
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_storage(Storage storage) { storage_ = std::move(storage); }

  // Version counter: lazily created, shared with views and detached aliases.
  uint32_t version() const { return version_ ? version_->version.load(std::memory_order_relaxed) : 0; }
  void bump_version() { version_counter()->version.fetch_add(1, std::memory_order_relaxed); }
  const intrusive_ptr<VersionCounter>& version_counter();
  void share_version_counter(const intrusive_ptr<VersionCounter>& vc) { version_ = vc; }

  // Autograd state; null for tensors that never took part in autograd.
  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  autograd::AutogradMeta& ensure_autograd_meta();
  void clear_autograd_meta();

  // A 0-d tensor made from a Python number: lower priority in type promotion.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  // Non-owning pointer to the Python object wrapping this tensor (the bindings manage it),
  // so the same C++ tensor always surfaces as the same Python object.
  void* pyobj() const { return pyobj_; }
  void set_pyobj(void* obj) { pyobj_ = obj; }

  // Base tensor if this is a view (autograd uses it for in-place on views).
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }
  // For views: how the view was made (PyTorch's CreationMeta), which decides whether autograd
  // may record an in-place change of it (aten/autograd/CreationMeta.cpp): the mode it was made in
  // (set by make_view; Default for views autograd recorded, MultiOutputNode for the outputs of
  // split/unbind), combined with the restriction inherited from the view it was made from.
  CreationMeta creation_meta() const {
    if (made_ == CreationMeta::Default || inherited_ == CreationMeta::InferenceMode) return inherited_;
    return made_;
  }
  CreationMeta inherited_creation_meta() const { return inherited_; }
  void set_creation_meta(CreationMeta made, CreationMeta inherited) {
    made_ = made;
    inherited_ = inherited;
  }
  void set_made_creation_meta(CreationMeta made) { made_ = made; }
  // Made in grad mode (or recorded): a view made in no_grad or inference mode is not a
  // differentiable view of its base.
  bool view_made_in_grad_mode() const {
    return made_ == CreationMeta::Default || made_ == CreationMeta::MultiOutputNode;
  }
  // Made in inference mode (set by the constructor, inherited by views): autograd refuses to
  // save it for backward.
  bool is_inference() const { return is_inference_; }
  void set_inference(bool v) { is_inference_ = v; }

  // PyTorch's lazy math bits (docs/complex.md): the logical value is the conjugate (kConjBit) and/or
  // the negation (kNegBit) of what the storage holds. Views inherit them (make_view); the dispatcher
  // resolves them for ops whose YAML entry does not handle them (aten/core/MathBits.h).
  static constexpr uint8_t kConjBit = 1;
  static constexpr uint8_t kNegBit = 2;
  uint8_t math_bits() const { return math_bits_; }
  void set_math_bits(uint8_t bits) { math_bits_ = bits; }
  bool is_conj() const { return (math_bits_ & kConjBit) != 0; }
  bool is_neg() const { return (math_bits_ & kNegBit) != 0; }
  void set_conj(bool v) { math_bits_ = v ? (math_bits_ | kConjBit) : (math_bits_ & ~kConjBit); }
  void set_neg(bool v) { math_bits_ = v ? (math_bits_ | kNegBit) : (math_bits_ & ~kNegBit); }

 private:
  void refresh_numel_and_contiguity();

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  CreationMeta made_ = CreationMeta::NoGradMode;
  CreationMeta inherited_ = CreationMeta::Default;
  bool is_inference_ = false;
  uint8_t math_bits_ = 0;  // kConjBit | kNegBit (fits the padding after the flags above)
  intrusive_ptr<VersionCounter> version_;
  std::unique_ptr<autograd::AutogradMeta> autograd_meta_;
  intrusive_ptr<TensorImpl> view_base_;
  void* pyobj_ = nullptr;
};

// Strides of a contiguous (row-major) tensor of the given sizes.
DimVector contiguous_strides(IntArrayRef sizes);
// Product of sizes (1 for 0-d); throws if it overflows int64.
int64_t compute_numel(IntArrayRef sizes);

}  // namespace tl
