#include "torchlite/csrc/jit/tracer_warn.h"

#include <string>

#include "aten/jit/Tracer.h"

namespace tl::python::jit {
namespace {
PyObject* g_warning_class = nullptr;
}  // namespace

void set_tracer_warning_class(PyObject* cls) {
  Py_XINCREF(cls);
  Py_XSETREF(g_warning_class, cls);
}

bool warn_conversion(const char* reason) {
  if (!tl::jit::tracer::active()) return true;
  std::string msg = std::string(reason) +
                    " might cause the trace to be incorrect. We can't record the data flow of Python values, so "
                    "this value will be treated as a constant in the future. This means that the trace might "
                    "not generalize to other inputs!";
  return PyErr_WarnEx(g_warning_class ? g_warning_class : PyExc_RuntimeWarning, msg.c_str(), 1) == 0;
}

}  // namespace tl::python::jit
