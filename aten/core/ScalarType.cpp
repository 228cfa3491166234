#include "aten/core/ScalarType.h"

namespace tl {

const char* scalar_type_name(ScalarType t) {
  switch (t) {
#define TL_NAME(ctype, name, pyname, size) \
  case ScalarType::name:                   \
    return pyname;
    TL_FORALL_SCALAR_TYPES(TL_NAME)
#undef TL_NAME
    default:
      return "undefined";
  }
}

const char* legacy_type_name(ScalarType t) {
  // In enum order.
  static constexpr const char* names[kNumScalarTypes] = {"Bool",   "Byte",   "Char",  "Short",    "Int",
                                                         "Long",   "Half",   "BFloat16", "Float", "Double",
                                                         "UInt16", "UInt32", "UInt64",
                                                         "ComplexFloat", "ComplexDouble", "ComplexHalf"};
  int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? names[i] : "Undefined";
}

size_t element_size(ScalarType t) {
  switch (t) {
#define TL_SIZE(ctype, name, pyname, size) \
  case ScalarType::name:                   \
    return size;
    TL_FORALL_SCALAR_TYPES(TL_SIZE)
#undef TL_SIZE
    default:
      throw RuntimeError("element_size: undefined dtype");
  }
}

ScalarType to_real_type(ScalarType t) {
  if (t == ScalarType::Complex64) return ScalarType::Float32;
  if (t == ScalarType::Complex128) return ScalarType::Float64;
  if (t == ScalarType::Complex32) return ScalarType::Float16;
  return t;
}

ScalarType to_complex_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: case ScalarType::Complex64: return ScalarType::Complex64;
    case ScalarType::Float64: case ScalarType::Complex128: return ScalarType::Complex128;
    case ScalarType::Float16: case ScalarType::Complex32: return ScalarType::Complex32;
    default:
      throw RuntimeError(str("Unknown Complex ScalarType for ", legacy_type_name(t)));
  }
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  TL_CHECK(a != ScalarType::Undefined && b != ScalarType::Undefined, "promote_types: undefined dtype");
  if (is_complex_type(a) || is_complex_type(b)) {
    // As PyTorch's table: the complex type whose parts hold both operands' values
    // (float64 + complex64 -> complex128, float16/int/bool + complex64 -> complex64, float16/int/bool +
    // complex32 -> complex32, bfloat16/float32 + complex32 -> complex64).
    if (!is_barebones_unsigned_type(a) && !is_barebones_unsigned_type(b)) {
      const bool wide = a == ScalarType::Complex128 || b == ScalarType::Complex128 || a == ScalarType::Float64 ||
                        b == ScalarType::Float64;
      if (wide) return ScalarType::Complex128;
      const auto half_or_narrower = [](ScalarType t) {
        return t == ScalarType::Complex32 || t == ScalarType::Float16 || is_integral_type(t, /*include_bool=*/true);
      };
      return half_or_narrower(a) && half_or_narrower(b) ? ScalarType::Complex32 : ScalarType::Complex64;
    }
  }
  if (is_barebones_unsigned_type(a) || is_barebones_unsigned_type(b)) {
    if (is_floating_type(a)) return a;
    if (is_floating_type(b)) return b;
    throw RuntimeError(str("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
                           legacy_type_name(a), " and ", legacy_type_name(b)));
  }
  constexpr ScalarType b1 = ScalarType::Bool, u1 = ScalarType::UInt8, i1 = ScalarType::Int8,
                       i2 = ScalarType::Int16, i4 = ScalarType::Int32, i8 = ScalarType::Int64,
                       f2 = ScalarType::Float16, bf = ScalarType::BFloat16, f4 = ScalarType::Float32,
                       f8 = ScalarType::Float64;
  // Rows and columns in enum order: b1 u1 i1 i2 i4 i8 f2 bf f4 f8.
  constexpr int kTableTypes = static_cast<int>(ScalarType::Float64) + 1;
  static constexpr ScalarType table[kTableTypes][kTableTypes] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];  // the wide unsigned types returned above
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex_type(from) && !is_complex_type(to)) return false;
  if (is_floating_type(from) && is_integral_type(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

static ScalarType g_default_dtype = ScalarType::Float32;
ScalarType default_dtype() { return g_default_dtype; }
ScalarType default_complex_dtype() {
  if (g_default_dtype == ScalarType::Float64) return ScalarType::Complex128;
  return g_default_dtype == ScalarType::Float16 ? ScalarType::Complex32 : ScalarType::Complex64;
}
void set_default_dtype(ScalarType t) {
  TL_CHECK_TYPE(is_floating_type(t), "set_default_dtype: only floating-point types are supported, got ",
                scalar_type_name(t));
  g_default_dtype = t;
}

}  // namespace tl
