#pragma once
// The API token as a type (ClientOptions::token): a secret that wipes itself, so no caller has to remember to.
//
// Its bytes live outside the ordinary heap, in pages a core dump leaves out (MADV_DONTDUMP), and are wiped when
// the Secret is destroyed or assigned over. It is move-only (a move hands the one buffer over; the moved-from
// Secret holds nothing), and it cannot be printed: no operator<<, no conversion to a string, no accessor a
// caller could log. The client reads it once, when it builds the header line it sends (docs/security.md).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace trunk {

namespace detail {
class SecretMemory;
struct SecretAccess;  // the client's one reader (cpp/src/client/secret_access.hpp)
}  // namespace detail

class Secret {
 public:
  /// Takes the text and wipes `text` (its whole buffer, also a short string's inline bytes): pass
  /// std::move(your_string) and no copy of it is left in ordinary memory.
  Secret(std::string&& text);  // NOLINT(google-explicit-constructor): options.token = std::move(text)
  /// Copies the text; the original stays yours to protect.
  Secret(std::string_view text);  // NOLINT(google-explicit-constructor)
  Secret(const std::string& text);  // NOLINT(google-explicit-constructor)
  Secret(const char* text);  // NOLINT(google-explicit-constructor): options.token = "..."
  Secret(const char* data, std::size_t size);

  Secret(Secret&& other) noexcept;
  /// Wipes what this Secret held, then takes `other`'s buffer.
  Secret& operator=(Secret&& other) noexcept;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret();

  /// The length in bytes (0 once moved from). Says nothing about the content.
  std::size_t size() const noexcept;
  bool empty() const noexcept { return size() == 0; }

 private:
  friend struct detail::SecretAccess;
  std::unique_ptr<detail::SecretMemory> memory_;
};

}  // namespace trunk
