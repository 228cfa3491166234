#include "aten/native/NormalizationUtils.h"

#include "aten/core/Exception.h"
#include "generated/ops/copy.h"
#include "generated/ops/narrow.h"
#include "generated/ops/reshape.h"

namespace tl::native {

LayerNormDims check_layer_norm_inputs(const Tensor& input, IntArrayRef normalized_shape,
                                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(nd >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ", normalized_shape);
  TL_CHECK(!weight || !weight->defined() || weight->sizes() == normalized_shape, "Expected weight to be of same "
           "shape as normalized_shape, but got weight of shape ", weight ? weight->sizes() : IntArrayRef(),
           " and normalized_shape = ", normalized_shape);
  TL_CHECK(!bias || !bias->defined() || bias->sizes() == normalized_shape, "Expected bias to be of same "
           "shape as normalized_shape, but got bias of shape ", bias ? bias->sizes() : IntArrayRef(),
           " and normalized_shape = ", normalized_shape);
  const int64_t ndim = input.dim(), axis = ndim - nd;
  bool match = axis >= 0;
  for (int64_t i = 0; match && i < nd; ++i) match = input.sizes()[axis + i] == normalized_shape[i];
  if (!match) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    TL_ERROR("Given normalized_shape=", normalized_shape, ", expected input with shape ", expected,
             "], but got input of size", input.sizes());
  }
  LayerNormDims d;
  d.M = 1;
  d.N = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i < axis) {
      d.M *= input.sizes()[i];
      d.stat_shape.push_back(input.sizes()[i]);
    } else {
      d.N *= input.sizes()[i];
      d.stat_shape.push_back(1);
    }
  }
  return d;
}

ScalarType norm_param_dtype(const Tensor& input, std::initializer_list<const Tensor*> params) {
  const ScalarType in = input.dtype();
  const bool reduced = in == ScalarType::Float16 || in == ScalarType::BFloat16;
  bool any = false, all_float = true;
  const Tensor* other = nullptr;  // the first parameter of another dtype than input
  for (const Tensor* p : params) {
    if (!p) continue;
    any = true;
    all_float = all_float && p->dtype() == ScalarType::Float32;
    if (!other && p->dtype() != in) other = p;
  }
  if (reduced && any && all_float) return ScalarType::Float32;
  if (other) {
    TL_CHECK(!reduced, "expected scalar type ", legacy_type_name(in), " but found ", legacy_type_name(other->dtype()));
    TL_CHECK(in != ScalarType::Float32, "mixed dtype (CPU): expect parameter to have scalar type of Float");
    TL_ERROR("mixed dtype (CPU): all inputs must share same datatype.");
  }
  return in;
}

ScalarType opmath_type(ScalarType t) { return t == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32; }

void copy_stats(const Tensor& dst, const Tensor& src) {
  const Tensor flat = reshape(src, {-1});
  const Tensor part = flat.numel() == dst.numel() ? flat : narrow(flat, 0, 0, dst.numel());
  copy_kernel(dst, reshape(part, dst.sizes()), false);  // the raw kernel: no autograd check on dst
}

}  // namespace tl::native
