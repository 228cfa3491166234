// bilinear: y[n, o] = x1[n] . W[o] . x2[n] + b[o] as one matrix product of x1 with the weight laid
// out (i, o*j), then a batched product of each row's (o, j) block with x2[n].
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/add.h"
#include "generated/ops/bilinear.h"
#include "generated/ops/bmm.h"
#include "generated/ops/mm.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

Tensor bilinear_composite(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const std::optional<Tensor>& bias) {
  TL_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
           input2.dim());
  TL_CHECK_AS(IndexError, input1.dim() >= 1, "bilinear(): Dimension out of range: the inputs are 0-D");
  for (int64_t i = 0; i + 1 < input1.dim(); ++i)
    TL_CHECK(input1.sizes()[i] == input2.sizes()[i], "bilinear(): input batch dimensions do not match at dim ", i,
             ": got ", input1.sizes()[i], " and ", input2.sizes()[i]);
  TL_CHECK(weight.dim() == 3, "bilinear(): number of dimensions must match: expected a 3-D weight, but got weight of size ",
           weight.sizes());
  const int64_t out_f = weight.sizes()[0], in1 = weight.sizes()[1], in2 = weight.sizes()[2];
  TL_CHECK(input1.sizes()[input1.dim() - 1] == in1, "bilinear(): input1 size does not match weight size: got ",
           input1.sizes()[input1.dim() - 1], " but expected ", in1);
  TL_CHECK(input2.sizes()[input2.dim() - 1] == in2, "bilinear(): input2 size does not match weight size: got ",
           input2.sizes()[input2.dim() - 1], " but expected ", in2);
  if (bias)
    TL_CHECK(bias->dim() >= 1 && bias->sizes()[bias->dim() - 1] == out_f,
             "bilinear(): bias size does not match weight size: got ",
             bias->dim() >= 1 ? bias->sizes()[bias->dim() - 1] : int64_t(0), " but expected ", out_f);
  DimVector lead(input1.sizes());
  lead.resize(lead.size() - 1);
  const Tensor x1 = reshape(input1, {-1, in1});
  const Tensor x2 = reshape(input2, {-1, in2});
  const int64_t n = x1.sizes()[0];
  const Tensor w = reshape(permute(weight, {1, 0, 2}), {in1, out_f * in2});
  const Tensor t = reshape(mm(x1, w), {n, out_f, in2});
  Tensor y = squeeze(bmm(t, unsqueeze(x2, 2)), 2);
  if (bias) y = add(y, *bias);
  lead.push_back(out_f);
  return reshape(y, lead);
}

}  // namespace tl::native
