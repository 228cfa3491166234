#include "torchlite/csrc/storage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <unordered_map>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/StorageBytes.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/python_arg_parser.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {
namespace {

PyTypeObject StorageBaseType = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject* g_storage_class = &StorageBaseType;

StorageObject* as_storage_object(PyObject* obj) { return reinterpret_cast<StorageObject*>(obj); }
StorageImpl& storage_of(PyObject* obj) { return *as_storage_object(obj)->cdata; }

// The live Python object of each StorageImpl that has one (touched under the GIL only). An entry
// never outlives its object, and the object owns a reference to the StorageImpl, so a key is never
// a freed (and reused) address.
std::unordered_map<const StorageImpl*, PyObject*>& live_objects() {
  static auto* objects = new std::unordered_map<const StorageImpl*, PyObject*>();
  return *objects;
}

PyObject* new_storage_object(PyTypeObject* cls, Storage s) {
  PyObject* obj = cls->tp_alloc(cls, 0);
  if (!obj) return nullptr;
  const StorageImpl* impl = s.get();
  new (&as_storage_object(obj)->cdata) Storage(std::move(s));
  live_objects()[impl] = obj;
  return obj;
}

// ---------------------------------------------------------------- memory kinds

// A slice's memory lies inside its parent's block: the slice holds a reference to the parent.
void release_parent(void* ctx) {
  auto* parent = static_cast<StorageImpl*>(ctx);
  if (parent->decref()) delete parent;
}

// Shared memory: a memfd mapped MAP_SHARED, so processes forked afterwards share the bytes. `fd` is -1 for
// a mapping received without keeping its descriptor (the mapping outlives it).
struct SharedBlock {
  void* addr;
  size_t length;
  int fd;
};
void release_shared(void* ctx) {
  auto* b = static_cast<SharedBlock*>(ctx);
  munmap(b->addr, b->length);
  if (b->fd >= 0) close(b->fd);
  delete b;
}
bool is_shared_memory(const StorageImpl& st) { return st.data_ptr.deleter() == &release_shared; }

// Maps `length` bytes of `fd` MAP_SHARED; the block owns `owned_fd` (`fd` or -1; closed with the mapping,
// or when the mapping fails, which throws).
DataPtr map_shared(int fd, int owned_fd, size_t length, const char* op) {
  void* addr = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    const int err = errno;
    if (owned_fd >= 0) close(owned_fd);
    throw RuntimeError(str(op, ": could not map shared memory of ", length, " bytes: ", std::strerror(err)));
  }
  return DataPtr(addr, new SharedBlock{addr, length, owned_fd}, &release_shared);
}

