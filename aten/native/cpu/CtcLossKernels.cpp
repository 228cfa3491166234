// ctc_loss's kernels: the Connectionist Temporal Classification negative log-likelihood and its gradient.
//
// For a target l of length L the extended target l' inserts the blank before, between and after the labels
// (2L + 1 symbols: even s are blanks, odd s are l[s / 2]). The forward variables alpha[t][s] (log-space, one
// (T, 2 max L + 1) slab of log_alpha per batch element) sum over the alignments of the first t + 1 inputs
// that end at l'[s]; the backward variables beta[t][s] those of inputs t.. that start there. alpha * beta
// collected per label gives the gradient. Batch elements are independent: the work is split by batch
// element, each thread owning its slab of log_alpha and its (T, C) slice of the gradient.
//
// The gradient is PyTorch's: exp(log_probs) - exp(log(alpha beta) + nll - log_probs), times the incoming
// gradient. The first term is not part of the derivative with respect to log_probs; it is the derivative
// through a log_softmax that produced them (whose backward subtracts exp(log_probs) * sum), as PyTorch
// assumes. Labels are checked to lie in [0, C) (PyTorch reads them unchecked).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/CtcLoss.h"
#include "generated/ops/_ctc_loss.h"
#include "generated/ops/_ctc_loss_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/to.h"

namespace tl::native {
namespace {

constexpr const char* kWhere = " (while checking arguments for ctc_loss_allocate_outputs)";

// Where each batch element's target starts in `targets`, its stride, and the longest target length.
struct TargetLayout {
  std::vector<int64_t> offsets;
  int64_t stride = 0;
  int64_t max_length = 0;
};

// PyTorch's argument checks, in its order; every length is checked before any is used as an index.
TargetLayout check_arguments(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                             IntArrayRef target_lengths, int64_t blank) {
  TL_CHECK(log_probs.numel() > 0, "ctc_loss: log_probs tensor must not be empty");
  if (targets.scalar_type() != ScalarType::Int64)
    TL_CHECK(targets.scalar_type() == ScalarType::Int32,
             "ctc_loss: Expected tensor for argument #2 'targets' to have scalar type Int; but got torch.",
             legacy_type_name(targets.scalar_type()), " instead", kWhere);
  TL_CHECK(log_probs.dim() == 3, "ctc_loss: Expected 3-dimensional tensor, but got ", log_probs.dim(),
           "-dimensional tensor for argument #1 'log_probs'", kWhere);
  TL_CHECK(targets.dim() >= 1 && targets.dim() <= 2, "ctc_loss: Expected 1 to 2 dimensions, but got ",
           targets.dim(), "-dimensional tensor for argument #2 'targets'", kWhere);
  const int64_t batch = log_probs.sizes()[1], num_labels = log_probs.sizes()[2];
  TL_CHECK(blank >= 0 && blank < num_labels, "ctc_loss: blank must be in label range");
  TL_CHECK(static_cast<int64_t>(input_lengths.size()) == batch, "ctc_loss: input_lengths must be of size batch_size");
  TL_CHECK(static_cast<int64_t>(target_lengths.size()) == batch, "ctc_loss: target_lengths must be of size batch_size");
  TargetLayout layout;
  layout.offsets.resize(batch);
  int64_t pos = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = target_lengths[b];
    TL_CHECK(length >= 0, "ctc_loss: Expected target_lengths to have value at least 0, but got value ", length, kWhere);
    layout.offsets[b] = targets.dim() == 1 ? pos : b * targets.strides()[0];
    // saturates instead of overflowing: such a sum fails the size check below
    if (__builtin_add_overflow(pos, length, &pos)) pos = std::numeric_limits<int64_t>::max();
    layout.max_length = std::max(layout.max_length, length);
  }
  if (targets.dim() == 1) {
    layout.stride = targets.strides()[0];
    TL_CHECK(targets.sizes()[0] == pos, "ctc_loss: Expected tensor to have size ", pos,
             " at dimension 0, but got size ", targets.sizes()[0], " for argument #2 'targets'", kWhere);
  } else {
    layout.stride = targets.strides()[1];
    TL_CHECK(targets.sizes()[0] == batch, "ctc_loss: Expected tensor to have size ", batch,
             " at dimension 0, but got size ", targets.sizes()[0], " for argument #2 'targets'", kWhere);
    TL_CHECK(targets.sizes()[1] >= layout.max_length, "ctc_loss: Expected tensor to have size at least ",
             layout.max_length, " at dimension 1, but got size ", targets.sizes()[1], " for argument #2 'targets'",
             kWhere);
  }
  const int64_t max_input = log_probs.sizes()[0];
  for (int64_t b = 0; b < batch; ++b) {
    TL_CHECK(input_lengths[b] >= 0, "ctc_loss: Expected input_lengths to have value at least 0, but got value ",
             input_lengths[b], kWhere);
    TL_CHECK(input_lengths[b] <= max_input, "ctc_loss: Expected input_lengths to have value at most ", max_input,
             ", but got value ", input_lengths[b], kWhere);
  }
  return layout;
}

// The labels each length covers must index log_probs' last dimension.
template <typename index_t>
void check_labels(const Tensor& targets, const TargetLayout& layout, IntArrayRef target_lengths, int64_t num_labels) {
  const index_t* tg = targets.data_ptr<index_t>();
  for (size_t b = 0; b < layout.offsets.size(); ++b)
    for (int64_t i = 0; i < target_lengths[b]; ++i) {
      const int64_t label = tg[layout.offsets[b] + i * layout.stride];
      TL_CHECK(label >= 0 && label < num_labels, "ctc_loss: target ", label, " (batch element ", b, ", position ",
               i, ") is out of the label range [0, ", num_labels, ")");
    }
}

// Reads (t, c) of batch element b of a (T, N, C) tensor of any strides.
template <typename T>
struct TimeLabel {
  const T* data;
  int64_t t_stride, c_stride;
  T operator()(int64_t t, int64_t c) const { return data[t * t_stride + c * c_stride]; }
};

// log(exp(a) + exp(b) + exp(c)) without overflow; -inf when all are -inf.
template <typename T>
T log_sum_exp3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == -std::numeric_limits<T>::infinity()) m = 0;  // avoids -inf - -inf
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}

