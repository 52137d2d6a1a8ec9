#include "system_random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>

namespace trunk::detail {

void fill_system_random(std::span<unsigned char> out) {
  std::size_t filled = 0;
  while (filled < out.size()) {
    const ssize_t got = getrandom(out.data() + filled, out.size() - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // ENOSYS (a kernel before 3.17) or a seccomp filter: the device instead
    }
  }
  if (filled == out.size()) return;
  if (std::FILE* device = std::fopen("/dev/urandom", "rb")) {
    filled += std::fread(out.data() + filled, 1, out.size() - filled, device);
    std::fclose(device);
  }
  if (filled != out.size()) throw std::runtime_error("no random bytes from getrandom(2) or /dev/urandom");
}

std::uint64_t system_random_u64() {
  unsigned char bytes[8];
  fill_system_random(bytes);
  std::uint64_t value = 0;
  for (const unsigned char byte : bytes) value = (value << 8) | byte;
  return value;
}

}  // namespace trunk::detail
