// MergeQueueMetrics::parse: the Prometheus text exposition format, version 0.0.4 (what getMergeQueueMetrics
// answers). One sample per line: name, optional {label="value",...}, value, optional timestamp in ms.
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>

#include "text.hpp"
#include "trunk/error.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/validation.hpp"

namespace trunk {

namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

void skip_blanks(std::string_view& text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
}

std::string_view take_name(std::string_view& text) {
  std::size_t n = 0;
  if (!text.empty() && is_name_start(text.front())) {
    while (n < text.size() && is_name_char(text[n])) ++n;
  }
  std::string_view name = text.substr(0, n);
  text.remove_prefix(n);
  return name;
}

std::string_view take_token(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && text[n] != ' ' && text[n] != '\t') ++n;
  std::string_view token = text.substr(0, n);
  text.remove_prefix(n);
  return token;
}

/// "NaN", "+Inf", "-Inf" or a decimal/exponent number (Go's ParseFloat, which the format refers to).
std::optional<double> parse_number(std::string_view token) {
  if (token == "NaN") return std::nan("");
  if (token == "+Inf" || token == "Inf") return HUGE_VAL;
  if (token == "-Inf") return -HUGE_VAL;
  if (token.empty()) return std::nullopt;
  const std::string text(token);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  if (text.find_first_of("xXpP") != std::string::npos) return std::nullopt;  // no hexadecimal floats
  return value;
}

/// {name="value",...}: label values escape \\, \" and \n.
Json parse_labels(std::string_view& text, const std::string& where) {
  Json labels = Json::object();
  text.remove_prefix(1);  // '{'
  for (;;) {
    skip_blanks(text);
    if (!text.empty() && text.front() == '}') {
      text.remove_prefix(1);
      return labels;
    }
    const std::string_view name = take_name(text);
    skip_blanks(text);
    if (name.empty() || text.empty() || text.front() != '=') throw DecodeError(where, "expected label=\"value\"");
    text.remove_prefix(1);
    skip_blanks(text);
    if (text.empty() || text.front() != '"') throw DecodeError(where, "expected a quoted label value");
    text.remove_prefix(1);
    std::string value;
    for (;;) {
      if (text.empty()) throw DecodeError(where, "unterminated label value");
      const char c = text.front();
      text.remove_prefix(1);
      if (c == '"') break;
      if (c == '\\') {
        if (text.empty()) throw DecodeError(where, "unterminated label value");
        const char escaped = text.front();
        text.remove_prefix(1);
        value += escaped == 'n' ? '\n' : escaped;
      } else {
        value += c;
      }
    }
    if (!is_valid_utf8(value)) throw DecodeError(where, "label value is not valid UTF-8");
    labels[std::string(name)] = std::move(value);
    skip_blanks(text);
    if (!text.empty() && text.front() == ',') text.remove_prefix(1);
  }
}

}  // namespace

MergeQueueMetrics MergeQueueMetrics::parse(std::string_view text) {
  MergeQueueMetrics metrics;
  metrics.text = std::string(text);
  metrics.types = Json::object();
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    skip_blanks(line);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(line_number);
    if (line.front() == '#') {
      line.remove_prefix(1);
      skip_blanks(line);
      if (line.substr(0, 4) == "TYPE") {
        line.remove_prefix(4);
        skip_blanks(line);
        const std::string_view family = take_name(line);
        skip_blanks(line);
        if (!family.empty()) metrics.types[std::string(family)] = std::string(take_token(line));
      }
      continue;  // HELP and other comments carry nothing a sample needs
    }
    MetricSample sample;
    const std::string_view name = take_name(line);
    if (name.empty()) throw DecodeError(where, "expected a metric name, got " + detail::quoted(line));
    sample.name = std::string(name);
    skip_blanks(line);
    sample.labels = Json::object();
    if (!line.empty() && line.front() == '{') sample.labels = parse_labels(line, where);
    skip_blanks(line);
    const std::string_view value_token = take_token(line);
    const auto value = parse_number(value_token);
    if (!value) throw DecodeError(where, "expected a sample value, got " + detail::quoted(value_token));
    sample.value = *value;
    skip_blanks(line);
    if (!line.empty()) {
      const std::string_view stamp = take_token(line);
      std::int64_t ms = 0;
      const auto [ptr, error] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), ms);
      if (error != std::errc() || ptr != stamp.data() + stamp.size()) {
        throw DecodeError(where, "expected a timestamp in milliseconds, got " + detail::quoted(stamp));
      }
      // The instants RFC 3339 can write (time.hpp), in milliseconds: 0000-01-01 up to 10000-01-01 excluded.
      constexpr auto kFirst = std::chrono::sys_days{std::chrono::year{0} / 1 / 1};
      constexpr auto kEnd = std::chrono::sys_days{std::chrono::year{10000} / 1 / 1};
      constexpr std::int64_t kFirstMs = std::chrono::milliseconds(kFirst.time_since_epoch()).count();
      constexpr std::int64_t kEndMs = std::chrono::milliseconds(kEnd.time_since_epoch()).count();
      if (ms >= kFirstMs && ms < kEndMs) {
        sample.timestamp = Timestamp{std::chrono::milliseconds{ms}};
      } else {
        sample.extra = Json{{"timestamp", ms}};  // kept, as an answer's unreadable time is (codec.hpp)
      }
      skip_blanks(line);
      if (!line.empty()) throw DecodeError(where, "unexpected text after the sample: " + detail::quoted(line));
    }
    metrics.samples.push_back(std::move(sample));
  }
  return metrics;
}

std::optional<double> MergeQueueMetrics::value_of(std::string_view name, const Json& labels) const {
  for (const auto& sample : samples) {
    if (sample.name != name) continue;
    bool matches = true;
    if (labels.is_object()) {
      for (const auto& [key, value] : labels.items()) {
        if (!sample.labels.is_object() || !sample.labels.contains(key) || sample.labels[key] != value) {
          matches = false;
          break;
        }
      }
    }
    if (matches) return sample.value;
  }
  return std::nullopt;
}

}  // namespace trunk
