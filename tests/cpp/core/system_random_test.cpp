// The kernel's random bytes (core/system_random.hpp): every byte of the span is written, and two draws differ.
#include "core/system_random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>
#include <set>

namespace trunk::detail {
namespace {

TEST(SystemRandom, FillsEveryByteOfSpansOfAnySize) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{256}, std::size_t{4096}}) {
    // A byte left unwritten keeps 0xAA; 64 draws of a byte all equal 0xAA with probability 2^-512.
    std::vector<unsigned char> first(size, 0xAA);
    fill_system_random(first);
    if (size >= 64) {
      std::size_t untouched = 0;
      for (std::size_t i = size - 64; i < size; ++i) untouched += first[i] == 0xAA;
      EXPECT_LT(untouched, 64U) << size;
    }
    std::vector<unsigned char> second(size, 0xAA);
    fill_system_random(second);
    if (size >= 7) {
      EXPECT_NE(first, second) << size;
    }
  }
}

TEST(SystemRandom, SixtyFourBitDrawsDoNotRepeat) {
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(system_random_u64());
  EXPECT_EQ(seen.size(), 1000U);
}

}  // namespace
}  // namespace trunk::detail
