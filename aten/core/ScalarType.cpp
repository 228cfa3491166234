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
                                                         "UInt16", "UInt32", "UInt64"};
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

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  TL_CHECK(a != ScalarType::Undefined && b != ScalarType::Undefined, "promote_types: undefined dtype");
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
  if (is_floating_type(from) && is_integral_type(to, /*include_bool=*/true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

static ScalarType g_default_dtype = ScalarType::Float32;
ScalarType default_dtype() { return g_default_dtype; }
void set_default_dtype(ScalarType t) {
  TL_CHECK_TYPE(is_floating_type(t), "set_default_dtype: only floating-point types are supported, got ",
                scalar_type_name(t));
  g_default_dtype = t;
}

}  // namespace tl
