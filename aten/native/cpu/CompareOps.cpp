// Comparisons eq, ne, lt, le, gt, ge (tensor-tensor and tensor-number). They compare in the
// promoted dtype and produce bool; in-place and out= write 1/0 into any dtype.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

enum class Cmp { EQ, NE, LT, LE, GT, GE };

template <Cmp C, typename T>
TL_ALWAYS_INLINE bool compare(T a, T b) {
  if constexpr (C == Cmp::EQ) return a == b;
  else if constexpr (C == Cmp::NE) return a != b;
  else if constexpr (C == Cmp::LT) return a < b;
  else if constexpr (C == Cmp::LE) return a <= b;
  else if constexpr (C == Cmp::GT) return a > b;
  else return a >= b;
}

// The value a comparison reads: float for Half/BFloat16, complex<float> for complex32 (storage only).
template <typename T>
TL_ALWAYS_INLINE auto compare_value(T v) {
  if constexpr (std::is_same_v<T, ComplexHalf>) return v.to_cfloat();
  else return to_opmath(v);
}

template <Cmp C>
void compare_tensor(const Tensor& self, const Tensor& other, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(self)
                  .add_input(other)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)
                  .build();
  auto run = [&](auto zero) {
    using scalar_t = decltype(zero);
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return compare<C>(compare_value(a), compare_value(b)); });
  };
  // As in PyTorch, eq and ne also compare uint16/uint32/uint64 and complex numbers, the order
  // comparisons do not.
  if constexpr (C == Cmp::EQ || C == Cmp::NE)
    TL_DISPATCH_EVERY_DTYPE(iter.common_dtype(), op, [&] { run(scalar_t{}); });
  else
    TL_DISPATCH_ALL(iter.common_dtype(), op, [&] { run(scalar_t{}); });
}

template <Cmp C>
void compare_scalar(const Tensor& self, const Scalar& other, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(self)
                  .add_scalar(other)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)
                  .build();
  auto run = [&](auto zero) {
    using scalar_t = decltype(zero);
    // The number is first rounded to the compute dtype, as PyTorch does.
    const auto b = compare_value(scalar_cast<scalar_t>(other));
    cpu_kernel(iter, [b](scalar_t a) -> bool { return compare<C>(compare_value(a), b); });
  };
  if constexpr (C == Cmp::EQ || C == Cmp::NE)
    TL_DISPATCH_EVERY_DTYPE(iter.common_dtype(), op, [&] { run(scalar_t{}); });
  else
    TL_DISPATCH_ALL(iter.common_dtype(), op, [&] { run(scalar_t{}); });
}

}  // namespace

void eq_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::EQ>(self, other, out, "eq"); }
void ne_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::NE>(self, other, out, "ne"); }
void lt_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::LT>(self, other, out, "lt"); }
void le_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::LE>(self, other, out, "le"); }
void gt_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::GT>(self, other, out, "gt"); }
void ge_kernel(const Tensor& self, const Tensor& other, Tensor& out) { compare_tensor<Cmp::GE>(self, other, out, "ge"); }

void eq_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::EQ>(self, other, out, "eq"); }
void ne_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::NE>(self, other, out, "ne"); }
void lt_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::LT>(self, other, out, "lt"); }
void le_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::LE>(self, other, out, "le"); }
void gt_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::GT>(self, other, out, "gt"); }
void ge_scalar_kernel(const Tensor& self, const Scalar& other, Tensor& out) { compare_scalar<Cmp::GE>(self, other, out, "ge"); }

}  // namespace tl::native
