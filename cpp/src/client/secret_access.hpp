#pragma once
// The one way to read a trunk::Secret: for the client, where it checks the token and builds the header line
// that carries it (client.cpp, endpoint.cpp), and for the white-box tests of the type.

#include <string_view>

#include "trunk/secret.hpp"

namespace trunk::detail {

struct SecretAccess {
  /// The secret's bytes, in its own memory (empty once it was moved from). Copy them only into secret memory.
  static std::string_view view(const Secret& secret) noexcept;
};

}  // namespace trunk::detail
