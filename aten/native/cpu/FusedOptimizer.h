// The engine of the fused optimizer steps (FusedOptimizerKernels.cpp: SGD, Adam, AdamW, Adagrad;
// FusedOptimizerAdaptiveKernels.cpp: RMSprop, Adadelta, Adamax, NAdam, RAdam): the list checks, the walk
// over one parameter's elements with its state tensors in parallel chunks, and the rounding helpers that
// make a one-pass update give the results of the single-tensor optimizers' sequence of tensor ops.
#pragma once
//
// sanitized-build: -O1 (at -Og GCC does not inline the steps' always_inline loops: "function not
// considered for inlining", a compile error)
#include <array>
#include <cmath>
#include <initializer_list>
#include <type_traits>

#include "aten/core/Parallel.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"

namespace tl::native::fused_optim {

constexpr int64_t kGrain = 32768;

// The lists of a step: each as long as the parameters (an optional list may be empty), each tensor with
// its parameter's shape and dtype.
struct NamedList {
  const char* name;
  TensorList tensors;
  bool optional;
};

inline void check_lists(const char* op, TensorList params, std::initializer_list<NamedList> lists) {
  const auto n = static_cast<int64_t>(params.size());
  for (const NamedList& l : lists) {
    const auto m = static_cast<int64_t>(l.tensors.size());
    if (l.optional && m == 0) continue;
    TL_CHECK(m == n, op, ": expected ", l.name, " to hold one tensor per parameter (", n, "), got ", m);
  }
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& p = params[i];
    TL_CHECK(p.defined(), op, ": parameter ", i, " is undefined");
    TL_CHECK(is_floating_type(p.scalar_type()), op, ": expected floating-point parameters, but parameter ", i,
             " has dtype ", scalar_type_name(p.scalar_type()));
    for (const NamedList& l : lists) {
      if (l.tensors.empty()) continue;
      const Tensor& t = l.tensors[i];
      TL_CHECK(t.defined(), op, ": ", l.name, "[", i, "] is undefined");
      TL_CHECK(t.sizes() == p.sizes(), op, ": ", l.name, "[", i, "] has shape ", t.sizes(),
               " but its parameter has shape ", p.sizes());
      TL_CHECK(t.scalar_type() == p.scalar_type(), op, ": ", l.name, "[", i, "] has dtype ", scalar_type_name(t.scalar_type()),
               " but its parameter has dtype ", scalar_type_name(p.scalar_type()));
    }
  }
}

// Runs `body(begin, end, ptrs)` over the elements of one parameter and its companions (all of one dtype
// and shape; an undefined companion gives a null pointer), in parallel chunks. Non-contiguous tensors are
// updated through contiguous copies, copied back.
template <typename scalar_t, size_t N, typename Body>
void for_each_element(std::array<Tensor, N> tensors, Body&& body) {
  std::array<Tensor, N> work;
  bool copied = false;
  for (size_t k = 0; k < N; ++k) {
    if (!tensors[k].defined()) continue;
    work[k] = tensors[k].is_contiguous() ? tensors[k] : tl::contiguous(tensors[k]);
    copied |= !work[k].is_same(tensors[k]);
  }
  std::array<scalar_t*, N> ptrs{};
  for (size_t k = 0; k < N; ++k) ptrs[k] = work[k].defined() ? work[k].template data_ptr<scalar_t>() : nullptr;
  parallel_for(0, tensors[0].numel(), kGrain, [&](int64_t b, int64_t e) { body(b, e, ptrs); });
  if (copied) {
    for (size_t k = 0; k < N; ++k)
      if (work[k].defined() && !work[k].is_same(tensors[k])) tl::copy_(tensors[k], work[k], false);
  }
}

// The chunk [b, e) of a body's pointers: each advanced by b (null stays null).
template <typename scalar_t, size_t N>
TL_ALWAYS_INLINE std::array<scalar_t*, N> offset(const std::array<scalar_t*, N>& ptrs, int64_t b) {
  std::array<scalar_t*, N> at{};
  for (size_t k = 0; k < N; ++k) at[k] = ptrs[k] ? ptrs[k] + b : nullptr;
  return at;
}

// x rounded to the parameter dtype and back: what storing an intermediate tensor does.
template <typename scalar_t, typename T>
TL_ALWAYS_INLINE T as_stored(T x) {
  if constexpr (is_reduced_float_v<scalar_t>) return to_opmath(from_opmath<scalar_t>(x));
  else return x;
}

// Choices on a loop-invariant flag (lerp's formula, SGD's first step, Nesterov) are template parameters of
// the loops: a select on a runtime flag inside the loop stays a branch, and a branch keeps the loop scalar.