// The memfd is sealed at its size, so no process it is passed to can shrink it under another's mapping
// (touching a mapped page past the end of the file would kill the process with SIGBUS).
DataPtr allocate_shared(size_t nbytes) {
  const size_t length = nbytes ? nbytes : 1;  // mmap refuses a zero length
  const int fd = static_cast<int>(memfd_create("torchlite_storage", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  TL_CHECK(fd >= 0, "share_memory_: could not create shared memory: ", std::strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(length)) != 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const int err = errno;
    close(fd);
    throw RuntimeError(str("share_memory_: could not size shared memory of ", nbytes, " bytes: ", std::strerror(err)));
  }
  return map_shared(fd, fd, length, "share_memory_");
}

// Maps the shared memory another process passed as `fd` (which stays the caller's: with keep_fd the block
// keeps a duplicate, to pass on). The file must hold the whole mapping: it is checked with fstat, and a memfd
// must be sealed against shrinking, or the sender could truncate it under this mapping.
DataPtr map_received(int fd, size_t nbytes, bool keep_fd) {
  const size_t length = nbytes ? nbytes : 1;
  struct stat st {};
  TL_CHECK(fstat(fd, &st) == 0, "_new_shared_fd_cpu: invalid file descriptor ", fd, ": ", std::strerror(errno));
  TL_CHECK(S_ISREG(st.st_mode), "_new_shared_fd_cpu: file descriptor ", fd, " is not a shared memory file");
  TL_CHECK(static_cast<uint64_t>(st.st_size) >= length, "_new_shared_fd_cpu: the shared memory holds ", st.st_size,
           " bytes, fewer than the ", nbytes, " requested");
  const int seals = fcntl(fd, F_GET_SEALS);
  TL_CHECK(seals < 0 || (seals & F_SEAL_SHRINK), "_new_shared_fd_cpu: the shared memory is not sealed against "
           "shrinking");
  if (!keep_fd) return map_shared(fd, -1, length, "_new_shared_fd_cpu");
  const int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  TL_CHECK(own >= 0, "_new_shared_fd_cpu: could not duplicate file descriptor ", fd, ": ", std::strerror(errno));
  return map_shared(own, own, length, "_new_shared_fd_cpu");
}

// ---------------------------------------------------------------- type slots

void storage_dealloc(PyObject* self) {
  StorageObject* s = as_storage_object(self);
  auto it = live_objects().find(s->cdata.get());
  if (it != live_objects().end() && it->second == self) live_objects().erase(it);
  s->cdata.~Storage();
  Py_TYPE(self)->tp_free(self);
}

// StorageBase(nbytes=0, *, device=None): nbytes uninitialised bytes.
PyObject* storage_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TL_PY_TRY
  static PythonArgParser parser({"UntypedStorage(int nbytes=0, *, Device? device=None)"}, false);
  ParsedArgs parsed;
  const Py_ssize_t nargs = args ? PyTuple_GET_SIZE(args) : 0;
  // The parser takes vectorcall arguments: positional ones, then keyword values named by kwnames.
  std::vector<PyObject*> flat;
  for (Py_ssize_t i = 0; i < nargs; ++i) flat.push_back(PyTuple_GET_ITEM(args, i));
  PyRef kwnames;
  if (kwargs && PyDict_Size(kwargs) > 0) {
    kwnames = PyRef(check(PyTuple_New(PyDict_Size(kwargs))));
    PyObject *key, *value;
    Py_ssize_t pos = 0, k = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      Py_INCREF(key);
      PyTuple_SET_ITEM(kwnames.get(), k++, key);
      flat.push_back(value);
    }
  }
  auto r = parser.parse(nullptr, flat.data(), nargs, kwnames.get(), parsed);
  const int64_t nbytes = r.toInt64(0);
  TL_CHECK(nbytes >= 0, "UntypedStorage: the size must not be negative, got ", nbytes);
  const Device device = r.device_optional(1).value_or(Device(DeviceType::CPU));
  return new_storage_object(type, StorageImpl::allocate(static_cast<size_t>(nbytes), device));
  TL_PY_CATCH
}

// ---------------------------------------------------------------- methods

PyObject* m_nbytes(PyObject* self, PyObject*) { return PyLong_FromSize_t(storage_of(self).nbytes); }

PyObject* m_data_ptr(PyObject* self, PyObject*) { return PyLong_FromVoidPtr(storage_of(self).data()); }

PyObject* m_is_shared(PyObject* self, PyObject*) { return PyBool_FromLong(is_shared_memory(storage_of(self))); }

PyObject* m_is_resizable(PyObject* self, PyObject*) { return PyBool_FromLong(storage_of(self).resizable); }

// resize_(nbytes): the first min(old, new) bytes are kept; new bytes are zero. Shrinking keeps the
// block (StorageBytes.h): tensors still viewing past the new end stay memory-safe.
PyObject* m_resize_(PyObject* self, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_py_int(arg), "resize_(): argument 'size' must be int, not ", py_typename(arg));
  const int64_t n = unpack_int64(arg);
  TL_CHECK(n >= 0, "resize_: the size must not be negative, got ", n);
  StorageImpl& st = storage_of(self);
  TL_CHECK(st.resizable, "Trying to resize storage that is not resizable");
  native::resize_storage_bytes(st, static_cast<size_t>(n));
  Py_INCREF(self);
  return self;
  TL_PY_CATCH
}

