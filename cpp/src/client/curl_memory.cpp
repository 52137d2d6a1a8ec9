#include "curl_memory.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace trunk::detail {

namespace {

// The probe: the block the probe hands to curl_free, and whether wiping_free saw it.
std::atomic<void*> probe_block{nullptr};
std::atomic<bool> probe_seen{false};
std::atomic<bool> frees_wiped{false};

// The size to wipe is what the allocator really reserved for the block (>= what was asked for), which is
// also all a later reader of the freed block could see.
void wipe_block(void* block) noexcept {
  if (block != nullptr) ::explicit_bzero(block, ::malloc_usable_size(block));
}

extern "C" void* wiping_malloc(size_t size) { return std::malloc(size); }

extern "C" void wiping_free(void* block) {
  if (block == nullptr) return;
  if (block == probe_block.load(std::memory_order_relaxed)) probe_seen.store(true, std::memory_order_relaxed);
  wipe_block(block);
  std::free(block);
}

// Never std::realloc: growing in place is fine, but a moving realloc frees the old block unwiped.
extern "C" void* wiping_realloc(void* block, size_t size) {
  if (block == nullptr) return std::malloc(size);
  if (size == 0) {
    wiping_free(block);
    return nullptr;
  }
  const size_t old_size = ::malloc_usable_size(block);
  if (size <= old_size) return block;  // shrinking or within slack: same block, nothing freed
  void* grown = std::malloc(size);
  if (grown == nullptr) return nullptr;  // like realloc: the old block stays valid
  std::memcpy(grown, block, old_size);
  wiping_free(block);
  return grown;
}

extern "C" char* wiping_strdup(const char* text) {
  const size_t size = std::strlen(text) + 1;
  auto* copy = static_cast<char*>(std::malloc(size));
  if (copy != nullptr) std::memcpy(copy, text, size);
  return copy;
}

extern "C" void* wiping_calloc(size_t count, size_t size) { return std::calloc(count, size); }

/// Frees one string libcurl allocated and reports whether it went through wiping_free.
bool probe_curl_free() {
  char* escaped = curl_easy_escape(nullptr, "probe", 5);
  if (escaped == nullptr) return false;
  probe_seen.store(false, std::memory_order_relaxed);
  probe_block.store(escaped, std::memory_order_relaxed);
  curl_free(escaped);
  probe_block.store(nullptr, std::memory_order_relaxed);
  return probe_seen.load(std::memory_order_relaxed);
}

}  // namespace

CURLcode initialize_curl_with_wiping_allocator() {
  const CURLcode result = curl_global_init_mem(CURL_GLOBAL_DEFAULT, &wiping_malloc, &wiping_free, &wiping_realloc,
                                               &wiping_strdup, &wiping_calloc);
  if (result == CURLE_OK) frees_wiped.store(probe_curl_free(), std::memory_order_release);
  return result;
}

bool curl_frees_are_wiped() noexcept { return frees_wiped.load(std::memory_order_acquire); }

}  // namespace trunk::detail
