// _lstm_layer and _lstm_layer_backward: one LSTM layer and direction as one kernel, what `lstm`
// (aten/native/composite/Rnn.cpp) runs for float32/float64 without projections.
//
// Why fused: as a composite each step was a dozen small ops (an 8K-element sigmoid is mostly call
// and autograd overhead) and the per-step h @ w_hh^T product split its rows across threads, so every
// step (three times in the backward) waited on a parallel region: on the loaded 2-core machine
// most of the LSTM's time was OpenMP threads spinning. Here the batch rows are split across threads
// once, and each thread runs the whole sequence for its rows (the recurrence never mixes rows), so a
// layer's forward or backward is one parallel region. The backward's w_hh gradient is one product
// over all steps after the loop, split over its rows.
//
// Layout: gates rows are [i | f | g | o], H each (PyTorch's order), stored activated: sigmoid(i),
// sigmoid(f), tanh(g), sigmoid(o). float64 uses torchlite's own transcendental functions (VecMath*.h, as
// the `sigmoid`/`tanh` ops); float32 float-lane versions of them (below), within a few ulp of those.
// The gates' float-lane exp (ExpFloatLanes.h) clamps its argument with branches; under GCC's default
// -ftrapping-math the clones without AVX-512 masks kept them as scalar code (as SoftmaxKernels.cpp found).
// Nothing here reads the floating-point exception flags; the results are the same bits.
#pragma GCC optimize("no-trapping-math")
#include <algorithm>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/cpu/ExpFloatLanes.h"
#include "aten/native/cpu/GemmOrLoop.h"
#include "aten/native/cpu/PanelGemm.h"
#include "aten/native/cpu/VecMathHyperbolic.h"
#include "aten/native/cpu/VecMathLoops.h"
#include "generated/ops/_lstm_layer.h"
#include "generated/ops/_lstm_layer_backward.h"
#include "generated/ops/contiguous.h"

namespace tl::native {

namespace {

// The checked sizes: T steps, N rows, H hidden units.
struct LayerShape {
  int64_t T, N, H;
};

LayerShape check_layer(const char* op, const Tensor& input_gates, const Tensor& h0, const Tensor& c0,
                       const Tensor& w_hh) {
  TL_CHECK(input_gates.dim() == 3, op, ": expected input_gates of 3 dimensions (T, N, 4H), got ", input_gates.sizes());
  TL_CHECK(h0.dim() == 2 && c0.dim() == 2, op, ": expected h0 and c0 of 2 dimensions (N, H), got ", h0.sizes(),
           " and ", c0.sizes());
  TL_CHECK(w_hh.dim() == 2, op, ": expected w_hh of 2 dimensions (4H, H), got ", w_hh.sizes());
  const int64_t T = input_gates.sizes()[0], N = input_gates.sizes()[1], H = w_hh.sizes()[1];
  TL_CHECK(w_hh.sizes()[0] == 4 * H && input_gates.sizes()[2] == 4 * H, op, ": expected w_hh of size (4H, H) and ",
           "input_gates of size (T, N, 4H), got ", w_hh.sizes(), " and ", input_gates.sizes());
  TL_CHECK(h0.sizes() == IntArrayRef({N, H}) && c0.sizes() == IntArrayRef({N, H}), op,
           ": expected h0 and c0 of size [", N, ", ", H, "], got ", h0.sizes(), " and ", c0.sizes());
  const ScalarType st = input_gates.dtype();
  TL_CHECK(st == ScalarType::Float32 || st == ScalarType::Float64, op, ": expected float32 or float64, got ",
           scalar_type_name(st));
  for (const Tensor* t : {&h0, &c0, &w_hh})
    TL_CHECK(t->dtype() == st, op, ": expected every tensor of dtype ", scalar_type_name(st), ", got ",
             scalar_type_name(t->dtype()));
  return {T, N, H};
}

constexpr int64_t kBlock = vecmath_detail::kBlock;

// x[0, n) = f(x) through a double buffer (the VecMath functions are written in double).
template <typename T, typename F>
void map_inplace(T* x, int64_t n, const F& f) {
  if constexpr (std::is_same_v<T, double>) {
    vecmath_detail::map1(x, x, n, f);
  } else {
    double buf[kBlock];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      char* p = reinterpret_cast<char*>(x + b);
      vecmath_detail::load<T>(p, sizeof(T), m, buf);
      vecmath_detail::map1(buf, buf, m, f);
      vecmath_detail::store<T>(buf, m, p, sizeof(T));
    }
  }
}
// float32 gates in float lanes: sigmoid and tanh from exp_float_lanes (ExpFloatLanes.h, <= 2 ulp), 16
// lanes per instruction with AVX-512, where the double-computed sigmoid_for_float/tanh_for_float (correctly
// rounded) took ~7% of the LSTM forward's time (perf, one thread). tanh(x) = sign(x) (1 - e) / (1 + e),
// e = exp(-2|x|): an absolute error of a few 1e-8 near 0 (the gates are added into the cell state, where
// absolute error is what counts; PyTorch's oneDNN LSTM uses approximated activations as well).
TL_TARGET_CLONES void sigmoid_lanes(float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + vec::exp_float_lanes(-x[i]));
}
TL_TARGET_CLONES void tanh_lanes(float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i], e = vec::exp_float_lanes(-2.0f * (a < 0 ? -a : a));
    const float t = (1.0f - e) / (1.0f + e);
    x[i] = a < 0 ? -t : a == a ? t : a;  // NaN stays NaN
  }
}
template <typename T>
void sigmoid_inplace(T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) sigmoid_lanes(x, n);
  else map_inplace(x, n, [](double v) TL_MATH_INLINE { return vec::sigmoid_f64(v); });
}
template <typename T>
void tanh_inplace(T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) tanh_lanes(x, n);
  else map_inplace(x, n, [](double v) TL_MATH_INLINE { return vec::tanh_f64(v); });
}

