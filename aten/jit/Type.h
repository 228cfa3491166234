// Types of IR values: what the graph printer shows after `%x :` and what schema matching reads.
// A Tensor type may carry what the tracer saw (dtype, sizes, strides, device, requires_grad), as
// torch.jit's complete tensor types: `Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)`.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aten/core/Device.h"
#include "aten/core/ScalarType.h"

namespace tl::jit {

class IValue;
struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  enum class Kind { Any, Tensor, Int, Float, Bool, Str, None, Number, ScalarType, Device, Layout,
                    MemoryFormat, Generator, List, Tuple, Optional, Object };
  Kind kind = Kind::Any;
  std::vector<TypePtr> elems;  // List/Optional: one; Tuple: each element
  std::string name;            // Object: the class name; a named tuple's class name
  std::vector<std::string> fields;  // Tuple: a named tuple's field names (empty for a plain tuple)
  // Tensor details, when known.
  std::optional<ScalarType> dtype;
  std::optional<std::vector<int64_t>> sizes, strides;
  std::optional<Device> device;
  std::optional<bool> requires_grad;

  std::string str() const;
  bool is_tensor() const { return kind == Kind::Tensor; }

  static TypePtr get(Kind k);  // shared instances of the element-less kinds
  static TypePtr tensor() { return get(Kind::Tensor); }
  static TypePtr list(TypePtr elem);
  static TypePtr optional(TypePtr elem);
  static TypePtr tuple(std::vector<TypePtr> elems);
  static TypePtr object(std::string name);
  // A script dict's type, printed `Dict(K, V)` as torch.jit's. To the interpreter it is `Any` (kind Any with
  // the two element types: a dict runs as a list of alternating keys and values); archives keep it as
  // `Dict <K> <V>` (format version 5), so a loaded module's Python call can convert dicts.
  static TypePtr dict(TypePtr key, TypePtr value);
  // A script Union's type, printed `Union(Tensor, int)` as torch.jit's (members in the compiler's order). Like a
  // dict's, it is `Any` to the interpreter and the archive format (prim::isinstance tests a value's members).
  static TypePtr union_of(std::vector<TypePtr> members);
  // A typing.NamedTuple's type: a tuple whose elements have names (`NamedTuple(x : Tensor, y : int)`).
  static TypePtr named_tuple(std::string name, std::vector<std::string> fields, std::vector<TypePtr> elems);
  // A schema type string: "Tensor", "int[2]", "Scalar?", "Tensor?[]".
  static TypePtr from_schema(const std::string& text);
  // The type of a runtime value (tensors with their details, lists by their first element).
  static TypePtr of(const IValue& v, bool with_tensor_details = true);
};

// Whether a value of type `have` may be passed where the schema type `want` is expected.
bool is_subtype(const Type& have, const Type& want);

}  // namespace tl::jit