// _tensor(dtype): a 1-D tensor of `dtype` over the whole storage (nbytes // itemsize elements),
// through which the Python layer reads and writes elements.
PyObject* m_tensor(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"_tensor(ScalarType dtype)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  const ScalarType dtype = r.scalartype(0);
  const Storage& s = as_storage_object(self)->cdata;
  const int64_t n = static_cast<int64_t>(s->nbytes / element_size(dtype));
  const int64_t size[1] = {n};
  const int64_t stride[1] = {1};
  return wrap(Tensor(intrusive_ptr<TensorImpl>::make(s, dtype, IntArrayRef(size, 1), IntArrayRef(stride, 1), 0)));
  TL_PY_CATCH
}

// _slice(start, stop): a storage of bytes [start, stop) sharing this one's memory (not resizable:
// its block belongs to the parent, which it keeps alive). Bounds are checked by the caller.
PyObject* m_slice(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"_slice(int start, int stop)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  const int64_t start = r.toInt64(0), stop = r.toInt64(1);
  StorageImpl& st = storage_of(self);
  TL_CHECK_INDEX(0 <= start && start <= stop && static_cast<size_t>(stop) <= st.nbytes, "slice [", start, ", ",
                 stop, ") out of range for storage of size ", st.nbytes);
  const size_t n = static_cast<size_t>(stop - start);
  Storage slice;
  if (!st.data()) {
    slice = StorageImpl::allocate(n, st.device);
  } else {
    st.incref();
    slice = intrusive_ptr<StorageImpl>::make(n, st.device,
                                             DataPtr(static_cast<char*>(st.data()) + start, &st, &release_parent));
  }
  slice->resizable = false;
  return new_storage_object(Py_TYPE(self), std::move(slice));
  TL_PY_CATCH
}

// share_memory_(): moves the bytes into shared memory in place (every tensor on this storage
// follows). Refused for a storage NumPy points into: the array would keep the old address.
PyObject* m_share_memory_(PyObject* self, PyObject*) {
  TL_PY_TRY
  StorageImpl& st = storage_of(self);
  if (st.device.is_cpu() && !is_shared_memory(st)) {
    TL_CHECK(st.resizable, "share_memory_: cannot move a storage that NumPy (or another storage) points into to "
             "shared memory");
    DataPtr shared = allocate_shared(st.nbytes);
    if (st.nbytes) std::memcpy(shared.get(), st.data(), st.nbytes);
    st.data_ptr = std::move(shared);
    st.resizable = false;  // as PyTorch's shared storages: the mapping has a fixed size
  }
  Py_INCREF(self);
  return self;
  TL_PY_CATCH
}

// _share_fd_cpu_(): (fd, nbytes) of the shared memory, moved there first as share_memory_ does. The fd
// stays the storage's: a sender passes a duplicate (torchlite.multiprocessing). A mapping received without
// its descriptor moves to new shared memory, as a storage that was not shared would.
PyObject* m_share_fd_cpu_(PyObject* self, PyObject*) {
  TL_PY_TRY
  StorageImpl& st = storage_of(self);
  TL_CHECK(st.device.is_cpu(), "_share_fd_cpu_: only CPU storages can be shared, got ", st.device.str());
  PyRef done(m_share_memory_(self, nullptr));
  if (!done) return nullptr;
  if (static_cast<const SharedBlock*>(st.data_ptr.context())->fd < 0) {
    DataPtr shared = allocate_shared(st.nbytes);
    if (st.nbytes) std::memcpy(shared.get(), st.data(), st.nbytes);
    st.data_ptr = std::move(shared);
  }
  const auto* block = static_cast<const SharedBlock*>(st.data_ptr.context());
  return Py_BuildValue("(in)", block->fd, static_cast<Py_ssize_t>(st.nbytes));
  TL_PY_CATCH
}

