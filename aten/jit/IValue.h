// IValue: the JIT's boxed value (a Tensor, a number, a string, an enum-like option, a list, a
// tuple, a module object or None), and Stack, the vector of IValues a boxed op pops its
// arguments from and pushes its results onto. The to*() accessors are what the generated boxed
// wrappers (generated/jit/ops_<k>.cpp) unbox schema arguments with; they throw tl::TypeError
// naming what was expected and what was found.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "aten/core/Device.h"
#include "aten/core/Generator.h"
#include "aten/core/Layout.h"
#include "aten/core/OwnedArgs.h"
#include "aten/core/Scalar.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"

namespace tl::jit {

class IValue;
using Stack = std::vector<IValue>;

// A module as the interpreter sees it: named attributes (parameters, buffers, submodules),
// read by prim::GetAttr. `type_name` is printed as the value's type (`__torch__.Net`).
struct Object {
  std::string type_name;
  std::map<std::string, IValue> attrs;
};

struct ListBox;
struct TupleBox;

class IValue {
 public:
  enum class Tag : uint8_t { None, Tensor, Double, Int, Bool, String, ScalarType, Device, Layout,
                             MemoryFormat, Generator, List, Tuple, Object };

  // Constructors and copies are defined out of line (IValue.cpp): every generated shard uses
  // IValues, and instantiating the variant's members in each would double its compile time.
  IValue();
  IValue(const IValue& other);
  IValue(IValue&& other) noexcept;
  IValue& operator=(const IValue& other);
  IValue& operator=(IValue&& other) noexcept;
  ~IValue();
  IValue(std::nullopt_t) : IValue() {}
  IValue(Tensor t);
  IValue(double d);
  IValue(bool b);
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T i) : IValue(Int{static_cast<int64_t>(i)}) {}
  IValue(std::string s);
  IValue(const char* s) : IValue(std::string(s)) {}
  IValue(std::string_view s) : IValue(std::string(s)) {}
  IValue(ScalarType t);
  IValue(Device d);
  IValue(Layout l);
  IValue(MemoryFormat m);
  IValue(Generator g);
  IValue(const Scalar& s);
  IValue(std::shared_ptr<Object> o);
  template <typename T>
  IValue(const std::optional<T>& o) : IValue() { if (o) *this = IValue(*o); }
  template <typename T>
  IValue(ArrayRef<T> xs) : IValue(list(std::vector<IValue>(xs.begin(), xs.end()))) {}
  template <typename T>
  IValue(const std::vector<T>& xs) : IValue(list(std::vector<IValue>(xs.begin(), xs.end()))) {}
  template <size_t N>
  IValue(const std::array<bool, N>& xs) : IValue(list(std::vector<IValue>(xs.begin(), xs.end()))) {}

  static IValue list(std::vector<IValue> elems);
  static IValue tuple(std::vector<IValue> elems);
  // A tuple made as an instance of a NamedTuple class: tagged with the class, so a run-time type test (a Union
  // of named tuples) tells classes apart; elsewhere it is a tuple.
  static IValue named_tuple(std::string cls, std::vector<IValue> elems);
  const std::string& tupleClass() const;  // a tuple's class tag, "" when none
  // A dict runs as a list of alternating keys and values; one made as a dict (prim::DictConstruct, a Python dict
  // argument) is marked, so a run-time type test tells it from a list (a Union of both).
  static IValue dict(std::vector<IValue> alternating);
  bool isDict() const;  // a list marked as a dict

  Tag tag() const;
  const char* tag_name() const;
  bool isNone() const { return tag() == Tag::None; }
  bool isTensor() const { return tag() == Tag::Tensor; }
  bool isList() const { return tag() == Tag::List; }
  bool isTuple() const { return tag() == Tag::Tuple; }
  bool isObject() const { return tag() == Tag::Object; }

  // Unboxing (the generated wrappers' vocabulary). Lists of int/float accept a single number
  // where the schema fixes the length (`int[2] stride=1`), as PyTorch's schema matching does.
  const Tensor& toTensor() const;
  std::optional<Tensor> toOptionalTensor() const;
  Scalar toScalar() const;
  int64_t toInt() const;
  double toDouble() const;
  bool toBool() const;
  const std::string& toStringRef() const;
  ScalarType toScalarType() const;
  Device toDevice() const;
  Layout toLayout() const;
  MemoryFormat toMemoryFormat() const;
  Generator toGenerator() const;
  std::vector<int64_t> toIntVector(size_t fixed = 0) const;
  std::vector<double> toDoubleVector() const;
  std::vector<Tensor> toTensorVector() const;
  std::vector<std::optional<Tensor>> toOptionalTensorVector() const;
  template <size_t N>
  std::array<bool, N> toBoolArray() const {
    const auto& xs = toListRef();
    if (xs.size() != N) type_error(("bool[" + std::to_string(N) + "]").c_str());
    std::array<bool, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = xs[i].toBool();
    return out;
  }
  // `opt(&IValue::toScalar)`: None -> nullopt, anything else through the accessor.
  template <typename R>
  auto opt(R (IValue::*f)() const) const -> std::optional<std::decay_t<R>> {
    if (isNone()) return std::nullopt;
    return (this->*f)();
  }
  std::optional<std::vector<int64_t>> toOptionalIntVector(size_t fixed = 0) const {
    if (isNone()) return std::nullopt;
    return toIntVector(fixed);
  }
  std::optional<std::vector<double>> toOptionalDoubleVector() const {
    if (isNone()) return std::nullopt;
    return toDoubleVector();
  }
  std::optional<std::string> toOptionalString() const {
    if (isNone()) return std::nullopt;
    return toStringRef();
  }

  const std::vector<IValue>& toListRef() const;   // a list or a tuple's elements
  std::vector<IValue>& toListMut();
  const std::shared_ptr<Object>& toObject() const;

  // Same kind and value; tensors by identity (the same TensorImpl), as `is` in Python.
  bool same(const IValue& other) const;
  // The value as TorchScript prints a constant (`1`, `2.5`, `"mean"`, `[1, 2]`, `None`).
  std::string repr() const;

 private:
  struct Int { int64_t v; };  // an integer, from any integral type
  IValue(Int i);
  [[noreturn]] void type_error(const char* expected) const;
  std::variant<std::monostate, Tensor, double, int64_t, bool, std::string, ScalarType, Device, Layout,
               MemoryFormat, Generator, std::shared_ptr<ListBox>, std::shared_ptr<TupleBox>,
               std::shared_ptr<Object>>
      v_;
};

struct ListBox {
  std::vector<IValue> elems;
  bool dict = false;  // made as a dict (IValue::dict)
};
struct TupleBox {
  std::vector<IValue> elems;
  std::string cls;  // a named tuple's TorchScript class ("__torch__.A"; IValue::named_tuple), "" for a plain tuple
};

// Results onto the stack: each element of a tuple return is pushed separately, as the schema
// lists them; a void op pushes nothing.
inline void push_result(Stack& s, IValue v) { s.push_back(std::move(v)); }
template <typename... Ts>
void push_result(Stack& s, const std::tuple<Ts...>& t) {
  std::apply([&](const auto&... v) { (s.emplace_back(v), ...); }, t);
}

}  // namespace tl::jit
