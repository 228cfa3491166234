#pragma once
// out= variants that PyTorch records with its NotImplemented node (`out_autograd: not_implemented`):
// inputs that require grad are accepted, `out` gets a grad_fn, and only backward raises
// ("derivative for aten::softmax is not implemented"). An `out` that itself requires grad is still
// refused, as by check_out_no_grad.
#include <initializer_list>

#include "aten/core/Tensor.h"
#include "aten/autograd/GradMode.h"  // NoGradGuard, around the kernel in the generated dispatch
#include "aten/core/OpSupport.h"

namespace tl::autograd {

// True when the call must be recorded: grad mode is on and an input (or a list element) requires
// grad. Raises check_out_no_grad's error when an output requires grad.
bool out_records_not_implemented(const char* op, std::initializer_list<const Tensor*> inputs,
                                 std::initializer_list<const Tensor*> outputs,
                                 std::initializer_list<TensorList> lists = {});

// After the kernel wrote the outputs (with grad mode off): each becomes an output of a NotImplemented
// node whose edges lead to the inputs.
void record_not_implemented_out(const char* op, std::initializer_list<const Tensor*> inputs,
                                std::initializer_list<const Tensor*> outputs,
                                std::initializer_list<TensorList> lists = {});

}  // namespace tl::autograd
