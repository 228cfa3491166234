// Padding: constant_pad_nd (any number of trailing dims, negative pads crop) and the reflection /
// replication pads of 1 to 3 trailing dims with their backward ops.
//
// Reflection and replication differ only in where an output position reads from, so one engine
// serves the six forward and six backward ops: per padded dim a table maps each output index to
// its input index (reflect: i = o - pad_before mirrored into [0, n) without repeating the edge;
// replicate: clamped into [0, n)). The forward gathers through the tables (the W interior is a
// plain copy), the backward scatter-adds through them; both run in parallel over the planes (all
// the non-padded dims together), which never share an element.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/OutputUtils.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/copy.h"
#include "generated/ops/fill.h"
#include "generated/ops/zeros.h"
#include "generated/ops/reflection_pad1d.h"
#include "generated/ops/reflection_pad1d_backward.h"
#include "generated/ops/reflection_pad2d.h"
#include "generated/ops/reflection_pad2d_backward.h"
#include "generated/ops/reflection_pad3d.h"
#include "generated/ops/reflection_pad3d_backward.h"
#include "generated/ops/replication_pad1d.h"
#include "generated/ops/replication_pad1d_backward.h"
#include "generated/ops/replication_pad2d.h"
#include "generated/ops/replication_pad2d_backward.h"
#include "generated/ops/replication_pad3d.h"
#include "generated/ops/replication_pad3d_backward.h"

namespace tl::native {

Tensor constant_pad_nd_kernel(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const char* op = "constant_pad_nd";
  TL_CHECK(pad.size() % 2 == 0, op, ": Length of pad must be even but instead it equals ", pad.size());
  const int64_t nd = self.dim();
  const int64_t npad = static_cast<int64_t>(pad.size()) / 2;
  TL_CHECK(nd >= npad, op, ": Length of pad should be no more than twice the number of dimensions of the input. ",
           "Pad length is ", pad.size(), " while the input has ", nd, " dimensions.");
  // Negative pads first crop the input (a view); the rest is fill + copy into the interior.
  DimVector in_sizes(self.sizes()), out_sizes(self.sizes());
  int64_t in_offset = self.storage_offset();
  bool any_positive = false;
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t d = nd - 1 - i, before = pad[2 * i], after = pad[2 * i + 1];
    int64_t n = in_sizes[d];
    if (before < 0) {
      TL_CHECK(n + before >= 0, op, ": narrow(): length must be non-negative.");
      in_offset += -before * self.strides()[d];
      n += before;
    }
    if (after < 0) {
      TL_CHECK(n + after >= 0, op, ": narrow(): length must be non-negative.");
      n += after;
    }
    in_sizes[d] = n;
    any_positive = any_positive || before > 0 || after > 0;
    // In 128 bits: the fuzzer's pads near the int64 limits must not overflow (UBSan).
    const __int128 padded = static_cast<__int128>(self.sizes()[d]) + before + after;
    TL_CHECK(padded <= INT64_MAX, op, ": the padded size of dimension ", d, " (", self.sizes()[d], " + ", before,
             " + ", after, ") does not fit in int64");
    out_sizes[d] = static_cast<int64_t>(padded);
  }
  // Convert (and range-check) the value on every path, as fill_ would.
  Tensor out = empty_tensor(any_positive ? IntArrayRef(out_sizes) : IntArrayRef(in_sizes), self.dtype(),
                            self.device());
  if (any_positive) {
    for (int64_t i = 0; i < npad; ++i) {
      const int64_t d = nd - 1 - i;
      TL_CHECK(out_sizes[d] > 0, op, ": The input size ", self.sizes()[d], ", plus negative padding ", pad[2 * i],
               " and ", pad[2 * i + 1], " resulted in a negative output size, which is invalid. Check dimension ", d,
               " of your input.");
    }
    tl::fill_(out, value);
  }
  if (out.is_meta() || out.numel() == 0) return out;
  int64_t out_offset = 0;
  for (int64_t i = 0; i < npad; ++i) {
    const int64_t d = nd - 1 - i;
    if (pad[2 * i] > 0) out_offset += pad[2 * i] * out.strides()[d];
  }
  const Tensor src = make_view(self, in_sizes, self.strides(), in_offset);
  copy_kernel(make_view(out, in_sizes, out.strides(), out_offset), src, false);
  return out;
}

