// Errors raised by the C++ core. Each class maps to one Python exception type
// (the bindings translate them), so kernels pick the Python-visible error kind.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tl {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct TypeError : Error { using Error::Error; };
struct ValueError : Error { using Error::Error; };
struct IndexError : Error { using Error::Error; };
struct NotImplementedError : Error { using Error::Error; };
// Plain RuntimeError in Python.
struct RuntimeError : Error { using Error::Error; };

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append(os, rest...);
}
}  // namespace detail

// Concatenates any streamable arguments into a message.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

}  // namespace tl

// TL_CHECK(cond, "op: message ", detail...) throws tl::RuntimeError when cond is false.
// The message is only built on failure. The _TYPE/_VALUE/_INDEX forms pick the Python type.
#define TL_CHECK_AS(kind, cond, ...)              \
  do {                                            \
    if (__builtin_expect(!(cond), 0)) {           \
      throw ::tl::kind(::tl::str(__VA_ARGS__));   \
    }                                             \
  } while (0)
#define TL_CHECK(cond, ...) TL_CHECK_AS(RuntimeError, cond, __VA_ARGS__)
#define TL_CHECK_TYPE(cond, ...) TL_CHECK_AS(TypeError, cond, __VA_ARGS__)
#define TL_CHECK_VALUE(cond, ...) TL_CHECK_AS(ValueError, cond, __VA_ARGS__)
#define TL_CHECK_INDEX(cond, ...) TL_CHECK_AS(IndexError, cond, __VA_ARGS__)
#define TL_ERROR(...) throw ::tl::RuntimeError(::tl::str(__VA_ARGS__))
