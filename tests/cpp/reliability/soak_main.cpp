// trunk_soak: the full fault soak of issue 8, run by scripts/soak. Prints every count; exits 1 on data loss.
//   trunk_soak [--tests N] [--updates N] [--details N] [--threads N] [--seed N]
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "soak.hpp"

int main(int argc, char** argv) {
  trunk::reliability::SoakOptions options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (flag == "--tests") options.failing_tests = static_cast<int>(value);
    else if (flag == "--updates") options.queue_updates = static_cast<int>(value);
    else if (flag == "--details") options.details = static_cast<int>(value);
    else if (flag == "--threads") options.threads = static_cast<int>(value);
    else if (flag == "--seed") options.seed = static_cast<std::uint64_t>(value);
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  std::cout << "fault soak: " << options.error_rate * 100 << " % 503, " << options.rate_limited_rate * 100
            << " % 429 with Retry-After, " << options.drop_rate * 100 << " % dropped connections, "
            << options.truncate_rate * 100 << " % truncated bodies; seed " << options.seed << "\n";
  try {
    const auto report = trunk::reliability::run_soak(options);
    std::cout << report.summary();
    return report.ok() ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "soak could not run: " << error.what() << "\n";
    return 2;
  }
}
