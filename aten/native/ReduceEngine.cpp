// Geometry and work split of the reduction engine (the folds are templates in ReduceEngine.h).
#include "aten/native/ReduceEngine.h"

#include "aten/core/Exception.h"
#include "aten/native/ShapeUtils.h"

namespace tl::native::reduce {

std::vector<Dim> coalesce(std::vector<Dim> dims) {
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return stride_key(a.stride) > stride_key(b.stride); });
  std::vector<Dim> out;
  for (const Dim& d : dims) {
    if (!out.empty() && out.back().stride == d.size * d.stride) {
      out.back().size *= d.size;
      out.back().stride = d.stride;
    } else {
      out.push_back(d);
    }
  }
  return out;
}

DimVector reduced_shape(IntArrayRef sizes, uint64_t mask, bool keepdim) {
  DimVector shape;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    if (!(mask >> i & 1)) shape.push_back(sizes[i]);
    else if (keepdim) shape.push_back(1);
  }
  return shape;
}

uint64_t reduce_mask(const Tensor& self, OptionalIntArrayRef dim, const char* op) {
  if (!dim || dim->empty()) {
    dims_to_bitmask({}, self.dim(), op);  // checks the dim count limit
    return self.dim() >= 64 ? ~uint64_t(0) : (uint64_t(1) << self.dim()) - 1;
  }
  uint64_t mask = dims_to_bitmask(*dim, self.dim(), op);
  return self.dim() == 0 ? 0 : mask;
}

Geometry make_geometry(IntArrayRef sizes, IntArrayRef strides, uint64_t mask, bool drop_broadcast) {
  Geometry g;
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector kept_sizes;
  for (int64_t i = 0; i < nd; ++i)
    if (!(mask >> i & 1)) kept_sizes.push_back(sizes[i]);
  DimVector kout = contiguous_strides(kept_sizes);
  for (int64_t i = 0, k = 0; i < nd; ++i) {
    const int64_t sz = sizes[i], st = strides[i];
    if (mask >> i & 1) {
      if (sz != 1 && !(drop_broadcast && st == 0 && sz > 0)) g.red.push_back({sz, st});
    } else {
      if (sz != 1) {
        g.kept_in.push_back({sz, st});
        g.kept_out.push_back({sz, kout[k]});
      }
      ++k;
    }
  }
  for (const Dim& d : g.kept_in) g.outputs *= d.size;
  for (const Dim& d : g.red) g.length *= d.size;
  g.red = coalesce(g.red);
  return g;
}

namespace {
// a * b, saturated to int64 (work estimates only).
int64_t work(int64_t a, int64_t b) {
  __int128 w = static_cast<__int128>(a) * b;
  return w > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(w);
}
}  // namespace

Plan make_plan(const Geometry& g) {
  Plan p;
  const int64_t K = g.outputs, R = g.length;
  // Outer when the kept dim with the smallest stride is below every reduced stride.
  for (int64_t i = 0; i < static_cast<int64_t>(g.kept_in.size()); ++i)
    if (p.vdim < 0 || stride_key(g.kept_in[i].stride) < stride_key(g.kept_in[p.vdim].stride)) p.vdim = i;
  int64_t rmin = std::numeric_limits<int64_t>::max();
  for (const Dim& d : g.red) rmin = std::min(rmin, stride_key(d.stride));
  p.outer = p.vdim >= 0 && !g.red.empty() && stride_key(g.kept_in[p.vdim].stride) < rmin &&
            g.kept_in[p.vdim].size >= 4;
  if (!p.outer) {
    p.chunks = K >= 16 ? 1 : std::clamp<int64_t>(R / (4 * kGrain), 1, 64);
    p.tasks = K * p.chunks;
    p.grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, R / p.chunks));
    return p;
  }
  const int64_t W = g.kept_in[p.vdim].size;
  p.blocks = (W + kBlock - 1) / kBlock;
  const int64_t col_tasks = K / W * p.blocks;
  p.chunks = col_tasks >= 16 ? 1 : std::clamp<int64_t>(work(K, R) / (4 * kGrain) / col_tasks, 1, 64);
  p.chunks = std::min(p.chunks, R);
  p.tasks = col_tasks * p.chunks;
  p.grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(1, work(std::min(W, kBlock), R / p.chunks)));
  return p;
}

OuterDims outer_dims(const Geometry& g, const Plan& p) {
  OuterDims od{g.kept_in[p.vdim], g.kept_out[p.vdim], {}, {}};
  for (int64_t i = 0; i < static_cast<int64_t>(g.kept_in.size()); ++i) {
    if (i == p.vdim) continue;
    od.rest_in.push_back(g.kept_in[i]);
    od.rest_out.push_back(g.kept_out[i]);
  }
  return od;
}

}  // namespace tl::native::reduce
