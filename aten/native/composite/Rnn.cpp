// Recurrent ops: the cells (rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell) and the whole-sequence
// lstm / gru / rnn_tanh / rnn_relu (multi-layer, bidirectional, batch_first, dropout between layers),
// as PyTorch's CPU ops are: composites whose gradient (twice differentiable) comes from the ops
// they call. Each layer and direction projects the whole sequence through W_ih with one GEMM
// (both biases folded in where the cell allows), then runs one GEMM with W_hh per step and the
// cell's gate arithmetic on the (N, gates) block of that step. The packed overloads (`.data`) run the
// same steps on a shrinking batch: step t holds the batch_sizes[t] sequences still running.
#include <algorithm>
#include <string_view>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_lstm_layer.h"
#include "generated/ops/add.h"
#include "generated/ops/addmm.h"
#include "generated/ops/cat.h"
#include "generated/ops/chunk.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/gru.h"
#include "generated/ops/gru_cell.h"
#include "generated/ops/lstm.h"
#include "generated/ops/lstm_cell.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/native_dropout.h"
#include "generated/ops/relu.h"
#include "generated/ops/reshape.h"
#include "generated/ops/rnn_relu.h"
#include "generated/ops/rnn_relu_cell.h"
#include "generated/ops/rnn_tanh.h"
#include "generated/ops/rnn_tanh_cell.h"
#include "generated/ops/select.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/split_with_sizes.h"
#include "generated/ops/stack.h"
#include "generated/ops/sub.h"
#include "generated/ops/t.h"
#include "generated/ops/tanh.h"
#include "generated/ops/to.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unbind.h"

