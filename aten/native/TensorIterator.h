// TensorIterator: the engine behind elementwise (pointwise) kernels.
//
// Given outputs (possibly undefined) and inputs it
//   * broadcasts the input shapes (RuntimeError "<op>: The size of tensor a (3) must match the size
//     of tensor b (4) at non-singleton dimension 1");
//   * computes the common dtype with PyTorch's result_type rules (TypePromotion.h), optionally
//     promoting integer/bool to the default float dtype, and checks out/in-place dtypes;
//   * allocates undefined outputs (common dtype, or a forced dtype such as bool for comparisons)
//     with the memory layout of the inputs (a transposed input gives a transposed output, as in
//     PyTorch), resizes out= tensors of another shape, and checks that in-place outputs already
//     have the broadcast shape ("output with shape [3] doesn't match the broadcast shape [2, 3]");
//   * converts inputs whose dtype differs from the common dtype (0-d CPU inputs into an inline
//     buffer, others into a temporary) and computes into a temporary when an output's dtype
//     differs, copying it back after the loop;
//   * checks memory overlap like PyTorch (an expanded output, or an input partially overlapping
//     an output, raise "unsupported operation: ..."); an input overlapping an output in a way too
//     hard to decide (non-dense views of the same storage) is copied first, so results are right;
//   * reorders dimensions by stride and coalesces them so that the loop runs in memory order over
//     as few, as long, 1-D runs as possible, split over threads with parallel_for; in 2-D, when
//     one operand is contiguous along each dim (x.t() + y), it walks 64 x 64 tiles instead.
// For meta tensors it does all the shape/dtype work and errors, allocates meta outputs, and
// for_each() does nothing.
//
// Typical kernel (see cpu/Loops.h for cpu_kernel):
//
//   void add_kernel(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
//     auto iter = TensorIteratorConfig().set_op_name("add").add_output(out).add_input(self)
//                     .add_input(other).build();          // `out` is now defined
//     TL_DISPATCH_ALL(iter.common_dtype(), "add", [&] {
//       cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a + b; });
//     });
//   }
//
// The fast path (all operands of the common dtype, no overlap) allocates nothing but the output.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aten/core/Parallel.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"

namespace tl::native {

constexpr int kMaxOperands = 8;

// A vector of trivially copyable T with N elements inline (heap beyond that).
template <typename T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds trivially copyable types");

 public:
  SmallVec() = default;
  SmallVec(const SmallVec&) = delete;
  SmallVec& operator=(const SmallVec&) = delete;
  ~SmallVec() { delete[] heap_; }
  void resize(size_t n, T value = T()) {
    if (n > cap_) {
      T* fresh = new T[n];
      if (size_) std::memcpy(fresh, data(), size_ * sizeof(T));
      delete[] heap_;
      heap_ = fresh;
      cap_ = n;
    }
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

 private:
  T inline_[N];
  T* heap_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = N;
};

class TensorIterator;

class TensorIteratorConfig {
 public:
  // Outputs come first (operand 0..noutputs-1), then inputs. `out` is the caller's handle: an
  // undefined tensor is allocated and assigned to it by build().
  TensorIteratorConfig& add_output(Tensor& out);
  // An input that takes part in type promotion and is converted to the common dtype.
  TensorIteratorConfig& add_input(const Tensor& in);
  // An input that keeps its own dtype and does not take part in promotion (where's condition).
  TensorIteratorConfig& add_input_keep_dtype(const Tensor& in);
  // A number that only takes part in type promotion (as a wrapped Python number); the kernel
  // captures its value itself, so no tensor is made for it.
  TensorIteratorConfig& add_scalar(const Scalar& s);
  // Names the op in error messages ("add: ...").
  TensorIteratorConfig& set_op_name(const char* name);