// Rows are independent through the whole recurrence: the grain keeps a chunk's share of the
// sequence's products worth a thread.
int64_t row_grain(const LayerShape& s) {
  const int64_t macs_per_row = std::max<int64_t>(1, s.T * 4 * s.H * s.H);
  return std::max<int64_t>(1, (int64_t(1) << 21) / macs_per_row);
}

// The step that ran before step t in processing order s (the state it read), or -1 for h0/c0.
inline int64_t prev_step(int64_t s, int64_t t, bool reverse) { return s == 0 ? -1 : (reverse ? t + 1 : t - 1); }

template <typename T>
void layer_forward(const T* xg, const T* h0, const T* c0, const T* w, T* out, T* cells, T* gates, const LayerShape& sh,
                   bool reverse) {
  const int64_t T_ = sh.T, N = sh.N, H = sh.H, G = 4 * H;
  // w_hh^T (H x 4H) packed once (PanelGemm.h): every step of every thread reads the same panels.
  std::vector<T> wt(static_cast<size_t>(panel_packed_size<T>(H, G)));
  pack_panels<T>(H, G, w, 1, H, wt.data());
  parallel_for(0, N, row_grain(sh), [&](int64_t r0, int64_t r1) {
    const int64_t n = r1 - r0;
    std::vector<T> tc(static_cast<size_t>(H));
    for (int64_t s = 0; s < T_; ++s) {
      const int64_t t = reverse ? T_ - 1 - s : s, p = prev_step(s, t, reverse);
      T* g = gates + (t * N + r0) * G;
      const T* hp = p < 0 ? h0 + r0 * H : out + (p * N + r0) * H;
      const T* cp = p < 0 ? c0 + r0 * H : cells + (p * N + r0) * H;
      panel_gemm(n, G, H, hp, H, wt.data(), xg + (t * N + r0) * G, G, g, G);  // g = x_t gates + h_prev @ w_hh^T
      T* c = cells + (t * N + r0) * H;
      T* h = out + (t * N + r0) * H;
      for (int64_t r = 0; r < n; ++r) {
        T* gr = g + r * G;
        sigmoid_inplace(gr, 2 * H);
        tanh_inplace(gr + 2 * H, H);
        sigmoid_inplace(gr + 3 * H, H);
        const T *gi = gr, *gf = gr + H, *gg = gr + 2 * H, *go = gr + 3 * H;
        T* cr = c + r * H;
        const T* cpr = cp + r * H;
        for (int64_t j = 0; j < H; ++j) cr[j] = gf[j] * cpr[j] + gi[j] * gg[j];
        std::copy(cr, cr + H, tc.data());
        tanh_inplace(tc.data(), H);
        T* hr = h + r * H;
        for (int64_t j = 0; j < H; ++j) hr[j] = go[j] * tc[j];
      }
    }
  });
}