namespace tl::native {

namespace {

enum class Cell { Tanh, Relu, Lstm, Gru };

int64_t gate_count(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }

// x @ w^T (+ b), x 2-D. 16-bit inputs with a bias are computed in float32 and rounded once, as
// PyTorch's addmm rounds (torchlite's 16-bit addmm rounds the product before adding the bias).
Tensor linear2d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  if (!b || !b->defined()) return mm(x, t(w));
  const ScalarType st = x.scalar_type();
  if (st != ScalarType::Float16 && st != ScalarType::BFloat16) return addmm(*b, x, t(w));
  const ScalarType f = ScalarType::Float32;
  return to(addmm(to(*b, f), to(x, f), t(to(w, f))), st);
}

// LSTM and GRU apply their gate functions in place in PyTorch, so integer inputs fail there.
void check_gate_dtype(const char* op, Cell cell, ScalarType dtype) {
  if (cell != Cell::Lstm && cell != Cell::Gru) return;
  TL_CHECK(is_floating_type(dtype), op, ": result type Float can't be cast to the desired output type ",
           legacy_type_name(dtype));
}

// PyTorch's check_rnn_cell_forward_input / _hidden, messages prefixed by the op.
void check_cell(const char* op, const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                int64_t gates, std::string_view label) {
  // PyTorch reads input.size(1) first: a 0-D or 1-D input is its IndexError.
  if (input.dim() < 2)
    throw IndexError(str(op, ": Dimension out of range (expected to be in range of [", -std::max<int64_t>(input.dim(), 1),
                         ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 1)"));
  TL_CHECK(input.dim() == 2, op, ": Expected input to be 2D, got ", input.dim(), "D instead");
  TL_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2, op, ": expected 2-D weights, got w_ih ", w_ih.sizes(), " and w_hh ",
           w_hh.sizes());
  TL_CHECK(input.sizes()[input.dim() - 1] == w_ih.sizes()[1], op, ": input has inconsistent input_size: got ",
           input.sizes()[input.dim() - 1], " expected ", w_ih.sizes()[1]);
  TL_CHECK(hx.dim() == input.dim(), op, ": Expected ", label, " to be ", input.dim(), "D, got ", hx.dim(), "D instead");
  if (input.dim() == 2)
    TL_CHECK(input.sizes()[0] == hx.sizes()[0], op, ": Input batch size ", input.sizes()[0], " doesn't match ", label,
             " batch size ", hx.sizes()[0]);
  const int64_t hidden = w_hh.sizes()[1];
  TL_CHECK(hx.sizes()[hx.dim() - 1] == hidden, op, ": ", label, " has inconsistent hidden_size: got ",
           hx.sizes()[hx.dim() - 1], ", expected ", hidden);
  TL_CHECK(w_ih.sizes()[0] == gates * hidden && w_hh.sizes()[0] == gates * hidden, op,
           ": expected w_ih and w_hh with ", gates * hidden, " rows (", gates, " gates of hidden size ", hidden,
           "), got ", w_ih.sizes(), " and ", w_hh.sizes());
}

// One step from precomputed input gates `xg` (N, G * H: x W_ih^T + b_ih, plus b_hh where it can be
// folded in) and the state. `b_hn` is GRU's hidden bias of the new gate (kept inside r * (.)).
// Returns (h, c) (c undefined except for LSTM).
std::pair<Tensor, Tensor> cell_step(Cell cell, const Tensor& xg, const Tensor& h, const Tensor& c, const Tensor& w_hh,
                                    const std::optional<Tensor>& b_hh, const std::optional<Tensor>& w_hr) {
  switch (cell) {
    case Cell::Tanh:
      return {tanh(add(xg, linear2d(h, w_hh, b_hh))), Tensor()};
    case Cell::Relu:
      return {relu(add(xg, linear2d(h, w_hh, b_hh))), Tensor()};
    case Cell::Lstm: {
      const std::vector<Tensor> g = chunk(add(xg, linear2d(h, w_hh, b_hh)), 4, 1);
      const Tensor cy = add(mul(sigmoid(g[1]), c), mul(sigmoid(g[0]), tanh(g[2])));
      Tensor hy = mul(sigmoid(g[3]), tanh(cy));
      if (w_hr && w_hr->defined()) hy = mm(hy, t(*w_hr));
      return {hy, cy};
    }
    case Cell::Gru: {
      const std::vector<Tensor> xs = chunk(xg, 3, 1);
      const std::vector<Tensor> hs = chunk(linear2d(h, w_hh, b_hh), 3, 1);
      const Tensor r = sigmoid(add(xs[0], hs[0]));
      const Tensor z = sigmoid(add(xs[1], hs[1]));
      const Tensor n = tanh(add(xs[2], mul(r, hs[2])));
      return {add(mul(sub(h, n), z), n), Tensor()};
    }
  }
  return {};
}

// The cells on one step of a 2-D (batch, feature) input.
std::pair<Tensor, Tensor> run_cell(const char* op, Cell cell, const Tensor& input, const Tensor& hx, const Tensor& cx,
                                   const Tensor& w_ih, const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                   const std::optional<Tensor>& b_hh) {
  check_cell(op, input, hx, w_ih, w_hh, gate_count(cell), cell == Cell::Lstm ? "hx[0]" : "hidden0");
  if (cell == Cell::Lstm) check_cell(op, input, cx, w_ih, w_hh, 4, "hx[1]");
  check_gate_dtype(op, cell, input.scalar_type());
  return cell_step(cell, linear2d(input, w_ih, b_ih), hx, cx, w_hh, b_hh, std::nullopt);
}

struct LayerParams {
  Tensor w_ih, w_hh;
  std::optional<Tensor> b_ih, b_hh, w_hr;
};

// PyTorch's layout of `params`: per layer, per direction, w_ih, w_hh, [b_ih, b_hh], [w_hr].
std::vector<LayerParams> unpack_params(const char* op, TensorList params, bool has_biases, bool has_proj,
                                       int64_t num_layers, int64_t directions) {
  const int64_t per = (has_biases ? 4 : 2) + (has_proj ? 1 : 0);
  TL_CHECK(static_cast<int64_t>(params.size()) == num_layers * directions * per, op, ": expected ",
           num_layers * directions * per, " parameter tensors (", num_layers, " layers, ", directions,
           " directions, ", per, " each), got ", params.size());
  std::vector<LayerParams> out;
  for (int64_t i = 0; i < num_layers * directions; ++i) {
    const Tensor* p = params.data() + i * per;
    LayerParams lp{p[0], p[1], std::nullopt, std::nullopt, std::nullopt};
    if (has_biases) lp.b_ih = p[2], lp.b_hh = p[3];
    if (has_proj) lp.w_hr = p[per - 1];
    out.push_back(lp);
  }
  return out;
}

// One direction of one layer over the time-major sequence x (T, N, I). Returns (output (T, N, H), h, c).
std::tuple<Tensor, Tensor, Tensor> run_direction(Cell cell, const Tensor& x, const Tensor& h0, const Tensor& c0,
                                                 const LayerParams& p, bool reverse) {
  const int64_t T = x.sizes()[0], N = x.sizes()[1];
  const ScalarType st = x.scalar_type();
  if (cell == Cell::Lstm && !(p.w_hr && p.w_hr->defined()) && T > 0 &&
      (st == ScalarType::Float32 || st == ScalarType::Float64)) {
    // The fused layer (LstmLayerKernels.cpp): both biases folded into the input projection, one GEMM
    // over the whole sequence; its backward gives w_ih's gradient as one product too.
    std::optional<Tensor> bias = p.b_ih;
    if (p.b_hh && p.b_hh->defined()) bias = bias && bias->defined() ? add(*bias, *p.b_hh) : *p.b_hh;
    const Tensor xg = reshape(linear2d(reshape(x, {T * N, x.sizes()[2]}), p.w_ih, bias), {T, N, p.w_ih.sizes()[0]});
    auto [out, cells, gates] = _lstm_layer(xg, h0, c0, p.w_hh, reverse);
    const int64_t last = reverse ? 0 : T - 1;
    return {out, select(out, 0, last), select(cells, 0, last)};
  }
  // The input projection of the whole sequence in one GEMM (the biases are added where PyTorch
  // adds them, so 16-bit results round alike).
  const Tensor xg =
      reshape(linear2d(reshape(x, {T * N, x.sizes()[2]}), p.w_ih, p.b_ih), {T, N, p.w_ih.sizes()[0]});
  // unbind, not select per step: its backward stacks the T gradients once, where T selects would
  // each spread theirs over a zero (T, N, G) tensor.
  const std::vector<Tensor> steps = unbind(xg, 0);
  Tensor h = h0, c = c0;
  std::vector<Tensor> outs(T);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t step = reverse ? T - 1 - s : s;
    std::tie(h, c) = cell_step(cell, steps[step], h, c, p.w_hh, p.b_hh, p.w_hr);
    outs[step] = h;
  }
  return {stack(outs, 0), h, c};
}