  // Compute the common dtype from inputs and scalars and convert inputs to it (default true).
  // When false the common dtype is the first input's dtype and inputs are not converted.
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v);
  // Integer/bool common dtype becomes default_dtype() (true division, exp, sqrt...). Default false.
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v);
  // Skip promotion: use this common dtype (inputs are converted to it).
  TensorIteratorConfig& declare_static_common_dtype(ScalarType t);
  // Outputs are computed in this dtype instead of the common dtype (comparisons: Bool).
  TensorIteratorConfig& declare_static_output_dtype(ScalarType t);
  // Check can_cast(common dtype, out.dtype()) for defined outputs (default true): RuntimeError
  // "<op>: result type Float can't be cast to the desired output type Long".
  TensorIteratorConfig& enforce_safe_casting_to_output(bool v);
  // A defined output must have exactly the result dtype: "<op>: Found dtype Long but expected Float".
  TensorIteratorConfig& check_exact_output_dtype(bool v);
  // Outputs whose dtype differs from the result dtype are computed through a temporary and
  // converted back after the loop (default true). When false the loop sees the output's own dtype.
  TensorIteratorConfig& cast_common_dtype_to_outputs(bool v);
  // Resize out= tensors of another shape (default true). When false, defined outputs take part in
  // broadcasting and must have the broadcast shape (copy_).
  TensorIteratorConfig& resize_outputs(bool v);
  // Check that all tensors are on the same device (0-d CPU tensors are exempt). Default true.
  TensorIteratorConfig& check_all_same_device(bool v);
  // PyTorch's memory-overlap checks (default true): an output must not have elements sharing
  // memory (expanded, stride 0), and an input must not partially overlap an output (both dense,
  // same storage, overlapping but not identical). Either raises RuntimeError "unsupported
  // operation: ...". fill_ turns them off. Inputs that overlap an output in ways too hard to
  // decide (non-dense views) are copied to a temporary first, so results are always right.
  TensorIteratorConfig& check_mem_overlap(bool v);

  TensorIterator build() const;

 private:
  friend class TensorIterator;
  Tensor* outputs_[kMaxOperands] = {};
  const Tensor* inputs_[kMaxOperands] = {};
  bool keep_dtype_[kMaxOperands] = {};
  Scalar scalars_[4];
  int noutputs_ = 0;
  int ninputs_ = 0;
  int nscalars_ = 0;
  const char* op_ = "op";
  bool promote_inputs_ = true;
  bool promote_int_to_float_ = false;
  bool enforce_safe_cast_ = true;
  bool check_exact_ = false;
  bool cast_to_outputs_ = true;
  bool resize_outputs_ = true;
  bool check_device_ = true;
  bool check_mem_overlap_ = true;
  ScalarType static_common_ = ScalarType::Undefined;
  ScalarType static_output_ = ScalarType::Undefined;
};

struct OperandInfo {
  Tensor tensor;             // what the loop reads or writes (maybe a converted temporary)
  Tensor original;           // the caller's tensor (outputs: where a temporary is copied back)
  Tensor* out_ref = nullptr; // outputs: the caller's handle
  ScalarType dtype = ScalarType::Undefined;  // dtype of the data the loop sees
  bool is_output = false;
  bool keep_dtype = false;
  bool will_resize = false;
  bool needs_temp = false;   // output computed through `tensor`, copied into `original`
  bool inline_scalar = false;  // input converted into scalar_buf (broadcast constant)
  alignas(16) unsigned char scalar_buf[16];
};

class TensorIterator {
 public:
  explicit TensorIterator(const TensorIteratorConfig& config);
  TensorIterator(const TensorIterator&) = delete;
  TensorIterator& operator=(const TensorIterator&) = delete;

  int noutputs() const { return noutputs_; }
  int ninputs() const { return ninputs_; }
  int ntensors() const { return noutputs_ + ninputs_; }
  // The caller-visible tensors (the allocated or user output; the original input).
  const Tensor& output(int i = 0) const { return ops_[i].original; }
  const Tensor& input(int i = 0) const { return ops_[noutputs_ + i].original; }
  ScalarType common_dtype() const { return common_dtype_; }
  // dtype of the data the loop sees for operand `arg` (outputs first, then inputs).
  ScalarType dtype(int arg = 0) const { return ops_[arg].dtype; }
  ScalarType input_dtype(int i = 0) const { return ops_[noutputs_ + i].dtype; }
  bool is_meta() const { return is_meta_; }
  Device device() const { return device_; }
  const char* op_name() const { return op_; }
  // The broadcast shape (in the tensors' dimension order) and its element count.
  IntArrayRef shape() const { return shape_; }
  int64_t numel() const { return numel_; }

  // Iteration geometry after reordering and coalescing (valid for non-meta iterators with
  // numel() > 0): dim 0 is the innermost; strides are in bytes.
  int ndim() const { return ndim_; }
  int64_t iter_size(int dim) const { return iter_shape_[dim]; }
  int64_t stride_bytes(int arg, int dim) const { return strides_[dim * kMaxOperands + arg]; }
  char* data_ptr(int arg) const { return data_[arg]; }
  // True when operand `arg` is the same value everywhere (all its strides are 0).
  bool is_scalar(int arg) const;
  // True when every operand is contiguous in one run (ndim() == 1, strides == itemsize).
  bool is_contiguous() const;

