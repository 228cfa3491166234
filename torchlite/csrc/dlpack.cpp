// DLPack: tensors exchanged with other array libraries (NumPy, PyTorch, JAX, CuPy...) without a copy, as
// PyCapsules holding a DLManagedTensor ("dltensor", DLPack < 1.0) or DLManagedTensorVersioned
// ("dltensor_versioned", DLPack 1.x). The structs are the DLPack ABI (dlpack.h, v1.1), declared here:
// the header is a few plain C structs, not worth a dependency.
#include "torchlite/csrc/dlpack.h"

#include <Python.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/core/Exception.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {
namespace {

// Python's BufferError, the type the DLPack protocol raises (PyTorch's too).
struct BufferError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
template <typename... Args>
void require(bool ok, const Args&... args) {
  if (!ok) throw BufferError(str(args...));
}

// ---- the DLPack ABI
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDAHost = 3 };
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint32_t kMajor = 1, kMinor = 1;
constexpr uint64_t kFlagReadOnly = 1, kFlagIsCopied = 2;

DLDataType to_dl(ScalarType t) {
  const uint8_t bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool: return {kDLBool, 8, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    case ScalarType::Float16: case ScalarType::Float32: case ScalarType::Float64: return {kDLFloat, bits, 1};
    case ScalarType::UInt8: case ScalarType::UInt16: case ScalarType::UInt32: case ScalarType::UInt64:
      return {kDLUInt, bits, 1};
    default: return {kDLInt, bits, 1};
  }
}

ScalarType from_dl(DLDataType t) {
  require(t.lanes == 1, "from_dlpack: only tensors with one lane per element are supported, got ",
              t.lanes, " lanes");
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return ScalarType::Bool;
      break;
    case kDLBfloat:
      if (t.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLFloat:
      if (t.bits == 16) return ScalarType::Float16;
      if (t.bits == 32) return ScalarType::Float32;
      if (t.bits == 64) return ScalarType::Float64;
      break;
    case kDLInt:
      if (t.bits == 8) return ScalarType::Int8;
      if (t.bits == 16) return ScalarType::Int16;
      if (t.bits == 32) return ScalarType::Int32;
      if (t.bits == 64) return ScalarType::Int64;
      break;
    case kDLUInt:
      if (t.bits == 8) return ScalarType::UInt8;
      if (t.bits == 16) return ScalarType::UInt16;
      if (t.bits == 32) return ScalarType::UInt32;
      if (t.bits == 64) return ScalarType::UInt64;
      break;
  }
  throw BufferError(str("from_dlpack: unsupported DLPack data type (code ", static_cast<int>(t.code), ", ",
                        static_cast<int>(t.bits), " bits)"));
}

// What an exported capsule owns: the tensor (so its storage lives) and the shape/strides DLTensor points to.
template <typename Managed>
struct Export {
  Managed managed{};
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

template <typename Managed>
void delete_export(Managed* m) {
  delete static_cast<Export<Managed>*>(m->manager_ctx);
}

template <typename Managed>
Managed* make_export(const Tensor& t) {
  auto* e = new Export<Managed>();
  e->tensor = t;
  e->shape.assign(t.sizes().begin(), t.sizes().end());
  e->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& d = e->managed.dl_tensor;
  d.data = t.numel() ? const_cast<void*>(t.data_ptr()) : nullptr;
  d.device = {kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = to_dl(t.dtype());
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &delete_export<Managed>;
  return &e->managed;
}

// A capsule nobody consumed frees its tensor; a consumed one (renamed "used_...") belongs to its consumer.
void legacy_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter) m->deleter(m);
}
void versioned_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor_versioned")) return;
  auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
  if (m && m->deleter) m->deleter(m);
}

// The consumer's side of a capsule's memory: the producer's deleter runs when the storage dies.
struct Imported {
  void* managed;
  bool versioned;
};
void release_imported(void* ctx) {
  auto* im = static_cast<Imported*>(ctx);
  GilAcquire gil;  // producers' deleters may touch Python objects (NumPy's does)
  if (im->versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(im->managed);
    if (m->deleter) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(im->managed);
    if (m->deleter) m->deleter(m);
  }
  delete im;
}