// PyTorch's lerp with a scalar weight: self + w * (end - self) for |w| < 0.5 (kLow), else
// end - (end - self) * (1 - w).
template <bool kLow, typename T>
TL_ALWAYS_INLINE T lerp(T self, T end, T w) {
  const T diff = end - self;
  if constexpr (kLow) return self + w * diff;
  else return end - diff * (T(1) - w);
}

// Whether lerp with weight w takes the kLow formula.
template <typename T>
TL_ALWAYS_INLINE bool lerp_low(T w) {
  return std::abs(w) < T(0.5);
}

// torch.maximum: NaN wins.
template <typename T>
TL_ALWAYS_INLINE T nan_max(T a, T b) {
  const bool take_a = (a > b) | (a != a);
  return take_a ? a : b;
}

// The inner loops are compiled per ISA (TL_TARGET_CLONES) for float and double, with the loop-invariant
// choices (weight decay kind, amsgrad, momentum, ...) as template parameters so the loops vectorize;
// Half/BFloat16 run the plain loop (optimizer parameters are rarely reduced floats).
enum WeightDecay { kNoDecay, kL2, kDecoupled };

inline int weight_decay_kind(double weight_decay, bool decoupled) {
  return weight_decay == 0 ? kNoDecay : decoupled ? kDecoupled : kL2;
}

// Calls f with the weight decay kind as a compile-time constant.
template <typename F>
TL_ALWAYS_INLINE void with_weight_decay(int kind, F&& f) {
  if (kind == kL2) f(std::integral_constant<int, kL2>{});
  else if (kind == kDecoupled) f(std::integral_constant<int, kDecoupled>{});
  else f(std::integral_constant<int, kNoDecay>{});
}

// Calls f with b as std::true_type / std::false_type.
template <typename F>
TL_ALWAYS_INLINE void with_bool(bool b, F&& f) {
  if (b) f(std::true_type{});
  else f(std::false_type{});
}

// Picks the clone set for float/double, the plain loop for Half/BFloat16.
template <typename scalar_t, typename Clones, typename Plain>
TL_ALWAYS_INLINE void run_loop(int64_t n, scalar_t* const* ptrs, const void* s, Clones clones, Plain plain) {
  if constexpr (std::is_same_v<scalar_t, float> || std::is_same_v<scalar_t, double>) clones(n, ptrs, s);
  else plain(n, ptrs, s);
}

// Divides the gradients by the AMP scale (written back), as the first part of a step.
inline void unscale_grads(const char* op, TensorList grads, double scale) {
  for (const Tensor& g : grads) {
    TL_DISPATCH_FLOAT(g.scalar_type(), op, [&] {
      using T = opmath_t<scalar_t>;
      const T inv_scale = T(scale);
      for_each_element<scalar_t, 1>({g}, [&](int64_t b, int64_t e, auto ptrs) {
        scalar_t* x = ptrs[0];
        for (int64_t d = b; d < e; ++d) x[d] = from_opmath<scalar_t>(to_opmath(x[d]) / inv_scale);
      });
    });
  }
}

inline double step_value(const Tensor& step, const char* op, size_t i) {
  TL_CHECK(step.defined() && step.numel() == 1, op, ": state_steps[", i, "] must be a one-element tensor");
  return tensor_item(step).to_double();
}

// The steps the ops that count their own steps (the adaptive ones) were handed: one float tensor of one
// element per parameter, which they increment in place.
inline void check_steps(const char* op, TensorList params, TensorList state_steps) {
  TL_CHECK(state_steps.size() == params.size(), op, ": expected state_steps to hold one tensor per parameter (",
           params.size(), "), got ", state_steps.size());
  for (size_t i = 0; i < state_steps.size(); ++i) {
    const Tensor& s = state_steps[i];
    TL_CHECK(s.defined() && s.numel() == 1, op, ": state_steps[", i, "] must be a one-element tensor");
    TL_CHECK(s.scalar_type() == ScalarType::Float32 || s.scalar_type() == ScalarType::Float64, op,
             ": state_steps[", i, "] must be float32 or float64, got ", scalar_type_name(s.scalar_type()));
  }
}

// step += 1 on a one-element float32/float64 tensor, rounded to its dtype as the tensor op rounds;
// returns the new value.
inline double increment_step(const Tensor& step) {
  if (step.scalar_type() == ScalarType::Float32) {
    float* v = step.data_ptr<float>();
    *v = *v + 1.0f;
    return *v;
  }
  double* v = step.data_ptr<double>();
  *v = *v + 1.0;
  return *v;
}

}  // namespace tl::native::fused_optim
