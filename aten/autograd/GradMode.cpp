#include "aten/autograd/GradMode.h"

namespace tl::autograd {

namespace {
// Each thread starts with grad mode on, as in PyTorch; no_grad in one thread does not
// affect another.
thread_local bool t_grad_enabled = true;
thread_local bool t_inference_enabled = false;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }

void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

bool InferenceMode::is_enabled() { return t_inference_enabled; }

void InferenceMode::set_enabled(bool enabled) { t_inference_enabled = enabled; }

std::atomic<bool> AnomalyMode::enabled_{false};
std::atomic<bool> AnomalyMode::check_nan_{true};

}  // namespace tl::autograd
