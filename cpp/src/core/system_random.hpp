#pragma once
// Random bytes from the kernel, for what must not be guessed (the sandbox's tokens and keys) and for seeding the
// client's backoff jitter.
//
// Not std::random_device: GCC 12's reads them with arc4random, a glibc 2.36 function, and the wheels link libstdc++
// statically, so one use of it would raise the glibc every wheel needs from 2.34 to 2.36 (docs/install.md,
// "Which platforms the tag covers"). getrandom(2) is glibc 2.25's.

#include <cstdint>
#include <span>

namespace trunk::detail {

/// Fills `out` from getrandom(2), or /dev/urandom where the kernel lacks it. Throws std::runtime_error if
/// neither gives bytes (never on a Linux of this century).
void fill_system_random(std::span<unsigned char> out);

std::uint64_t system_random_u64();

}  // namespace trunk::detail
