#pragma once
// trunk::sandbox::ClockMode: the two ways the sandbox clock moves, and the names Python and the command lines
// give them. Apart from sandbox.hpp so that the sandbox clock sees it without the Sandbox class; sandbox.hpp
// includes it.

#include <array>

#include "trunk/option_rows.hpp"

namespace trunk::sandbox {

/// How the sandbox clock moves (trunk/sandbox/sandbox.hpp's header comment).
enum class ClockMode {
  real,          ///< the wall clock, plus what advance() added
  virtual_time,  ///< stands still until advance() moves it (deterministic)
};

}  // namespace trunk::sandbox

namespace trunk {
/// The names Python and the command lines give the clock modes.
template <>
struct options::Choices<sandbox::ClockMode> {
  static constexpr std::array<Choice<sandbox::ClockMode>, 2> all{
      {{sandbox::ClockMode::real, "real"}, {sandbox::ClockMode::virtual_time, "virtual"}}};
};
}  // namespace trunk
