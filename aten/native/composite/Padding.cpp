// F.pad's dispatch (pad, _pad_enum) and circular padding, composites as in PyTorch: pad picks the
// constant, reflection, replication or circular op from the mode and the input's rank; circular
// padding copies the input into the middle of a new tensor and then its wrapped-around edges, so
// its gradient comes from the copies (CopySlices).
#include <algorithm>
#include <optional>
#include <string_view>

#include "aten/core/Exception.h"
#include "generated/ops/_pad_circular.h"
#include "generated/ops/_pad_enum.h"
#include "generated/ops/constant_pad_nd.h"
#include "generated/ops/copy.h"
#include "generated/ops/empty.h"
#include "generated/ops/pad.h"
#include "generated/ops/reflection_pad1d.h"
#include "generated/ops/reflection_pad2d.h"
#include "generated/ops/reflection_pad3d.h"
#include "generated/ops/replication_pad1d.h"
#include "generated/ops/replication_pad2d.h"
#include "generated/ops/replication_pad3d.h"
#include "generated/ops/slice.h"

namespace tl::native {
namespace {

// PyTorch's padding_mode numbering, which _pad_enum takes.
enum PadMode : int64_t { kReflect = 0, kReplicate = 1, kCircular = 2, kConstant = 3 };

const char* mode_name(int64_t mode) {
  switch (mode) {
    case kReflect: return "reflect";
    case kReplicate: return "replicate";
    case kCircular: return "circular";
    default: return "constant";
  }
}

}  // namespace

Tensor _pad_circular_composite(const Tensor& self, IntArrayRef pad) {
  const char* op = "_pad_circular";
  const int64_t nd = self.dim();
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;  // padded dims
  // One (C) or two (N, C) leading dims stay as they are.
  TL_CHECK(pad.size() % 2 == 0 && (k == nd - 1 || k == nd - 2) && k >= 1, op,
           ": Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to padding of ",
           "length ", 2 * (nd - 1), " or ", 2 * (nd - 2), " respectively but got ", pad.size());
  DimVector shape(self.sizes());
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, n = self.sizes()[d], l = pad[2 * i], r = pad[2 * i + 1];
    TL_CHECK(l <= n && r <= n, op, ": Padding value causes wrapping around more than once.");
    // Checked: pads near INT64_MIN would overflow the sum.
    const bool overflow = __builtin_add_overflow(n, l, &shape[d]) || __builtin_add_overflow(shape[d], r, &shape[d]);
    TL_CHECK(!overflow && shape[d] >= 0, op, ": Negative padding value is resulting in an empty dimension");
  }
  Tensor out = tl::empty(shape, self.dtype(), self.device());
  // The input (cropped by negative pads) into the middle.
  Tensor dst = out, src = self;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    dst = tl::slice(dst, d, std::max<int64_t>(l, 0), shape[d] - std::max<int64_t>(r, 0));
    src = tl::slice(src, d, std::max<int64_t>(-l, 0), self.sizes()[d] - std::max<int64_t>(-r, 0));
  }
  tl::copy_(dst, src);
  // Then each padded dim's edges from the other end of out itself, dim by dim, so the corners
  // come from the already padded dims.
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], m = shape[d];
    const int64_t rr = std::max<int64_t>(r, 0), ll = std::max<int64_t>(l, 0);
    if (l > 0) tl::copy_(tl::slice(out, d, 0, l), tl::slice(out, d, m - l - rr, m - rr));
    if (r > 0) tl::copy_(tl::slice(out, d, m - r, m), tl::slice(out, d, ll, ll + r));
  }
  return out;
}

Tensor _pad_enum_composite(const Tensor& self, IntArrayRef pad, int64_t mode, std::optional<double> value) {
  const char* op = "pad";
  const int64_t nd = self.dim();
  const int64_t n = static_cast<int64_t>(pad.size());
  TL_CHECK(n % 2 == 0, op, ": Padding length must be divisible by 2");
  TL_CHECK(n <= nd * 2, op, ": Padding length should be less than or equal to two times the input dimension but ",
           "got padding length ", n, " and input of dimension ", nd);
  if (mode == kConstant) return tl::constant_pad_nd(self, pad, value.value_or(0.0));
  TL_CHECK(!value.has_value(), op, ": Padding mode \"", mode_name(mode), "\" doesn't take in value argument");
  const int64_t k = n / 2;
  if (k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2)) {
    switch (mode) {
      case kReflect:
        return k == 1 ? tl::reflection_pad1d(self, pad) : k == 2 ? tl::reflection_pad2d(self, pad)
                                                                 : tl::reflection_pad3d(self, pad);
      case kReplicate:
        return k == 1 ? tl::replication_pad1d(self, pad) : k == 2 ? tl::replication_pad2d(self, pad)
                                                                  : tl::replication_pad3d(self, pad);
      case kCircular: return tl::_pad_circular(self, pad);
      default: break;
    }
  }
  throw NotImplementedError(str(op, ": Padding size ", n, " is not supported for ", nd, "D input tensor.\n",
                                "Supported combinations for non-constant padding:\n",
                                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n",
                                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n",
                                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"));
}

Tensor pad_composite(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  int64_t m;
  if (mode == "constant") m = kConstant;
  else if (mode == "reflect") m = kReflect;
  else if (mode == "replicate") m = kReplicate;
  else if (mode == "circular") m = kCircular;
  else throw NotImplementedError(str("pad: Unrecognised padding mode ", mode));
  return tl::_pad_enum(self, pad, m, value);
}

}  // namespace tl::native
