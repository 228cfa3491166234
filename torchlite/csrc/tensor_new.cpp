#include "torchlite/csrc/tensor_new.h"

#include <cmath>
#include <cstring>
#include <new>
#include <limits>
#include <string>
#include <type_traits>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/MathBits.h"
#include "aten/core/Storage.h"
#include "aten/native/FactoryOptions.h"
#include "aten/native/TensorIterator.h"
#include "torchlite/csrc/device.h"
#include "torchlite/csrc/dtype.h"
#include "torchlite/csrc/errors.h"
#include "torchlite/csrc/python_arg_parser.h"
#include "torchlite/csrc/python_utils.h"
#include "torchlite/csrc/tensor.h"

namespace tl::python {
namespace {

// ---------------------------------------------------------------- element conversion

template <typename D, typename S>
inline D convert_element(S v) {
  using M = opmath_t<S>;
  if constexpr (is_complex_v<S> || is_complex_v<D>) {
    // Complex to real keeps the real part; real to complex has a zero imaginary part.
    if constexpr (std::is_same_v<D, bool>) return v != S(0);
    else if constexpr (is_complex_v<S> && is_complex_v<D>) return D(v);
    else if constexpr (is_complex_v<S>) return convert_element<D>(v.real());
    else return D(static_cast<typename D::value_type>(static_cast<M>(v)));
  } else if constexpr (std::is_same_v<D, bool>) {
    return static_cast<M>(v) != M(0);
  } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
    return D(static_cast<float>(static_cast<M>(v)));
  } else {
    return static_cast<D>(static_cast<M>(v));
  }
}

// Copies a strided block of `src_type` elements into contiguous `dst` of `dst_type`.
void copy_cast(void* dst, ScalarType dst_type, const char* src, ScalarType src_type, IntArrayRef sizes,
               IntArrayRef src_byte_strides) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return;
  if (dst_type == ScalarType::Complex32 || src_type == ScalarType::Complex32) {
    // complex32 on either side (a tensor of it in the data, or dtype=complex32): element by element
    // through the copy kernel's conversion, rare enough not to need a typed loop.
    const size_t dsize = element_size(dst_type);
    DimVector index(static_cast<size_t>(ndim), 0);
    for (int64_t n = 0; n < numel; ++n) {
      int64_t offset = 0;
      for (int64_t d = 0; d < ndim; ++d) offset += index[d] * src_byte_strides[d];
      native::convert_elements(dst_type, static_cast<char*>(dst) + n * dsize, 0, src_type, src + offset, 0, 1);
      for (int64_t d = ndim - 1; d >= 0; --d) {
        if (++index[d] < sizes[d]) break;
        index[d] = 0;
      }
    }
    return;
  }
  TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(dst_type, "tensor", [&] {
    using D = scalar_t;
    D* out = static_cast<D*>(dst);
    TL_DISPATCH_ALL_UNSIGNED_AND_COMPLEX(src_type, "tensor", [&] {
      using S = scalar_t;
      DimVector index(static_cast<size_t>(ndim), 0);
      for (int64_t n = 0; n < numel; ++n) {
        int64_t offset = 0;
        for (int64_t d = 0; d < ndim; ++d) offset += index[d] * src_byte_strides[d];
        S v;
        std::memcpy(&v, src + offset, sizeof(S));
        out[n] = convert_element<D>(v);
        for (int64_t d = ndim - 1; d >= 0; --d) {
          if (++index[d] < sizes[d]) break;
          index[d] = 0;
        }
      }
    });
  });
}

// ---------------------------------------------------------------- NumPy descriptions

struct ArrayView {
  const char* data = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  DimVector sizes;
  DimVector byte_strides;
  bool readonly = false;
};

const char* kSupportedNumpyTypes =
    "The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
    "uint64, uint32, uint16, uint8, and bool.";

std::string numpy_dtype_name(PyObject* obj) {
  PyRef dtype(PyObject_GetAttrString(obj, "dtype"));
  if (!dtype) {
    PyErr_Clear();
    return "?";
  }
  // The scalar type's name, as PyTorch prints it (numpy.clongdouble, numpy.object_), not str(dtype).
  PyRef type(PyObject_GetAttrString(dtype.get(), "type"));
  PyRef s(type ? PyObject_GetAttrString(type.get(), "__name__") : PyObject_Str(dtype.get()));
  if (!s) {
    PyErr_Clear();
    return "?";
  }
  const char* c = PyUnicode_AsUTF8(s.get());
  return c ? c : "?";
}

