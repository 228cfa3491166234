// Products and contractions (issue 10) built from public ops, so their gradients come from the
// ops they call: every matrix product goes through mm/bmm (BLAS for float32/float64, a loop for
// integers, float32 accumulation for float16/bfloat16), never through a broadcasted product and a
// sum. PyTorch's argument checks come first, each message starting with the op name.
#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/conj_physical.h"
#include "generated/ops/add.h"
#include "generated/ops/addbmm.h"
#include "generated/ops/addmm.h"
#include "generated/ops/addmv.h"
#include "generated/ops/addr.h"
#include "generated/ops/baddbmm.h"
#include "generated/ops/bmm.h"
#include "generated/ops/conj.h"
#include "generated/ops/cat.h"
#include "generated/ops/cdist.h"
#include "generated/ops/chain_matmul.h"
#include "generated/ops/clamp_min.h"
#include "generated/ops/clone.h"
#include "generated/ops/cross.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/dot.h"
#include "generated/ops/expand.h"
#include "generated/ops/inner.h"
#include "generated/ops/kron.h"
#include "generated/ops/linalg_cross.h"
#include "generated/ops/linalg_multi_dot.h"
#include "generated/ops/linalg_vecdot.h"
#include "generated/ops/linalg_vector_norm.h"
#include "generated/ops/logical_or.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mm.h"
#include "generated/ops/mul.h"
#include "generated/ops/mv.h"
#include "generated/ops/narrow.h"
#include "generated/ops/ones_like.h"
#include "generated/ops/outer.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/sqrt.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/sub.h"
#include "generated/ops/sum.h"
#include "generated/ops/tensordot.h"
#include "generated/ops/trace.h"
#include "generated/ops/transpose.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vdot.h"
#include "generated/ops/view.h"
#include "generated/ops/zeros_like.h"

namespace tl::native {

namespace {

// "2x3" (PyTorch's spelling of a matrix shape in size-mismatch messages).
std::string xshape(IntArrayRef s) {
  std::ostringstream os;
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "x" : "") << s[i];
  return os.str();
}

int64_t prod(IntArrayRef s) {
  int64_t p = 1;
  for (int64_t v : s) p *= v;
  return p;
}

// beta * self + alpha * product, `self` broadcast to the product's shape. beta == 0 ignores
// `self` (PyTorch's rule: NaN in it does not propagate); bool combines with or/and.
// For integer dtypes beta and alpha are truncated to integers first (as PyTorch: beta=0.5 is 0).
Tensor scale_and_add(const Tensor& self, const Tensor& product, Scalar beta, Scalar alpha) {
  if (is_integral_type(product.dtype(), /*include_bool=*/false)) {
    beta = Scalar(beta.to_long());
    alpha = Scalar(alpha.to_long());
  }
  const Tensor s = tl::expand(self, product.sizes());
  if (product.dtype() == ScalarType::Bool) {
    Tensor r = alpha.to_bool() ? product : tl::zeros_like(product);
    return beta.to_bool() ? tl::logical_or(s, r) : r;
  }
  if (beta.equal(0)) return alpha.equal(1) ? product : tl::mul(product, alpha);
  const Tensor scaled = beta.equal(1) ? s : tl::mul(s, beta);
  return tl::add(scaled, product, alpha);
}

void check_same_dtype3(const char* op, const Tensor& self, const Tensor& a, const Tensor& b) {
  TL_CHECK(self.dtype() == a.dtype() && a.dtype() == b.dtype(), op,
           ": input tensors must have the same dtype, but got ", legacy_type_name(self.dtype()), ", ",
           legacy_type_name(a.dtype()), ", and ", legacy_type_name(b.dtype()));
}

Tensor dot_checked(const char* op, const Tensor& self, const Tensor& other) {
  TL_CHECK(self.dim() == 1 && other.dim() == 1, op, ": 1D tensors expected, but got ", self.dim(), "D and ",
           other.dim(), "D tensors");
  TL_CHECK(self.dtype() == other.dtype(), op, ": expected both vectors to have same dtype, but found ",
           legacy_type_name(self.dtype()), " and ", legacy_type_name(other.dtype()));
  TL_CHECK(self.numel() == other.numel(), op, ": inconsistent tensor size, expected tensor [", self.numel(),
           "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
           other.numel(), " elements respectively");
  return tl::reshape(tl::mm(tl::unsqueeze(self, 0), tl::unsqueeze(other, 1)), IntArrayRef());
}

// The cheapest order of a chain of matrix products (classic dynamic programme on the shapes
// dims[0] x dims[1], dims[1] x dims[2], ...): split[i][j] is where product i..j splits last.
Tensor chain_product(const std::vector<Tensor>& mats, const std::vector<std::vector<size_t>>& split, size_t i,
                     size_t j) {
  if (i == j) return mats[i];
  const size_t s = split[i][j];
  return tl::mm(chain_product(mats, split, i, s), chain_product(mats, split, s + 1, j));
}

Tensor multiply_chain(const std::vector<Tensor>& mats) {
  const size_t n = mats.size();
  if (n == 1) return mats[0];
  if (n == 2) return tl::mm(mats[0], mats[1]);
  std::vector<int64_t> dims(n + 1);
  for (size_t i = 0; i < n; ++i) dims[i] = mats[i].sizes()[0];
  dims[n] = mats[n - 1].sizes()[1];
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 1; len < n; ++len) {
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t s = i; s < j; ++s) {
        const double c = cost[i][s] + cost[s + 1][j] + double(dims[i]) * double(dims[s + 1]) * double(dims[j + 1]);
        if (c < cost[i][j]) cost[i][j] = c, split[i][j] = s;
      }
    }
  }
  return chain_product(mats, split, 0, n - 1);
}

