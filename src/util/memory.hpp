#pragma once
// Large scratch arrays that are written in parallel before they are read.
//
// A std::vector value-initializes what resize() adds, on the calling thread: for the MSM's tails
// and a key's point vectors that is megabytes of page faults and zeroing done by one thread while
// the pool's workers wait. UninitAllocator leaves trivially copyable elements unconstructed (their
// bytes are whatever the pages hold until the first write), so the workers that write the
// elements also take the pages' first-touch faults. advise_huge_pages asks for transparent huge
// pages on a range before its first touch: one fault per 2 MiB instead of 512; UninitAllocator
// gives that advice for every block of kHugeAdviceBytes or more it allocates (such blocks are fresh
// mappings of the C library's allocator, not yet touched).
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace splitprove::util {

// MADV_HUGEPAGE on the 2 MiB-aligned part of [p, p + bytes). Advice only: nothing happens where
// transparent huge pages are off or the range holds no aligned 2 MiB.
void advise_huge_pages(const void* p, std::size_t bytes);
inline constexpr std::size_t kHugeAdviceBytes = std::size_t(4) << 20;

template <class T>
struct UninitAllocator {
  using value_type = T;
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    if (n * sizeof(T) >= kHugeAdviceBytes) advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  // Construction without arguments (what resize adds) of a trivially copyable element does
  // nothing: such a type is an implicit-lifetime type, its object exists in the allocated
  // storage, and its value is set by the first write (a default member initializer, as in an
  // affine point's, is not applied). Everything else constructs as usual.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_copyable_v<U>)
      (void)p;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const UninitAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using UninitVector = std::vector<T, UninitAllocator<T>>;

}  // namespace splitprove::util