template <typename scalar_t, typename index_t>
void ctc_forward(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                 int64_t blank, const TargetLayout& layout, Tensor& nll, Tensor& log_alpha) {
  constexpr scalar_t neginf = -std::numeric_limits<scalar_t>::infinity();
  const int64_t batch = log_probs.sizes()[1], max_t = log_probs.sizes()[0], width = 2 * layout.max_length + 1;
  const scalar_t* lp_data = log_probs.data_ptr<scalar_t>();
  const index_t* tg = targets.data_ptr<index_t>();
  scalar_t* nll_data = nll.data_ptr<scalar_t>();
  scalar_t* alpha_data = log_alpha.data_ptr<scalar_t>();
  const auto lp_strides = log_probs.strides();
  parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const TimeLabel<scalar_t> lp{lp_data + b * lp_strides[1], lp_strides[0], lp_strides[2]};
      const index_t* target = tg + layout.offsets[b];
      const int64_t input_length = input_lengths[b], target_length = target_lengths[b];
      auto prime = [&](int64_t s) -> int64_t { return s % 2 == 0 ? blank : target[(s / 2) * layout.stride]; };
      scalar_t* alpha = alpha_data + b * max_t * width;
      std::fill(alpha, alpha + max_t * width, neginf);  // unused entries read -inf, not garbage
      if (input_length == 0) {  // only the empty target fits no input
        nll_data[b] = target_length == 0 ? -scalar_t(0) : -neginf;
        continue;
      }
      alpha[0] = lp(0, blank);
      if (target_length > 0) alpha[1] = lp(0, prime(1));
      for (int64_t t = 1; t < input_length; ++t) {
        const scalar_t* prev = alpha + (t - 1) * width;
        scalar_t* cur = alpha + t * width;
        for (int64_t s = 0; s < 2 * target_length + 1; ++s) {
          const int64_t label = prime(s);
          const scalar_t a2 = s > 0 ? prev[s - 1] : neginf;
          // a label may be reached from the one before the blank in between unless the two are equal
          const scalar_t a3 = (s > 1 && prime(s - 2) != label) ? prev[s - 2] : neginf;
          cur[s] = log_sum_exp3(prev[s], a2, a3) + lp(t, label);
        }
      }
      // The alignments end on the last label or the blank after it.
      const scalar_t* last = alpha + (input_length - 1) * width;
      const scalar_t l1 = last[2 * target_length];
      const scalar_t l2 = target_length > 0 ? last[2 * target_length - 1] : neginf;
      nll_data[b] = -log_sum_exp3(l1, l2, neginf);
    }
  });
}