void check_chain(const char* op, const std::vector<Tensor>& mats) {
  for (size_t i = 1; i < mats.size(); ++i) {
    TL_CHECK(mats[i].dtype() == mats[0].dtype(), op, ": all tensors must have be the same dtype but tensor 0 is ",
             legacy_type_name(mats[0].dtype()), " and tensor ", i, " is ", legacy_type_name(mats[i].dtype()));
    TL_CHECK(mats[i - 1].sizes()[1] == mats[i].sizes()[0], op, ": tensors ", i - 1, " and ", i, " with shapes ",
             mats[i - 1].sizes(), " and ", mats[i].sizes(), " cannot be multiplied");
  }
}

// A view of t[..., i, ...] along dim, keeping the dim (size 1).
Tensor component(const Tensor& t, int64_t dim, int64_t i) { return tl::narrow(t, dim, i, 1); }

}  // namespace

// dot and vdot read conj operands through mm (the conjugate-transpose op of the BLAS); PyTorch's
// identities for two conj operands keep both unresolved and make the result a conj view, as its:
// dot(conj a, conj b) = conj(dot(a, b)), vdot(a, conj b) = conj(dot(a, b)).
Tensor dot_composite(const Tensor& self, const Tensor& tensor) {
  if (self.is_conj() && tensor.is_conj()) return tl::conj(dot_checked("dot", tl::conj(self), tl::conj(tensor)));
  return dot_checked("dot", self, tensor);
}

// vdot conjugates its first argument (a no-op for real tensors); dot does not. The conjugate is lazy (mm
// reads it through ConjTrans), except when autograd records: then it is computed, so self's gradient is
// a plain tensor, as from PyTorch's vdot formula (lazy, it would come back through conj's lazy backward).
Tensor vdot_composite(const Tensor& self, const Tensor& other) {
  if (!is_complex_type(self.dtype())) return dot_checked("vdot", self, other);
  const bool records = autograd::GradMode::is_enabled() && (self.requires_grad() || other.requires_grad());
  auto conj = [&](const Tensor& t) { return records ? tl::conj_physical(t) : tl::conj(t); };
  if (!self.is_conj() && other.is_conj()) return tl::conj(dot_checked("vdot", self, conj(other)));
  return dot_checked("vdot", conj(self), other);
}

Tensor inner_composite(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return tl::mul(self, other);
  const int64_t a = self.sizes()[self.dim() - 1], b = other.sizes()[other.dim() - 1];
  TL_CHECK(a == b, "inner: the last dimension must match on both input tensors but got shapes ", self.sizes(),
           " and ", other.sizes());
  return tl::tensordot(self, other, DimVector{-1}, DimVector{-1});
}