// The whole-sequence ops. hx: (layers * directions, N, H) (c0 likewise for LSTM).
std::tuple<Tensor, Tensor, Tensor> run_sequence(const char* op, Cell cell, const Tensor& input, const Tensor& hx,
                                                const Tensor& cx, TensorList params, bool has_biases,
                                                int64_t num_layers, double dropout, bool train, bool bidirectional,
                                                bool batch_first) {
  if (input.dim() < 3)  // PyTorch reads input.size(2) first
    throw IndexError(str(op, ": Dimension out of range (expected to be in range of [", -std::max<int64_t>(input.dim(), 1),
                         ", ", std::max<int64_t>(input.dim(), 1) - 1, "], but got 2)"));
  TL_CHECK(input.dim() == 3, op, ": expected a 3-D input (", batch_first ? "batch, seq, feature" : "seq, batch, feature",
           "), got ", input.dim(), "-D");
  check_gate_dtype(op, cell, input.scalar_type());
  TL_CHECK(num_layers >= 1, op, ": num_layers must be positive, got ", num_layers);
  TL_CHECK(dropout >= 0 && dropout <= 1, op, ": dropout probability has to be between 0 and 1, but got ", dropout);
  const int64_t dirs = bidirectional ? 2 : 1;
  const bool has_proj = cell == Cell::Lstm && cx.defined() && hx.sizes()[2] != cx.sizes()[2];
  const std::vector<LayerParams> ps = unpack_params(op, params, has_biases, has_proj, num_layers, dirs);
  Tensor x = batch_first ? transpose(input, 0, 1) : input;
  TL_CHECK(hx.dim() == 3 && hx.sizes()[0] == num_layers * dirs && hx.sizes()[1] == x.sizes()[1], op,
           ": Expected hidden size (", num_layers * dirs, ", ", x.sizes()[1], ", ", hx.dim() == 3 ? hx.sizes()[2] : 0,
           "), got ", hx.sizes());
  std::vector<Tensor> hs, cs;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t i = layer * dirs + d;
      const LayerParams& p = ps[i];
      TL_CHECK(x.sizes()[2] == p.w_ih.sizes()[1], op, ": input has inconsistent input_size: got ", x.sizes()[2],
               " expected ", p.w_ih.sizes()[1]);
      auto [out, h, c] = run_direction(cell, x, select(hx, 0, i), cx.defined() ? select(cx, 0, i) : Tensor(), p, d == 1);
      outs.push_back(out);
      hs.push_back(h);
      if (c.defined()) cs.push_back(c);
    }
    x = dirs == 1 ? outs[0] : cat(outs, 2);
    if (dropout > 0 && train && layer + 1 < num_layers) x = std::get<0>(native_dropout(x, dropout, true));
  }
  return {batch_first ? transpose(x, 0, 1) : x, stack(hs, 0), cs.empty() ? Tensor() : stack(cs, 0)};
}