  // A non-owning reference to a 1-D loop: loop(char** data, const int64_t* strides, int64_t n).
  // data[arg] points at operand arg's first element of the run and strides[arg] is its byte
  // stride (0 for broadcast operands). The loop must not modify the data[] array itself.
  struct LoopRef {
    void (*fn)(void* ctx, char** data, const int64_t* strides, int64_t n);
    void* ctx;
    void operator()(char** data, const int64_t* strides, int64_t n) const { fn(ctx, data, strides, n); }
  };
  template <typename F>
  static LoopRef loop_ref(F& loop) {
    return LoopRef{[](void* ctx, char** data, const int64_t* strides, int64_t n) {
                     (*static_cast<F*>(ctx))(data, strides, n);
                   },
                   const_cast<void*>(static_cast<const void*>(&loop))};
  }

  // Runs the loop over all elements, in parallel (parallel_for) when numel() > grain_size.
  // Does nothing for meta iterators. Afterwards, outputs computed through a temporary are
  // converted into the real outputs. The iteration itself is not a template (only the loop
  // is), which keeps each kernel's code small.
  template <typename F>
  void for_each(F&& loop, int64_t grain_size = kGrainSize) {
    for_each_ref(loop_ref(loop), grain_size);
  }
  void for_each_ref(LoopRef loop, int64_t grain_size = kGrainSize);

  // Runs the loop over the linear element range [begin, end) on the calling thread (no temp
  // copy-back; for callers that split the range themselves).
  template <typename F>
  void serial_for_each(F&& loop, int64_t begin, int64_t end) const {
    serial_for_each_ref(loop_ref(loop), begin, end);
  }
  void serial_for_each_ref(LoopRef loop, int64_t begin, int64_t end) const;

  // Converts outputs computed through a temporary into the real outputs (for_each does this).
  void copy_temps_to_outputs();

  // Side of the square tiles used when operands disagree on which of two dims is contiguous.
  static constexpr int64_t kTile = 64;

 private:
  void compute_devices(const TensorIteratorConfig& config);
  void compute_mem_overlaps(const TensorIteratorConfig& config);
  void compute_shape(const TensorIteratorConfig& config);
  void compute_types(const TensorIteratorConfig& config);
  void compute_perm_and_allocate_outputs();
  void handle_overlap_and_convert_inputs();
  void setup_strides_and_coalesce();
  // 2-D iteration where some operands are contiguous along dim 0 and others along dim 1 (a
  // transposed operand): walks kTile x kTile tiles so both kinds stay in cache; the loop sees
  // runs of at most kTile elements along dim 0. Tiles are split over threads by columns.
  void tiled_for_each(LoopRef loop, int64_t grain_size);

  OperandInfo ops_[kMaxOperands];
  int noutputs_ = 0;
  int ninputs_ = 0;
  const char* op_ = "op";
  ScalarType common_dtype_ = ScalarType::Undefined;
  Device device_;
  bool is_meta_ = false;
  bool has_temp_outputs_ = false;
  bool tiled_ = false;  // for_each walks tiles (see tiled_for_each)
  DimVector shape_;
  int64_t numel_ = 1;
  SmallVec<int64_t, 8> perm_;        // iteration dim i = tensor dim perm_[i]
  int ndim_ = 0;
  SmallVec<int64_t, 8> iter_shape_;
  SmallVec<int64_t, 8 * kMaxOperands> strides_;  // [dim * kMaxOperands + arg], bytes
  char* data_[kMaxOperands] = {};
};

inline TensorIterator TensorIteratorConfig::build() const { return TensorIterator(*this); }

// ---- helpers shared by kernels ----

// Broadcast shape of a and b; `op` prefixes the error.
DimVector infer_size(IntArrayRef a, IntArrayRef b, const char* op);

// Converts n elements of dtype src_t at src (byte stride src_stride) into dtype dst_t at dst
// (byte stride dst_stride) with PyTorch's cast semantics (defined in cpu/Copy.cpp).
void convert_elements(ScalarType dst_t, void* dst, int64_t dst_stride, ScalarType src_t, const void* src,
                      int64_t src_stride, int64_t n);

// Writes the value of `s` as one element of dtype t at dst (no overflow check; wraps like a cast).
void scalar_to_buffer(const Scalar& s, ScalarType t, void* dst);

// True when the tensor's elements occupy exactly numel() distinct, gap-free positions.
bool is_non_overlapping_and_dense(const Tensor& t);

// Strides of a new dense tensor that keeps t's memory layout (PyTorch's preserve_format): t's own
// strides when t is non-overlapping and dense, otherwise dense strides with the dims ordered as
// t's strides order them (expanded / sliced inputs).
DimVector preserve_format_strides(const Tensor& t);

// An uninitialised tensor shaped like t with preserve_format_strides(t).
Tensor empty_like_preserve(const Tensor& t, ScalarType dtype, Device device);

}  // namespace tl::native
