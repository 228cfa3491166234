// The "along one dimension" engine: runs a kernel on every 1-D slice of its operands along `dim`.
//
// Ops such as cumsum, softmax, sort or gather compute each slice independently. The engine does
// everything else once for all of them: it walks the slices of any strided operands (transposed,
// sliced, expanded, 0-d, empty), splits them over threads, and hands the kernel, per operand, a
// pointer, a stride and a length. A kernel is only its per-slice loop:
//
//   dim_apply({out}, {self}, dim, {}, [&](const DimSlice* s) {    // s[0] = out, s[1] = self
//     auto* y = s[0].as<float>(); auto* x = s[1].as<float>();
//     float acc = 0;
//     for (int64_t i = 0; i < s[1].size; ++i) y[i * s[0].stride] = acc += x[i * s[1].stride];
//   });
//
// Operands must have the same number of dims and agree on every size except along `dim`, where
// each has its own length (sort's values and indices, topk's k, gather's index). A 0-d operand is
// a slice of length 1. With `contiguous = true` the engine copies strided slices into a per-thread
// scratch buffer (groups of adjacent slices at once, so the copy reads whole cache lines) and
// writes outputs back, so the kernel always sees stride 1; that is faster when a slice is strided
// and the kernel's loop vectorizes or walks a slice more than once.
//
// Output checks (allocation, out= resize, dtype, device) live in prepare_output below, so that
// every op applies the same rules.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"  // SmallVec

namespace tl::native {

// One operand's slice: element i is at as<T>()[i * stride].
struct DimSlice {
  char* data;
  int64_t stride;  // in elements
  int64_t size;    // length along dim
  template <typename T>
  T* as() const { return reinterpret_cast<T*>(data); }
};

struct DimApplyOptions {
  bool contiguous = false;  // give the kernel stride-1 slices (scratch copies of strided ones)
  int64_t cost_per_element = 1;  // rough work per element, for the parallel grain
  bool read_outputs = false;  // with `contiguous`: outputs are read too (scatter_add), copy them in
};

// ---- output handling (one place for all ops of both engines) -----------------------------------

// How an out tensor's dtype must relate to the result's.
enum class OutDtype {
  Exact,  // out.dtype() must equal `dtype` (softmax, sort's values)
  Any,    // out keeps its own dtype (the kernel computes in it), as cumsum's out= does
};

// Allocates `out` (undefined) as a contiguous tensor of `shape`/`dtype` on `like`'s device, or checks
// the user's out= / in-place tensor (device, dtype per `rule`) and resizes it to `shape`.
// Raises PyTorch's messages, prefixed by `op`.
void prepare_output(Tensor& out, IntArrayRef shape, ScalarType dtype, const Tensor& like, OutDtype rule,
                    const char* op);

// The C++ element type's name as PyTorch's dtype messages print it ("float", "long int").
const char* cpp_type_name(ScalarType t);

// Refuses an output whose elements share memory (an expanded self written in place), with
// PyTorch's RuntimeError; an empty tensor has no shared elements.
void check_no_internal_overlap(const Tensor& out, const char* op);

// Ops with two outputs (values, indices): out= must give both or neither.
void check_out_pair(const Tensor& values, const Tensor& indices, const char* op);

// `t` converted to `dtype` (itself when it already has it), for kernels that compute in one dtype.
Tensor cast_to(const Tensor& t, ScalarType dtype);

// ---- the engine ----------------------------------------------------------------------------------

namespace detail {

// Per-call state lives inline (SmallVec): a call on small tensors (softmax of one row) would
// otherwise spend as long in malloc/free as in its kernel. Heap only beyond 8 outer dims/4 operands.
struct DimGeometry {
  int64_t nops = 0;
  int64_t nslices = 0;                   // product of the sizes of every dim except `dim`
  SmallVec<int64_t, 8> outer_sizes;      // sizes of the other dims, innermost last
  SmallVec<int64_t, 32> outer_strides;   // [nops][outer dims], in bytes
  SmallVec<int64_t, 4> dim_strides;      // per operand, in elements
  SmallVec<int64_t, 4> dim_sizes;        // per operand
  SmallVec<int64_t, 4> itemsizes;
  SmallVec<char*, 4> bases;
  int64_t max_len = 0;
};

// Fills `g` for the operands: the outputs, then the inputs.
void make_geometry(DimGeometry& g, ArrayRef<Tensor> outputs, ArrayRef<Tensor> inputs, int64_t dim, const char* op);

// Walks slice indices in order, keeping each operand's byte offset of the current slice.
struct SliceWalker {
  const DimGeometry& g;
  SmallVec<int64_t, 8> idx;
  SmallVec<int64_t, 8> off;
  SliceWalker(const DimGeometry& geom, int64_t start) : g(geom) {
    idx.resize(geom.outer_sizes.size());
    off.resize(static_cast<size_t>(geom.nops));
    const int64_t nd = static_cast<int64_t>(idx.size());
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = start % g.outer_sizes[d];
      start /= g.outer_sizes[d];
      for (int64_t k = 0; k < g.nops; ++k) off[k] += idx[d] * g.outer_strides[k * nd + d];
    }
  }
  void next() {
    const int64_t nd = static_cast<int64_t>(idx.size());
    for (int64_t d = nd - 1; d >= 0; --d) {
      for (int64_t k = 0; k < g.nops; ++k) off[k] += g.outer_strides[k * nd + d];
      if (++idx[d] < g.outer_sizes[d]) return;
      for (int64_t k = 0; k < g.nops; ++k) off[k] -= idx[d] * g.outer_strides[k * nd + d];
      idx[d] = 0;
    }
  }
  // Slices left in the innermost outer dim from here (they are evenly spaced in memory).
  int64_t run_left() const {
    const size_t nd = idx.size();
    return nd == 0 ? 1 : g.outer_sizes[nd - 1] - idx[nd - 1];
  }
  int64_t inner_stride(int64_t k) const {  // bytes between neighbouring slices of the run
    return idx.size() == 0 ? 0 : g.outer_strides[k * idx.size() + idx.size() - 1];
  }
};

// Copies `n` elements of `count` slices (slice j at src + j*slice_step bytes, element stride
// `elem_stride` bytes) into/out of `buf`, which holds the slices one after another.
void gather_slices(char* buf, const char* src, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride,
                   int64_t itemsize);
void scatter_slices(const char* buf, char* dst, int64_t count, int64_t slice_step, int64_t n, int64_t elem_stride,
                    int64_t itemsize);

constexpr int64_t kScratchGroup = 16;  // slices copied together: 16 floats = one cache line per element row

}  // namespace detail