// The tensor a DLTensor describes, its memory still the producer's: checks first (nothing is owned yet,
// so a failure leaves the capsule to its own destructor), then `adopt` takes the capsule, then the storage.
template <typename Adopt>
Tensor tensor_from_dl(const DLTensor& d, void* managed, bool versioned, const Adopt& adopt) {
  require(d.device.device_type == kDLCPU || d.device.device_type == kDLCUDAHost,
          "from_dlpack: torchlite takes CPU tensors only, got DLPack device type ", d.device.device_type);
  require(d.ndim >= 0, "from_dlpack: a negative number of dimensions (", d.ndim, ")");
  const ScalarType dtype = from_dl(d.dtype);
  const int64_t itemsize = static_cast<int64_t>(element_size(dtype));
  DimVector sizes(d.ndim), strides(d.ndim);
  int64_t compact = 1;  // the stride of dimension i in a compact row-major layout
  for (int32_t i = d.ndim - 1; i >= 0; --i) {
    sizes[i] = d.shape[i];
    require(sizes[i] >= 0, "from_dlpack: negative size ", sizes[i], " at dimension ", i);
    strides[i] = d.strides ? d.strides[i] : compact;
    require(!__builtin_mul_overflow(compact, sizes[i] ? sizes[i] : 1, &compact), "from_dlpack: the shape overflows");
  }
  int64_t extent = 1;  // elements from the first to one past the last
  for (int32_t i = 0; i < d.ndim; ++i) {
    if (sizes[i] == 0) { extent = 0; break; }
    if (sizes[i] == 1) continue;
    require(strides[i] >= 0, "from_dlpack: negative strides are not supported (dimension ", i, " has stride ",
            strides[i], ")");
    int64_t span = 0;
    require(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) && !__builtin_add_overflow(extent, span, &extent),
            "from_dlpack: the tensor's extent overflows");
  }
  int64_t nbytes = 0;
  require(!__builtin_mul_overflow(extent, itemsize, &nbytes), "from_dlpack: the tensor's size overflows");
  adopt();
  char* data = static_cast<char*>(d.data) + d.byte_offset;
  DataPtr ptr(data, new Imported{managed, versioned}, &release_imported);
  auto storage = intrusive_ptr<StorageImpl>::make(static_cast<size_t>(nbytes), Device(DeviceType::CPU),
                                                  std::move(ptr));
  storage->resizable = false;  // the producer owns the memory
  return Tensor(intrusive_ptr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

void rename(PyObject* capsule, const char* name) {
  if (PyCapsule_SetName(capsule, name) < 0) throw python_error();
}

}  // namespace

PyObject* py_to_dlpack(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  TL_PY_TRY
  try {
  TL_CHECK_TYPE(nargs == 2 && is_tensor(args[0]), "_to_dlpack(tensor, versioned): expected a Tensor");
  const Tensor& t = unpack_tensor(args[0]);
  const int versioned = PyObject_IsTrue(args[1]);
  if (versioned < 0) return nullptr;
  require(!t.requires_grad(), "Can't export tensors that require gradient, use tensor.detach()");
  require(t.device().is_cpu(), "Can't export tensors on the ", t.device().str(),
              " device: DLPack needs data");
  if (versioned) {
    DLManagedTensorVersioned* m = make_export<DLManagedTensorVersioned>(t);
    m->version = {kMajor, kMinor};
    m->flags = 0;
    PyObject* capsule = PyCapsule_New(m, "dltensor_versioned", versioned_capsule_destructor);
    if (!capsule) m->deleter(m);
    return capsule;
  }
  DLManagedTensor* m = make_export<DLManagedTensor>(t);
  PyObject* capsule = PyCapsule_New(m, "dltensor", legacy_capsule_destructor);
  if (!capsule) m->deleter(m);
  return capsule;
  } catch (const BufferError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    return nullptr;
  }
  TL_PY_CATCH
}

PyObject* py_from_dlpack(PyObject*, PyObject* capsule) {
  TL_PY_TRY
  try {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    require(m->version.major <= kMajor, "from_dlpack: DLPack version ", m->version.major, ".",
                m->version.minor, " is newer than the ", kMajor, ".", kMinor, " torchlite reads");
    // A read-only producer's tensor is taken as writable: torchlite has no read-only tensors (as from_numpy).
    (void)kFlagReadOnly;
    (void)kFlagIsCopied;
    return wrap(tensor_from_dl(m->dl_tensor, m, true, [&] { rename(capsule, "used_dltensor_versioned"); }));
  }
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    return wrap(tensor_from_dl(m->dl_tensor, m, false, [&] { rename(capsule, "used_dltensor"); }));
  }
  throw TypeError(str("from_dlpack: expected a DLPack capsule (\"dltensor\" or \"dltensor_versioned\") that was not "
                      "consumed yet, got ", py_typename(capsule)));
  } catch (const BufferError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    return nullptr;
  }
  TL_PY_CATCH
}

}  // namespace tl::python