template <typename scalar_t, typename index_t>
void ctc_backward(const Tensor& grad_output, const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                  IntArrayRef target_lengths, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                  bool zero_infinity, const TargetLayout& layout, Tensor& grad) {
  constexpr scalar_t neginf = -std::numeric_limits<scalar_t>::infinity();
  const int64_t max_t = log_probs.sizes()[0], batch = log_probs.sizes()[1], num_labels = log_probs.sizes()[2];
  const scalar_t* lp_data = log_probs.data_ptr<scalar_t>();
  const index_t* tg = targets.data_ptr<index_t>();
  const scalar_t* alpha_data = log_alpha.data_ptr<scalar_t>();
  const scalar_t* nll_data = nll.data_ptr<scalar_t>();
  const scalar_t* go_data = grad_output.data_ptr<scalar_t>();
  scalar_t* grad_data = grad.data_ptr<scalar_t>();  // contiguous (T, N, C)
  const auto lp_strides = log_probs.strides();
  const auto la_strides = log_alpha.strides();
  parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> beta;
    for (int64_t b = begin; b < end; ++b) {
      const TimeLabel<scalar_t> lp{lp_data + b * lp_strides[1], lp_strides[0], lp_strides[2]};
      const TimeLabel<scalar_t> alpha{alpha_data + b * la_strides[0], la_strides[1], la_strides[2]};
      auto g = [&](int64_t t, int64_t c) -> scalar_t& { return grad_data[(t * batch + b) * num_labels + c]; };
      const scalar_t loss = nll_data[b * nll.strides()[0]];
      const int64_t input_length = input_lengths[b], target_length = target_lengths[b];
      if (zero_infinity && loss == std::numeric_limits<scalar_t>::infinity()) {
        for (int64_t t = 0; t < max_t; ++t) std::fill(&g(t, 0), &g(t, 0) + num_labels, scalar_t(0));
        continue;
      }
      const index_t* target = tg + layout.offsets[b];
      auto prime = [&](int64_t s) -> int64_t { return s % 2 == 0 ? blank : target[(s / 2) * layout.stride]; };
      // g(t, c) collects log sum over s with l'[s] = c of alpha[t][s] beta[t][s]; starts as log 0
      for (int64_t t = 0; t < max_t; ++t) std::fill(&g(t, 0), &g(t, 0) + num_labels, neginf);
      auto collect = [&](int64_t t, int64_t c, scalar_t log_ab) {
        scalar_t& acc = g(t, c);
        if (acc == neginf) {
          acc = log_ab;
        } else {
          const scalar_t m = std::max(acc, log_ab);
          acc = std::log(std::exp(acc - m) + std::exp(log_ab - m)) + m;
        }
      };
      const int64_t width = 2 * target_length + 1;
      beta.assign(static_cast<size_t>(std::max<int64_t>(input_length, 1) * width), neginf);
      if (input_length > 0) {
        const int64_t t = input_length - 1;
        scalar_t* last = beta.data() + t * width;
        last[2 * target_length] = lp(t, blank);
        // assigned, not accumulated, as PyTorch: a last label equal to the blank overwrites the blank's sum
        g(t, blank) = alpha(t, 2 * target_length) + last[2 * target_length];
        if (target_length > 0) {
          const int64_t label = prime(2 * target_length - 1);
          last[2 * target_length - 1] = lp(t, label);
          g(t, label) = alpha(t, 2 * target_length - 1) + last[2 * target_length - 1];
        }
      }
      for (int64_t t = input_length - 2; t >= 0; --t) {
        const scalar_t* next = beta.data() + (t + 1) * width;
        scalar_t* cur = beta.data() + t * width;
        for (int64_t s = 2 * target_length; s >= 0; --s) {
          const int64_t label = prime(s);
          const scalar_t b2 = s < 2 * target_length ? next[s + 1] : neginf;
          const scalar_t b3 = (s < 2 * target_length - 1 && prime(s + 2) != label) ? next[s + 2] : neginf;
          cur[s] = log_sum_exp3(next[s], b2, b3) + lp(t, label);
          collect(t, label, alpha(t, s) + cur[s]);
        }
      }
      const scalar_t go = go_data[b * grad_output.strides()[0]];
      for (int64_t t = 0; t < input_length; ++t)
        for (int64_t c = 0; c < num_labels; ++c) {
          scalar_t& r = g(t, c);
          const scalar_t l = lp(t, c);
          r = (std::exp(l) - std::exp(r + loss - l)) * go;
        }
      for (int64_t t = input_length; t < max_t; ++t) std::fill(&g(t, 0), &g(t, 0) + num_labels, scalar_t(0));
    }
  });
}