// ScalarType of a NumPy typestr ("<f4", "|b1"); Undefined when unsupported. `swapped`: non-native order.
ScalarType scalar_type_from_typestr(const std::string& ts, bool* swapped) {
  *swapped = false;
  if (ts.size() < 3) return ScalarType::Undefined;
  char order = ts[0], kind = ts[1];
  int size = std::atoi(ts.c_str() + 2);
  constexpr char native = (PY_LITTLE_ENDIAN ? '<' : '>');
  if (size > 1 && order != '=' && order != '|' && order != native) *swapped = true;
  switch (kind) {
    case 'b': return size == 1 ? ScalarType::Bool : ScalarType::Undefined;
    case 'u':
      switch (size) {
        case 1: return ScalarType::UInt8;
        case 2: return ScalarType::UInt16;
        case 4: return ScalarType::UInt32;
        case 8: return ScalarType::UInt64;
        default: return ScalarType::Undefined;
      }
    case 'i':
      switch (size) {
        case 1: return ScalarType::Int8;
        case 2: return ScalarType::Int16;
        case 4: return ScalarType::Int32;
        case 8: return ScalarType::Int64;
        default: return ScalarType::Undefined;
      }
    case 'f':
      switch (size) {
        case 2: return ScalarType::Float16;
        case 4: return ScalarType::Float32;
        case 8: return ScalarType::Float64;
        default: return ScalarType::Undefined;
      }
    case 'c':
      switch (size) {
        case 8: return ScalarType::Complex64;
        case 16: return ScalarType::Complex128;
        default: return ScalarType::Undefined;
      }
    default: return ScalarType::Undefined;
  }
}

std::string typestr_of(PyObject* obj) {
  // Arrays and NumPy scalars both have .dtype.str.
  PyRef dtype(check(PyObject_GetAttrString(obj, "dtype")));
  PyRef s(check(PyObject_GetAttrString(dtype.get(), "str")));
  const char* c = PyUnicode_AsUTF8(s.get());
  if (!c) throw python_error();
  return c;
}

ScalarType numpy_scalar_type(PyObject* obj) {
  bool swapped = false;
  ScalarType t = scalar_type_from_typestr(typestr_of(obj), &swapped);
  if (t == ScalarType::Undefined) {
    throw TypeError(str("can't convert np.ndarray of type numpy.", numpy_dtype_name(obj), ". ", kSupportedNumpyTypes));
  }
  return t;
}

// Reads an ndarray's data pointer, dtype, shape and byte strides (from __array_interface__ and .strides).
ArrayView read_array(PyObject* array) {
  ArrayView v;
  PyRef iface(check(PyObject_GetAttrString(array, "__array_interface__")));
  TL_CHECK_TYPE(PyDict_Check(iface.get()), "__array_interface__ is not a dict");
  PyObject* typestr = PyDict_GetItemString(iface.get(), "typestr");
  PyObject* shape = PyDict_GetItemString(iface.get(), "shape");
  PyObject* data = PyDict_GetItemString(iface.get(), "data");
  TL_CHECK_TYPE(typestr && shape && data && PyTuple_Check(shape) && PyTuple_Check(data) && PyTuple_GET_SIZE(data) == 2,
                "unsupported __array_interface__");
  const char* ts = PyUnicode_AsUTF8(typestr);
  if (!ts) throw python_error();
  bool swapped = false;
  v.dtype = scalar_type_from_typestr(ts, &swapped);
  if (v.dtype == ScalarType::Undefined) {
    throw TypeError(str("can't convert np.ndarray of type numpy.", numpy_dtype_name(array), ". ", kSupportedNumpyTypes));
  }
  TL_CHECK_VALUE(!swapped,
                 "given numpy array has byte order different from the native byte order. Conversion between byte "
                 "orders is currently not supported.");
  v.data = static_cast<const char*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0)));
  throw_if_error();
  v.readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
  const Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  for (Py_ssize_t i = 0; i < ndim; ++i) v.sizes.push_back(unpack_int64(PyTuple_GET_ITEM(shape, i)));
  // The array's own strides (the interface gives None for C-contiguous arrays, whose actual
  // strides can still differ from the row-major ones, e.g. zeros for empty arrays).
  PyRef own(check(PyObject_GetAttrString(array, "strides")));
  TL_CHECK_TYPE(PyTuple_Check(own.get()) && PyTuple_GET_SIZE(own.get()) == ndim, "unsupported ndarray strides");
  for (Py_ssize_t i = 0; i < ndim; ++i) v.byte_strides.push_back(unpack_int64(PyTuple_GET_ITEM(own.get(), i)));
  return v;
}