// One direction of one layer over packed rows x (sum(batch_sizes), I). Going forward the batch shrinks:
// the rows of sequences that ended are set aside as their final state. Going backward it grows: the
// sequences that start are taken from h0. Returns (output rows, h_n, c_n) with h_n over the whole batch.
std::tuple<Tensor, Tensor, Tensor> run_packed_direction(Cell cell, const Tensor& x, const std::vector<int64_t>& bs,
                                                        const Tensor& h0, const Tensor& c0, const LayerParams& p,
                                                        bool reverse) {
  const int64_t T = static_cast<int64_t>(bs.size());
  const std::vector<Tensor> steps = split_with_sizes(linear2d(x, p.w_ih, p.b_ih), bs, 0);
  std::vector<Tensor> outs(T);
  Tensor h, c;
  if (!reverse) {
    h = h0, c = c0;
    std::vector<Tensor> done_h, done_c;  // ended rows, the last rows of the batch first
    for (int64_t t = 0; t < T; ++t) {
      const int64_t n = h.sizes()[0];
      if (bs[t] < n) {
        done_h.push_back(narrow(h, 0, bs[t], n - bs[t]));
        h = narrow(h, 0, 0, bs[t]);
        if (c.defined()) done_c.push_back(narrow(c, 0, bs[t], n - bs[t])), c = narrow(c, 0, 0, bs[t]);
      }
      std::tie(h, c) = cell_step(cell, steps[t], h, c, p.w_hh, p.b_hh, p.w_hr);
      outs[t] = h;
    }
    done_h.push_back(h);
    std::reverse(done_h.begin(), done_h.end());
    h = done_h.size() == 1 ? h : cat(done_h, 0);
    if (c.defined()) {
      done_c.push_back(c);
      std::reverse(done_c.begin(), done_c.end());
      c = done_c.size() == 1 ? c : cat(done_c, 0);
    }
  } else {
    h = narrow(h0, 0, 0, bs[T - 1]);
    if (c0.defined()) c = narrow(c0, 0, 0, bs[T - 1]);
    for (int64_t t = T - 1; t >= 0; --t) {
      const int64_t n = h.sizes()[0];
      if (bs[t] > n) {
        h = cat({h, narrow(h0, 0, n, bs[t] - n)}, 0);
        if (c.defined()) c = cat({c, narrow(c0, 0, n, bs[t] - n)}, 0);
      }
      std::tie(h, c) = cell_step(cell, steps[t], h, c, p.w_hh, p.b_hh, p.w_hr);
      outs[t] = h;
    }
  }
  return {cat(outs, 0), h, c};
}