Tensor outer_composite(const Tensor& self, const Tensor& vec2) {
  TL_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return tl::mul(tl::unsqueeze(self, 1), vec2);
}

// PyTorch reads sizes of 0-d operands before checking ranks: IndexError, as its size(0).
void check_not_0d(const char* op, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    TL_CHECK_INDEX(t->dim() > 0, op, ": Dimension specified as 0 but tensor has no dimensions");
}

Tensor mv_composite(const Tensor& self, const Tensor& vec) {
  check_not_0d("mv", {&self, &vec});
  TL_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: vector + matrix @ vector expected, got 1, ", self.dim(), ", ",
           vec.dim());
  TL_CHECK(self.sizes()[1] == vec.sizes()[0], "mv: size mismatch, got input (", self.sizes()[0], "), mat (",
           xshape(self.sizes()), "), vec (", vec.sizes()[0], ")");
  TL_CHECK(self.dtype() == vec.dtype(), "mv: expected self and vec to have the same dtype, but got ",
           legacy_type_name(self.dtype()), " and ", legacy_type_name(vec.dtype()));
  return tl::squeeze(tl::mm(self, tl::unsqueeze(vec, 1)), int64_t(1));
}

Tensor addmv_composite(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
                       const Scalar& alpha) {
  TL_CHECK(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1, "addmv: vector + matrix @ vector expected, got ",
           self.dim(), ", ", mat.dim(), ", ", vec.dim());
  const int64_t n = mat.sizes()[0];
  TL_CHECK(mat.sizes()[1] == vec.sizes()[0] && (self.numel() == n || self.numel() == 1),
           "addmv: size mismatch, got input (", self.dim() ? self.sizes()[0] : 1, "), mat (", xshape(mat.sizes()),
           "), vec (", vec.sizes()[0], ")");
  check_same_dtype3("addmv", self, mat, vec);
  return scale_and_add(self, tl::squeeze(tl::mm(mat, tl::unsqueeze(vec, 1)), int64_t(1)), beta, alpha);
}