void numpy_deleter(void* ctx) {
  if (!Py_IsInitialized()) return;  // interpreter already gone: nothing left to release
  GilAcquire gil;
  Py_DECREF(static_cast<PyObject*>(ctx));
}

// ---------------------------------------------------------------- tensor() from Python data

bool is_sequence(PyObject* obj) {
  return PySequence_Check(obj) && !PyUnicode_Check(obj) && !PyBytes_Check(obj) && !PyByteArray_Check(obj);
}

ScalarType infer_scalar_type(PyObject* obj) {
  if (is_tensor(obj)) return unpack_tensor(obj).dtype();
  if (is_numpy_scalar(obj) || is_ndarray(obj)) return numpy_scalar_type(obj);
  if (PyFloat_Check(obj)) return default_dtype();
  if (PyComplex_Check(obj)) return default_complex_dtype();
  if (PyBool_Check(obj)) return ScalarType::Bool;
  if (PyLong_Check(obj)) return ScalarType::Int64;
  if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
    throw TypeError(str("new(): invalid data type '", Py_TYPE(obj)->tp_name, "'"));
  }
  if (is_sequence(obj)) {
    PyRef seq(check(PySequence_Fast(obj, "not a sequence")));
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
    if (n == 0) return default_dtype();
    PyObject** items = PySequence_Fast_ITEMS(seq.get());
    ScalarType result = infer_scalar_type(items[0]);
    for (Py_ssize_t i = 1; i < n; ++i) result = promote_types(result, infer_scalar_type(items[i]));
    return result;
  }
  throw RuntimeError(str("Could not infer dtype of ", Py_TYPE(obj)->tp_name));
}

DimVector compute_sizes(PyObject* obj) {
  DimVector sizes;
  PyRef holder;
  PyObject* cur = obj;
  while (true) {
    if (is_tensor(cur)) break;  // an element: only one-element tensors are accepted (store_scalar)
    if (is_ndarray(cur)) {
      PyRef shape(check(PyObject_GetAttrString(cur, "shape")));
      Py_ssize_t n = PyTuple_GET_SIZE(shape.get());
      for (Py_ssize_t i = 0; i < n; ++i) sizes.push_back(unpack_int64(PyTuple_GET_ITEM(shape.get(), i)));
      break;
    }
    if (!is_sequence(cur)) break;
    Py_ssize_t n = PySequence_Length(cur);
    if (n < 0) throw python_error();
    sizes.push_back(n);
    if (n == 0) break;
    PyRef first(check(PySequence_GetItem(cur, 0)));
    holder = std::move(first);
    cur = holder.get();
  }
  return sizes;
}

[[noreturn]] void overflow_error(ScalarType t) {
  throw RuntimeError(str("value cannot be converted to type ", scalar_type_name(t), " without overflow"));
}

