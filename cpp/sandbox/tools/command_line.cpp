#include "command_line.hpp"

#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "trunk/option_text.hpp"

namespace trunk::sandbox::cli {

namespace {

/// Calls f(row, target member) for every row of T that has a flag, nested options structs (the faults) included.
template <options::DescribedOptions T, typename F>
void for_each_flag(T& target, F&& f) {
  options::for_each_option<T>([&](const auto& row) {
    using M = typename std::remove_cvref_t<decltype(row)>::member_type;
    if constexpr (options::DescribedOptions<M>) {
      for_each_flag(target.*row.member, f);
    } else if (!row.name.empty()) {
      f(row, target.*row.member);
    }
  });
}

/// What a row's flag takes, for --help: N, F, SECONDS, "real|virtual", ...
template <typename M>
std::string metavar(std::string_view name, const options::OptionRule& rule) {
  if constexpr (std::is_same_v<M, bool>) {
    return "";
  } else if constexpr (options::HasChoices<M>) {
    std::string text;
    for (const auto& choice : options::Choices<M>::all) text += (text.empty() ? "" : "|") + std::string(choice.name);
    return text;
  } else if constexpr (options::is_time<M>) {
    return "RFC3339";
  } else if constexpr (options::is_duration<M>) {
    return rule.milliseconds ? "MS" : "SECONDS";
  } else if constexpr (options::is_whole<M>) {
    return "N";
  } else if constexpr (options::is_real<M>) {
    return "F";
  } else {
    if (rule.path) return "PATH";
    const std::size_t cut = name.rfind('_');  // the last word of the name: HOST, TOKEN, SLUG
    std::string word(cut == std::string_view::npos ? name : name.substr(cut + 1));
    for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return word;
  }
}

void usage_line(std::string& out, const std::string& flag, const std::string& text) {
  std::string head = "  " + flag;
  head += head.size() < 28 ? std::string(28 - head.size(), ' ') : " ";
  out += head + text + "\n";
}

}  // namespace

std::string usage() {
  std::string out =
      "usage: trunk-sandbox [options]\n"
      "A local implementation of the Trunk v1 flaky-test and merge-queue API, with generated data.\n"
      "\n";
  SandboxOptions defaults;
  for_each_flag(defaults, [&](const auto& row, const auto& value) {
    using M = std::remove_cvref_t<decltype(value)>;
    std::string flag = "--" + options::flag_of(row.name, row.rule);
    const std::string takes = metavar<M>(row.name, row.rule);
    if constexpr (std::is_same_v<M, bool>) flag = "--[no-]" + flag.substr(2);
    if (!takes.empty()) flag += " " + takes;
    std::string text(row.doc);
    const std::string rule = options::rule_of<M>(row.rule);
    if (!rule.empty() && !options::HasChoices<M>) text += " Must be " + rule + ".";
    if (!row.rule.computed_default) text += " (default " + options::value_text(value, row.rule) + ")";
    usage_line(out, flag, text);
  });
  usage_line(out, "--virtual-clock", "Same as --clock virtual.");
  usage_line(out, "--save-data PATH", "Write the served history to PATH (data-file format).");
  usage_line(out, "--webhook URL", "Send every webhook event to URL (repeatable); its secret is printed.");
  usage_line(out, "--help", "This text.");
  out += "\nStops cleanly on SIGINT or SIGTERM.\n";
  return out;
}

CommandLine parse(const std::vector<std::string>& args) {
  CommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      line.help = true;
      continue;
    }
    if (flag == "--virtual-clock") {
      line.options.clock = ClockMode::virtual_time;
      continue;
    }
    // A flag of an option row: the boolean ones take no value (--name / --no-name), the others the next argument.
    bool known = false;
    for_each_flag(line.options, [&](const auto& row, auto& target) {
      using M = std::remove_cvref_t<decltype(target)>;
      if (known) return;
      const std::string name = "--" + options::flag_of(row.name, row.rule);
      if constexpr (std::is_same_v<M, bool>) {
        if (flag == name || flag == "--no-" + name.substr(2)) {
          known = true;
          target = flag == name;
        }
      } else if (flag == name) {
        known = true;
        if (i + 1 >= args.size()) throw std::invalid_argument(flag + ": missing value");
        const std::string& value = args[++i];
        if (auto must = options::parse_text(value, row.rule, target)) {
          throw std::invalid_argument(flag + ": \"" + value + "\" must be " + *must);
        }
      }
    });
    if (known) continue;
    if (flag != "--save-data" && flag != "--webhook") {
      throw std::invalid_argument(flag.rfind("--", 0) == 0 ? "unknown option: " + flag + " (see --help)"
                                                           : "unexpected argument: " + flag);
    }
    if (i + 1 >= args.size()) throw std::invalid_argument(flag + ": missing value");
    const std::string& value = args[++i];
    if (flag == "--save-data") line.save_data = value;
    else line.webhooks.push_back(value);
  }
  return line;
}

}  // namespace trunk::sandbox::cli
