// What autograd allows on a view given how it was made (TensorImpl::creation_meta), as PyTorch's
// CreationMeta: in-place changes of the outputs of an op returning several views (split, unbind),
// or of a view made in no_grad/inference mode, cannot be recorded.
#pragma once
#include "aten/core/Tensor.h"

namespace tl::autograd {

// Raises PyTorch's error when an in-place change of `view` (or, `indirect`, of its base or a sibling
// view) would have to rewrite a history autograd cannot rewrite for it; returns for other views.
void handle_view_on_rebase(const Tensor& view, bool indirect);

// mark_multi_output_views (declared in Node.h for the generated code) is defined here too.

}  // namespace tl::autograd
