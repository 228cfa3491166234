#include "torchlite/csrc/errors.h"

#include <new>

#include "aten/core/Exception.h"
#include "aten/core/LinAlgError.h"

namespace tl::python {

// torchlite._C._LinAlgError, the Python type of tl::LinAlgError (a RuntimeError subclass).
PyObject* linalg_error_type() {
  // Created once, on first use (module init makes it torchlite._C._LinAlgError).
  static PyObject* type = PyErr_NewExceptionWithDoc(
      "torchlite._C._LinAlgError", "A failed linear algebra computation (torchlite.linalg.LinAlgError).",
      PyExc_RuntimeError, nullptr);
  return type;
}

// One out-of-line handler keeps the code size of each binding's catch block small.
void translate_exception() noexcept {
  try {
    throw;
  } catch (const python_error&) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "unknown error (Python error indicator not set)");
  } catch (const tl::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const tl::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const tl::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const tl::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const tl::LinAlgError& e) {
    PyErr_SetString(linalg_error_type(), e.what());
  } catch (const tl::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

PyObject* translate_exception_operator() noexcept {
  try {
    throw;
  } catch (const ArgumentError&) {
    Py_RETURN_NOTIMPLEMENTED;
  } catch (...) {
    translate_exception();
    return nullptr;
  }
}

}  // namespace tl::python