// Stores one Python value into *dst (a `dtype` element), converting like PyTorch.
void store_scalar(void* dst, ScalarType dtype, PyObject* obj) {
  if (dtype == ScalarType::Complex32) {
    // As a complex64 element, each part then rounded to float16 (PyTorch converts through complex<float>).
    std::complex<float> v;
    store_scalar(&v, ScalarType::Complex64, obj);
    *static_cast<ComplexHalf*>(dst) = ComplexHalf(v);
    return;
  }
  if (is_tensor(obj)) {
    // A tensor in the place of a number is read as PyTorch reads it: with __float__ for a floating
    // target, __index__ for the others (so a float tensor cannot fill an integer or bool tensor, and
    // tensors of several elements raise those methods' errors), then stored like that number.
    if (is_complex_type(dtype)) {
      const Tensor& t = unpack_tensor(obj);
      TL_CHECK(t.numel() == 1, "only one element tensors can be converted to Python scalars");
      Scalar v = tensor_item(t);
      TL_DISPATCH_COMPLEX(dtype, "tensor", [&] { *static_cast<scalar_t*>(dst) = v.to<scalar_t>(); });
      return;
    }
    PyRef number(is_floating_type(dtype) ? PyNumber_Float(obj) : PyNumber_Index(obj));
    if (!number) throw python_error();
    store_scalar(dst, dtype, number.get());
    return;
  }
  if (is_complex_type(dtype)) {
    const Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error();
    TL_DISPATCH_COMPLEX(dtype, "tensor", [&] {
      using R = typename scalar_t::value_type;
      *static_cast<scalar_t*>(dst) = scalar_t(static_cast<R>(c.real), static_cast<R>(c.imag));
    });
    return;
  }

  if (dtype == ScalarType::Bool) {
    int v = PyObject_IsTrue(obj);
    if (v < 0) throw python_error();
    *static_cast<bool*>(dst) = v != 0;
    return;
  }
  if (PyComplex_Check(obj)) {
    // A complex number into a real tensor (bool took its truth value above): PyTorch's TypeErrors.
    throw TypeError(is_floating_type(dtype) ? "must be real number, not complex"
                                            : "'complex' object cannot be interpreted as an integer");
  }
  if (is_floating_type(dtype)) {
    double v = PyFloat_Check(obj) ? PyFloat_AS_DOUBLE(obj) : PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) throw python_error();
    TL_DISPATCH_FLOAT(dtype, "tensor", [&] { *static_cast<scalar_t*>(dst) = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(v)); });
    return;
  }
  if (dtype == ScalarType::UInt64) {
    // Like PyTorch, the whole uint64 range from Python ints only (floats and negative ints raise).
    PyRef index(PyNumber_Index(obj));
    if (!index) throw python_error();
    const unsigned long long u = PyLong_AsUnsignedLongLong(index.get());
    if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw python_error();
    *static_cast<uint64_t*>(dst) = u;
    return;
  }
  // Integer dtypes.
  long long v;
  if (PyFloat_Check(obj) || is_numpy_float(obj)) {
    double d = PyFloat_AsDouble(obj);
    if (d == -1.0 && PyErr_Occurred()) throw python_error();
    // Floats must lie in the target's range (no wrap-around), then truncate toward zero.
    auto store_float = [&](auto zero) {
      using scalar_t = decltype(zero);
      bool in_range = std::isfinite(d) && d >= static_cast<double>(std::numeric_limits<scalar_t>::lowest()) &&
                      d <= static_cast<double>(std::numeric_limits<scalar_t>::max());
      if (!in_range || d >= 9.2233720368547758e18) overflow_error(dtype);
      *static_cast<scalar_t*>(dst) = static_cast<scalar_t>(d);
    };
    TL_DISPATCH_SWITCH(dtype, "tensor", TL_CASES_INTEGRAL([&] { store_float(scalar_t{}); })
                                            TL_CASES_BAREBONES_UNSIGNED([&] { store_float(scalar_t{}); }));
    return;
  } else {
    PyRef index;
    PyObject* num = obj;
    if (!PyLong_Check(obj)) {
      index = PyRef(PyNumber_Index(obj));
      if (!index) throw python_error();
      num = index.get();
    }
    int overflow = 0;
    v = PyLong_AsLongLongAndOverflow(num, &overflow);
    if (overflow) throw ValueError("Overflow when unpacking long long");
    if (v == -1 && PyErr_Occurred()) throw python_error();
  }
  auto store_int = [&](auto zero) {
    using scalar_t = decltype(zero);
    constexpr long long lo = static_cast<long long>(std::numeric_limits<scalar_t>::min());
    constexpr long long hi = static_cast<long long>(std::numeric_limits<scalar_t>::max());
    // Like PyTorch, negative ints down to -max wrap around into unsigned types (-1 -> 255).
    bool overflows = std::is_signed_v<scalar_t> ? (v < lo || v > hi) : (v > hi || v < -hi);
    if (overflows) overflow_error(dtype);
    *static_cast<scalar_t*>(dst) = static_cast<scalar_t>(v);
  };
  // (uint64 was stored above: its range does not fit these checks.)
  TL_DISPATCH_SWITCH(dtype, "tensor", TL_CASES_INTEGRAL([&] { store_int(scalar_t{}); })
                                          TL_DISPATCH_CASE(UInt16, uint16_t, [&] { store_int(scalar_t{}); })
                                              TL_DISPATCH_CASE(UInt32, uint32_t, [&] { store_int(scalar_t{}); }));
}

