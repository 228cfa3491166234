#include "aten/autograd/GradMode.h"

namespace tl::autograd {

namespace {
// Each thread starts with grad mode on, as in PyTorch; no_grad in one thread does not
// affect another.
thread_local bool t_grad_enabled = true;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }

void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

}  // namespace tl::autograd
