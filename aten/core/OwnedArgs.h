// Owning forms of the API's borrowed argument types, and `as_arg` to borrow them back.
// Generated code keeps arguments in owning form where they must outlive the call that
// produced them (Python bindings, values saved in backward nodes).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aten/core/ArrayRef.h"
#include "aten/core/Tensor.h"

namespace tl {

inline IntArrayRef as_arg(const std::vector<int64_t>& v) { return IntArrayRef(v); }
inline OptionalIntArrayRef as_arg(const std::optional<std::vector<int64_t>>& v) {
  return v ? OptionalIntArrayRef(IntArrayRef(*v)) : std::nullopt;
}
inline std::string_view as_arg(const std::string& s) { return s; }
inline std::optional<std::string_view> as_arg(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}
inline TensorList as_arg(const std::vector<Tensor>& v) { return TensorList(v); }
inline ArrayRef<double> as_arg(const std::vector<double>& v) { return ArrayRef<double>(v); }
inline std::optional<ArrayRef<double>> as_arg(const std::optional<std::vector<double>>& v) {
  return v ? std::optional<ArrayRef<double>>(ArrayRef<double>(*v)) : std::nullopt;
}
template <typename T>
const T& as_arg(const T& v) {
  return v;
}

}  // namespace tl