void check_shape(IntArrayRef got, const DimVector& sizes, int64_t dim) {
  for (size_t i = 0; i < got.size(); ++i) {
    int64_t d = dim + static_cast<int64_t>(i);
    TL_CHECK_VALUE(d < static_cast<int64_t>(sizes.size()) && got[i] == sizes[d], "expected sequence of length ",
                   d < static_cast<int64_t>(sizes.size()) ? sizes[d] : 0, " at dim ", d, " (got ", got[i], ")");
  }
  const int64_t end = dim + static_cast<int64_t>(got.size());
  TL_CHECK_VALUE(end == static_cast<int64_t>(sizes.size()), "expected sequence of length ",
                 end < static_cast<int64_t>(sizes.size()) ? sizes[end] : 0, " at dim ", end, " (got a scalar)");
}

// Byte strides of a tensor's elements (declared here, defined with tolist below).
int64_t byte_stride(int64_t stride, size_t itemsize);

// Fills the contiguous block `dst` (the elements of dimensions dim.. of the result) from `obj`.
void store_recursive(char* dst, ScalarType dtype, const DimVector& sizes, const DimVector& strides, int64_t dim,
                     PyObject* obj) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  const int64_t itemsize = static_cast<int64_t>(element_size(dtype));
  if (is_tensor(obj) && dim < ndim) {
    // A tensor where the sizes (from the first element of each level) say a sequence is iterated
    // like one, as PyTorch does ([[1, 2], tensor([3, 4])]). When its shape is the rest of the
    // result's and its elements convert as numbers would (a floating target, or the same dtype),
    // it is copied in one pass.
    const Tensor& t = unpack_tensor(obj);
    const IntArrayRef rest(sizes.data() + dim, static_cast<size_t>(ndim - dim));
    if (!t.is_meta() && t.sizes() == rest &&
        (is_floating_type(dtype) || is_complex_type(dtype) || t.dtype() == dtype)) {
      DimVector bs;
      for (int64_t st : t.strides()) bs.push_back(byte_stride(st, t.itemsize()));
      copy_cast(dst, dtype, static_cast<const char*>(t.data_ptr()), t.dtype(), t.sizes(), bs);
      return;
    }
  } else if (is_tensor(obj)) {
    store_scalar(dst, dtype, obj);
    return;
  }
  if (is_ndarray(obj)) {
    ArrayView v = read_array(obj);
    check_shape(v.sizes, sizes, dim);
    copy_cast(dst, dtype, v.data, v.dtype, v.sizes, v.byte_strides);
    return;
  }
  if (dim == ndim) {
    TL_CHECK_TYPE(!is_sequence(obj), "too many dimensions '", Py_TYPE(obj)->tp_name, "'");
    store_scalar(dst, dtype, obj);
    return;
  }
  if (!is_sequence(obj)) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
      throw TypeError(str("new(): invalid data type '", Py_TYPE(obj)->tp_name, "'"));
    }
    throw TypeError("not a sequence");
  }
  PyRef seq(check(PySequence_Fast(obj, "not a sequence")));
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.get());
  TL_CHECK_VALUE(n == sizes[dim], "expected sequence of length ", sizes[dim], " at dim ", dim, " (got ", n, ")");
  PyObject** items = PySequence_Fast_ITEMS(seq.get());
  const int64_t step = strides[dim] * itemsize;
  for (Py_ssize_t i = 0; i < n; ++i) store_recursive(dst + i * step, dtype, sizes, strides, dim + 1, items[i]);
}