// Calls fn(scalar_t{}, index_t{}) for log_probs' float type and targets' index type.
template <typename F>
void dispatch(const Tensor& log_probs, const Tensor& targets, F&& fn) {
  auto with_index = [&](auto scalar_tag) {
    if (targets.scalar_type() == ScalarType::Int64) fn(scalar_tag, int64_t{});
    else fn(scalar_tag, int32_t{});
  };
  TL_DISPATCH_SWITCH(log_probs.scalar_type(), "ctc_loss_cpu",
                     TL_DISPATCH_CASE(Float32, float, [&] { with_index(scalar_t{}); })
                         TL_DISPATCH_CASE(Float64, double, [&] { with_index(scalar_t{}); }));
}

}  // namespace

std::vector<int64_t> ctc_lengths(const Tensor& lengths, const char* name) {
  TL_CHECK(is_integral_type(lengths.scalar_type(), false), "ctc_loss: ", name, " must be integral");
  const Tensor values = tl::contiguous(tl::to(lengths, Device(), ScalarType::Int64));
  const int64_t* data = values.data_ptr<int64_t>();
  return std::vector<int64_t>(data, data + values.numel());
}

std::tuple<Tensor, Tensor> _ctc_loss_kernel(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                                            IntArrayRef target_lengths, int64_t blank, bool zero_infinity) {
  (void)zero_infinity;  // only the gradient and ctc_loss's result read it
  Tensor nll, log_alpha;
  dispatch(log_probs, targets, [&](auto scalar_tag, auto index_tag) {
    using scalar_t = decltype(scalar_tag);
    using index_t = decltype(index_tag);
    const TargetLayout layout = check_arguments(log_probs, targets, input_lengths, target_lengths, blank);
    const int64_t batch = log_probs.sizes()[1], max_t = log_probs.sizes()[0];
    nll = tl::empty({batch}, log_probs.scalar_type(), log_probs.device());
    log_alpha = tl::empty({batch, max_t, 2 * layout.max_length + 1}, log_probs.scalar_type(), log_probs.device());
    if (log_probs.is_meta()) return;
    check_labels<index_t>(targets, layout, target_lengths, log_probs.sizes()[2]);
    ctc_forward<scalar_t, index_t>(log_probs, targets, input_lengths, target_lengths, blank, layout, nll, log_alpha);
  });
  return {nll, log_alpha};
}

