// Output handling shared by kernels, so that a kernel only computes.
//
// An out kernel (see docs/kernels/outputs.md) receives `Tensor& out` in one of three states:
//   undefined       the functional call: allocate the result;
//   the input self  the in-place call (add_): the result must have self's shape, and its dtype
//                   must be castable to self's;
//   a user tensor   the out= call: resized to the result's shape (resize_output), and its dtype
//                   checked by the op's rule (exact, or can_cast from the result dtype).
// prepare_output() does all three; then the kernel writes into `out`.
//
//   void amax_kernel(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
//     DimVector shape = ...;                      // result shape by the op's rules
//     prepare_output(out, {"amax", shape, self.dtype(), self.device(), OutDtype::Exact});
//     if (self.is_meta()) return;
//     ... compute into out ...
//   }
#pragma once
#include "aten/core/Tensor.h"

namespace tl::native {

// How a defined out= tensor's dtype must relate to the result dtype.
enum class OutDtype {
  Exact,    // out.dtype() == dtype: "<op>: Expected out tensor to have dtype float32, but got float64 instead"
  CanCast,  // can_cast(dtype, out.dtype()): "<op>: result type float32 can't be cast to the desired output type int64"
  Any,      // no check: the kernel converts into whatever out holds
};

struct OutputSpec {
  const char* op;
  IntArrayRef shape;
  ScalarType dtype;
  Device device;
  OutDtype rule = OutDtype::CanCast;
  // When set, `out` being this tensor means an in-place call: shape must match, never resized.
  const Tensor* self = nullptr;
};

// Allocates `out` (contiguous, spec.dtype) when undefined; otherwise checks its device and dtype
// and resizes it to spec.shape (in-place calls: checks the shape instead).
void prepare_output(Tensor& out, const OutputSpec& spec);

// True when `out` can be written directly by a kernel producing a contiguous result of `dtype`:
// out is contiguous, has that dtype, and shares no storage with `input`.
bool writes_directly(const Tensor& out, ScalarType dtype, const Tensor& input);

// For kernels that compute into a contiguous buffer: `out` itself when writes_directly, else a
// fresh contiguous tensor of out's shape and `dtype`. Finish with commit_output().
Tensor output_buffer(const Tensor& out, ScalarType dtype, const Tensor& input);
// Copies `buffer` into `out` (converting dtype, any strides) unless it is `out` itself.
void commit_output(const Tensor& out, const Tensor& buffer);

}  // namespace tl::native