namespace {

// `padding` pairs run from the last dim inwards: pair i pads dim nd - 1 - i.
struct PadGeometry {
  int64_t planes = 1;                          // product of the non-padded dims
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};  // D, H, W (unused leading ones stay 1)
  std::vector<int64_t> map[3];                 // output index -> input index, per D, H, W
};

void check_pad_input(const char* op, const Tensor& input, IntArrayRef padding, int64_t k) {
  TL_CHECK(static_cast<int64_t>(padding.size()) == 2 * k, op, ": padding size is expected to be ", 2 * k,
           ", but got: ", padding.size());
  const int64_t nd = input.dim();
  const bool batched = nd == k + 2;
  bool valid = batched || nd == k + 1;
  for (int64_t d = batched ? 1 : 0; valid && d < nd; ++d) valid = input.sizes()[d] != 0;
  TL_CHECK(valid, op, ": Expected ", k + 1, "D or ", k + 2,
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
           input.sizes());
}

// The checks of the forward op and the output shape.
DimVector pad_output_shape(const char* op, const Tensor& input, IntArrayRef padding, int64_t k, bool reflect) {
  check_pad_input(op, input, padding, k);
  const int64_t nd = input.dim();
  if (reflect) {
    for (int64_t i = 0; i < k; ++i) {
      const int64_t d = nd - 1 - i;
      TL_CHECK(padding[2 * i] < input.sizes()[d] && padding[2 * i + 1] < input.sizes()[d], op, ": Argument #",
               4 + 2 * i, ": Padding size should be less than the corresponding input dimension, but got: padding (",
               padding[2 * i], ", ", padding[2 * i + 1], ") at dimension ", d, " of input ", input.sizes());
    }
  }
  DimVector shape(input.sizes());
  bool valid = true;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    // In 128 bits: pads near the int64 limits must not overflow (UBSan).
    const __int128 padded = static_cast<__int128>(input.sizes()[d]) + padding[2 * i] + padding[2 * i + 1];
    TL_CHECK(padded <= INT64_MAX, op, ": the padded size of dimension ", d, " (", input.sizes()[d], " + ",
             padding[2 * i], " + ", padding[2 * i + 1], ") does not fit in int64");
    shape[d] = static_cast<int64_t>(padded);
    valid = valid && shape[d] >= 1;
  }
  if (!valid) {
    const char* names[3] = {"D", "H", "W"};
    std::string in_s, out_s;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t d = nd - k + j;
      const char* name = names[3 - k + j];
      in_s += str(j ? ", " : "", name, ": ", input.sizes()[d]);
      out_s += str(j ? " " : "", name, ": ", shape[d]);
    }
    TL_CHECK(false, op, ": input (", in_s, ") is too small. Calculated output ", out_s);
  }
  return shape;
}

PadGeometry pad_geometry(const Tensor& input, IntArrayRef out_sizes, IntArrayRef padding, int64_t k, bool reflect) {
  PadGeometry g;
  const int64_t nd = input.dim();
  for (int64_t d = 0; d < nd - k; ++d) g.planes *= input.sizes()[d];
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, s = 2 - i;
    const int64_t n = input.sizes()[d], m = out_sizes[d], before = padding[2 * i];
    g.in[s] = n;
    g.out[s] = m;
    g.map[s].resize(m);
    for (int64_t o = 0; o < m; ++o) {
      int64_t j = o - before;
      if (reflect) {
        if (j < 0) j = -j;
        if (j >= n) j = 2 * (n - 1) - j;
      } else {
        j = std::clamp<int64_t>(j, 0, n - 1);
      }
      g.map[s][o] = j;
    }
  }
  for (int s = 0; s < 3 - k; ++s) g.map[s] = {0};
  return g;
}

