// Formula helpers for scatter_reduce and index_reduce (FunctionsManualScatterReduce.h). Written
// once for both: they differ only in how a value reaches its position (element-wise scatter /
// gather, or slices by index_add / index_select), passed in as an IndexOps.
#include "aten/autograd/FunctionsManualScatterReduce.h"

#include "aten/core/Exception.h"
#include "generated/ops/bitwise_and.h"
#include "generated/ops/div.h"
#include "generated/ops/eq.h"
#include "generated/ops/gather.h"
#include "generated/ops/index_add.h"
#include "generated/ops/index_fill.h"
#include "generated/ops/index_reduce.h"
#include "generated/ops/index_select.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/mul.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/scatter.h"
#include "generated/ops/scatter_add.h"
#include "generated/ops/scatter_reduce.h"
#include "generated/ops/to.h"
#include "generated/ops/where.h"
#include "generated/ops/zeros_like.h"

namespace tl::autograd::generated {
namespace {

// How values travel between self-shaped and src-shaped tensors for one op.
struct IndexOps {
  int64_t dim;
  const Tensor& index;
  bool scatter;  // scatter_reduce (element-wise) rather than index_reduce (slices)
  // self-shaped -> src-shaped: each src position reads the value at the position it reduces into.
  Tensor take(const Tensor& t) const { return scatter ? gather(t, dim, index) : index_select(t, dim, index); }
  // self-shaped t plus src-shaped s summed into the positions.
  Tensor add(const Tensor& t, const Tensor& s) const {
    return scatter ? scatter_add(t, dim, index, s) : index_add(t, dim, index, s);
  }
  // t with the indexed positions set to 0.
  Tensor clear(const Tensor& t) const { return scatter ? tl::scatter(t, dim, index, 0) : index_fill(t, dim, index, 0); }
  Tensor reduce(const Tensor& self, const Tensor& src, std::string_view how, bool include_self) const {
    return scatter ? scatter_reduce(self, dim, index, src, how, include_self)
                   : index_reduce(self, dim, index, src, how, include_self);
  }
};

std::tuple<Tensor, Tensor> reduce_backward(const Tensor& grad, const Tensor& self, const Tensor& src,
                                           std::string_view reduce, bool include_self, const Tensor& result,
                                           const IndexOps& ops, const char* op) {
  Tensor grad_self, grad_src;
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = ops.take(grad);
  } else if (reduce == "prod") {
    // result / x is the product of the other factors only where x != 0: zeros of self are replaced
    // by 1 and the product recomputed; a single zero of src among a position's values is likewise
    // replaced and its position's product of the others recomputed (several zeros give 0).
    const Tensor masked_self = masked_fill(self, eq(self, 0), 1);
    const Tensor masked_self_result = ops.reduce(masked_self, src, reduce, include_self);
    grad_self = div(mul(grad, masked_self_result), masked_self);
    const Tensor src_zero = eq(src, 0);
    const Tensor src_num_zeros = ops.take(ops.add(zeros_like(self), to(src_zero, self.scalar_type())));
    const Tensor src_single_zero = bitwise_and(src_zero, eq(src_num_zeros, 1));
    const Tensor masked_src = masked_fill(src, src_single_zero, 1);
    const Tensor masked_src_result = ops.reduce(self, masked_src, reduce, include_self);
    grad_src = where(src_single_zero, ops.take(mul(grad, masked_src_result)),
                     div(ops.take(mul(grad, result)), masked_fill(src, src_zero, 1)));
  } else if (reduce == "mean") {
    Tensor count = include_self ? ones_like(grad) : zeros_like(grad);
    count = ops.add(count, ones_like(src));
    count = masked_fill(count, eq(count, 0), 1);
    grad_self = div(grad, count);
    grad_src = div(ops.take(grad), ops.take(count));
  } else if (reduce == "amax" || reduce == "amin") {
    // Ties share the gradient evenly: each value equal to the result gets grad / (number of them).
    const Tensor value = ops.take(result);
    const Tensor self_is_result = to(eq(self, result), self.scalar_type());
    const Tensor src_is_result = to(eq(src, value), self.scalar_type());
    const Tensor grad_distributed = div(grad, ops.add(self_is_result, src_is_result));
    grad_self = mul(self_is_result, grad_distributed);
    grad_src = mul(src_is_result, ops.take(grad_distributed));
  } else {
    throw RuntimeError(str(op, ": Expected 'reduce' to be one of 'sum', 'prod', 'amax', 'amin' or 'mean' but got ",
                           reduce, "."));
  }
  if (!include_self) grad_self = ops.clear(grad_self);
  return {grad_self, grad_src};
}

}  // namespace

std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, std::string_view reduce,
                                                   bool include_self, const Tensor& result) {
  return reduce_backward(grad, self, src, reduce, include_self, result, IndexOps{dim, index, true}, "scatter_reduce");
}

std::tuple<Tensor, Tensor> index_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                 const Tensor& index, const Tensor& source, std::string_view reduce,
                                                 bool include_self, const Tensor& result) {
  return reduce_backward(grad, self, source, reduce, include_self, result, IndexOps{dim, index, false}, "index_reduce");
}

}  // namespace tl::autograd::generated