// cls._new_using_fd_cpu(nbytes): a new storage of nbytes zero bytes in shared memory.
PyObject* m_new_using_fd_cpu(PyObject* cls, PyObject* arg) {
  TL_PY_TRY
  TL_CHECK_TYPE(is_py_int(arg), "_new_using_fd_cpu(): argument 'size' must be int, not ", py_typename(arg));
  const int64_t n = unpack_int64(arg);
  TL_CHECK(n >= 0, "_new_using_fd_cpu: the size must not be negative, got ", n);
  Storage s = intrusive_ptr<StorageImpl>::make(static_cast<size_t>(n), Device(DeviceType::CPU),
                                               allocate_shared(static_cast<size_t>(n)));
  s->resizable = false;
  return new_storage_object(reinterpret_cast<PyTypeObject*>(cls), std::move(s));
  TL_PY_CATCH
}

// cls._new_shared_fd_cpu(fd, nbytes, *, keep_fd=True): a storage mapping nbytes of the shared memory behind
// fd (from another process); writes on either side are seen by both. Without keep_fd the storage holds no
// descriptor (the DataLoader's batches: thousands of them would exhaust the process's descriptors); sending
// it to another process then moves it to new shared memory first.
PyObject* m_new_shared_fd_cpu(PyObject* cls, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser({"_new_shared_fd_cpu(int fd, int size, *, bool keep_fd=True)"}, false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  const int64_t fd = r.toInt64(0), n = r.toInt64(1);
  TL_CHECK(fd >= 0 && fd <= INT32_MAX, "_new_shared_fd_cpu: invalid file descriptor ", fd);
  TL_CHECK(n >= 0, "_new_shared_fd_cpu: the size must not be negative, got ", n);
  Storage s = intrusive_ptr<StorageImpl>::make(static_cast<size_t>(n), Device(DeviceType::CPU),
                                               map_received(static_cast<int>(fd), static_cast<size_t>(n), r.toBool(2)));
  s->resizable = false;
  return new_storage_object(reinterpret_cast<PyTypeObject*>(cls), std::move(s));
  TL_PY_CATCH
}

// _to_bytes(): a copy of the bytes (for pickling).
PyObject* m_to_bytes(PyObject* self, PyObject*) {
  TL_PY_TRY
  StorageImpl& st = storage_of(self);
  TL_CHECK_AS(NotImplementedError, !st.device.is_meta(), "Cannot copy out of meta storage; no data!");
  return PyBytes_FromStringAndSize(static_cast<const char*>(st.data()), static_cast<Py_ssize_t>(st.nbytes));
  TL_PY_CATCH
}

// cls._new_from_bytes(buffer): a new CPU storage holding a copy of a bytes-like object.
PyObject* m_new_from_bytes(PyObject* cls, PyObject* arg) {
  TL_PY_TRY
  Py_buffer view;
  if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return nullptr;
  Storage s;
  try {
    s = StorageImpl::allocate(static_cast<size_t>(view.len), Device(DeviceType::CPU));
    if (view.len) std::memcpy(s->data(), view.buf, static_cast<size_t>(view.len));
  } catch (...) {
    PyBuffer_Release(&view);
    throw;
  }
  PyBuffer_Release(&view);
  return new_storage_object(reinterpret_cast<PyTypeObject*>(cls), std::move(s));
  TL_PY_CATCH
}

PyObject* get_device(PyObject* self, void*) {
  TL_PY_TRY
  return device_object(storage_of(self).device);
  TL_PY_CATCH
}

// The StorageImpl's address, as PyTorch's _cdata: equal for every view of one storage.
PyObject* get_cdata(PyObject* self, void*) { return PyLong_FromVoidPtr(&storage_of(self)); }

#define TL_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))

PyMethodDef storage_methods[] = {
    {"nbytes", m_nbytes, METH_NOARGS, "The size in bytes."},
    {"data_ptr", m_data_ptr, METH_NOARGS, "The address of byte 0 (0 for meta storages)."},
    {"is_shared", m_is_shared, METH_NOARGS, "Whether the bytes are in shared memory (share_memory_)."},
    {"resizable", m_is_resizable, METH_NOARGS, "Whether resize_ may change the size."},
    {"resize_", m_resize_, METH_O, "resize_(nbytes): changes the size in bytes in place, keeping the contents."},
    {"share_memory_", m_share_memory_, METH_NOARGS, "Moves the bytes into shared memory in place; returns self."},
    {"_tensor", TL_FASTCALL(m_tensor), METH_FASTCALL | METH_KEYWORDS,
     "_tensor(dtype): a 1-D tensor of dtype viewing the whole storage."},
    {"_slice", TL_FASTCALL(m_slice), METH_FASTCALL | METH_KEYWORDS,
     "_slice(start, stop): a storage sharing bytes [start, stop)."},
    {"_share_fd_cpu_", m_share_fd_cpu_, METH_NOARGS, "(fd, nbytes) of the shared memory (moved there first)."},
    {"_new_using_fd_cpu", m_new_using_fd_cpu, METH_O | METH_CLASS, "A new storage of zero bytes in shared memory."},
    {"_new_shared_fd_cpu", TL_FASTCALL(m_new_shared_fd_cpu), METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "_new_shared_fd_cpu(fd, nbytes, *, keep_fd=True): a storage mapping the shared memory behind fd."},
    {"_to_bytes", m_to_bytes, METH_NOARGS, "A bytes copy of the contents."},
    {"_new_from_bytes", m_new_from_bytes, METH_O | METH_CLASS, "A new CPU storage copied from a bytes-like object."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef storage_getset[] = {
    {"device", get_device, nullptr, "The device (a torchlite.device).", nullptr},
    {"_cdata", get_cdata, nullptr, "The address of the C++ storage (the same for every view of it).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyObject* set_storage_class(PyObject*, PyObject* cls) {
  TL_PY_TRY
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &StorageBaseType),
                "_set_storage_class: expected a subclass of StorageBase, got ", py_typename(cls));
  Py_INCREF(cls);
  if (g_storage_class != &StorageBaseType) Py_DECREF(g_storage_class);
  g_storage_class = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
  TL_PY_CATCH
}

PyMethodDef module_methods[] = {
    {"_set_storage_class", set_storage_class, METH_O, "Registers the Python UntypedStorage class."},
    {nullptr, nullptr, 0, nullptr},
};

// Tensor.untyped_storage()
PyObject* tensor_untyped_storage(PyObject* self, PyObject*) {
  TL_PY_TRY
  return wrap_storage(unpack_tensor(self).storage());
  TL_PY_CATCH
}

}  // namespace

bool is_storage(PyObject* obj) { return PyObject_TypeCheck(obj, &StorageBaseType); }

PyObject* wrap_storage(const Storage& s) {
  auto it = live_objects().find(s.get());
  if (it != live_objects().end()) {
    Py_INCREF(it->second);
    return it->second;
  }
  return new_storage_object(g_storage_class, s);
}

void init_storage(PyObject* module, std::vector<PyMethodDef>& tensor_methods) {
  StorageBaseType.tp_name = "torchlite._C.StorageBase";
  StorageBaseType.tp_basicsize = sizeof(StorageObject);
  StorageBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  StorageBaseType.tp_doc = "The C base class of torchlite.UntypedStorage: the bytes behind tensors.";
  StorageBaseType.tp_dealloc = storage_dealloc;
  StorageBaseType.tp_new = storage_new;
  StorageBaseType.tp_methods = storage_methods;
  StorageBaseType.tp_getset = storage_getset;
  if (PyType_Ready(&StorageBaseType) < 0) throw python_error();
  Py_INCREF(&StorageBaseType);
  if (PyModule_AddObject(module, "StorageBase", reinterpret_cast<PyObject*>(&StorageBaseType)) < 0) {
    Py_DECREF(&StorageBaseType);
    throw python_error();
  }
  if (PyModule_AddFunctions(module, module_methods) < 0) throw python_error();
  tensor_methods.push_back({"untyped_storage", tensor_untyped_storage, METH_NOARGS,
                            "The storage (a torchlite.UntypedStorage) this tensor is a view of."});
}

}  // namespace tl::python
