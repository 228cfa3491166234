#include "aten/core/TensorImpl.h"

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"

namespace tl {

int64_t compute_numel(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    TL_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
    TL_CHECK(!__builtin_mul_overflow(n, s, &n), "numel: integer multiplication overflow for shape ", sizes);
  }
  return n;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  // Unsigned (wrapping) products: with a zero size the others' product may exceed int64 (the
  // strides of an empty tensor are never used to address memory).
  uint64_t running = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    strides[i] = static_cast<int64_t>(running);
    running *= static_cast<uint64_t>(std::max<int64_t>(sizes[i], 1));
  }
  return strides;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)), sizes_(sizes), strides_(strides), storage_offset_(storage_offset),
      dtype_(dtype), is_inference_(autograd::InferenceMode::is_enabled()) {
  refresh_numel_and_contiguity();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_ = sizes;
  strides_ = strides;
  storage_offset_ = storage_offset;
  refresh_numel_and_contiguity();
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  sizes_ = sizes;
  strides_ = contiguous_strides(sizes);
  refresh_numel_and_contiguity();
}

void TensorImpl::refresh_numel_and_contiguity() {
  numel_ = compute_numel(sizes_);
  // Contiguous means row-major order; size-1 dims may have any stride.
  bool contiguous = true;
  if (numel_ != 0) {
    int64_t expected = 1;
    for (int64_t i = dim() - 1; i >= 0; --i) {
      if (sizes_[i] == 1) continue;
      if (strides_[i] != expected) {
        contiguous = false;
        break;
      }
      expected *= sizes_[i];
    }
  }
  is_contiguous_ = contiguous;
}

const intrusive_ptr<VersionCounter>& TensorImpl::version_counter() {
  if (!version_) version_ = intrusive_ptr<VersionCounter>::make();
  return version_;
}

autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) autograd_meta_ = std::make_unique<autograd::AutogradMeta>();
  return *autograd_meta_;
}

void TensorImpl::clear_autograd_meta() { autograd_meta_.reset(); }

}  // namespace tl