// Stride in bytes. Wrapping (unsigned) product: only a dimension of size 0 or 1, whose stride
// is never used, can have a stride whose byte count exceeds int64 (as_strided((1,), (2**62,))).
int64_t byte_stride(int64_t stride, size_t itemsize) {
  return static_cast<int64_t>(static_cast<uint64_t>(stride) * itemsize);
}

// ---------------------------------------------------------------- tolist

template <typename T>
PyObject* element_to_py(const char* p) {
  if constexpr (std::is_same_v<T, bool>) {
    return PyBool_FromLong(*reinterpret_cast<const uint8_t*>(p) != 0);  // the byte: reading a non-0/1 bool is UB
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, uint64_t>) return PyLong_FromUnsignedLongLong(v);
    else if constexpr (is_complex_v<T>) return PyComplex_FromDoubles(v.real(), v.imag());
    else if constexpr (std::is_same_v<T, ComplexHalf>) return PyComplex_FromDoubles(float(v.re), float(v.im));
    else if constexpr (std::is_integral_v<T>) return PyLong_FromLongLong(static_cast<long long>(v));
    else return PyFloat_FromDouble(static_cast<double>(static_cast<opmath_t<T>>(v)));
  }
}

template <typename T>
PyObject* to_list_recursive(const char* p, IntArrayRef sizes, const DimVector& byte_strides, size_t dim) {
  if (dim == sizes.size()) return element_to_py<T>(p);
  const Py_ssize_t n = static_cast<Py_ssize_t>(sizes[dim]);
  PyRef list(PyList_New(n));
  if (!list) throw python_error();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = to_list_recursive<T>(p + i * byte_strides[dim], sizes, byte_strides, dim + 1);
    if (!item) throw python_error();
    PyList_SET_ITEM(list.get(), i, item);
  }
  return list.release();
}

}  // namespace

// ---------------------------------------------------------------- public functions

Tensor tensor_from_numpy(PyObject* array) {
  TL_CHECK_TYPE(is_ndarray(array), "expected np.ndarray (got ", py_typename(array), ")");
  ArrayView v = read_array(array);
  const int64_t itemsize = static_cast<int64_t>(element_size(v.dtype));
  DimVector strides;
  int64_t extent = 1;
  bool empty = false;
  for (size_t i = 0; i < v.sizes.size(); ++i) {
    int64_t bs = v.byte_strides[i];
    TL_CHECK_VALUE(bs >= 0,
                   "At least one stride in the given numpy array is negative, and tensors with negative strides are "
                   "not currently supported. (You can probably work around this by making a copy of your array "
                   "with array.copy().) ");
    TL_CHECK_VALUE(bs % itemsize == 0,
                   "given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                   "reallocate the memory.");
    strides.push_back(bs / itemsize);
    if (v.sizes[i] == 0) empty = true;
    else extent += (v.sizes[i] - 1) * (bs / itemsize);
  }
  if (empty) extent = 0;
  if (v.readonly) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given NumPy array is not writable, and torchlite does not support non-writable tensors. "
                     "Writing to the tensor is undefined behavior; copy the array (or make it writable) first.",
                     1) < 0) {
      throw python_error();
    }
  }
  Py_INCREF(array);
  DataPtr data(const_cast<char*>(v.data), array, numpy_deleter);
  auto storage = intrusive_ptr<StorageImpl>::make(static_cast<size_t>(extent * itemsize), Device(DeviceType::CPU),
                                                  std::move(data));
  storage->resizable = false;  // NumPy owns the memory
  return Tensor(intrusive_ptr<TensorImpl>::make(std::move(storage), v.dtype, v.sizes, strides, 0));
}

Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Device target = device.value_or(Device(DeviceType::CPU));
  if (is_tensor(data)) {
    const Tensor& src = unpack_tensor(data);
    ScalarType st = dtype.value_or(src.dtype());
    if (target.is_meta()) return empty_tensor(src.sizes(), st, target);
    TL_CHECK_AS(NotImplementedError, !src.is_meta(), "Cannot copy out of meta tensor; no data!");
    Tensor out = empty_tensor(src.sizes(), st, target);
    DimVector bs;
    for (int64_t s : src.strides()) bs.push_back(byte_stride(s, src.itemsize()));
    copy_cast(out.data_ptr(), st, static_cast<const char*>(src.data_ptr()), src.dtype(), src.sizes(), bs);
    return out;
  }
  if (is_ndarray(data)) {
    ArrayView v = read_array(data);
    ScalarType st = dtype.value_or(v.dtype);
    Tensor out = empty_tensor(v.sizes, st, Device(DeviceType::CPU));
    copy_cast(out.data_ptr(), st, v.data, v.dtype, v.sizes, v.byte_strides);
    return target.is_meta() ? empty_tensor(v.sizes, st, target) : out;
  }
  ScalarType st = dtype ? *dtype : infer_scalar_type(data);
  DimVector sizes = compute_sizes(data);
  Tensor out = empty_tensor(sizes, st, Device(DeviceType::CPU));
  DimVector strides = contiguous_strides(sizes);
  store_recursive(static_cast<char*>(out.data_ptr()), st, sizes, strides, 0, data);
  return target.is_meta() ? empty_tensor(sizes, st, target) : out;
}

