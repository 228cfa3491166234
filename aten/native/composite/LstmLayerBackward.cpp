// _lstm_layer_differentiable_backward: the gradients of the fused LSTM layer (LstmLayerKernels.cpp)
// written with differentiable ops, for backward passes that build a graph (create_graph): the steps
// are recomputed from the inputs, so the result's own derivatives are those of the recurrence.
// The kernel _lstm_layer_backward is used otherwise (it is not differentiable).
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_lstm_layer_differentiable_backward.h"
#include "generated/ops/add.h"
#include "generated/ops/cat.h"
#include "generated/ops/chunk.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/rsub.h"
#include "generated/ops/select.h"
#include "generated/ops/sigmoid.h"
#include "generated/ops/stack.h"
#include "generated/ops/t.h"
#include "generated/ops/tanh.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {

std::tuple<Tensor, Tensor, Tensor, Tensor> lstm_layer_differentiable_backward_composite(
    const Tensor& grad_output, const Tensor& grad_cells, const Tensor& input_gates, const Tensor& h0, const Tensor& c0,
    const Tensor& w_hh, bool reverse, std::array<bool, 4> output_mask) {
  const char* op = "_lstm_layer_differentiable_backward";
  TL_CHECK(input_gates.dim() == 3 && h0.dim() == 2 && c0.dim() == 2 && w_hh.dim() == 2, op,
           ": expected input_gates (T, N, 4H), h0 and c0 (N, H) and w_hh (4H, H), got ", input_gates.sizes(), ", ",
           h0.sizes(), ", ", c0.sizes(), " and ", w_hh.sizes());
  const int64_t T = input_gates.sizes()[0], N = input_gates.sizes()[1], H = w_hh.sizes()[1];
  TL_CHECK(w_hh.sizes()[0] == 4 * H && input_gates.sizes()[2] == 4 * H && h0.sizes() == IntArrayRef({N, H}) &&
               c0.sizes() == IntArrayRef({N, H}) && grad_output.sizes() == IntArrayRef({T, N, H}) &&
               grad_cells.sizes() == IntArrayRef({T, N, H}),
           op, ": inconsistent sizes: input_gates ", input_gates.sizes(), ", h0 ", h0.sizes(), ", c0 ", c0.sizes(),
           ", w_hh ", w_hh.sizes(), ", grad_output ", grad_output.sizes(), ", grad_cells ", grad_cells.sizes());
  for (const Tensor* x : {&grad_output, &grad_cells, &input_gates, &h0, &c0, &w_hh})
    TL_CHECK(x->scalar_type() == ScalarType::Float32 || x->scalar_type() == ScalarType::Float64, op,
             ": expected float32 or float64, got ", scalar_type_name(x->scalar_type()));
  struct Step {
    Tensor i, f, g, o, c, c_prev, h_prev;
  };
  std::vector<Step> steps(static_cast<size_t>(T));
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < T; ++s) {
    const int64_t ti = reverse ? T - 1 - s : s;
    const std::vector<Tensor> g = chunk(add(select(input_gates, 0, ti), mm(h, tl::t(w_hh))), 4, 1);
    Step st{sigmoid(g[0]), sigmoid(g[1]), tanh(g[2]), sigmoid(g[3]), Tensor(), c, h};
    st.c = add(mul(st.f, c), mul(st.i, st.g));
    h = mul(st.o, tanh(st.c));
    c = st.c;
    steps[static_cast<size_t>(ti)] = st;
  }
  Tensor dh_next = zeros_like(h0), dc_next = zeros_like(c0), dw = zeros_like(w_hh);
  std::vector<Tensor> dgates(static_cast<size_t>(T));
  for (int64_t s = T - 1; s >= 0; --s) {
    const int64_t ti = reverse ? T - 1 - s : s;
    const Step& st = steps[static_cast<size_t>(ti)];
    const Tensor tc = tanh(st.c);
    const Tensor dh = add(select(grad_output, 0, ti), dh_next);
    const Tensor dc = add(add(select(grad_cells, 0, ti), dc_next), mul(mul(dh, st.o), rsub(mul(tc, tc), 1)));
    const Tensor d = cat({mul(mul(dc, st.g), mul(st.i, rsub(st.i, 1))), mul(mul(dc, st.c_prev), mul(st.f, rsub(st.f, 1))),
                          mul(mul(dc, st.i), rsub(mul(st.g, st.g), 1)), mul(mul(dh, tc), mul(st.o, rsub(st.o, 1)))},
                         1);
    dgates[static_cast<size_t>(ti)] = d;
    dh_next = mm(d, w_hh);
    dc_next = mul(dc, st.f);
    dw = add(dw, mm(tl::t(d), st.h_prev));
  }
  Tensor dg = T > 0 ? stack(dgates, 0) : zeros_like(input_gates);
  return {output_mask[0] ? dg : Tensor(), output_mask[1] ? dh_next : Tensor(), output_mask[2] ? dc_next : Tensor(),
          output_mask[3] ? dw : Tensor()};
}

}  // namespace tl::native
