// Shape arithmetic shared by view/shape kernels, reductions and composites:
// -1 inference, the view-compatibility rule, broadcasting and expand geometry.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "aten/core/ArrayRef.h"

namespace tl {

// Resolves one -1 in `shape` so that the product is `numel`. Errors as PyTorch:
//   "only one dimension can be inferred", "invalid shape dimension -2 at index 0 of shape [-2, 3]",
//   "shape '[2, -1]' is invalid for input of size 7",
//   "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 ...".
// `op` (e.g. "view") prefixes the messages: "view: shape '[2, -1]' is invalid for input of size 7".
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op = nullptr);

// Strides that let a tensor of (oldshape, oldstride) be viewed as `newshape` (no -1: pass the
// result of infer_size) without copying, or nullopt when no such strides exist. This is
// PyTorch's rule: each run of dims that is contiguous in memory ("chunk") may be split or merged
// freely, but no new dim may span two chunks. Size-1 dims never matter.
std::optional<DimVector> compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape);

// NumPy broadcasting of two shapes. RuntimeError "The size of tensor a (2) must match the size of
// tensor b (4) at non-singleton dimension 0" when they are incompatible.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
// Any number of shapes (empty list -> []); same error message, naming the first conflicting pair.
DimVector broadcast_shapes(ArrayRef<IntArrayRef> shapes);
// Whether `from` broadcasts to exactly `to` (expand would succeed without changing `to`).
bool is_expandable_to(IntArrayRef from, IntArrayRef to);

// Sizes and strides of `expand(sizes)` applied to a tensor of (tensor_sizes, tensor_strides):
// new leading dims and size-1 dims that grow get stride 0; -1 keeps an existing size.
// Errors as PyTorch, prefixed with "expand: " ("expand: The expanded size of the tensor (4) must match
// the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]").
std::pair<DimVector, DimVector> infer_expand_geometry(IntArrayRef tensor_sizes, IntArrayRef tensor_strides,
                                                      IntArrayRef sizes);

// Wraps every dim of `dims` for a tensor of `ndim` dims and returns a bitmask of the reduced dims
// (bit i set when dim i is listed). An empty list means no dims (callers decide what that means).
// IndexError for out-of-range dims; RuntimeError "sum: dim 0 appears multiple times in the list of dims".
// ndim must be <= 64.
uint64_t dims_to_bitmask(IntArrayRef dims, int64_t ndim, const char* op);

}  // namespace tl