std::tuple<Tensor, Tensor> _ctc_loss_tensor_kernel(const Tensor& log_probs, const Tensor& targets,
                                                   const Tensor& input_lengths, const Tensor& target_lengths,
                                                   int64_t blank, bool zero_infinity) {
  const std::vector<int64_t> il = ctc_lengths(input_lengths, "input_lengths");
  const std::vector<int64_t> tgl = ctc_lengths(target_lengths, "target_lengths");
  return _ctc_loss_kernel(log_probs, targets, il, tgl, blank, zero_infinity);
}

Tensor _ctc_loss_backward_kernel(const Tensor& grad_output, const Tensor& log_probs, const Tensor& targets,
                                 IntArrayRef input_lengths, IntArrayRef target_lengths, const Tensor& neg_log_likelihood,
                                 const Tensor& log_alpha, int64_t blank, bool zero_infinity) {
  Tensor grad;
  dispatch(log_probs, targets, [&](auto scalar_tag, auto index_tag) {
    using scalar_t = decltype(scalar_tag);
    using index_t = decltype(index_tag);
    // PyTorch's backward reads log_probs' three sizes first (an IndexError below 3 dimensions) and
    // returns an empty gradient for an empty log_probs before reading anything else.
    TL_CHECK_INDEX(log_probs.dim() >= 3, "_ctc_loss_backward: Dimension out of range (log_probs has ",
                   log_probs.dim(), " dimensions, expected 3)");
    if (log_probs.numel() == 0) {
      grad = tl::empty(log_probs.sizes(), log_probs.scalar_type(), log_probs.device());
      return;
    }
    const TargetLayout layout = check_arguments(log_probs, targets, input_lengths, target_lengths, blank);
    const int64_t max_t = log_probs.sizes()[0], batch = log_probs.sizes()[1];
    // PyTorch reads these without checking their sizes; torchlite checks them before reading.
    TL_CHECK(grad_output.dim() == 1 && grad_output.sizes()[0] == batch && neg_log_likelihood.dim() == 1 &&
                 neg_log_likelihood.sizes()[0] == batch,
             "_ctc_loss_backward: expected grad and neg_log_likelihood of size (", batch, "), but got ",
             grad_output.sizes(), " and ", neg_log_likelihood.sizes());
    TL_CHECK(log_alpha.dim() == 3 && log_alpha.sizes()[0] == batch && log_alpha.sizes()[1] == max_t &&
                 log_alpha.sizes()[2] >= 2 * layout.max_length + 1,
             "_ctc_loss_backward: expected log_alpha of size (", batch, ", ", max_t, ", ",
             2 * layout.max_length + 1, "), but got ", log_alpha.sizes());
    for (const Tensor* t : {&grad_output, &neg_log_likelihood, &log_alpha})
      TL_CHECK(t->scalar_type() == log_probs.scalar_type(), "_ctc_loss_backward: expected scalar type ",
               legacy_type_name(log_probs.scalar_type()), " but found ", legacy_type_name(t->scalar_type()));
    grad = tl::empty(log_probs.sizes(), log_probs.scalar_type(), log_probs.device());
    if (log_probs.is_meta()) return;
    check_labels<index_t>(targets, layout, target_lengths, log_probs.sizes()[2]);
    ctc_backward<scalar_t, index_t>(grad_output, log_probs, targets, input_lengths, target_lengths,
                                    neg_log_likelihood, log_alpha, blank, zero_infinity, layout, grad);
  });
  return grad;
}

Tensor _ctc_loss_backward_tensor_kernel(const Tensor& grad_output, const Tensor& log_probs, const Tensor& targets,
                                        const Tensor& input_lengths, const Tensor& target_lengths,
                                        const Tensor& neg_log_likelihood, const Tensor& log_alpha, int64_t blank,
                                        bool zero_infinity) {
  const std::vector<int64_t> il = ctc_lengths(input_lengths, "input_lengths");
  const std::vector<int64_t> tgl = ctc_lengths(target_lengths, "target_lengths");
  return _ctc_loss_backward_kernel(grad_output, log_probs, targets, il, tgl, neg_log_likelihood, log_alpha, blank,
                                   zero_infinity);
}

}  // namespace tl::native
