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
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
inline constexpr std::size_t kHugeAdviceBytes = kHugePageBytes;

template <class T>
struct UninitAllocator {
  using value_type = T;
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  // A block of kHugeAdviceBytes or more starts on a 2 MiB boundary, so that every whole 2 MiB of
  // it can be a huge page (the C library's own large blocks start 16 bytes past a 4 KiB page).
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeAdviceBytes) return std::allocator<T>{}.allocate(n);
    if (n > std::allocator_traits<std::allocator<T>>::max_size(std::allocator<T>{}))
      throw std::bad_array_new_length();
    void* p = ::operator new(bytes, std::align_val_t(kHugePageBytes));
    advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeAdviceBytes)
      std::allocator<T>{}.deallocate(p, n);
    else
      ::operator delete(p, std::align_val_t(kHugePageBytes));
  }
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
