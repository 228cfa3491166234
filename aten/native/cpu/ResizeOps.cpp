// resize_ and resize_as_: new sizes for a tensor in place, its storage grown when needed (every
// tensor sharing the storage sees the new memory, as in PyTorch). Metadata only: CPU and Meta.
#include "aten/core/Exception.h"
#include "aten/core/Layout.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "generated/ops/resize.h"
#include "generated/ops/resize_as.h"

namespace tl::native {

// As PyTorch: same sizes and no memory_format keep the strides (an expanded or transposed tensor
// stays so); otherwise the strides are the contiguous ones, or those of memory_format.
const Tensor& resize_kernel(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  // Checked here, below autograd, in every grad mode: PyTorch refuses even under no_grad.
  TL_CHECK(!self.requires_grad(), "resize_: cannot resize variables that require grad");
  TL_CHECK(!memory_format || *memory_format != MemoryFormat::Preserve, "resize_: Unsupported memory format Preserve");
  for (int64_t s : size) TL_CHECK(s >= 0, "resize_: Trying to create tensor with negative dimension ", s, ": ", size);
  compute_numel(size);  // int64 overflow of the element count
  if (!memory_format && self.sizes() == size) return self;
  TensorImpl* impl = self.impl();
  const DimVector strides =
      memory_format ? strides_for_memory_format(size, *memory_format) : contiguous_strides(size);
  // Grown before the geometry changes: a failed allocation leaves self as it was.
  maybe_grow_storage(self, storage_nbytes_needed(size, strides, impl->storage_offset(), impl->itemsize()));
  impl->set_sizes_and_strides(size, strides, impl->storage_offset());
  return self;
}

// memory_format=preserve_format takes the template's layout when it is channels-last, else the
// contiguous one (PyTorch's suggest_memory_format).
const Tensor& resize_as_kernel(const Tensor& self, const Tensor& the_template,
                               std::optional<MemoryFormat> memory_format) {
  if (memory_format == MemoryFormat::Preserve) {
    const IntArrayRef sizes = the_template.sizes(), strides = the_template.strides();
    memory_format = sizes.size() == 4 && is_contiguous_in(sizes, strides, MemoryFormat::ChannelsLast) &&
                            !is_contiguous_in(sizes, strides, MemoryFormat::Contiguous)
                        ? MemoryFormat::ChannelsLast
                    : sizes.size() == 5 && is_contiguous_in(sizes, strides, MemoryFormat::ChannelsLast3d) &&
                            !is_contiguous_in(sizes, strides, MemoryFormat::Contiguous)
                        ? MemoryFormat::ChannelsLast3d
                        : MemoryFormat::Contiguous;
  }
  return resize_kernel(self, the_template.sizes(), memory_format);
}

}  // namespace tl::native
