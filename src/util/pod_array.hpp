#pragma once
// Read-only arrays of trivially copyable elements that may sit at any address.
//
// A proving key's points are the bytes of its .zkey (ec::Curve::Affine has the snarkjs layout), so
// the key can use them where the file is mapped instead of copying them into fresh memory. A
// section of a .zkey starts wherever the sections before it end (every section header is 12
// bytes), so the points may be only 4-byte aligned. PodSpan reads elements by copy (std::memcpy),
// which is defined at any alignment and compiles to the same unaligned vector loads as a struct
// copy on x86-64. PodArray owns its elements (a vector moved in) or borrows them from memory that
// another object owns (a mapped file), which a shared handle keeps alive; copies share the
// elements, which are never written.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace splitprove::util {

template <class T>
class PodSpan {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;

  PodSpan() = default;
  PodSpan(const std::byte* bytes, std::size_t n) : p_(bytes), n_(n) {}
  // Any contiguous range of T (a std::span, a std::vector with any allocator).
  template <std::ranges::contiguous_range R>
    requires std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, T>
  PodSpan(const R& r)  // NOLINT(google-explicit-constructor): spans convert implicitly
      : p_(reinterpret_cast<const std::byte*>(std::ranges::data(r))), n_(std::ranges::size(r)) {}

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T operator[](std::size_t i) const {
    T t;
    std::memcpy(static_cast<void*>(&t), p_ + i * sizeof(T), sizeof(T));
    return t;
  }
  PodSpan subspan(std::size_t offset, std::size_t count) const {
    return PodSpan(p_ + offset * sizeof(T), count);
  }
  PodSpan subspan(std::size_t offset) const { return subspan(offset, n_ - offset); }
  const std::byte* bytes() const { return p_; }
  // The elements as a std::span where they are aligned for T (always, for owned storage).
  std::optional<std::span<const T>> aligned() const {
    if (reinterpret_cast<std::uintptr_t>(p_) % alignof(T) != 0) return std::nullopt;
    return std::span<const T>(reinterpret_cast<const T*>(p_), n_);
  }

 private:
  const std::byte* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T>
class PodArray {
 public:
  using value_type = T;

  PodArray() = default;
  // Takes the elements of a vector (any allocator).
  template <class A>
  PodArray(std::vector<T, A>&& v) {  // NOLINT(google-explicit-constructor)
    auto owned = std::make_shared<std::vector<T, A>>(std::move(v));
    view_ = PodSpan<T>(*owned);
    owner_ = std::move(owned);
    owns_ = true;
  }
  // Borrows n elements at `bytes` (any alignment), which `owner` keeps alive and unchanged.
  static PodArray borrow(std::shared_ptr<const void> owner, const std::byte* bytes,
                         std::size_t n) {
    PodArray a;
    a.owner_ = std::move(owner);
    a.view_ = PodSpan<T>(bytes, n);
    return a;
  }

  std::size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  T operator[](std::size_t i) const { return view_[i]; }
  const PodSpan<T>& view() const { return view_; }
  operator PodSpan<T>() const { return view_; }  // NOLINT(google-explicit-constructor)
  // Whether the elements are another object's memory (a mapped file) rather than owned.
  bool borrowed() const { return owner_ && !owns_; }

 private:
  std::shared_ptr<const void> owner_;
  PodSpan<T> view_;
  bool owns_ = false;
};

}  // namespace splitprove::util