template <typename T>
void pad_forward(const T* in, T* out, const PadGeometry& g, int64_t pad_left) {
  const int64_t iw = g.in[2], ow = g.out[2];
  const int64_t in_plane = g.in[0] * g.in[1] * iw, out_plane = g.out[0] * g.out[1] * ow;
  // The W positions read in order: [lo, hi) of the output is in[lo - pad_left ...].
  const int64_t lo = std::clamp<int64_t>(pad_left, 0, ow), hi = std::clamp<int64_t>(pad_left + iw, lo, ow);
  const int64_t* mw = g.map[2].data();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  parallel_for(0, g.planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* src = in + p * in_plane;
      T* dst = out + p * out_plane;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          const T* row = src + (g.map[0][od] * g.in[1] + g.map[1][oh]) * iw;
          T* o = dst + (od * g.out[1] + oh) * ow;
          for (int64_t x = 0; x < lo; ++x) o[x] = row[mw[x]];
          if (hi > lo) std::memcpy(o + lo, row + (lo - pad_left), (hi - lo) * sizeof(T));
          for (int64_t x = hi; x < ow; ++x) o[x] = row[mw[x]];
        }
      }
    }
  });
}

// grad_input += grad_output through the tables, accumulated in T in PyTorch's order (so the
// 16-bit floats round as PyTorch's do) into the zeroed grad_input.
template <typename T>
void pad_backward(const T* go, T* gi, const PadGeometry& g) {
  const int64_t iw = g.in[2], ow = g.out[2];
  const int64_t in_plane = g.in[0] * g.in[1] * iw, out_plane = g.out[0] * g.out[1] * ow;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, out_plane));
  const int64_t* mw = g.map[2].data();
  parallel_for(0, g.planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      T* dst = gi + p * in_plane;
      const T* src = go + p * out_plane;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
          T* row = dst + (g.map[0][od] * g.in[1] + g.map[1][oh]) * iw;
          const T* o = src + (od * g.out[1] + oh) * ow;
          for (int64_t x = 0; x < ow; ++x) row[mw[x]] = static_cast<T>(row[mw[x]] + o[x]);
        }
      }
    }
  });
}

void pad_kernel(const char* op, const Tensor& self, IntArrayRef padding, int64_t k, bool reflect, Tensor& out) {
  const DimVector shape = pad_output_shape(op, self, padding, k, reflect);
  prepare_output(out, {op, shape, self.dtype(), self.device(), OutDtype::Exact});
  if (self.is_meta() || out.numel() == 0) return;
  const PadGeometry g = pad_geometry(self, shape, padding, k, reflect);
  const Tensor in = self.is_contiguous() ? self : tl::contiguous(self);
  Tensor buf = output_buffer(out, self.dtype(), self);
  TL_DISPATCH_SWITCH(self.dtype(), op, TL_CASES_FLOAT([&] {
    pad_forward(in.data_ptr<scalar_t>(), buf.data_ptr<scalar_t>(), g, padding[0]);
  }) TL_CASES_INTEGRAL([&] { pad_forward(in.data_ptr<scalar_t>(), buf.data_ptr<scalar_t>(), g, padding[0]); })
                                                TL_CASES_COMPLEX([&] {
                                                  pad_forward(in.data_ptr<scalar_t>(), buf.data_ptr<scalar_t>(), g,
                                                              padding[0]);
                                                }));
  commit_output(out, buf);
}

