#include "aten/jit/FusionLayout.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "aten/core/Exception.h"

namespace tl::jit {

FusionLayout make_fusion_layout(IntArrayRef shape, IntArrayRef order_strides,
                                const std::vector<std::vector<int64_t>>& operand_strides) {
  FusionLayout L;
  // Dims of size > 1, innermost (smallest stride of the first output) first; ties keep the later
  // dim inner, as a contiguous tensor's order.
  std::vector<size_t> dims;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](size_t a, size_t b) {
    return order_strides[a] != order_strides[b] ? order_strides[a] > order_strides[b] : a < b;
  });
  std::reverse(dims.begin(), dims.end());
  L.strides.assign(operand_strides.size(), {});
  for (size_t d : dims) {
    const int64_t size = shape[d];
    // Merge into the current outer dim when every operand steps on: stride == inner stride * inner size.
    bool merge = !L.sizes.empty();
    for (size_t op = 0; merge && op < operand_strides.size(); ++op)
      merge = operand_strides[op][d] == L.strides[op].back() * L.sizes.back();
    if (merge) {
      L.sizes.back() *= size;
      continue;
    }
    L.sizes.push_back(size);
    for (size_t op = 0; op < operand_strides.size(); ++op) L.strides[op].push_back(operand_strides[op][d]);
  }
  if (L.sizes.empty()) {  // a single element: one dim of size 1 keeps the walks below simple
    L.sizes.push_back(1);
    for (auto& st : L.strides) st.push_back(0);
  }
  L.numel = std::accumulate(L.sizes.begin(), L.sizes.end(), int64_t{1}, std::multiplies<int64_t>());
  L.flat.assign(operand_strides.size(), true);
  for (size_t op = 0; op < operand_strides.size(); ++op) {
    int64_t expected = 1;
    for (size_t d = 0; d < L.sizes.size(); ++d) {
      if (L.sizes[d] != 1 && L.strides[op][d] != expected) L.flat[op] = false;
      expected *= L.sizes[d];
    }
  }
  return L;
}

namespace {

// Walks [start, start + len) of the iteration space, calling run(offset_of_first, count, stride)
// for each stretch along the innermost dim (offset and stride in elements of operand `op`).
template <typename F>
void for_each_run(const FusionLayout& L, size_t op, int64_t start, int64_t len, const F& run) {
  const size_t nd = L.sizes.size();
  const std::vector<int64_t>& st = L.strides[op];
  int64_t idx[16];  // coalesced dims: at most the tensors' 64 dims, but in practice few
  std::vector<int64_t> big;
  int64_t* index = idx;
  if (nd > 16) {
    big.resize(nd);
    index = big.data();
  }
  int64_t rest = start, offset = 0;
  for (size_t d = 0; d < nd; ++d) {
    index[d] = rest % L.sizes[d];
    rest /= L.sizes[d];
    offset += index[d] * st[d];
  }
  while (len > 0) {
    const int64_t n = std::min(len, L.sizes[0] - index[0]);
    run(offset, n, st[0]);
    len -= n;
    offset += n * st[0];
    index[0] += n;
    for (size_t d = 0; d + 1 < nd && index[d] == L.sizes[d]; ++d) {  // carry into the outer dims
      offset -= index[d] * st[d];
      index[d] = 0;
      ++index[d + 1];
      offset += st[d + 1];
    }
  }
}

template <size_t N>
struct Bytes {
  char b[N];
};

template <typename E>
void copy_run(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * dst_stride * sizeof(E), src + i * src_stride * sizeof(E), sizeof(E));
}

void copy_run(size_t esz, char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t n) {
  if (dst_stride == 1 && src_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * esz);
    return;
  }
  switch (esz) {
    case 1: return copy_run<Bytes<1>>(dst, dst_stride, src, src_stride, n);
    case 2: return copy_run<Bytes<2>>(dst, dst_stride, src, src_stride, n);
    case 4: return copy_run<Bytes<4>>(dst, dst_stride, src, src_stride, n);
    case 8: return copy_run<Bytes<8>>(dst, dst_stride, src, src_stride, n);
    case 16: return copy_run<Bytes<16>>(dst, dst_stride, src, src_stride, n);
    default: TL_CHECK(false, "jit: fusion: unexpected element size ", esz);
  }
}

}  // namespace

void fusion_gather(const FusionLayout& L, size_t op, const char* base, char* buffer, size_t esz, int64_t start,
                   int64_t len) {
  char* dst = buffer;
  for_each_run(L, op, start, len, [&](int64_t offset, int64_t n, int64_t stride) {
    copy_run(esz, dst, 1, base + offset * static_cast<int64_t>(esz), stride, n);
    dst += n * static_cast<int64_t>(esz);
  });
}

void fusion_scatter(const FusionLayout& L, size_t op, char* base, const char* buffer, size_t esz, int64_t start,
                    int64_t len) {
  const char* src = buffer;
  for_each_run(L, op, start, len, [&](int64_t offset, int64_t n, int64_t stride) {
    copy_run(esz, base + offset * static_cast<int64_t>(esz), stride, src, 1, n);
    src += n * static_cast<int64_t>(esz);
  });
}

}  // namespace tl::jit
