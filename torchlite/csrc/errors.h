// Translating C++ exceptions into Python exceptions, and GIL helpers, for the CPython glue.
//
//   static PyObject* fn(PyObject* self, PyObject* arg) {
//     TL_PY_TRY
//     ...  // may throw tl::TypeError, tl::python::python_error, ...
//     TL_PY_CATCH
//   }
//
// TL_PY_CATCH ends the try block, sets the matching Python exception and returns nullptr.
// TL_PY_CATCH_OPERATOR (operator dunders) returns NotImplemented when the arguments match no
// signature, so that Python tries the other operand's reflected method.
// For slots that signal errors differently (setters return -1) use TL_PY_CATCH_RETURN(-1).
#pragma once
#include <Python.h>

#include <exception>

#include "aten/core/Exception.h"

namespace tl::python {

// Thrown by glue code after a CPython call failed: the Python error indicator is already set,
// so the handler only returns the error value.
struct python_error : std::exception {
  const char* what() const noexcept override { return "Python error already set"; }
};

// The TypeError the argument parser raises when no signature matches a call. Operator bindings
// (TL_PY_CATCH_OPERATOR) turn it into NotImplemented so Python tries the reflected operator.
struct ArgumentError : tl::TypeError {
  using tl::TypeError::TypeError;
};

// Throws python_error if a Python error is set; use after CPython calls that may fail.
inline void throw_if_error() {
  if (PyErr_Occurred()) throw python_error();
}
// Returns `obj` (a new reference from a CPython call) or throws python_error when it is null.
inline PyObject* check(PyObject* obj) {
  if (!obj) throw python_error();
  return obj;
}

// Sets the Python exception for the C++ exception currently being handled. Call only from a
// catch block. Mapping: tl::TypeError -> TypeError, tl::ValueError -> ValueError,
// tl::IndexError -> IndexError, tl::NotImplementedError -> NotImplementedError, other tl::Error ->
// RuntimeError, python_error -> (already set), std::bad_alloc -> MemoryError,
// other std::exception -> RuntimeError.
void translate_exception() noexcept;
// For operator dunders (__add__, __eq__, ...): NotImplemented (new reference) for ArgumentError,
// otherwise like translate_exception() and nullptr.
PyObject* translate_exception_operator() noexcept;

// Releases the GIL for its scope (around kernels). Convert all Python arguments before.
struct GilRelease {
  GilRelease() : state_(PyEval_SaveThread()) {}
  ~GilRelease() { PyEval_RestoreThread(state_); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

// Takes the GIL for its scope from any thread (deleters of NumPy-owned memory, callbacks).
struct GilAcquire {
  GilAcquire() : state_(PyGILState_Ensure()) {}
  ~GilAcquire() { PyGILState_Release(state_); }
  GilAcquire(const GilAcquire&) = delete;
  GilAcquire& operator=(const GilAcquire&) = delete;

 private:
  PyGILState_STATE state_;
};

// Owning PyObject* that DECREFs on scope exit (for cold paths).
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(PyObject* obj) : obj_(obj) {}  // steals
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  PyRef(PyRef&& o) noexcept : obj_(o.obj_) { o.obj_ = nullptr; }
  PyRef& operator=(PyRef&& o) noexcept {
    if (this != &o) {
      Py_XDECREF(obj_);
      obj_ = o.obj_;
      o.obj_ = nullptr;
    }
    return *this;
  }
  ~PyRef() { Py_XDECREF(obj_); }
  PyObject* get() const { return obj_; }
  PyObject* release() {
    PyObject* o = obj_;
    obj_ = nullptr;
    return o;
  }
  explicit operator bool() const { return obj_ != nullptr; }

 private:
  PyObject* obj_ = nullptr;
};

}  // namespace tl::python

#define TL_PY_TRY try {
#define TL_PY_CATCH_RETURN(retval)          \
  }                                         \
  catch (...) {                             \
    ::tl::python::translate_exception();    \
    return retval;                          \
  }
#define TL_PY_CATCH TL_PY_CATCH_RETURN(nullptr)
// Operator dunders: arguments that match no signature give NotImplemented (not TypeError).
#define TL_PY_CATCH_OPERATOR                              \
  }                                                       \
  catch (...) {                                           \
    return ::tl::python::translate_exception_operator();  \
  }