Tensor addr_composite(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                      const Scalar& alpha) {
  TL_CHECK(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  TL_CHECK(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return scale_and_add(self, tl::mul(tl::unsqueeze(vec1, 1), vec2), beta, alpha);
}

Tensor addmm_composite(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                       const Scalar& alpha) {
  TL_CHECK(mat1.dim() == 2, "addmm: mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TL_CHECK(mat2.dim() == 2, "addmm: mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TL_CHECK(mat1.sizes()[1] == mat2.sizes()[0], "addmm: mat1 and mat2 shapes cannot be multiplied (",
           xshape(mat1.sizes()), " and ", xshape(mat2.sizes()), ")");
  TL_CHECK(mat1.dtype() == mat2.dtype() && self.dtype() == mat1.dtype(),
           "addmm: self and mat2 must have the same dtype, but got ",
           legacy_type_name(mat1.dtype() == mat2.dtype() ? self.dtype() : mat1.dtype()), " and ",
           legacy_type_name(mat2.dtype()));
  return scale_and_add(self, tl::mm(mat1, mat2), beta, alpha);
}

Tensor baddbmm_composite(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                         const Scalar& alpha) {
  check_not_0d("baddbmm", {&self, &batch1, &batch2});
  TL_CHECK(self.dtype() == batch1.dtype() && batch1.dtype() == batch2.dtype(),
           "baddbmm: expected scalar type ", legacy_type_name(self.dtype()), " but found ",
           legacy_type_name(self.dtype() != batch1.dtype() ? batch1.dtype() : batch2.dtype()));
  return scale_and_add(self, tl::bmm(batch1, batch2), beta, alpha);
}

Tensor addbmm_composite(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                        const Scalar& alpha) {
  check_not_0d("addbmm", {&self, &batch1, &batch2});
  TL_CHECK(batch1.dim() == 3, "addbmm: batch1 must be a 3D tensor");
  TL_CHECK(batch2.dim() == 3, "addbmm: batch2 must be a 3D tensor");
  TL_CHECK(batch1.sizes()[0] == batch2.sizes()[0], "addbmm: batch1 and batch2 must have same number of batches, got ",
           batch1.sizes()[0], " and ", batch2.sizes()[0]);
  TL_CHECK(batch1.sizes()[2] == batch2.sizes()[1], "addbmm: Incompatible matrix sizes for bmm (",
           batch1.sizes()[1], "x", batch1.sizes()[2], " and ", batch2.sizes()[1], "x", batch2.sizes()[2], ")");
  TL_CHECK(self.dtype() == batch1.dtype() && batch1.dtype() == batch2.dtype(),
           "addbmm: expected scalar type ", legacy_type_name(self.dtype()), " but found ",
           legacy_type_name(self.dtype() != batch1.dtype() ? batch1.dtype() : batch2.dtype()));
  // sum_b batch1[b] @ batch2[b] is one product of [n, B*k] by [B*k, m].
  const int64_t B = batch1.sizes()[0], n = batch1.sizes()[1], k = batch1.sizes()[2], m = batch2.sizes()[2];
  const Tensor a = tl::reshape(tl::permute(batch1, DimVector{1, 0, 2}), DimVector{n, B * k});
  const Tensor b = tl::reshape(batch2, DimVector{B * k, m});
  return scale_and_add(self, tl::mm(a, b), beta, alpha);
}

Tensor tensordot_composite(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  TL_CHECK(dims_self.size() == dims_other.size(), "tensordot: both dimension lists should have same length");
  TL_CHECK(self.dtype() == other.dtype(), "tensordot: both inputs should have same dtype");
  Tensor a = self, b = other;
  std::vector<bool> a_used(static_cast<size_t>(self.dim()), false), b_used(static_cast<size_t>(other.dim()), false);
  DimVector ca, cb;  // contracted dims of a and b, paired
  for (size_t i = 0; i < dims_self.size(); ++i) {
    TL_CHECK_INDEX(self.dim() > 0, "tensordot: Dimension specified as ", dims_self[i], " but tensor has no dimensions");
    TL_CHECK_INDEX(other.dim() > 0, "tensordot: Dimension specified as ", dims_other[i],
                   " but tensor has no dimensions");
    const int64_t da = maybe_wrap_dim(dims_self[i], self.dim()), db = maybe_wrap_dim(dims_other[i], other.dim());
    TL_CHECK(!a_used[size_t(da)], "tensordot: dim ", da, " appears multiple times in the list of dims");
    TL_CHECK(!b_used[size_t(db)], "tensordot: dim ", db, " appears multiple times in the list of dims");
    a_used[size_t(da)] = b_used[size_t(db)] = true;
    const int64_t sa = a.sizes()[da], sb = b.sizes()[db];
    // A size-1 dim pairs with any size: the other side is summed over it (keeping the dim).
    if (sb == 1 && sa != 1) {
      a = tl::sum(a, DimVector{da}, true);
    } else if (sa == 1 && sb != 1) {
      b = tl::sum(b, DimVector{db}, true);
    } else {
      TL_CHECK(sa == sb, "tensordot: contracted dimensions need to match, but first has size ", sa, " in dim ", da,
               " and second has size ", sb, " in dim ", db);
    }
    ca.push_back(da), cb.push_back(db);
  }
  DimVector perm_a, perm_b, out_shape;
  int64_t rows = 1, cols = 1, depth = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!a_used[size_t(d)]) perm_a.push_back(d), out_shape.push_back(a.sizes()[d]), rows *= a.sizes()[d];
  for (int64_t d : ca) perm_a.push_back(d), depth *= a.sizes()[d];
  for (int64_t d : cb) perm_b.push_back(d);
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!b_used[size_t(d)]) perm_b.push_back(d), out_shape.push_back(b.sizes()[d]), cols *= b.sizes()[d];
  const Tensor a2 = tl::reshape(tl::permute(a, perm_a), DimVector{rows, depth});
  const Tensor b2 = tl::reshape(tl::permute(b, perm_b), DimVector{depth, cols});
  return tl::reshape(tl::mm(a2, b2), out_shape);
}

Tensor kron_composite(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  // self as [a0, 1, a1, 1, ...] times other as [1, b0, 1, b1, ...], then pairs of dims merged.
  DimVector sa(size_t(2 * nd), 1), sb(size_t(2 * nd), 1), out(size_t(nd), 1);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t ia = i - (nd - self.dim()), ib = i - (nd - other.dim());
    const int64_t a = ia >= 0 ? self.sizes()[ia] : 1, b = ib >= 0 ? other.sizes()[ib] : 1;
    sa[size_t(2 * i)] = a, sb[size_t(2 * i + 1)] = b, out[size_t(i)] = a * b;
  }
  // view, not reshape: PyTorch's kron fails the same way when the product's layout forbids it.
  return tl::view(tl::mul(tl::reshape(self, sa), tl::reshape(other, sb)), out);
}