// Runs f(const DimSlice* s) for every slice; s[0..outputs) are the outputs, then the inputs.
template <typename F>
void dim_apply(ArrayRef<Tensor> outputs, ArrayRef<Tensor> inputs, int64_t dim, DimApplyOptions opts, const F& f) {
  if (outputs.empty() && inputs.empty()) return;
  if ((outputs.empty() ? inputs[0] : outputs[0]).is_meta()) return;
  detail::DimGeometry g;
  detail::make_geometry(g, outputs, inputs, dim, "dim_apply");
  if (g.nslices == 0) return;
  const int64_t nops = g.nops;
  const int64_t nout = static_cast<int64_t>(outputs.size());
  const int64_t work = std::max<int64_t>(1, g.max_len * opts.cost_per_element);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / work);

  bool use_scratch = false;
  if (opts.contiguous)
    for (int64_t k = 0; k < nops; ++k) use_scratch |= g.dim_strides[k] != 1 && g.dim_sizes[k] > 1;

  parallel_for(0, g.nslices, grain, [&](int64_t begin, int64_t end) {
    detail::SliceWalker w(g, begin);
    SmallVec<DimSlice, 4> s;
    s.resize(static_cast<size_t>(nops));
    if (!use_scratch) {
      for (int64_t i = begin; i < end; ++i, w.next()) {
        for (int64_t k = 0; k < nops; ++k) s[k] = {g.bases[k] + w.off[k], g.dim_strides[k], g.dim_sizes[k]};
        f(s.data());
      }
      return;
    }
    // Scratch: each operand's group of up to kScratchGroup slices, one slice after another.
    const int64_t G = detail::kScratchGroup;
    std::vector<int64_t> bufoff(nops + 1, 0);
    for (int64_t k = 0; k < nops; ++k) bufoff[k + 1] = bufoff[k] + ((G * g.dim_sizes[k] * g.itemsizes[k] + 63) & ~63);
    std::vector<char> storage(static_cast<size_t>(bufoff[nops] + 64));
    char* buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~uintptr_t(63));
    for (int64_t i = begin; i < end;) {
      const int64_t count = std::min<int64_t>({G, end - i, w.run_left()});
      for (int64_t k = opts.read_outputs ? 0 : nout; k < nops; ++k) {  // inputs (and outputs read) in
        if (g.dim_strides[k] == 1 && g.dim_sizes[k] > 0) continue;
        detail::gather_slices(buf + bufoff[k], g.bases[k] + w.off[k], count, w.inner_stride(k), g.dim_sizes[k],
                              g.dim_strides[k] * g.itemsizes[k], g.itemsizes[k]);
      }
      for (int64_t j = 0; j < count; ++j) {
        for (int64_t k = 0; k < nops; ++k) {
          if (g.dim_strides[k] == 1 && g.dim_sizes[k] > 0)
            s[k] = {g.bases[k] + w.off[k] + j * w.inner_stride(k), 1, g.dim_sizes[k]};
          else
            s[k] = {buf + bufoff[k] + j * g.dim_sizes[k] * g.itemsizes[k], 1, g.dim_sizes[k]};
        }
        f(s.data());
      }
      for (int64_t k = 0; k < nout; ++k) {  // outputs back
        if (g.dim_strides[k] == 1 && g.dim_sizes[k] > 0) continue;
        detail::scatter_slices(buf + bufoff[k], g.bases[k] + w.off[k], count, w.inner_stride(k), g.dim_sizes[k],
                               g.dim_strides[k] * g.itemsizes[k], g.itemsizes[k]);
      }
      for (int64_t j = 0; j < count; ++j) w.next();
      i += count;
    }
  });
}

}  // namespace tl::native