// The packed whole-sequence ops: data (sum(batch_sizes), I), hx (layers * directions, batch_sizes[0], H).
std::tuple<Tensor, Tensor, Tensor> run_packed(const char* op, Cell cell, const Tensor& data, const Tensor& batch_sizes,
                                              const Tensor& hx, const Tensor& cx, TensorList params, bool has_biases,
                                              int64_t num_layers, double dropout, bool train, bool bidirectional) {
  TL_CHECK(batch_sizes.dim() == 1 && batch_sizes.is_cpu() && batch_sizes.dtype() == ScalarType::Int64, op,
           ": batch_sizes should be a 1D CPU int64 tensor, but got a ", batch_sizes.dim(), "D ",
           scalar_type_name(batch_sizes.dtype()), " tensor");
  TL_CHECK_INDEX(data.dim() > 0, op, ": Dimension specified as 0 but tensor has no dimensions");  // PyTorch's
  TL_CHECK(data.dim() == 2, op, ": expected packed data of 2 dimensions (rows, features), got ", data.dim(), "-D");
  check_gate_dtype(op, cell, data.scalar_type());
  TL_CHECK(num_layers >= 1, op, ": num_layers must be positive, got ", num_layers);
  TL_CHECK(dropout >= 0 && dropout <= 1, op, ": dropout probability has to be between 0 and 1, but got ", dropout);
  const Tensor bsc = contiguous(batch_sizes);
  const std::vector<int64_t> bs(bsc.data_ptr<int64_t>(), bsc.data_ptr<int64_t>() + bsc.numel());
  TL_CHECK(!bs.empty(), op, ": batch_sizes must not be empty");
  int64_t total = 0;
  for (size_t t = 0; t < bs.size(); ++t) {
    TL_CHECK(bs[t] > 0 && (t == 0 || bs[t] <= bs[t - 1]), op,
             ": batch_sizes must be positive and non-increasing, got ", bs[t], " at step ", t);
    total += bs[t];
  }
  TL_CHECK(total == data.sizes()[0], op, ": batch_sizes sum to ", total, " but data has ", data.sizes()[0], " rows");
  const int64_t dirs = bidirectional ? 2 : 1;
  for (const Tensor* s : {&hx, &cx}) {
    if (!s->defined()) continue;
    TL_CHECK(s->dim() == 3 && s->sizes()[0] == num_layers * dirs && s->sizes()[1] == bs[0], op,
             ": Expected hidden size (", num_layers * dirs, ", ", bs[0], ", ", s->dim() == 3 ? s->sizes()[2] : 0,
             "), got ", s->sizes());
  }
  const bool has_proj = cell == Cell::Lstm && cx.defined() && hx.sizes()[2] != cx.sizes()[2];
  const std::vector<LayerParams> ps = unpack_params(op, params, has_biases, has_proj, num_layers, dirs);
  Tensor x = data;
  std::vector<Tensor> hs, cs;
  for (int64_t layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t i = layer * dirs + d;
      const LayerParams& p = ps[i];
      TL_CHECK(x.sizes()[1] == p.w_ih.sizes()[1], op, ": input has inconsistent input_size: got ", x.sizes()[1],
               " expected ", p.w_ih.sizes()[1]);
      auto [out, h, c] = run_packed_direction(cell, x, bs, select(hx, 0, i), cx.defined() ? select(cx, 0, i) : Tensor(),
                                              p, d == 1);
      outs.push_back(out);
      hs.push_back(h);
      if (c.defined()) cs.push_back(c);
    }
    x = dirs == 1 ? outs[0] : cat(outs, 1);
    if (dropout > 0 && train && layer + 1 < num_layers) x = std::get<0>(native_dropout(x, dropout, true));
  }
  return {x, stack(hs, 0), cs.empty() ? Tensor() : stack(cs, 0)};
}

}  // namespace