PyObject* tensor_to_list(const Tensor& tensor) {
  TL_CHECK_AS(NotImplementedError, !tensor.is_meta(), "Cannot copy out of meta tensor; no data!");
  Tensor t = tensor;
  if (t.math_bits() != 0) {  // the values, not the memory, of a conj()/imag-of-conj view
    autograd::NoGradGuard no_grad;
    t = math_bits::resolved(t);
  }
  DimVector byte_strides;
  for (int64_t s : t.strides()) byte_strides.push_back(byte_stride(s, t.itemsize()));
  const char* p = static_cast<const char*>(t.data_ptr());
  return TL_DISPATCH_EVERY_DTYPE(t.dtype(), "tolist",
                         [&]() -> PyObject* { return to_list_recursive<scalar_t>(p, t.sizes(), byte_strides, 0); });
}

namespace {

// What a NumPy array made from a tensor points into: NumPy keeps this object as the array's base,
// and it holds the tensor's storage (not the tensor, whose storage `x.data = y` or a resize may
// replace), so the memory lives as long as the array. The storage is marked non-resizable.
struct StorageHolder {
  PyObject_HEAD
  Storage storage;
  PyObject* interface;  // the __array_interface__ dict
};

void storage_holder_dealloc(PyObject* self) {
  auto* h = reinterpret_cast<StorageHolder*>(self);
  Py_XDECREF(h->interface);
  h->storage.~Storage();
  Py_TYPE(self)->tp_free(self);
}

PyObject* storage_holder_interface(PyObject* self, void*) {
  PyObject* iface = reinterpret_cast<StorageHolder*>(self)->interface;
  Py_INCREF(iface);
  return iface;
}

PyGetSetDef storage_holder_getset[] = {
    {"__array_interface__", storage_holder_interface, nullptr, "NumPy's array interface.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject* storage_holder_type() {
  static PyTypeObject type = [] {
    PyTypeObject t = {PyVarObject_HEAD_INIT(nullptr, 0)};
    t.tp_name = "torchlite._C._StorageHolder";
    t.tp_basicsize = sizeof(StorageHolder);
    t.tp_flags = Py_TPFLAGS_DEFAULT;
    t.tp_doc = "Keeps a tensor's storage alive under the NumPy arrays that point into it.";
    t.tp_dealloc = storage_holder_dealloc;
    t.tp_getset = storage_holder_getset;
    return t;
  }();
  static const bool ready = PyType_Ready(&type) == 0;
  if (!ready) throw python_error();
  return &type;
}

}  // namespace

PyObject* tensor_numpy_holder(const Tensor& t) {
  PyRef iface(tensor_array_interface(t));
  PyTypeObject* type = storage_holder_type();
  PyObject* obj = check(type->tp_alloc(type, 0));
  auto* h = reinterpret_cast<StorageHolder*>(obj);
  new (&h->storage) Storage(t.storage());
  h->interface = iface.release();
  t.storage()->resizable = false;
  return obj;
}

PyObject* tensor_array_interface(const Tensor& t) {
  TL_CHECK(!t.requires_grad(), "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  // The array would show the memory, not the value: PyTorch refuses tensors with a lazy bit.
  TL_CHECK(!t.is_conj(), "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.");
  TL_CHECK(!t.is_neg(), "Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() instead.");
  TL_CHECK_TYPE(!t.is_meta(), "can't convert meta device type tensor to numpy: a meta tensor has no data");
  const char* typestr = nullptr;
  switch (t.dtype()) {
    case ScalarType::Bool: typestr = "|b1"; break;
    case ScalarType::UInt8: typestr = "|u1"; break;
    case ScalarType::Int8: typestr = "|i1"; break;
    case ScalarType::Int16: typestr = PY_LITTLE_ENDIAN ? "<i2" : ">i2"; break;
    case ScalarType::Int32: typestr = PY_LITTLE_ENDIAN ? "<i4" : ">i4"; break;
    case ScalarType::Int64: typestr = PY_LITTLE_ENDIAN ? "<i8" : ">i8"; break;
    case ScalarType::Float16: typestr = PY_LITTLE_ENDIAN ? "<f2" : ">f2"; break;
    case ScalarType::Float32: typestr = PY_LITTLE_ENDIAN ? "<f4" : ">f4"; break;
    case ScalarType::Float64: typestr = PY_LITTLE_ENDIAN ? "<f8" : ">f8"; break;
    case ScalarType::UInt16: typestr = PY_LITTLE_ENDIAN ? "<u2" : ">u2"; break;
    case ScalarType::UInt32: typestr = PY_LITTLE_ENDIAN ? "<u4" : ">u4"; break;
    case ScalarType::UInt64: typestr = PY_LITTLE_ENDIAN ? "<u8" : ">u8"; break;
    case ScalarType::Complex64: typestr = PY_LITTLE_ENDIAN ? "<c8" : ">c8"; break;
    case ScalarType::Complex128: typestr = PY_LITTLE_ENDIAN ? "<c16" : ">c16"; break;
    case ScalarType::BFloat16: throw TypeError("Got unsupported ScalarType BFloat16");
    case ScalarType::Complex32: throw TypeError("Got unsupported ScalarType ComplexHalf");  // NumPy has no complex32
    default: throw TypeError(str("Got unsupported ScalarType ", scalar_type_name(t.dtype())));
  }
  const Py_ssize_t ndim = static_cast<Py_ssize_t>(t.dim());
  PyRef shape(check(PyTuple_New(ndim)));
  PyRef strides(check(PyTuple_New(ndim)));
  for (Py_ssize_t i = 0; i < ndim; ++i) {
    PyTuple_SET_ITEM(shape.get(), i, check(PyLong_FromLongLong(t.sizes()[i])));
    PyTuple_SET_ITEM(strides.get(), i,
                     check(PyLong_FromLongLong(byte_stride(t.strides()[i], t.itemsize()))));
  }
  void* ptr = t.data_ptr();
  static char empty_buffer[16];
  if (!ptr) ptr = empty_buffer;  // NumPy rejects a null pointer even for zero elements
  PyRef data(check(Py_BuildValue("(NO)", PyLong_FromVoidPtr(ptr), Py_False)));
  return check(Py_BuildValue("{s:O,s:s,s:O,s:O,s:i}", "shape", shape.get(), "typestr", typestr, "data", data.get(),
                             "strides", strides.get(), "version", 3));
}

PyObject* py_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  TL_PY_TRY
  static PythonArgParser parser(
      {"tensor(object data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, "
       "bool pin_memory=False)"},
      false);
  ParsedArgs parsed;
  auto r = parser.parse(nullptr, args, nargs, kwnames, parsed);
  PyObject* data = r.pyobject(0);
  if (is_tensor(data)) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "To copy construct from a tensor, use sourceTensor.detach().clone() (followed by "
                     ".requires_grad_(True) if needed) rather than torchlite.tensor(sourceTensor).",
                     1) < 0) {
      throw python_error();
    }
  }
  bool requires_grad = r.toBool(3);
  native::check_pin_memory(r.toBool(4));
  Tensor t = tensor_from_data(data, r.scalartype_optional(1), r.device_optional(2));
  if (requires_grad) t.set_requires_grad(true);
  return wrap(std::move(t));
  TL_PY_CATCH
}

PyObject* py_from_numpy(PyObject*, PyObject* array) {
  TL_PY_TRY
  return wrap(tensor_from_numpy(array));
  TL_PY_CATCH
}

}  // namespace tl::python
