// Only in the wheels (TRUNK_STATIC_DEPS, python/CMakeLists.txt): keeps the glibc they need at 2.34
// (docs/install.md, "Which platforms the tag covers").
//
// The wheels link GCC 12's libstdc++ statically. Its std::random_device reads the kernel's randomness through
// arc4random, which glibc has only since 2.36, and its object file comes into the link even though nothing here
// uses random_device (another part of libstdc++ that the extension needs refers to it). That one reference would
// make every wheel require glibc 2.36. This definition, hidden inside the extension, answers it instead with
// getrandom(2) (glibc 2.25), which is what glibc's own arc4random does.

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" __attribute__((visibility("hidden"))) std::uint32_t arc4random(void) noexcept {
  std::uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  std::size_t filled = 0;
  while (filled < sizeof value) {
    const ssize_t got = getrandom(bytes + filled, sizeof value - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      std::abort();  // as glibc's arc4random: no silent weak randomness
    }
  }
  return value;
}
