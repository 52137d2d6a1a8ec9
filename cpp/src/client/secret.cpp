#include "trunk/secret.hpp"

#include <cstring>
#include <utility>

#include "secret_access.hpp"
#include "secret_memory.hpp"

namespace trunk {

Secret::Secret(const char* data, std::size_t size) : memory_(std::make_unique<detail::SecretMemory>(size)) {
  if (size > 0) std::memcpy(memory_->data(), data, size);
}

Secret::Secret(std::string_view text) : Secret(text.data(), text.size()) {}

Secret::Secret(const std::string& text) : Secret(text.data(), text.size()) {}

Secret::Secret(const char* text) : Secret(std::string_view(text)) {}

Secret::Secret(std::string&& text) {
  // Wiped on every path, also when the memory cannot be had: the caller gave the string up.
  struct Consumed {
    std::string& text;
    ~Consumed() { detail::wipe(text); }
  } consumed{text};
  memory_ = std::make_unique<detail::SecretMemory>(text.size());
  if (!text.empty()) std::memcpy(memory_->data(), text.data(), text.size());
}

Secret::Secret(Secret&& other) noexcept = default;

Secret& Secret::operator=(Secret&& other) noexcept {
  // The unique_ptr's assignment destroys (wipes and unmaps) what this Secret held.
  memory_ = std::move(other.memory_);
  return *this;
}

Secret::~Secret() = default;

std::size_t Secret::size() const noexcept { return memory_ ? memory_->size() : 0; }

namespace detail {

std::string_view SecretAccess::view(const Secret& secret) noexcept {
  if (!secret.memory_) return {};
  return {secret.memory_->data(), secret.memory_->size()};
}

}  // namespace detail

}  // namespace trunk
