#include "aten/native/TensorIterator.h"

#include <algorithm>
#include <cstdlib>

#include "aten/core/Exception.h"
#include "aten/native/Resize.h"
#include "aten/native/TypePromotion.h"

namespace tl::native {

// Defined in cpu/Copy.cpp.
const Tensor& copy_kernel(const Tensor& self, const Tensor& src, bool non_blocking);

// ---------------------------------------------------------------- config

TensorIteratorConfig& TensorIteratorConfig::add_output(Tensor& out) {
  TL_CHECK(noutputs_ + ninputs_ < kMaxOperands, "TensorIterator: too many operands");
  TL_CHECK(ninputs_ == 0, "TensorIterator: outputs must be added before inputs");
  outputs_[noutputs_++] = &out;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::add_input(const Tensor& in) {
  TL_CHECK(noutputs_ + ninputs_ < kMaxOperands, "TensorIterator: too many operands");
  keep_dtype_[ninputs_] = false;
  inputs_[ninputs_++] = &in;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::add_input_keep_dtype(const Tensor& in) {
  TL_CHECK(noutputs_ + ninputs_ < kMaxOperands, "TensorIterator: too many operands");
  keep_dtype_[ninputs_] = true;
  inputs_[ninputs_++] = &in;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::add_scalar(const Scalar& s) {
  TL_CHECK(nscalars_ < 4, "TensorIterator: too many scalars");
  scalars_[nscalars_++] = s;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::set_op_name(const char* name) {
  op_ = name;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::promote_inputs_to_common_dtype(bool v) {
  promote_inputs_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::promote_integer_inputs_to_float(bool v) {
  promote_int_to_float_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::declare_static_common_dtype(ScalarType t) {
  static_common_ = t;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::declare_static_output_dtype(ScalarType t) {
  static_output_ = t;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::enforce_safe_casting_to_output(bool v) {
  enforce_safe_cast_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::check_exact_output_dtype(bool v) {
  check_exact_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::cast_common_dtype_to_outputs(bool v) {
  cast_to_outputs_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::resize_outputs(bool v) {
  resize_outputs_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::check_all_same_device(bool v) {
  check_device_ = v;
  return *this;
}
TensorIteratorConfig& TensorIteratorConfig::check_mem_overlap(bool v) {
  check_mem_overlap_ = v;
  return *this;
}

// ---------------------------------------------------------------- helpers

DimVector infer_size(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t na = a.size(), nb = b.size();
  const size_t n = std::max(na, nb);
  DimVector out(n);
  for (size_t k = 0; k < n; ++k) {  // k counts from the last dim
    const size_t i = n - 1 - k;
    const int64_t sa = k < na ? a[na - 1 - k] : 1;
    const int64_t sb = k < nb ? b[nb - 1 - k] : 1;
    TL_CHECK(sa == sb || sa == 1 || sb == 1, op, ": The size of tensor a (", sa,
             ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i, " (shapes ", a, " and ",
             b, ")");
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  const int64_t nd = t.dim();
  if (t.numel() <= 1) return true;
  if (t.is_contiguous()) return true;
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  SmallVec<int64_t, 8> order;
  order.resize(nd);
  int64_t m = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (sizes[d] != 1) order[m++] = d;
  // Insertion sort of the non-trivial dims by stride.
  for (int64_t i = 1; i < m; ++i) {
    int64_t v = order[i], j = i - 1;
    while (j >= 0 && strides[order[j]] > strides[v]) {
      order[j + 1] = order[j];
      --j;
    }
    order[j + 1] = v;
  }
  int64_t expected = 1;
  for (int64_t i = 0; i < m; ++i) {
    if (strides[order[i]] != expected) return false;
    expected *= sizes[order[i]];
  }
  return true;
}

DimVector preserve_format_strides(const Tensor& t) {
  if (is_non_overlapping_and_dense(t)) return DimVector(t.strides());
  const int64_t nd = t.dim();
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  SmallVec<int64_t, 8> perm;  // perm[0] = innermost dim
  perm.resize(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  // PyTorch's infer_dense_strides: 1 if dim0 should be outer to dim1, -1 if inner, 0 undecided.
  auto should_swap = [&](int64_t d0, int64_t d1) -> int {
    const int64_t s0 = strides[d0], s1 = strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t dim1 = i;
    for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
      const int cmp = should_swap(perm[dim0], perm[dim1]);
      if (cmp > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  DimVector out(nd);
  int64_t cur = 1;
  for (int64_t i = 0; i < nd; ++i) {
    out[perm[i]] = cur;
    if (sizes[perm[i]] > 1) cur *= sizes[perm[i]];
  }
  return out;
}

Tensor empty_like_preserve(const Tensor& t, ScalarType dtype, Device device) {
  return empty_strided_tensor(t.sizes(), preserve_format_strides(t), dtype, device);
}

namespace {

// Element stride of `t` along broadcast dim `dim` of `shape` (0 where t is broadcast).
inline int64_t broadcast_stride(const Tensor& t, IntArrayRef shape, int64_t dim) {
  const int64_t offset = static_cast<int64_t>(shape.size()) - t.dim();
  if (dim < offset) return 0;
  const int64_t td = dim - offset;
  if (t.impl()->size(td) == 1 && shape[dim] != 1) return 0;
  return t.impl()->stride(td);
}

// [first byte, one past the last byte] touched by t (empty range for numel 0).
inline void byte_range(const Tensor& t, const char*& lo, const char*& hi) {
  lo = static_cast<const char*>(t.data_ptr());
  int64_t extent = 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.impl()->size(d) - 1) * t.impl()->stride(d);
  hi = lo + extent * static_cast<int64_t>(t.itemsize());
}

}  // namespace

// ---------------------------------------------------------------- build

TensorIterator::TensorIterator(const TensorIteratorConfig& cfg) {
  op_ = cfg.op_;
  noutputs_ = cfg.noutputs_;
  ninputs_ = cfg.ninputs_;
  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    op.out_ref = cfg.outputs_[i];
    op.original = *cfg.outputs_[i];
    op.tensor = op.original;
    op.is_output = true;
  }
  for (int i = 0; i < ninputs_; ++i) {
    OperandInfo& op = ops_[noutputs_ + i];
    TL_CHECK(cfg.inputs_[i]->defined(), op_, ": expected a defined tensor for input ", i);
    op.original = *cfg.inputs_[i];
    op.tensor = op.original;
    op.keep_dtype = cfg.keep_dtype_[i];
  }
  compute_devices(cfg);
  compute_mem_overlaps(cfg);
  compute_shape(cfg);
  compute_types(cfg);
  compute_perm_and_allocate_outputs();
  if (is_meta_) return;
  handle_overlap_and_convert_inputs();
  setup_strides_and_coalesce();
}

void TensorIterator::compute_devices(const TensorIteratorConfig& cfg) {
  bool found = false;
  Device dev(DeviceType::CPU);
  for (int i = 0; i < ninputs_; ++i) {
    const Tensor& t = ops_[noutputs_ + i].original;
    if (t.dim() == 0 && t.is_cpu()) continue;  // CPU scalars mix with any device
    if (!found) {
      dev = t.device();
      found = true;
    } else if (cfg.check_device_ && t.device().type != dev.type) {
      TL_ERROR(op_, ": Expected all tensors to be on the same device, but found at least two devices, ",
               device_type_name(dev.type), " and ", device_type_name(t.device().type), "!");
    }
  }
  if (!found) {
    if (ninputs_ > 0) {
      dev = ops_[noutputs_].original.device();
      found = true;
    } else {
      for (int i = 0; i < noutputs_ && !found; ++i) {
        if (ops_[i].original.defined()) {
          dev = ops_[i].original.device();
          found = true;
        }
      }
    }
  }
  if (cfg.check_device_) {
    for (int i = 0; i < noutputs_; ++i) {
      const Tensor& t = ops_[i].original;
      if (t.defined() && t.device().type != dev.type) {
        TL_ERROR(op_, ": Expected all tensors to be on the same device, but found at least two devices, ",
                 device_type_name(t.device().type), " and ", device_type_name(dev.type), "!");
      }
    }
  }
  device_ = dev;
  is_meta_ = dev.is_meta();
}

namespace {

enum class Overlap { No, Full, Partial, TooHard };

// PyTorch's get_overlap_status.
Overlap overlap_status(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return Overlap::Full;
  if (a.numel() == 0 || b.numel() == 0) return Overlap::No;
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return Overlap::TooHard;
  if (a.storage().get() != b.storage().get()) return Overlap::No;
  const char* a_begin = static_cast<const char*>(a.data_ptr());
  const char* a_end = a_begin + a.nbytes();
  const char* b_begin = static_cast<const char*>(b.data_ptr());
  const char* b_end = b_begin + b.nbytes();
  if (a_begin == b_begin && a_end == b_end) return a.strides() == b.strides() ? Overlap::Full : Overlap::Partial;
  if (a_begin < b_end && b_begin < a_end) return Overlap::Partial;
  return Overlap::No;
}

}  // namespace

void TensorIterator::compute_mem_overlaps(const TensorIteratorConfig& cfg) {
  // Meta tensors have no memory to race on: PyTorch's meta functions check no overlap either.
  if (!cfg.check_mem_overlap_ || is_meta_) return;
  for (int i = 0; i < noutputs_; ++i) {
    const Tensor& out = ops_[i].original;
    if (!out.defined()) continue;
    // Writing through an expanded (stride 0) output would race and lose values.
    if (!is_non_overlapping_and_dense(out)) {
      for (int64_t d = 0; d < out.dim(); ++d) {
        TL_CHECK(out.impl()->size(d) <= 1 || out.impl()->stride(d) != 0, op_,
                 ": unsupported operation: more than one element of the written-to tensor refers to a "
                 "single memory location. Please clone() the tensor before performing the operation.");
      }
    }
    for (int j = 0; j < ninputs_; ++j) {
      TL_CHECK(overlap_status(out, ops_[noutputs_ + j].original) != Overlap::Partial, op_,
               ": unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
               "single memory location. Please clone() the tensor before performing the operation.");
    }
  }
}

void TensorIterator::compute_shape(const TensorIteratorConfig& cfg) {
  bool have = false;
  for (int i = 0; i < ninputs_; ++i) {
    IntArrayRef s = ops_[noutputs_ + i].original.sizes();
    if (!have) {
      shape_ = s;
      have = true;
    } else if (shape_ != s) {
      shape_ = infer_size(shape_, s, op_);
    }
  }
  if (!cfg.resize_outputs_ || !have) {
    for (int i = 0; i < noutputs_; ++i) {
      const Tensor& t = ops_[i].original;
      if (!t.defined()) continue;
      if (!have) {
        shape_ = t.sizes();
        have = true;
      } else if (shape_ != t.sizes()) {
        shape_ = infer_size(shape_, t.sizes(), op_);
      }
    }
  }
  for (int i = 0; i < noutputs_; ++i) {
    const Tensor& t = ops_[i].original;
    if (!t.defined() || shape_ == t.sizes()) continue;
    bool in_place = false;
    for (int j = 0; j < ninputs_; ++j) in_place = in_place || t.is_same(ops_[noutputs_ + j].original);
    TL_CHECK(cfg.resize_outputs_ && !in_place, op_, ": output with shape ", t.sizes(),
             " doesn't match the broadcast shape ", shape_.ref());
    ops_[i].will_resize = true;
  }
  numel_ = compute_numel(shape_);
}

void TensorIterator::compute_types(const TensorIteratorConfig& cfg) {
  ScalarType common = ScalarType::Undefined;
  const bool converting = cfg.promote_inputs_ || cfg.static_common_ != ScalarType::Undefined;
  if (cfg.static_common_ != ScalarType::Undefined) {
    common = cfg.static_common_;
  } else if (cfg.promote_inputs_) {
    ResultTypeState state;
    for (int i = 0; i < ninputs_; ++i) {
      const OperandInfo& op = ops_[noutputs_ + i];
      if (!op.keep_dtype) state = update_result_type_state(op.original, state);
    }
    // PyTorch promotes an int in [2**63, 2**64) as uint64, which no bool operand promotes with.
    const bool tensors_bool = result_type(state) == ScalarType::Bool;
    for (int i = 0; i < cfg.nscalars_; ++i) {
      TL_CHECK(!(tensors_bool && cfg.scalars_[i].is_uint64()), op_name(),
               ": Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and UInt64");
      state = update_result_type_state(cfg.scalars_[i], state);
    }
    common = result_type(state);
  } else {
    for (int i = 0; i < ninputs_ && common == ScalarType::Undefined; ++i)
      if (!ops_[noutputs_ + i].keep_dtype) common = ops_[noutputs_ + i].original.dtype();
  }
  if (common == ScalarType::Undefined) {
    for (int i = 0; i < noutputs_ && common == ScalarType::Undefined; ++i)
      if (ops_[i].original.defined()) common = ops_[i].original.dtype();
  }
  if (common == ScalarType::Undefined && ninputs_ > 0) common = ops_[noutputs_].original.dtype();
  if (cfg.promote_int_to_float_ && is_integral_type(common, /*include_bool=*/true)) common = default_dtype();
  common_dtype_ = common;

  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    const ScalarType want = cfg.static_output_ != ScalarType::Undefined ? cfg.static_output_ : common;
    if (!op.original.defined()) {
      op.dtype = want;
      continue;
    }
    const ScalarType have = op.original.dtype();
    TL_CHECK(!cfg.check_exact_ || have == want, op_, ": Found dtype ", legacy_type_name(have), " but expected ",
             legacy_type_name(want));
    TL_CHECK(!cfg.enforce_safe_cast_ || can_cast(common, have), op_, ": result type ", legacy_type_name(common),
             " can't be cast to the desired output type ", legacy_type_name(have));
    if (have != want && cfg.cast_to_outputs_) {
      op.needs_temp = true;
      op.dtype = want;
    } else {
      op.dtype = have;
    }
  }
  for (int i = 0; i < ninputs_; ++i) {
    OperandInfo& op = ops_[noutputs_ + i];
    op.dtype = (converting && !op.keep_dtype) ? common : op.original.dtype();
  }
}

void TensorIterator::compute_perm_and_allocate_outputs() {
  const int64_t nd = static_cast<int64_t>(shape_.size());
  const int nt = ntensors();
  perm_.resize(nd);
  for (int64_t i = 0; i < nd; ++i) perm_[i] = nd - 1 - i;

  // Operands whose layout counts: defined outputs that keep their shape, and all inputs.
  auto usable = [&](int a) {
    const OperandInfo& op = ops_[a];
    return op.original.defined() && !op.will_resize;
  };
  // 1: dim0 should come after dim1 (be outer); -1: before; 0: undecided. As in PyTorch.
  auto should_swap = [&](int64_t dim0, int64_t dim1) -> int {
    for (int a = 0; a < nt; ++a) {
      if (!usable(a)) continue;
      const int64_t s0 = broadcast_stride(ops_[a].original, shape_, dim0);
      const int64_t s1 = broadcast_stride(ops_[a].original, shape_, dim1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape_[dim0] > shape_[dim1]) return 1;
    }
    return 0;
  };
  if (nd > 1) {
    for (int64_t i = 1; i < nd; ++i) {
      int64_t dim1 = i;
      for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
        const int cmp = should_swap(perm_[dim0], perm_[dim1]);
        if (cmp > 0) {
          std::swap(perm_[dim0], perm_[dim1]);
          dim1 = dim0;
        } else if (cmp < 0) {
          break;
        }
      }
    }
  }
  bool inverted = true;
  for (int64_t i = 0; i < nd; ++i) inverted = inverted && perm_[i] == nd - 1 - i;

  DimVector layout;  // strides (tensor dim order) of a dense tensor laid out in iteration order
  auto make_layout = [&]() {
    if (!layout.empty() || nd == 0) return;
    layout.resize(nd);
    int64_t next = 1;
    for (int64_t i = 0; i < nd; ++i) {
      layout[perm_[i]] = next;
      next *= std::max<int64_t>(shape_[perm_[i]], 1);
    }
  };
  auto allocate = [&](ScalarType dtype) -> Tensor {
    if (inverted) return empty_tensor(shape_, dtype, device_);
    make_layout();
    return empty_strided_tensor(shape_, layout, dtype, device_);
  };

  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    if (!op.original.defined()) {
      op.original = allocate(op.dtype);
      op.tensor = op.original;
      *op.out_ref = op.original;
      continue;
    }
    if (op.will_resize) {
      resize_output(op.original, shape_, op_);
      if (!inverted) {
        make_layout();
        op.original.impl()->set_sizes_and_strides(shape_, layout, op.original.storage_offset());
      }
    }
    if (op.needs_temp && !is_meta_) {
      op.tensor = allocate(op.dtype);
      has_temp_outputs_ = true;
    } else {
      op.tensor = op.original;
    }
  }
}

void TensorIterator::handle_overlap_and_convert_inputs() {
  for (int i = 0; i < ninputs_; ++i) {
    OperandInfo& op = ops_[noutputs_ + i];
    const Tensor& t = op.original;
    if (op.dtype != t.dtype()) {
      if (t.dim() == 0 && t.is_cpu()) {
        convert_elements(op.dtype, op.scalar_buf, 0, t.dtype(), t.data_ptr(), 0, 1);
        op.inline_scalar = true;
      } else {
        Tensor tmp = empty_like_preserve(t, op.dtype, t.device());
        copy_kernel(tmp, t, false);
        op.tensor = tmp;
      }
      continue;
    }
    if (t.numel() == 0) continue;
    for (int o = 0; o < noutputs_; ++o) {
      const Tensor& out = ops_[o].tensor;
      if (out.numel() == 0 || out.storage().get() != t.storage().get()) continue;
      // Exactly the same elements in the same order: safe for elementwise ops.
      bool same = out.data_ptr() == t.data_ptr() && out.itemsize() == t.itemsize();
      for (size_t d = 0; same && d < shape_.size(); ++d) {
        if (shape_[d] == 1) continue;
        same = broadcast_stride(out, shape_, d) == broadcast_stride(t, shape_, d);
      }
      if (same) continue;
      const char *lo1, *hi1, *lo2, *hi2;
      byte_range(out, lo1, hi1);
      byte_range(t, lo2, hi2);
      if (lo1 < hi2 && lo2 < hi1) {
        Tensor tmp = empty_tensor(t.sizes(), t.dtype(), t.device());
        copy_kernel(tmp, t, false);
        op.tensor = tmp;
        break;
      }
    }
  }
}

void TensorIterator::setup_strides_and_coalesce() {
  const int64_t nd = static_cast<int64_t>(shape_.size());
  const int nt = ntensors();
  const int64_t n = std::max<int64_t>(nd, 1);
  iter_shape_.resize(n, 1);
  strides_.resize(n * kMaxOperands, 0);
  for (int64_t i = 0; i < nd; ++i) iter_shape_[i] = shape_[perm_[i]];
  for (int a = 0; a < nt; ++a) {
    OperandInfo& op = ops_[a];
    if (op.inline_scalar) {
      data_[a] = reinterpret_cast<char*>(op.scalar_buf);
      for (int64_t i = 0; i < n; ++i) strides_[i * kMaxOperands + a] = 0;
      continue;
    }
    const Tensor& t = op.tensor;
    data_[a] = static_cast<char*>(t.data_ptr());
    const int64_t item = static_cast<int64_t>(t.itemsize());
    for (int64_t i = 0; i < nd; ++i) strides_[i * kMaxOperands + a] = broadcast_stride(t, shape_, perm_[i]) * item;
    if (nd == 0)
      strides_[a] = 0;
  }
  if (nd <= 1) {
    ndim_ = 1;
    return;
  }
  // Merge adjacent dims that are one run for every operand (PyTorch's coalesce_dimensions).
  auto can_coalesce = [&](int64_t d0, int64_t d1) {
    const int64_t s0 = iter_shape_[d0], s1 = iter_shape_[d1];
    if (s0 == 1 || s1 == 1) return true;
    for (int a = 0; a < nt; ++a)
      if (s0 * strides_[d0 * kMaxOperands + a] != strides_[d1 * kMaxOperands + a]) return false;
    return true;
  };
  auto replace_stride = [&](int64_t d0, int64_t d1) {
    for (int a = 0; a < nt; ++a) strides_[d0 * kMaxOperands + a] = strides_[d1 * kMaxOperands + a];
  };
  int64_t prev = 0;
  for (int64_t d = 1; d < nd; ++d) {
    if (can_coalesce(prev, d)) {
      if (iter_shape_[prev] == 1) replace_stride(prev, d);
      iter_shape_[prev] *= iter_shape_[d];
    } else {
      ++prev;
      if (prev != d) {
        replace_stride(prev, d);
        iter_shape_[prev] = iter_shape_[d];
      }
    }
  }
  ndim_ = static_cast<int>(prev + 1);
  // Tile when, in 2-D, one operand runs along dim 0 and another along dim 1 and both are long.
  if (ndim_ == 2 && iter_shape_[0] >= 2 * TensorIterator::kTile && iter_shape_[1] >= 2 * TensorIterator::kTile) {
    bool fast0 = false, fast1 = false;
    for (int a = 0; a < nt; ++a) {
      const int64_t a0 = std::abs(strides_[a]), a1 = std::abs(strides_[kMaxOperands + a]);
      const int64_t item = static_cast<int64_t>(element_size(ops_[a].dtype));
      if (a0 == item && a1 > a0) fast0 = true;
      if (a1 == item && a0 > a1) fast1 = true;
    }
    tiled_ = fast0 && fast1;
  }
}

// ---------------------------------------------------------------- iteration

void TensorIterator::for_each_ref(LoopRef loop, int64_t grain_size) {
  if (is_meta_ || numel_ == 0) return;
  if (tiled_) {
    tiled_for_each(loop, grain_size);
  } else if (numel_ <= grain_size || get_num_threads() == 1 || in_parallel_region()) {
    serial_for_each_ref(loop, 0, numel_);
  } else {
    parallel_for(0, numel_, grain_size, [&](int64_t b, int64_t e) { serial_for_each_ref(loop, b, e); });
  }
  if (has_temp_outputs_) copy_temps_to_outputs();
}

void TensorIterator::serial_for_each_ref(LoopRef loop, int64_t begin, int64_t end) const {
  const int nt = ntensors();
  char* ptrs[kMaxOperands];
  const int64_t* s0 = &strides_[0];
  if (ndim_ == 1) {
    for (int a = 0; a < nt; ++a) ptrs[a] = data_[a] + begin * s0[a];
    loop(ptrs, s0, end - begin);
    return;
  }
  SmallVec<int64_t, 8> counter;
  counter.resize(ndim_);
  int64_t rem = begin;
  for (int d = 0; d < ndim_; ++d) {
    counter[d] = rem % iter_shape_[d];
    rem /= iter_shape_[d];
  }
  for (int a = 0; a < nt; ++a) {
    char* p = data_[a];
    for (int d = 0; d < ndim_; ++d) p += counter[d] * strides_[d * kMaxOperands + a];
    ptrs[a] = p;
  }
  int64_t remaining = end - begin;
  const int64_t size0 = iter_shape_[0];
  while (true) {
    const int64_t n = std::min(size0 - counter[0], remaining);
    char* run[kMaxOperands];
    for (int a = 0; a < nt; ++a) run[a] = ptrs[a];
    loop(run, s0, n);
    remaining -= n;
    if (remaining <= 0) break;
    // Back to the start of dim 0, then carry into the outer dims.
    for (int a = 0; a < nt; ++a) ptrs[a] -= counter[0] * s0[a];
    counter[0] = 0;
    for (int d = 1; d < ndim_; ++d) {
      const int64_t* sd = &strides_[d * kMaxOperands];
      if (++counter[d] < iter_shape_[d]) {
        for (int a = 0; a < nt; ++a) ptrs[a] += sd[a];
        break;
      }
      for (int a = 0; a < nt; ++a) ptrs[a] -= (iter_shape_[d] - 1) * sd[a];
      counter[d] = 0;
    }
  }
}

void TensorIterator::tiled_for_each(LoopRef loop, int64_t grain_size) {
  const int nt = ntensors();
  const int64_t n0 = iter_shape_[0], n1 = iter_shape_[1];
  const int64_t* s0 = &strides_[0];
  const int64_t* s1 = &strides_[kMaxOperands];
  const int64_t ncols = (n1 + kTile - 1) / kTile;
  auto body = [&](int64_t cb, int64_t ce) {
    char* ptrs[kMaxOperands];
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t j0 = c * kTile, j1 = std::min(n1, j0 + kTile);
      for (int64_t i0 = 0; i0 < n0; i0 += kTile) {
        const int64_t len = std::min(kTile, n0 - i0);
        for (int64_t j = j0; j < j1; ++j) {
          for (int a = 0; a < nt; ++a) ptrs[a] = data_[a] + i0 * s0[a] + j * s1[a];
          loop(ptrs, s0, len);
        }
      }
    }
  };
  if (numel_ <= grain_size || get_num_threads() == 1 || in_parallel_region()) {
    body(0, ncols);
  } else {
    parallel_for(0, ncols, std::max<int64_t>(1, grain_size / (kTile * n0)), body);
  }
}

// ---------------------------------------------------------------- queries

bool TensorIterator::is_scalar(int arg) const {
  for (int d = 0; d < ndim_; ++d)
    if (iter_shape_[d] != 1 && strides_[d * kMaxOperands + arg] != 0) return false;
  return true;
}

bool TensorIterator::is_contiguous() const {
  if (ndim_ != 1) return false;
  for (int a = 0; a < ntensors(); ++a)
    if (strides_[a] != static_cast<int64_t>(element_size(ops_[a].dtype))) return false;
  return true;
}

void TensorIterator::copy_temps_to_outputs() {
  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    if (op.needs_temp && !op.tensor.is_same(op.original)) copy_kernel(op.original, op.tensor, false);
  }
}

}  // namespace tl::native
