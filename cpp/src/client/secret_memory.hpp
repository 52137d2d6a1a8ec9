#pragma once
// Memory for secrets (the API token): bytes that a core dump never contains and that are wiped when freed.
//
// The bytes live in their own page-aligned anonymous mapping marked MADV_DONTDUMP (the kernel leaves such
// pages out of core dumps) and, best effort, mlock'ed (kept out of swap; failure, e.g. RLIMIT_MEMLOCK, is
// ignored). The destructor wipes them with explicit_bzero (which the compiler may not optimise away) and
// unmaps them. Ordinary heap memory has none of these properties: a freed std::string keeps its bytes
// until the allocator reuses them.

#include <cstddef>
#include <string>

namespace trunk::detail {

class SecretMemory {
 public:
  SecretMemory() noexcept = default;
  /// `size` zeroed bytes (at least one page is mapped). Throws std::bad_alloc when the mapping fails, and
  /// trunk::Error when the kernel refuses MADV_DONTDUMP (the memory would not be what it claims).
  explicit SecretMemory(std::size_t size);
  ~SecretMemory();
  SecretMemory(SecretMemory&& other) noexcept;
  SecretMemory& operator=(SecretMemory&& other) noexcept;
  SecretMemory(const SecretMemory&) = delete;
  SecretMemory& operator=(const SecretMemory&) = delete;

  char* data() const noexcept { return static_cast<char*>(base_); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Whether mlock succeeded (informational: the memory is excluded from dumps either way).
  bool locked() const noexcept { return locked_; }

 private:
  void release() noexcept;

  void* base_ = nullptr;
  std::size_t mapped_ = 0;  // whole pages
  std::size_t size_ = 0;    // what the caller asked for
  bool locked_ = false;
};

/// Test hook: called, when set, with every SecretMemory's whole mapping right after it is wiped and before it is
/// unmapped, so a test can read what is left there without touching freed memory. nullptr: none (the default).
using WipeObserver = void (*)(const char* bytes, std::size_t size);
void set_wipe_observer(WipeObserver observer) noexcept;

/// Overwrites every byte the string owns (its whole capacity, so also a short string's inline buffer and
/// bytes past the end), then empties it. For strings that held a secret and are about to be freed.
void wipe(std::string& text) noexcept;

}  // namespace trunk::detail
