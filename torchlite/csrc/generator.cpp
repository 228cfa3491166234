#include "torchlite/csrc/generator.h"

#include <cstring>
#include <new>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/contiguous.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {
namespace {

PyObject* wrap_generator(Generator gen) {
  auto* self = reinterpret_cast<GeneratorObject*>(GeneratorType.tp_alloc(&GeneratorType, 0));
  if (!self) return nullptr;
  new (&self->gen) Generator(std::move(gen));
  return reinterpret_cast<PyObject*>(self);
}

PyObject* generator_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_TRY
  static const char* names[] = {"device", nullptr};
  PyObject* device = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(names), &device)) return nullptr;
  if (device && device != Py_None) {
    Device d = device_from_object(device);
    TL_CHECK(d.type == DeviceType::CPU, "Generator: only cpu generators are supported, not ", d.str());
  }
  return wrap_generator(std::make_shared<CPUGenerator>());
  TL_PY_CATCH
}

void generator_dealloc(PyObject* self) {
  reinterpret_cast<GeneratorObject*>(self)->gen.~Generator();
  Py_TYPE(self)->tp_free(self);
}

CPUGenerator& gen_of(PyObject* self) { return *reinterpret_cast<GeneratorObject*>(self)->gen; }

PyObject* generator_manual_seed(PyObject* self, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_py_int(arg) || is_numpy_int(arg), "manual_seed expected an int, got ", py_typename(arg));
  PyRef index(check(PyNumber_Index(arg)));
  unsigned long long seed = PyLong_AsUnsignedLongLongMask(index.get());  // negative seeds wrap, as in PyTorch
  throw_if_error();
  gen_of(self).manual_seed(seed);
  Py_INCREF(self);
  return self;
  TL_PY_CATCH
}

PyObject* generator_seed(PyObject* self, PyObject*) {
  TL_PY_TRY
  uint64_t seed = nondeterministic_seed();
  gen_of(self).manual_seed(seed);
  return PyLong_FromUnsignedLongLong(seed);
  TL_PY_CATCH
}

PyObject* generator_initial_seed(PyObject* self, PyObject*) {
  TL_PY_TRY
  return PyLong_FromUnsignedLongLong(gen_of(self).initial_seed());
  TL_PY_CATCH
}

PyObject* generator_get_state(PyObject* self, PyObject*) {
  TL_PY_TRY
  std::vector<uint8_t> bytes = gen_of(self).get_state();
  const int64_t shape[] = {static_cast<int64_t>(bytes.size())};
  Tensor state = empty_tensor(IntArrayRef(shape, 1), ScalarType::UInt8);
  std::memcpy(state.data_ptr(), bytes.data(), bytes.size());
  return wrap(std::move(state));
  TL_PY_CATCH
}

PyObject* generator_set_state(PyObject* self, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_tensor(arg) && unpack_tensor(arg).dtype() == ScalarType::UInt8,
                "RNG state must be a torchlite.ByteTensor");
  Tensor state = unpack_tensor(arg);
  TL_CHECK(!state.is_meta(), "set_state: the RNG state must be a cpu tensor, not a meta one");
  state = contiguous(state);
  gen_of(self).set_state(static_cast<const uint8_t*>(state.data_ptr()), state.numel());
  Py_INCREF(self);
  return self;
  TL_PY_CATCH
}

PyObject* generator_device(PyObject*, void*) {
  TL_PY_TRY
  return device_object(Device(DeviceType::CPU));
  TL_PY_CATCH
}

PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O, "Seeds the generator and restarts its stream; returns it."},
    {"seed", generator_seed, METH_NOARGS, "Seeds the generator from a non-deterministic source; returns the seed."},
    {"initial_seed", generator_initial_seed, METH_NOARGS, "The seed the generator was last seeded with."},
    {"get_state", generator_get_state, METH_NOARGS, "The generator's state as a uint8 tensor."},
    {"set_state", generator_set_state, METH_O, "Restores a state from get_state(); returns the generator."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef generator_getset[] = {
    {"device", generator_device, nullptr, "The device the generator draws for (cpu).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

PyTypeObject GeneratorType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torchlite._C.Generator";
  t.tp_basicsize = sizeof(GeneratorObject);
  t.tp_dealloc = generator_dealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = "Generator(device='cpu'): a random number generator (MT19937, PyTorch's streams) for the `generator=` of random ops.";
  t.tp_methods = generator_methods;
  t.tp_getset = generator_getset;
  t.tp_new = generator_new;
  return t;
}();

void init_generator(PyObject* module) {
  if (PyType_Ready(&GeneratorType) < 0) throw python_error();
  Py_INCREF(&GeneratorType);
  if (PyModule_AddObject(module, "Generator", reinterpret_cast<PyObject*>(&GeneratorType)) < 0) {
    Py_DECREF(&GeneratorType);
    throw python_error();
  }
  // The default generator, shared with the kernels; not owned (it lives for the whole process).
  PyObject* def = wrap_generator(Generator(&default_cpu_generator(), [](CPUGenerator*) {}));
  if (!def || PyModule_AddObject(module, "default_generator", def) < 0) {
    Py_XDECREF(def);
    throw python_error();
  }
}

}  // namespace tl::python
