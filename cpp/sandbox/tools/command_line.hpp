#pragma once
// Command line of trunk-sandbox: flags -> SandboxOptions. Separate from main() so it reads as a table.

#include <optional>
#include <string>
#include <vector>

#include "trunk/sandbox/sandbox_options.hpp"

namespace trunk::sandbox::cli {

struct CommandLine {
  SandboxOptions options;
  std::string save_data;  ///< --save-data PATH: write the history there after start
  std::vector<std::string> webhooks;  ///< --webhook URL (repeatable): endpoints registered at start
  bool help = false;
};

/// Throws std::invalid_argument with a message naming the flag, the value and the rule.
CommandLine parse(const std::vector<std::string>& args);

std::string usage();

}  // namespace trunk::sandbox::cli
