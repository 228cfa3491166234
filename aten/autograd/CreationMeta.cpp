// PyTorch's handle_view_on_rebase and the creation meta of multi-output views (CreationMeta.h).
#include "aten/autograd/CreationMeta.h"

#include <string>

#include "aten/autograd/AutogradMeta.h"
#include "aten/autograd/GradMode.h"
#include "aten/autograd/Node.h"
#include "aten/core/Exception.h"

namespace tl::autograd {

namespace {

// PyTorch's messages name the view's node without its "Backward<n>" suffix: "Output 0 of Split".
std::string op_of(const Node& fn) {
  std::string name = fn.name();
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  const std::string suffix = "Backward";
  if (end >= suffix.size() && name.compare(end - suffix.size(), suffix.size(), suffix) == 0)
    return name.substr(0, end - suffix.size());
  return name;
}

}  // namespace

void handle_view_on_rebase(const Tensor& view, bool indirect) {
  const TensorImpl* impl = view.impl();
  const CreationMeta meta = impl->creation_meta();
  if (!impl->view_base() || meta == CreationMeta::Default) return;
  const AutogradMeta* am = impl->autograd_meta();
  const Node* fn = am ? am->grad_fn.get() : nullptr;  // as recorded: this runs before any regeneration
  const std::string modified = indirect ? "its base or another view of its base has been" : "is being";
  std::string msg;
  if (meta == CreationMeta::NoGradMode || meta == CreationMeta::InferenceMode || !fn) {
    const std::string prefix = fn ? str("Output ", am->output_nr, " of ", op_of(*fn),
                                        " is a view of a view which was created in")
                                  : std::string("A view was created in");
    msg = meta == CreationMeta::InferenceMode
              ? str(prefix, " inference mode and ", modified, " modified inplace in normal mode.")
              : str(prefix, " no_grad mode and ", modified, " modified inplace with grad mode enabled.");
  } else {
    msg = str("Output ", am->output_nr, " of ", op_of(*fn), " is a view and ", modified, " modified inplace.");
  }
  if (meta == CreationMeta::MultiOutputNode) {
    msg += " This view is the output of a function that returns multiple views. Such functions do not allow the "
           "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.";
  } else {
    const char* block = meta == CreationMeta::InferenceMode ? "inference_mode" : "no_grad";
    msg += str(" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
               "moving both the view and the inplace either both inside the ", block,
               " block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
               "tracked).");
  }
  throw RuntimeError(msg);
}

std::vector<Tensor> mark_multi_output_views(std::vector<Tensor> views) {
  // In no_grad/inference mode make_view already said so; in grad mode the views become
  // MultiOutputNode (still inheriting an inference-mode source's restriction).
  if (!GradMode::is_enabled()) return views;
  for (const Tensor& v : views) {
    if (v.impl()->view_base()) v.impl()->set_made_creation_meta(CreationMeta::MultiOutputNode);
  }
  return views;
}

}  // namespace tl::autograd
