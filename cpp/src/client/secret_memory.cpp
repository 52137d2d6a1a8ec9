#include "secret_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <utility>

#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

std::atomic<WipeObserver> wipe_observer{nullptr};

std::size_t page_size() noexcept {
  static const std::size_t size = [] {
    const long value = ::sysconf(_SC_PAGESIZE);
    return value > 0 ? static_cast<std::size_t>(value) : std::size_t{4096};
  }();
  return size;
}

}  // namespace

SecretMemory::SecretMemory(std::size_t size) {
  const std::size_t page = page_size();
  const std::size_t mapped = (std::max<std::size_t>(size, 1) + page - 1) / page * page;
  void* base = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  // Before anything is written there: a dump taken at any later moment leaves these pages out.
  if (::madvise(base, mapped, MADV_DONTDUMP) != 0) {
    ::munmap(base, mapped);
    throw Error("could not exclude the memory holding the API token from core dumps (madvise failed)");
  }
  // Kept out of swap when RLIMIT_MEMLOCK allows it. (The pages are inherited by a fork() child, so a Client
  // keeps working there; the lock is not, which only matters for swap.)
  locked_ = ::mlock(base, mapped) == 0;
  base_ = base;
  mapped_ = mapped;
  size_ = size;
}

SecretMemory::~SecretMemory() { release(); }

SecretMemory::SecretMemory(SecretMemory&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)),
      size_(std::exchange(other.size_, 0)),
      locked_(std::exchange(other.locked_, false)) {}

SecretMemory& SecretMemory::operator=(SecretMemory&& other) noexcept {
  if (this != &other) {
    release();
    base_ = std::exchange(other.base_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
    size_ = std::exchange(other.size_, 0);
    locked_ = std::exchange(other.locked_, false);
  }
  return *this;
}

void SecretMemory::release() noexcept {
  if (base_ == nullptr) return;
  ::explicit_bzero(base_, mapped_);
  if (const WipeObserver observer = wipe_observer.load(std::memory_order_acquire)) {
    observer(static_cast<const char*>(base_), mapped_);
  }
  if (locked_) ::munlock(base_, mapped_);
  ::munmap(base_, mapped_);
  base_ = nullptr;
  mapped_ = 0;
  size_ = 0;
  locked_ = false;
}

void set_wipe_observer(WipeObserver observer) noexcept { wipe_observer.store(observer, std::memory_order_release); }

void wipe(std::string& text) noexcept {
  ::explicit_bzero(text.data(), text.capacity());
  text.clear();
}


}  // namespace trunk::detail
