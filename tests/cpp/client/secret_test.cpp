// trunk::Secret, the API token's type: it wipes its own bytes, hands them over on a move, and cannot be printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "secret_access.hpp"
#include "secret_memory.hpp"
#include "trunk/client_options.hpp"
#include "trunk/secret.hpp"

namespace trunk {
namespace {

// Never printable, never a string, never copied: checked by the compiler.
template <typename T>
concept Streamable = requires(std::ostream& out, const T& value) { out << value; };
static_assert(!Streamable<Secret>, "a Secret must not be printable");
static_assert(!std::is_convertible_v<const Secret&, std::string>);
static_assert(!std::is_convertible_v<const Secret&, std::string_view>);
static_assert(!std::is_constructible_v<std::string, const Secret&>);
static_assert(!std::is_copy_constructible_v<Secret> && !std::is_copy_assignable_v<Secret>);
static_assert(std::is_nothrow_move_constructible_v<Secret> && std::is_nothrow_move_assignable_v<Secret>);
// ...and so the options that hold one are move-only too.
static_assert(!std::is_copy_constructible_v<ClientOptions> && std::is_move_constructible_v<ClientOptions>);

/// What the wipe observer saw: each mapping as it was right after its wipe, before it was unmapped.
struct Wiped {
  const char* base = nullptr;
  std::size_t size = 0;
  bool all_zero = false;
};
std::vector<Wiped>& wiped() {
  static std::vector<Wiped> seen;
  return seen;
}
void observe(const char* bytes, std::size_t size) {
  wiped().push_back({bytes, size, std::all_of(bytes, bytes + size, [](char c) { return c == 0; })});
}

/// Observes wipes for the life of a test.
class SecretTest : public ::testing::Test {
 protected:
  void SetUp() override {
    wiped().clear();
    detail::set_wipe_observer(&observe);
  }
  void TearDown() override { detail::set_wipe_observer(nullptr); }

  /// Whether `bytes` lie in a mapping seen wiped (all zero).
  static bool wiped_at(const char* bytes) {
    return std::any_of(wiped().begin(), wiped().end(), [&](const Wiped& w) {
      return w.all_zero && bytes >= w.base && bytes < w.base + w.size;
    });
  }
};

TEST_F(SecretTest, HoldsTheTextItWasGivenInEveryForm) {
  const std::string text = "tok-0123456789abcdef";
  EXPECT_EQ(detail::SecretAccess::view(Secret(text)), text);
  EXPECT_EQ(detail::SecretAccess::view(Secret(text.c_str())), text);
  EXPECT_EQ(detail::SecretAccess::view(Secret(std::string_view(text))), text);
  EXPECT_EQ(detail::SecretAccess::view(Secret(text.data(), 3)), "tok");
  EXPECT_EQ(Secret(text).size(), text.size());
  EXPECT_TRUE(Secret("").empty());
}

TEST_F(SecretTest, IsWipedWhenDestroyed) {
  const char* bytes = nullptr;
  {
    const Secret secret("tok-destroyed");
    bytes = detail::SecretAccess::view(secret).data();
    EXPECT_TRUE(wiped().empty());
  }
  ASSERT_EQ(wiped().size(), 1U);
  EXPECT_TRUE(wiped_at(bytes));
}

TEST_F(SecretTest, AMoveHandsTheBufferOverAndLeavesNothingBehind) {
  Secret first("tok-moved");
  const char* bytes = detail::SecretAccess::view(first).data();
  Secret second(std::move(first));
  EXPECT_TRUE(wiped().empty()) << "a move copies nothing, so there is nothing to wipe";
  EXPECT_EQ(detail::SecretAccess::view(second).data(), bytes);
  EXPECT_TRUE(first.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
  EXPECT_TRUE(detail::SecretAccess::view(first).empty());
}

TEST_F(SecretTest, AssigningOverASecretWipesWhatItHeld) {
  Secret kept("tok-old");
  const char* old_bytes = detail::SecretAccess::view(kept).data();
  kept = Secret("tok-new");
  ASSERT_EQ(wiped().size(), 1U);
  EXPECT_TRUE(wiped_at(old_bytes));
  EXPECT_EQ(detail::SecretAccess::view(kept), "tok-new");
}

TEST_F(SecretTest, TakingAStringWipesTheString) {
  // Short (inline buffer) and long (heap buffer): both wiped, whole capacity.
  for (std::string text : {std::string("tok-short"), std::string(100, 'x')}) {
    const std::string expected = text;
    const Secret secret(std::move(text));
    EXPECT_EQ(detail::SecretAccess::view(secret), expected);
    EXPECT_TRUE(text.empty());  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(std::all_of(text.data(), text.data() + text.capacity(), [](char c) { return c == 0; }));
  }
}

TEST_F(SecretTest, OptionsAcceptTheTokenAsBefore) {
  ClientOptions options;
  options.token = "tok-literal";
  EXPECT_EQ(detail::SecretAccess::view(*options.token), "tok-literal");
  const std::string kept = "tok-lvalue";
  options.token = kept;  // a copy: `kept` stays the caller's
  EXPECT_EQ(kept, "tok-lvalue");
  EXPECT_EQ(detail::SecretAccess::view(*options.token), "tok-lvalue");
  std::string given = "tok-rvalue";
  options.token = std::move(given);
  EXPECT_EQ(detail::SecretAccess::view(*options.token), "tok-rvalue");
  EXPECT_EQ(wiped().size(), 2U) << "each replaced token wiped";
  ClientOptions moved = std::move(options);
  EXPECT_EQ(detail::SecretAccess::view(*moved.token), "tok-rvalue");
}

}  // namespace
}  // namespace trunk