Tensor pad_backward_kernel(const char* op, const Tensor& grad_output, const Tensor& self, IntArrayRef padding,
                           int64_t k, bool reflect, bool dtype_check_when_empty = false) {
  TL_CHECK(static_cast<int64_t>(padding.size()) == 2 * k, op, ": padding size is expected to be ", 2 * k,
           ", but got: ", padding.size());
  const int64_t nd = self.dim();
  // PyTorch reads the padded dims by index, so a lower rank is an IndexError there (reflection_pad3d_backward
  // checks the rank first: a RuntimeError).
  if (nd < k + 1) {
    const std::string msg = str(op, ": Expected a ", k + 1, "D or ", k + 2, "D input, but got: ", self.sizes());
    if (reflect && k == 3) throw RuntimeError(msg);
    throw IndexError(msg);
  }
  TL_CHECK(nd <= k + 2, op, ": Expected ", k + 1, "D or ", k + 2, "D input, but got: ", self.sizes());
  TL_CHECK(grad_output.dim() == nd, op, ": Expected grad_output to have ", nd, " dimensions, but got ",
           grad_output.dim());
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": expected grad_output of dtype ",
           scalar_type_name(self.dtype()), ", but got ", scalar_type_name(grad_output.dtype()));
  if (reflect) {
    for (int64_t i = 0; i < k; ++i) {
      const int64_t d = nd - 1 - i;
      TL_CHECK(padding[2 * i] < self.sizes()[d] && padding[2 * i + 1] < self.sizes()[d], op, ": Argument #",
               4 + 2 * i, ": Padding size should be less than the corresponding input dimension, but got: padding (",
               padding[2 * i], ", ", padding[2 * i + 1], ") at dimension ", d, " of input ", self.sizes());
    }
  }
  const char* labels[3] = {"depth", "height", "width"};
  DimVector shape(self.sizes());
  for (int64_t d = 0; d < nd - k; ++d)
    TL_CHECK(grad_output.sizes()[d] == self.sizes()[d], op, ": grad_output size unexpected at dimension ", d,
             ". Expected: ", self.sizes()[d], ", Got: ", grad_output.sizes()[d]);
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    // Checked: pads near the int64 limits would overflow the sum (found by the sanitized fuzz).
    const bool overflow = __builtin_add_overflow(self.sizes()[d], padding[2 * i], &shape[d]) ||
                          __builtin_add_overflow(shape[d], padding[2 * i + 1], &shape[d]);
    TL_CHECK(!overflow, op, ": the padded ", labels[2 - i], " overflows int64 (input size ", self.sizes()[d],
             ", padding (", padding[2 * i], ", ", padding[2 * i + 1], "))");
    TL_CHECK(shape[d] == grad_output.sizes()[d], op, ": grad_output ", labels[2 - i], " unexpected. Expected: ",
             shape[d], ", Got: ", grad_output.sizes()[d]);
  }
  // As PyTorch: the shapes are checked first; an empty gradient skips the kernel and so its dtype
  // check, except in reflection_pad2d_backward (not a structured op there).
  auto check_dtype = [&] {
    const ScalarType st = self.dtype();  // PyTorch's backward loops: floating and complex64/complex128
    if (!is_floating_type(st) && st != ScalarType::Complex64 && st != ScalarType::Complex128)
      throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
  };
  if (dtype_check_when_empty) check_dtype();
  Tensor grad_input = tl::zeros(self.sizes(), self.dtype(), self.device());
  if (grad_input.is_meta() || grad_input.numel() == 0 || grad_output.numel() == 0) return grad_input;
  check_dtype();
  for (int64_t i = 0; i < k; ++i)  // an output of size < 1 was refused by the forward op
    TL_CHECK(shape[nd - 1 - i] >= 1, op, ": grad_output is empty along a padded dimension");
  const PadGeometry g = pad_geometry(self, shape, padding, k, reflect);
  const Tensor go = grad_output.is_contiguous() ? grad_output : tl::contiguous(grad_output);
  TL_DISPATCH_FLOAT_AND_COMPLEX(self.dtype(), op,
                                [&] { pad_backward(go.data_ptr<scalar_t>(), grad_input.data_ptr<scalar_t>(), g); });
  return grad_input;
}

}  // namespace

void reflection_pad1d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("reflection_pad1d", self, padding, 1, true, out);
}
void reflection_pad2d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("reflection_pad2d", self, padding, 2, true, out);
}
void reflection_pad3d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("reflection_pad3d", self, padding, 3, true, out);
}
void replication_pad1d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("replication_pad1d", self, padding, 1, false, out);
}
void replication_pad2d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("replication_pad2d", self, padding, 2, false, out);
}
void replication_pad3d_kernel(const Tensor& self, IntArrayRef padding, Tensor& out) {
  pad_kernel("replication_pad3d", self, padding, 3, false, out);
}

Tensor reflection_pad1d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("reflection_pad1d_backward", grad_output, self, padding, 1, true);
}
Tensor reflection_pad2d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("reflection_pad2d_backward", grad_output, self, padding, 2, true, true);
}
Tensor reflection_pad3d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("reflection_pad3d_backward", grad_output, self, padding, 3, true);
}
Tensor replication_pad1d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("replication_pad1d_backward", grad_output, self, padding, 1, false);
}
Tensor replication_pad2d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("replication_pad2d_backward", grad_output, self, padding, 2, false);
}
Tensor replication_pad3d_backward_kernel(const Tensor& grad_output, const Tensor& self, IntArrayRef padding) {
  return pad_backward_kernel("replication_pad3d_backward", grad_output, self, padding, 3, false);
}

}  // namespace tl::native