// dgates (T, N, 4H), dh0, dc0 (N, H): the pass back through the steps, rows split across threads.
template <typename T>
void layer_backward_steps(const T* gout, const T* gcells, const T* h0, const T* c0, const T* w, const T* cells,
                          const T* gates, T* dgates, T* dh0, T* dc0, const LayerShape& sh, bool reverse) {
  (void)h0;
  const int64_t T_ = sh.T, N = sh.N, H = sh.H, G = 4 * H;
  std::vector<T> wp(static_cast<size_t>(panel_packed_size<T>(G, H)));  // w_hh (4H x H) packed once
  pack_panels<T>(G, H, w, H, 1, wp.data());
  parallel_for(0, N, row_grain(sh), [&](int64_t r0, int64_t r1) {
    const int64_t n = r1 - r0;
    std::vector<T> dh_next(static_cast<size_t>(n * H), T(0)), dc_next(static_cast<size_t>(n * H), T(0));
    std::vector<T> tc(static_cast<size_t>(H));
    for (int64_t s = T_ - 1; s >= 0; --s) {
      const int64_t t = reverse ? T_ - 1 - s : s, p = prev_step(s, t, reverse);
      const T* cp = p < 0 ? c0 + r0 * H : cells + (p * N + r0) * H;
      T* dg = dgates + (t * N + r0) * G;
      for (int64_t r = 0; r < n; ++r) {
        const int64_t row = (t * N + r0 + r);
        const T* gr = gates + row * G;
        const T *gi = gr, *gf = gr + H, *gg = gr + 2 * H, *go = gr + 3 * H;
        const T* c = cells + row * H;
        std::copy(c, c + H, tc.data());
        tanh_inplace(tc.data(), H);
        const T* dout = gout + row * H;
        const T* dcell = gcells + row * H;
        T* dhn = dh_next.data() + r * H;
        T* dcn = dc_next.data() + r * H;
        const T* cpr = cp + r * H;
        T* d = dg + r * G;
        for (int64_t j = 0; j < H; ++j) {
          const T dh = dout[j] + dhn[j];
          const T th = tc[j], i = gi[j], f = gf[j], gv = gg[j], o = go[j];
          const T dc = dcell[j] + dcn[j] + dh * o * (T(1) - th * th);
          d[j] = dc * gv * i * (T(1) - i);
          d[H + j] = dc * cpr[j] * f * (T(1) - f);
          d[2 * H + j] = dc * i * (T(1) - gv * gv);
          d[3 * H + j] = dh * th * o * (T(1) - o);
          dcn[j] = dc * f;
        }
      }
      panel_gemm(n, H, G, dg, G, wp.data(), nullptr, 0, dh_next.data(), H);  // dh = dgates @ w_hh
    }
    if (dh0) std::copy(dh_next.begin(), dh_next.end(), dh0 + r0 * H);
    if (dc0) std::copy(dc_next.begin(), dc_next.end(), dc0 + r0 * H);
  });
}

