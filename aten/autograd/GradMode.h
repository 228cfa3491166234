// Thread-local switch for recording autograd history (no_grad / enable_grad / inference_mode),
// the inference-mode flag, and the process-wide anomaly-detection switch.
#pragma once
#include <atomic>

namespace tl::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// RAII: sets grad mode for a scope and restores the previous value.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }

 private:
  bool prev_;
};

struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// Inference mode (thread-local): grad mode is off as well (the Python inference_mode switches
// both), and tensors made meanwhile are "inference tensors" (TensorImpl::is_inference), which
// autograd refuses to save for backward or to let require grad later.
struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Anomaly detection (process-wide, as in PyTorch). When on, every Node records where it was
// created (through the hook the Python bindings install) and the engine checks each gradient a
// node produces for NaN (when check_nan).
struct AnomalyMode {
  static bool is_enabled() { return enabled_.load(std::memory_order_relaxed); }
  static bool should_check_nan() { return check_nan_.load(std::memory_order_relaxed); }
  static void set_enabled(bool enabled, bool check_nan = true) {
    check_nan_.store(check_nan, std::memory_order_relaxed);
    enabled_.store(enabled, std::memory_order_relaxed);
  }

 private:
  static std::atomic<bool> enabled_;
  static std::atomic<bool> check_nan_;
};

}  // namespace tl::autograd
