// Reference counting stored in the object itself: one allocation per tensor or storage,
// and a raw pointer can be turned back into an owning handle (the Python wrapper does this).
#pragma once
#include <atomic>
#include <cstddef>
#include <utility>

namespace tl {

class intrusive_target {
 public:
  intrusive_target() = default;
  intrusive_target(const intrusive_target&) = delete;
  intrusive_target& operator=(const intrusive_target&) = delete;
  virtual ~intrusive_target() = default;

  void incref() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when this was the last reference.
  bool decref() const { return refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1; }
  size_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<size_t> refcount_{0};
};

template <typename T>
class intrusive_ptr {
 public:
  intrusive_ptr() = default;
  intrusive_ptr(std::nullptr_t) {}  // NOLINT
  // Takes a new reference to `p` (which may already be owned elsewhere).
  explicit intrusive_ptr(T* p) : p_(p) {
    if (p_) p_->incref();
  }
  intrusive_ptr(const intrusive_ptr& o) : p_(o.p_) {
    if (p_) p_->incref();
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  intrusive_ptr(const intrusive_ptr<U>& o) : intrusive_ptr(static_cast<T*>(o.get())) {}  // NOLINT
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }
  template <typename... Args>
  static intrusive_ptr make(Args&&... args) {
    return intrusive_ptr(new T(std::forward<Args>(args)...));
  }

  void reset() {
    if (p_ && p_->decref()) delete p_;
    p_ = nullptr;
  }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const { return p_ != o.p_; }
  size_t use_count() const { return p_ ? p_->use_count() : 0; }

 private:
  T* p_ = nullptr;
};

}  // namespace tl