Tensor rnn_tanh_cell_composite(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                               const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return run_cell("rnn_tanh_cell", Cell::Tanh, input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

Tensor rnn_relu_cell_composite(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                               const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return run_cell("rnn_relu_cell", Cell::Relu, input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

Tensor gru_cell_composite(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                          const std::optional<Tensor>& b_ih, const std::optional<Tensor>& b_hh) {
  return run_cell("gru_cell", Cell::Gru, input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

std::tuple<Tensor, Tensor> lstm_cell_composite(const Tensor& input, TensorList hx, const Tensor& w_ih,
                                               const Tensor& w_hh, const std::optional<Tensor>& b_ih,
                                               const std::optional<Tensor>& b_hh) {
  TL_CHECK(hx.size() == 2, "lstm_cell: Expected hx to have 2 tensors, got ", hx.size());
  auto [h, c] = run_cell("lstm_cell", Cell::Lstm, input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh);
  return {h, c};
}

std::tuple<Tensor, Tensor, Tensor> lstm_input_composite(const Tensor& input, TensorList hx, TensorList params,
                                                        bool has_biases, int64_t num_layers, double dropout,
                                                        bool train, bool bidirectional, bool batch_first) {
  TL_CHECK(hx.size() == 2, "lstm: lstm expects two hidden states");
  return run_sequence("lstm", Cell::Lstm, input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                      bidirectional, batch_first);
}

std::tuple<Tensor, Tensor> gru_input_composite(const Tensor& input, const Tensor& hx, TensorList params,
                                               bool has_biases, int64_t num_layers, double dropout, bool train,
                                               bool bidirectional, bool batch_first) {
  auto [out, h, c] = run_sequence("gru", Cell::Gru, input, hx, Tensor(), params, has_biases, num_layers, dropout, train,
                                  bidirectional, batch_first);
  return {out, h};
}

std::tuple<Tensor, Tensor> rnn_tanh_input_composite(const Tensor& input, const Tensor& hx, TensorList params,
                                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                                    bool bidirectional, bool batch_first) {
  auto [out, h, c] = run_sequence("rnn_tanh", Cell::Tanh, input, hx, Tensor(), params, has_biases, num_layers, dropout,
                                  train, bidirectional, batch_first);
  return {out, h};
}

std::tuple<Tensor, Tensor> rnn_relu_input_composite(const Tensor& input, const Tensor& hx, TensorList params,
                                                    bool has_biases, int64_t num_layers, double dropout, bool train,
                                                    bool bidirectional, bool batch_first) {
  auto [out, h, c] = run_sequence("rnn_relu", Cell::Relu, input, hx, Tensor(), params, has_biases, num_layers, dropout,
                                  train, bidirectional, batch_first);
  return {out, h};
}

std::tuple<Tensor, Tensor, Tensor> lstm_data_composite(const Tensor& data, const Tensor& batch_sizes, TensorList hx,
                                                       TensorList params, bool has_biases, int64_t num_layers,
                                                       double dropout, bool train, bool bidirectional) {
  TL_CHECK(hx.size() == 2, "lstm: lstm expects two hidden states");
  return run_packed("lstm", Cell::Lstm, data, batch_sizes, hx[0], hx[1], params, has_biases, num_layers, dropout,
                    train, bidirectional);
}

std::tuple<Tensor, Tensor> gru_data_composite(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                              TensorList params, bool has_biases, int64_t num_layers, double dropout,
                                              bool train, bool bidirectional) {
  auto [out, h, c] = run_packed("gru", Cell::Gru, data, batch_sizes, hx, Tensor(), params, has_biases, num_layers,
                                dropout, train, bidirectional);
  return {out, h};
}

std::tuple<Tensor, Tensor> rnn_tanh_data_composite(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                                   TensorList params, bool has_biases, int64_t num_layers,
                                                   double dropout, bool train, bool bidirectional) {
  auto [out, h, c] = run_packed("rnn_tanh", Cell::Tanh, data, batch_sizes, hx, Tensor(), params, has_biases,
                                num_layers, dropout, train, bidirectional);
  return {out, h};
}

std::tuple<Tensor, Tensor> rnn_relu_data_composite(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx,
                                                   TensorList params, bool has_biases, int64_t num_layers,
                                                   double dropout, bool train, bool bidirectional) {
  auto [out, h, c] = run_packed("rnn_relu", Cell::Relu, data, batch_sizes, hx, Tensor(), params, has_biases,
                                num_layers, dropout, train, bidirectional);
  return {out, h};
}

}  // namespace tl::native