Tensor trace_composite(const Tensor& self) {
  TL_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, "trace: not implemented for 'Bool'");
  const ScalarType st = self.dtype();
  TL_CHECK(st != ScalarType::UInt16 && st != ScalarType::UInt32 && st != ScalarType::UInt64,
           "trace: not implemented for '", legacy_type_name(st), "'");
  return tl::sum(tl::diagonal(self));
}

Tensor linalg_cross_composite(const Tensor& self, const Tensor& other, int64_t dim) {
  TL_CHECK(self.dim() == other.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  TL_CHECK(self.dtype() == other.dtype(), "linalg.cross: expected scalar type ", legacy_type_name(self.dtype()),
           " but found ", legacy_type_name(other.dtype()));
  TL_CHECK_INDEX(self.dim() > 0, "linalg.cross: Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK(self.sizes()[d] == 3 && other.sizes()[d] == 3, "linalg.cross: inputs dimension ", dim,
           " must have length 3. Got ", self.sizes()[d], " and ", other.sizes()[d]);
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, "linalg.cross: not implemented for 'Bool'");
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32,
              "linalg.cross: \"cross\" not implemented for 'ComplexHalf'");  // PyTorch has no complex32 kernel
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  const Tensor a = tl::expand(self, shape), b = tl::expand(other, shape);
  auto a_ = [&](int64_t i) { return component(a, d, i); };
  auto b_ = [&](int64_t i) { return component(b, d, i); };
  const Tensor x = tl::sub(tl::mul(a_(1), b_(2)), tl::mul(a_(2), b_(1)));
  const Tensor y = tl::sub(tl::mul(a_(2), b_(0)), tl::mul(a_(0), b_(2)));
  const Tensor z = tl::sub(tl::mul(a_(0), b_(1)), tl::mul(a_(1), b_(0)));
  return tl::cat(std::vector<Tensor>{x, y, z}, d);
}

Tensor cross_composite(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return tl::linalg_cross(self, other, *dim);
  TL_CHECK(self.dim() == other.dim(), "cross: inputs must have the same number of dimensions.");
  // PyTorch's legacy default: the first dimension of size 3.
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  for (int64_t i = 0; i < int64_t(shape.size()); ++i)
    if (shape[size_t(i)] == 3) return tl::linalg_cross(self, other, i);
  TL_CHECK(false, "cross: no dimension of size 3 in input");
  return Tensor();
}

Tensor linalg_vecdot_composite(const Tensor& x, const Tensor& y, int64_t dim) {
  TL_CHECK(is_floating_type(x.dtype()) || is_complex_type(x.dtype()),
           "linalg.vecdot: Expected a floating point or complex tensor as input. Got ", legacy_type_name(x.dtype()));
  TL_CHECK(x.dtype() == y.dtype(), "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
           legacy_type_name(x.dtype()), " and y of type ", legacy_type_name(y.dtype()), " instead");
  // sum(conj(x) * y): x is conjugated, as PyTorch's (and NumPy's vecdot).
  return tl::sum(tl::mul(is_complex_type(x.dtype()) ? tl::conj_physical(x) : x, y), DimVector{dim});
}