// dw_hh = sum over steps of dgates[t]^T @ h_prev[t]: the steps after the first read out[] rows that lie
// one after another, so one product over (T - 1) * N rows, plus the first step's with h0.
template <typename T>
void layer_weight_grad(const T* dgates, const T* h0, const T* out, T* dw, const LayerShape& sh, bool reverse) {
  const int64_t T_ = sh.T, N = sh.N, H = sh.H, G = 4 * H;
  // forward: step t >= 1 reads out[t - 1]; reverse: step t <= T - 2 reads out[t + 1].
  const T* dg_rest = dgates + (reverse ? 0 : N) * G;
  const T* h_rest = out + (reverse ? N : 0) * H;
  const T* dg_first = dgates + (reverse ? (T_ - 1) * N : 0) * G;
  const int64_t rest = (T_ - 1) * N;
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 20) / std::max<int64_t>(1, T_ * N * H));
  parallel_for(0, G, grain, [&](int64_t g0, int64_t g1) {
    T* d = dw + g0 * H;
    gemm_or_loop<T>(true, false, g1 - g0, H, N, dg_first + g0, G, h0, H, false, d, H);
    if (rest > 0) gemm_or_loop<T>(true, false, g1 - g0, H, rest, dg_rest + g0, G, h_rest, H, true, d, H);
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lstm_layer_kernel(const Tensor& input_gates, const Tensor& h0, const Tensor& c0,
                                                     const Tensor& w_hh, bool reverse) {
  const LayerShape sh = check_layer("_lstm_layer", input_gates, h0, c0, w_hh);
  const ScalarType st = input_gates.dtype();
  Tensor out = empty_tensor({sh.T, sh.N, sh.H}, st, input_gates.device());
  Tensor cells = empty_tensor({sh.T, sh.N, sh.H}, st, input_gates.device());
  Tensor gates = empty_tensor({sh.T, sh.N, 4 * sh.H}, st, input_gates.device());
  if (input_gates.is_meta() || out.numel() == 0) return {out, cells, gates};
  const Tensor xg = contiguous(input_gates), h = contiguous(h0), c = contiguous(c0), w = contiguous(w_hh);
  TL_DISPATCH_SWITCH(st, "_lstm_layer", TL_DISPATCH_CASE(Float32, float, [&] {
                       layer_forward<scalar_t>(xg.data_ptr<scalar_t>(), h.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(),
                                               w.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                                               cells.data_ptr<scalar_t>(), gates.data_ptr<scalar_t>(), sh, reverse);
                     }) TL_DISPATCH_CASE(Float64, double, [&] {
                       layer_forward<scalar_t>(xg.data_ptr<scalar_t>(), h.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(),
                                               w.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                                               cells.data_ptr<scalar_t>(), gates.data_ptr<scalar_t>(), sh, reverse);
                     }));
  return {out, cells, gates};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstm_layer_backward_kernel(
    const Tensor& grad_output, const Tensor& grad_cells, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
    const Tensor& output, const Tensor& cells, const Tensor& gates, bool reverse, std::array<bool, 4> output_mask) {
  const LayerShape sh = check_layer("_lstm_layer_backward", gates, h0, c0, w_hh);
  const ScalarType st = gates.dtype();
  const DimVector seq{sh.T, sh.N, sh.H};
  for (const Tensor* t : {&grad_output, &grad_cells, &output, &cells}) {
    TL_CHECK(t->sizes() == IntArrayRef(seq), "_lstm_layer_backward: expected gradients and saved states of size ",
             IntArrayRef(seq), ", got ", t->sizes());
    TL_CHECK(t->dtype() == st, "_lstm_layer_backward: expected every tensor of dtype ", scalar_type_name(st), ", got ",
             scalar_type_name(t->dtype()));
  }
  const Device dev = gates.device();
  Tensor dg = empty_tensor(gates.sizes(), st, dev), dh0 = empty_tensor(h0.sizes(), st, dev);
  Tensor dc0 = empty_tensor(c0.sizes(), st, dev), dw = empty_tensor(w_hh.sizes(), st, dev);
  auto masked = [&] {
    return std::tuple<Tensor, Tensor, Tensor, Tensor>{output_mask[0] ? dg : Tensor(), output_mask[1] ? dh0 : Tensor(),
                                                      output_mask[2] ? dc0 : Tensor(), output_mask[3] ? dw : Tensor()};
  };
  if (gates.is_meta()) return masked();
  if (sh.T == 0 || sh.N == 0 || sh.H == 0) {  // nothing ran: the state passes through unchanged
    TL_DISPATCH_SWITCH(st, "_lstm_layer_backward", TL_DISPATCH_CASE(Float32, float, [&] {
                         std::fill_n(dh0.data_ptr<scalar_t>(), dh0.numel(), scalar_t(0));
                         std::fill_n(dc0.data_ptr<scalar_t>(), dc0.numel(), scalar_t(0));
                         std::fill_n(dw.data_ptr<scalar_t>(), dw.numel(), scalar_t(0));
                       }) TL_DISPATCH_CASE(Float64, double, [&] {
                         std::fill_n(dh0.data_ptr<scalar_t>(), dh0.numel(), scalar_t(0));
                         std::fill_n(dc0.data_ptr<scalar_t>(), dc0.numel(), scalar_t(0));
                         std::fill_n(dw.data_ptr<scalar_t>(), dw.numel(), scalar_t(0));
                       }));
    return masked();
  }
  const Tensor go = contiguous(grad_output), gc = contiguous(grad_cells), h = contiguous(h0), c = contiguous(c0);
  const Tensor w = contiguous(w_hh), o = contiguous(output), cs = contiguous(cells), g = contiguous(gates);
  auto run = [&](auto zero) {
    using scalar_t = decltype(zero);
    layer_backward_steps<scalar_t>(go.data_ptr<scalar_t>(), gc.data_ptr<scalar_t>(), h.data_ptr<scalar_t>(),
                                   c.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), cs.data_ptr<scalar_t>(),
                                   g.data_ptr<scalar_t>(), dg.data_ptr<scalar_t>(), dh0.data_ptr<scalar_t>(),
                                   dc0.data_ptr<scalar_t>(), sh, reverse);
    if (output_mask[3])
      layer_weight_grad<scalar_t>(dg.data_ptr<scalar_t>(), h.data_ptr<scalar_t>(), o.data_ptr<scalar_t>(),
                                  dw.data_ptr<scalar_t>(), sh, reverse);
  };
  if (st == ScalarType::Float32) run(float(0));
  else run(double(0));
  return masked();
}

}  // namespace tl::native
