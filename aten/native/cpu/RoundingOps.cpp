// Rounding ops: ceil, floor, round (to nearest even), round(decimals=), trunc and frac.
// They keep the dtype; integer inputs of ceil/floor/round/trunc are copied unchanged (as in
// PyTorch), bool is refused, frac and round(decimals=) take floating inputs only.
#include <cmath>

#include "aten/native/cpu/Loops.h"
#include "aten/native/cpu/UnaryIterators.h"

namespace tl::native {
namespace {

template <typename scalar_t, typename F>
void rounding_loop(TensorIterator& iter, const F& f) {
  if constexpr (std::is_integral_v<scalar_t>) {
    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return a; });
  } else {
    cpu_kernel(iter, [f](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(f(to_opmath(a))); });
  }
}

// out = f(self) for floating dtypes (computed in float for float16/bfloat16, which is exact
// for these ops), a copy for integer ones. std::ceil/floor/trunc/nearbyint are single
// instructions (vroundps) in the AVX2/AVX-512 clones, so the loops vectorize.
template <typename F>
void rounding_kernel(const Tensor& self, Tensor& out, const char* op, const char* kernel_name, bool integers,
                     const F& f) {
  // The iterator first: PyTorch checks out= (dtype, overlap) before its kernel refuses the dtype.
  auto iter = same_dtype_unary_iter(out, self, op);
  const ScalarType st = self.scalar_type();
  // Meta: every dtype accepted, as PyTorch's meta functions, but for frac of bool (its formula subtracts).
  if (iter.is_meta() && (integers || st != ScalarType::Bool)) return;
  if (st == ScalarType::Bool || (!integers && !is_floating_type(st))) unary_dtype_not_implemented(op, kernel_name, st);
  TL_DISPATCH_SWITCH(iter.common_dtype(), op,
                     TL_CASES_FLOAT([&] { rounding_loop<scalar_t>(iter, f); })
                         TL_CASES_INTEGRAL([&] { rounding_loop<scalar_t>(iter, f); })
                             TL_CASES_BAREBONES_UNSIGNED([&] { rounding_loop<scalar_t>(iter, f); }));
}

// Generic over float and double (the opmath types).
struct Ceil { template <typename T> T operator()(T x) const { return std::ceil(x); } };
struct Floor { template <typename T> T operator()(T x) const { return std::floor(x); } };
struct Trunc { template <typename T> T operator()(T x) const { return std::trunc(x); } };
// Half-way cases to even, like PyTorch (and NumPy), not away from zero like std::round.
struct RoundEven { template <typename T> T operator()(T x) const { return std::nearbyint(x); } };
// x - trunc(x): keeps the sign (frac(-2.5) = -0.5); inf gives nan, as in PyTorch.
struct Frac { template <typename T> T operator()(T x) const { return x - std::trunc(x); } };

}  // namespace

void ceil_kernel(const Tensor& self, Tensor& out) { rounding_kernel(self, out, "ceil", "ceil_vml_cpu", true, Ceil{}); }
void floor_kernel(const Tensor& self, Tensor& out) { rounding_kernel(self, out, "floor", "floor_vml_cpu", true, Floor{}); }
void trunc_kernel(const Tensor& self, Tensor& out) { rounding_kernel(self, out, "trunc", "trunc_vml_cpu", true, Trunc{}); }
void round_kernel(const Tensor& self, Tensor& out) {
  rounding_kernel(self, out, "round", "round_vml_cpu", true, RoundEven{});
}
void frac_kernel(const Tensor& self, Tensor& out) { rounding_kernel(self, out, "frac", "frac_cpu", false, Frac{}); }

// round(x, decimals=d): x * 10^d rounded to even, divided back (d < 0: x / 10^-d, rounded,
// multiplied back), in the opmath type with 10^|d| rounded to it once, as PyTorch computes it
// (so decimals beyond the type's range give nan, not x). decimals=0 is plain round, which still
// refuses integer inputs under this overload (PyTorch's "round_vml_cpu" error).
void round_decimals_kernel(const Tensor& self, int64_t decimals, Tensor& out) {
  if (decimals == 0) {
    if (!is_floating_type(self.scalar_type())) {
      same_dtype_unary_iter(out, self, "round");  // out= checks come first, as in PyTorch
      unary_dtype_not_implemented("round", "round_vml_cpu", self.scalar_type());
    }
    round_kernel(self, out);
    return;
  }
  const bool divide_first = decimals < 0;
  // |decimals| saturates: any 10^n beyond 10^400 is inf in double already.
  const double magnitude = decimals < 0 ? (decimals < -400 ? 400.0 : -static_cast<double>(decimals))
                                        : (decimals > 400 ? 400.0 : static_cast<double>(decimals));
  const double ten_pow = std::pow(10.0, magnitude);
  auto iter = same_dtype_unary_iter(out, self, "round");
  if (!is_floating_type(self.scalar_type())) unary_dtype_not_implemented("round", "round_cpu", self.scalar_type());
  TL_DISPATCH_FLOAT(iter.common_dtype(), "round", [&] {
    using opmath = opmath_t<scalar_t>;
    const opmath p = static_cast<opmath>(ten_pow);
    if (divide_first) {
      cpu_kernel(iter, [p](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::nearbyint(to_opmath(a) / p) * p); });
    } else {
      cpu_kernel(iter, [p](scalar_t a) -> scalar_t { return from_opmath<scalar_t>(std::nearbyint(to_opmath(a) * p) / p); });
    }
  });
}

}  // namespace tl::native
