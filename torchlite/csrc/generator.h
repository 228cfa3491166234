// torchlite.Generator: a random number generator object (a tl::CPUGenerator) that random ops
// take as `generator=`; torchlite.default_generator is the one they use without it.
#pragma once
#include <Python.h>

#include "aten/core/Generator.h"

namespace tl::python {

struct GeneratorObject {
  PyObject_HEAD
  Generator gen;  // always set
};

extern PyTypeObject GeneratorType;

inline bool is_generator(PyObject* obj) { return PyObject_TypeCheck(obj, &GeneratorType); }
inline const Generator& unpack_generator(PyObject* obj) { return reinterpret_cast<GeneratorObject*>(obj)->gen; }

// Adds Generator and default_generator to `module`.
void init_generator(PyObject* module);

}  // namespace tl::python
