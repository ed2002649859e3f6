#include "mem/pages.hpp"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "mem/units.hpp"
#include "splitprove/error.hpp"

namespace splitprove::mem {
namespace {

struct HookRegistry {
  std::mutex mu;
  std::function<void(void*, std::size_t)> pin;
  std::shared_ptr<const std::function<void(void*, std::size_t)>> unpin;
};
HookRegistry& hooks() {
  static HookRegistry r;
  return r;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void set_pin_hooks(PinHooks h) {
  auto& r = hooks();
  std::lock_guard lk(r.mu);
  r.pin = std::move(h.pin);
  r.unpin =
      h.unpin ? std::make_shared<const std::function<void(void*, std::size_t)>>(std::move(h.unpin))
              : nullptr;
}

void clear_pin_hooks() { set_pin_hooks({}); }

bool pin_hooks_installed() {
  auto& r = hooks();
  std::lock_guard lk(r.mu);
  return bool(r.pin);
}

std::size_t mapped_size(std::size_t bytes, const BufferOptions& opts) {
  if (bytes == 0) return 0;
  return round_up(bytes, opts.huge_pages ? kHugePageSize : kPageSize);
}

PageMapping::PageMapping(std::size_t bytes, const BufferOptions& opts) {
  std::size_t size = mapped_size(bytes, opts);
  if (size == 0) return;
  // MAP_POPULATE would fault 4 KiB pages before the huge-page advice: populate by hand then.
  const bool populate_now = opts.populate && !opts.huge_pages;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (populate_now ? MAP_POPULATE : 0);
  // For huge pages, over-map by one huge page and trim so that the start is 2 MiB aligned (THP
  // can only back aligned 2 MiB ranges).
  std::size_t ask = opts.huge_pages ? size + kHugePageSize : size;
  void* p = ::mmap(nullptr, ask, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED)
    throw Error(fmt::format("mmap of {} failed: {}", format_bytes(ask), std::strerror(errno)));
  if (opts.huge_pages) {
    auto* base = static_cast<char*>(p);
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t head = round_up(addr, kHugePageSize) - addr;
    const std::size_t tail = ask - head - size;
    if (head) ::munmap(base, head);
    if (tail) ::munmap(base + head + size, tail);
    p = base + head;
    ::madvise(p, size, MADV_HUGEPAGE);  // advice only: failure (THP off) is not an error
    if (opts.populate)
      for (std::size_t off = 0; off < size; off += kPageSize)
        static_cast<volatile unsigned char*>(p)[off] = 0;
  }
  data_ = p;
  mapped_ = size;
  if (opts.pin) {
    std::function<void(void*, std::size_t)> pin;
    std::shared_ptr<const std::function<void(void*, std::size_t)>> unpin;
    {
      auto& r = hooks();
      std::lock_guard lk(r.mu);
      pin = r.pin;
      unpin = r.unpin;
    }
    if (pin) {
      try {
        pin(data_, mapped_);
      } catch (...) {
        unmap();
        throw;
      }
      unpin_ = std::move(unpin);
      if (!unpin_)
        unpin_ = std::make_shared<const std::function<void(void*, std::size_t)>>(
            [](void*, std::size_t) {});
    }
  }
}

PageMapping::PageMapping(PageMapping&& o) noexcept
    : data_(o.data_), mapped_(o.mapped_), unpin_(std::move(o.unpin_)) {
  o.data_ = nullptr;
  o.mapped_ = 0;
}

PageMapping& PageMapping::operator=(PageMapping&& o) noexcept {
  if (this != &o) {
    unmap();
    data_ = o.data_;
    mapped_ = o.mapped_;
    unpin_ = std::move(o.unpin_);
    o.data_ = nullptr;
    o.mapped_ = 0;
  }
  return *this;
}

void PageMapping::unmap() noexcept {
  if (!data_) return;
  if (unpin_) {
    (*unpin_)(data_, mapped_);
    unpin_.reset();
  }
  ::munmap(data_, mapped_);
  data_ = nullptr;
  mapped_ = 0;
}

}  // namespace splitprove::mem
