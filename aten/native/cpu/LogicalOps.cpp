// logical_and/or/xor/not: truth tests of the inputs (nonzero is true, NaN included; a complex
// number is true when either part is), computed in the inputs' promoted dtype like the
// comparisons, producing bool; in-place and out= write 1/0 into their own dtype.
#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/TensorIterator.h"
#include "aten/native/cpu/Loops.h"

namespace tl::native {
namespace {

enum class Logic { AND, OR, XOR };

// The dtypes PyTorch's logical ops take: every computing dtype and complex64/complex128.
#define TL_DISPATCH_LOGICAL(dtype, opname, ...)                                                    \
  TL_DISPATCH_SWITCH(dtype, opname, TL_CASES_FLOAT(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) \
                                        TL_CASES_BOOL(__VA_ARGS__) TL_CASES_COMPLEX(__VA_ARGS__))

template <typename T>
TL_ALWAYS_INLINE bool truth(T v) {
  return to_opmath(v) != opmath_t<T>(0);
}

template <Logic L>
void logical_binary(const Tensor& self, const Tensor& other, Tensor& out, const char* op) {
  auto iter = TensorIteratorConfig()
                  .set_op_name(op)
                  .add_output(out)
                  .add_input(self)
                  .add_input(other)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)
                  .build();
  TL_DISPATCH_LOGICAL(iter.common_dtype(), op, [&] {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool {
      if constexpr (L == Logic::AND) return truth(a) & truth(b);
      else if constexpr (L == Logic::OR) return truth(a) | truth(b);
      else return truth(a) != truth(b);
    });
  });
}

}  // namespace

void logical_and_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  logical_binary<Logic::AND>(self, other, out, "logical_and");
}
void logical_or_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  logical_binary<Logic::OR>(self, other, out, "logical_or");
}
void logical_xor_kernel(const Tensor& self, const Tensor& other, Tensor& out) {
  logical_binary<Logic::XOR>(self, other, out, "logical_xor");
}

void logical_not_kernel(const Tensor& self, Tensor& out) {
  auto iter = TensorIteratorConfig()
                  .set_op_name("logical_not")
                  .add_output(out)
                  .add_input(self)
                  .declare_static_output_dtype(ScalarType::Bool)
                  .enforce_safe_casting_to_output(false)
                  .build();
  TL_DISPATCH_LOGICAL(iter.common_dtype(), "logical_not", [&] {
    cpu_kernel(iter, [](scalar_t a) -> bool { return !truth(a); });
  });
}

}  // namespace tl::native