Tensor linalg_multi_dot_composite(TensorList tensors) {
  const size_t n = tensors.size();
  TL_CHECK(n >= 2, "multi_dot(): expected at least 2 tensors but got ", n);
  const int64_t first = tensors[0].dim(), last = tensors[n - 1].dim();
  TL_CHECK(first == 1 || first == 2, "multi_dot(): the first tensor must be 1D or 2D but got ", first, "D");
  TL_CHECK(last == 1 || last == 2, "multi_dot(): the last tensor must be 1D or 2D but got ", last, "D");
  std::vector<Tensor> mats(tensors.begin(), tensors.end());
  for (size_t i = 1; i + 1 < n; ++i)
    TL_CHECK(mats[i].dim() == 2, "multi_dot(): tensor ", i, " must be 2D but got ", mats[i].dim(), "D");
  if (first == 1) mats[0] = tl::unsqueeze(mats[0], 0);
  if (last == 1) mats[n - 1] = tl::unsqueeze(mats[n - 1], 1);
  check_chain("multi_dot()", mats);
  Tensor r = multiply_chain(mats);
  if (first == 1 && last == 1) return tl::reshape(r, IntArrayRef());
  if (first == 1) return tl::squeeze(r, int64_t(0));
  if (last == 1) return tl::squeeze(r, int64_t(1));
  return r;
}

Tensor chain_matmul_composite(TensorList matrices) {
  TL_CHECK(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  std::vector<Tensor> mats(matrices.begin(), matrices.end());
  for (size_t i = 0; i < mats.size(); ++i)
    TL_CHECK(mats[i].dim() == 2, "chain_matmul(): Tensor dimension is ", mats[i].dim(), ", expected 2 instead.");
  if (mats.size() == 1) return tl::clone(mats[0]);
  check_chain("chain_matmul()", mats);
  return multiply_chain(mats);
}

Tensor cdist_composite(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  TL_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TL_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TL_CHECK(x1.sizes()[x1.dim() - 1] == x2.sizes()[x2.dim() - 1],
           "cdist: X1 and X2 must have the same number of columns. X1: ", x1.sizes()[x1.dim() - 1],
           " X2: ", x2.sizes()[x2.dim() - 1]);
  TL_CHECK(is_floating_type(x1.dtype()), "cdist only supports floating-point dtypes, X1 got: ",
           legacy_type_name(x1.dtype()));
  TL_CHECK(is_floating_type(x2.dtype()), "cdist only supports floating-point dtypes, X2 got: ",
           legacy_type_name(x2.dtype()));
  TL_CHECK(p >= 0, "cdist only supports non-negative p values");
  TL_CHECK(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2), "cdist: ", *compute_mode,
           " is not a valid value for compute_mode");
  TL_CHECK_AS(NotImplementedError, x1.dtype() == ScalarType::Float32 || x1.dtype() == ScalarType::Float64,
              "cdist: not implemented for '", legacy_type_name(x1.dtype()), "'");
  TL_CHECK(x1.dtype() == x2.dtype(), "cdist: X1 and X2 must have the same dtype, but got ",
           legacy_type_name(x1.dtype()), " and ", legacy_type_name(x2.dtype()));
  // PyTorch's choice for p = 2: through one matrix product when either side has more than 25
  // rows (compute_mode None or 0), always (1), never (2). |a - b|^2 = |a|^2 - 2 a.b + |b|^2 as
  // one matmul of [-2 x1, |x1|^2, 1] by [x2, 1, |x2|^2]^T, clamped above 0 before the sqrt.
  const int64_t r1 = x1.sizes()[x1.dim() - 2], r2 = x2.sizes()[x2.dim() - 2];
  const int64_t mode = compute_mode.value_or(0);
  if (p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) {
    const Tensor n1 = tl::sum(tl::mul(x1, x1), DimVector{-1}, true), n2 = tl::sum(tl::mul(x2, x2), DimVector{-1}, true);
    const Tensor a = tl::cat(std::vector<Tensor>{tl::mul(x1, -2), n1, tl::ones_like(n1)}, -1);
    const Tensor b = tl::cat(std::vector<Tensor>{x2, tl::ones_like(n2), n2}, -1);
    return tl::sqrt(tl::clamp_min(tl::matmul(a, tl::transpose(b, -1, -2)), 1e-30));
  }
  // |x1[i] - x2[j]|_p over the last dim of the broadcast difference [.., r1, r2, m].
  const Tensor diff = tl::sub(tl::unsqueeze(x1, -2), tl::unsqueeze(x2, -3));
  return tl::linalg_vector_norm(diff, p, DimVector{-1});
}

}  // namespace tl::native
