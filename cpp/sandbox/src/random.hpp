#pragma once
// A small deterministic random source. The standard distributions are not specified bit-for-bit across
// standard libraries, so the sandbox draws from SplitMix64 directly: the same seed gives the same data on
// every platform and compiler.

#include <cstdint>
#include <string>
#include <vector>

namespace trunk::sandbox {

/// One SplitMix64 step: also a good 64-bit mixing function for counter-based dice.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Uniform double in [0, 1) from 64 random bits.
constexpr double unit_interval(std::uint64_t bits) noexcept {
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

class Random {
 public:
  explicit Random(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept { return mix64(state_++ * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL); }
  /// Uniform in [0, 1).
  double uniform() noexcept { return unit_interval(next()); }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [lo, hi] (inclusive).
  std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) noexcept { return uniform() < p; }
  template <typename T>
  const T& pick(const std::vector<T>& items) noexcept {
    return items[static_cast<std::size_t>(next() % items.size())];
  }
  /// A random (version 4) UUID, lower case.
  std::string uuid();

 private:
  std::uint64_t state_;
};

}  // namespace trunk::sandbox
