#pragma once
// Page-backed memory: the non-template core of Buffer<T>.
//
// Why mmap and not the heap: a large `free` returns memory to malloc's arena, not necessarily to
// the OS, so RSS can stay high after the buffer is gone and the budget's books would lie (DESIGN
// §1.6). An anonymous private mapping is returned to the OS by `munmap`, at once and in full.
//
// Pinning: a CUDA backend wants large host buffers page-locked for fast host-to-device copies.
// This layer does not know CUDA; the backend installs a pin/unpin pair (`set_pin_hooks`, e.g.
// cudaHostRegister / cudaHostUnregister) and buffers created with `pin = true` call them right
// after mapping and right before unmapping. Without hooks, `pin = true` is a no-op.
#include <cstddef>
#include <functional>
#include <memory>

namespace splitprove::mem {

inline constexpr std::size_t kPageSize = 4096;
inline constexpr std::size_t kHugePageSize = 2 * 1024 * 1024;

struct BufferOptions {
  // Ask for transparent huge pages (madvise MADV_HUGEPAGE). The mapping is then rounded up to and
  // aligned on 2 MiB, and the budget is charged for the rounded size.
  bool huge_pages = false;
  // Call the installed pin hook after mapping (and the matching unpin before unmapping).
  bool pin = false;
  // Fault every page in at creation (MAP_POPULATE), so RSS reflects the buffer at once.
  bool populate = false;
};

// Registered by a device backend. `pin` may throw (the buffer is then unmapped and the error
// propagates); `unpin` must not throw.
struct PinHooks {
  std::function<void(void* p, std::size_t bytes)> pin;
  std::function<void(void* p, std::size_t bytes)> unpin;
};
void set_pin_hooks(PinHooks hooks);
void clear_pin_hooks();
// Whether a pin hook is installed now (buffers made with `pin = true` are then pinned).
bool pin_hooks_installed();
// Whether buffers made with `opts` get pinned pages now (pin asked for and a hook installed).
inline bool pins_pages(const BufferOptions& opts) { return opts.pin && pin_hooks_installed(); }

// The bytes a mapping of `bytes` really takes (rounded to whole pages / huge pages): this is what a
// buffer reserves, so that the books match what the OS gives.
std::size_t mapped_size(std::size_t bytes, const BufferOptions& opts);

// One anonymous private mapping. Move-only; unmapped in the destructor (after unpinning).
class PageMapping {
 public:
  PageMapping() = default;
  // Maps `mapped_size(bytes, opts)` bytes of zeroed memory. Throws splitprove::Error on failure.
  PageMapping(std::size_t bytes, const BufferOptions& opts);
  PageMapping(PageMapping&& o) noexcept;
  PageMapping& operator=(PageMapping&& o) noexcept;
  PageMapping(const PageMapping&) = delete;
  PageMapping& operator=(const PageMapping&) = delete;
  ~PageMapping() { unmap(); }

  void* data() const { return data_; }
  std::size_t mapped_bytes() const { return mapped_; }
  bool pinned() const { return unpin_ != nullptr; }
  // Unpins (if pinned) and munmaps now; when this returns the memory is back with the OS.
  void unmap() noexcept;

 private:
  void* data_ = nullptr;
  std::size_t mapped_ = 0;
  // The unpin that pairs with the pin made at creation (kept even if the hooks change later).
  std::shared_ptr<const std::function<void(void*, std::size_t)>> unpin_;
};

}  // namespace splitprove::mem
