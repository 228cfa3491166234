// Non-owning views of int64 lists (shapes, strides, dims) and a small inline vector
// for tensor metadata, so that tensors of up to 6 dims need no heap allocation for it.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

namespace tl {

template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: a single value is a 1-element list
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  // A braced list passed as an argument (`tl::reshape(t, {-1})`) lives until the end of the call's
  // full expression, which is the intended use; GCC warns on the pattern itself. Keeping such an
  // ArrayRef in a variable would dangle, as with any ArrayRef of a temporary.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
#pragma GCC diagnostic pop
  template <typename C, typename = decltype(std::declval<const C&>().data())>
  ArrayRef(const C& c) : data_(c.data()), size_(c.size()) {}

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, size_ - start); }
  bool equals(ArrayRef o) const { return size_ == o.size_ && std::equal(begin(), end(), o.begin()); }
  bool operator==(ArrayRef o) const { return equals(o); }
  bool operator!=(ArrayRef o) const { return !equals(o); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;
using OptionalIntArrayRef = std::optional<IntArrayRef>;

// Prints like a Python list: [2, 3].
inline std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

// A vector of int64 with 6 elements stored inline.
class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a.begin(), a.end()); }  // NOLINT
  DimVector(std::initializer_list<int64_t> l) { assign(l.begin(), l.end()); }
  DimVector(const DimVector& o) { assign(o.begin(), o.end()); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  DimVector(DimVector&& o) noexcept { steal(o); }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  int64_t* data() { return heap_ ? heap_ : inline_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t& operator[](size_t i) { return data()[i]; }
  const int64_t& operator[](size_t i) const { return data()[i]; }
  int64_t& back() { return data()[size_ - 1]; }
  operator IntArrayRef() const { return IntArrayRef(data(), size_); }  // NOLINT
  IntArrayRef ref() const { return IntArrayRef(data(), size_); }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(int64_t));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  void clear() { size_ = 0; }
  void assign(size_t n, int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(const int64_t* b, const int64_t* e) {
    size_t n = static_cast<size_t>(e - b);
    size_ = 0;
    reserve(n);
    if (n) std::memmove(data(), b, n * sizeof(int64_t));
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = std::max(n, capacity_ * 2);
    auto* fresh = new int64_t[cap];
    if (size_) std::memcpy(fresh, data(), size_ * sizeof(int64_t));
    delete[] heap_;
    heap_ = fresh;
    capacity_ = cap;
  }
  bool operator==(IntArrayRef o) const { return ref().equals(o); }
  bool operator!=(IntArrayRef o) const { return !ref().equals(o); }

 private:
  void release() {
    delete[] heap_;
    heap_ = nullptr;
    capacity_ = kInline;
    size_ = 0;
  }
  void steal(DimVector& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.heap_ = nullptr;
      o.capacity_ = kInline;
      o.size_ = 0;
    } else {
      heap_ = nullptr;
      capacity_ = kInline;
      assign(o.begin(), o.end());
    }
  }
  int64_t inline_[kInline];
  int64_t* heap_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

}  // namespace tl
