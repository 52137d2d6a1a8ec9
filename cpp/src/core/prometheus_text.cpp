// MergeQueueMetrics::parse: the Prometheus text exposition format, version 0.0.4 (what getMergeQueueMetrics
// answers). One sample per line: name, optional {label="value",...}, value, optional timestamp in ms.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

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

std::optional<std::string_view> strip_suffix(std::string_view name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) return std::nullopt;
  return name.substr(0, name.size() - suffix.size());
}

/// A bucket of a family declared a histogram must say which bucket it is: histograms() reads le as a number.
void check_bucket_bound(const MergeQueueMetrics& metrics, const MetricSample& sample, const std::string& where) {
  const auto family = strip_suffix(sample.name, "_bucket");
  if (!family) return;
  const auto type = metrics.types.find(std::string(*family));
  if (type == metrics.types.end() || *type != "histogram") return;
  const auto le = sample.labels.find("le");
  if (le == sample.labels.end()) throw DecodeError(where, "histogram bucket " + sample.name + " has no le label");
  if (!parse_number(le->get<std::string>())) {
    throw DecodeError(where, "histogram bucket " + sample.name + ": le " + detail::quoted(le->get<std::string>()) +
                                 " is not a number");
  }
}

bool labels_include(const Json& labels, const Json& wanted) {
  if (!wanted.is_object()) return true;
  for (const auto& [key, value] : wanted.items()) {
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  }
  return true;
}

HistogramBucket bucket_of(double le, double count) {
  HistogramBucket bucket;
  bucket.le = le;
  bucket.count = count;
  return bucket;
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
    check_bucket_bound(metrics, sample, where);
    metrics.samples.push_back(std::move(sample));
  }
  return metrics;
}

std::optional<double> MergeQueueMetrics::value_of(std::string_view name, const Json& labels) const {
  for (const auto& sample : samples) {
    if (sample.name == name && labels_include(sample.labels, labels)) return sample.value;
  }
  return std::nullopt;
}

std::optional<double> MergeQueueMetrics::gauge(std::string_view name, const Json& labels) const {
  std::optional<double> total;
  for (const auto& sample : samples) {
    if (sample.name == name && labels_include(sample.labels, labels)) total = total.value_or(0) + sample.value;
  }
  return total;
}

std::vector<Histogram> MergeQueueMetrics::histograms(std::string_view name, const Json& labels) const {
  std::vector<Histogram> found;
  // A series is its labels without le; the text may interleave series, so each sample finds its own.
  auto series_of = [&](Json series_labels) -> Histogram& {
    for (auto& histogram : found) {
      if (histogram.labels == series_labels) return histogram;
    }
    Histogram& added = found.emplace_back();
    added.name = std::string(name);
    added.labels = std::move(series_labels);
    return added;
  };
  for (const auto& sample : samples) {
    const std::string_view sample_name = sample.name;
    if (sample_name.substr(0, name.size()) != name || !labels_include(sample.labels, labels)) continue;
    const std::string_view suffix = sample_name.substr(name.size());
    if (suffix == "_bucket") {
      Json series_labels = sample.labels.is_object() ? sample.labels : Json::object();
      const auto le = series_labels.find("le");
      if (le == series_labels.end() || !le->is_string()) continue;  // not a bucket parse() could vouch for
      const auto bound = parse_number(le->get<std::string>());
      if (!bound) continue;
      series_labels.erase("le");
      auto& buckets = series_of(std::move(series_labels)).buckets;
      const auto same = std::find_if(buckets.begin(), buckets.end(), [&](const auto& b) { return b.le == *bound; });
      if (same != buckets.end()) {
        same->count += sample.value;  // the same bound twice: PromQL adds them too
      } else {
        buckets.push_back(bucket_of(*bound, sample.value));
      }
    } else if (suffix == "_sum") {
      series_of(sample.labels.is_object() ? sample.labels : Json::object()).sum += sample.value;
    } else if (suffix == "_count") {
      series_of(sample.labels.is_object() ? sample.labels : Json::object()).count += sample.value;
    }
  }
  for (auto& histogram : found) {
    std::stable_sort(histogram.buckets.begin(), histogram.buckets.end(),
                     [](const auto& a, const auto& b) { return a.le < b.le; });
  }
  return found;
}

std::optional<Histogram> MergeQueueMetrics::histogram(std::string_view name, const Json& labels) const {
  std::vector<Histogram> series = histograms(name, labels);
  if (series.empty()) return std::nullopt;
  return Histogram::merge(series);
}

}  // namespace trunk
