// See fast_response_reader.hpp. The grammar is RFC 8259 JSON, checked as strictly as nlohmann checks it;
// wherever this reader could disagree with the DOM path it gives up (Unusual) instead of guessing.
#include "fast_response_reader.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include "trunk/time.hpp"
#include "trunk/validation.hpp"

namespace trunk::detail {

namespace {

/// Thrown inside the reader, caught at the entry points: "decode these bytes the DOM way".
struct Unusual {};

[[noreturn]] void unusual() { throw Unusual{}; }

/// Nesting allowed inside values of unknown keys (the known shape nests 4 deep at most).
constexpr int kMaxUnknownDepth = 32;

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

class Reader {
 public:
  explicit Reader(std::string_view body) : p_(body.data()), end_(body.data() + body.size()) {}

  char peek() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    if (p_ == end_) unusual();
    return *p_;
  }
  void expect(char c) {
    if (peek() != c) unusual();
    ++p_;
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++p_;
    return true;
  }
  /// Only whitespace may follow the document.
  void finish() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    if (p_ != end_) unusual();
  }
  /// Consumes `null` when it comes next.
  bool null() {
    if (peek() != 'n') return false;
    literal("null");
    return true;
  }

  /// Calls on_key(key) with the reader on each member's value; the callback must consume it.
  template <typename OnKey>
  void object(OnKey on_key) {
    expect('{');
    if (consume('}')) return;
    std::string key;
    do {
      string(key);
      expect(':');
      on_key(key);
    } while (consume(','));
    expect('}');
  }

  template <typename OnItem>
  void array(OnItem on_item) {
    expect('[');
    if (consume(']')) return;
    do on_item();
    while (consume(','));
    expect(']');
  }

  void string(std::string& out) {
    expect('"');
    out.clear();
    bool raw_non_ascii = false;
    for (;;) {
      const char* start = p_;
      while (p_ != end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"' || c == '\\' || c < 0x20) break;
        raw_non_ascii |= c >= 0x80;
        ++p_;
      }
      out.append(start, p_);
      if (p_ == end_) unusual();
      const char c = *p_++;
      if (c == '"') break;
      if (c != '\\' || p_ == end_) unusual();  // a raw control character, or a cut escape
      switch (*p_++) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': unicode_escape(out); break;
        default: unusual();
      }
    }
    // Escapes always produce whole sequences, so the text is valid exactly when its raw bytes are.
    if (raw_non_ascii && !trunk::is_valid_utf8(out)) unusual();
  }

  std::optional<std::string> optional_string() {
    if (null()) return std::nullopt;
    std::string text;
    string(text);
    return text;
  }

  std::optional<std::int64_t> optional_integer() {
    if (null()) return std::nullopt;
    return integer();
  }

  /// The DOM path stores an integer literal as an integer and converts it to double on reading (so "-0"
  /// is +0.0); anything with a fraction or exponent is parsed as a double (correctly rounded, like strtod).
  std::optional<double> optional_number() {
    if (null()) return std::nullopt;
    bool integral = false;
    const std::string_view text = number(&integral);
    if (integral) return static_cast<double>(parse_int64(text));
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) unusual();  // out of range: DOM's call
    return value;
  }

  std::optional<bool> optional_boolean() {
    switch (peek()) {
      case 'n': literal("null"); return std::nullopt;
      case 't': literal("true"); return true;
      case 'f': literal("false"); return false;
      default: unusual();
    }
  }

  std::optional<Timestamp> optional_timestamp() {
    auto text = optional_string();
    if (!text) return std::nullopt;
    auto parsed = try_parse_rfc3339(*text);
    if (!parsed) unusual();  // the DOM path names the field and the problem
    return parsed;
  }

  std::optional<std::vector<std::string>> optional_strings() {
    if (null()) return std::nullopt;
    std::vector<std::string> out;
    array([&] { string(out.emplace_back()); });
    return out;
  }

  /// An unknown member: its value, parsed by nlohmann as the DOM path would, goes to `extra`.
  void keep_unknown(Extras& extra, const std::string& key) {
    peek();
    const char* start = p_;
    skip_value(0);
    if (extra.is_object() && extra.contains(key)) unusual();  // duplicate key: the DOM keeps the last one
    extra[key] = Json::parse(start, p_);
  }

 private:
  void literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) unusual();
    p_ += word.size();
  }

  unsigned hex4() {
    if (end_ - p_ < 4) unusual();
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      value <<= 4;
      if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
      else unusual();
    }
    return value;
  }

  void unicode_escape(std::string& out) {
    std::uint32_t code = hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) unusual();  // a lone low surrogate
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') unusual();
      p_ += 2;
      const std::uint32_t low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) unusual();
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, code);
  }

  /// A number literal, checked against the JSON grammar; *integral: no fraction and no exponent.
  std::string_view number(bool* integral) {
    peek();
    const char* start = p_;
    if (*p_ == '-') ++p_;
    if (p_ == end_) unusual();
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    } else {
      unusual();
    }
    *integral = true;
    if (p_ != end_ && *p_ == '.') {
      *integral = false;
      ++p_;
      digits();
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      *integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      digits();
    }
    return {start, static_cast<std::size_t>(p_ - start)};
  }

  void digits() {
    if (p_ == end_ || !is_digit(*p_)) unusual();
    while (p_ != end_ && is_digit(*p_)) ++p_;
  }

  static std::int64_t parse_int64(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) unusual();  // beyond int64: DOM's call
    return value;
  }

  /// Integer fields: a plain integer literal within int64 (5.0 and friends are the DOM path's).
  std::int64_t integer() {
    bool integral = false;
    const std::string_view text = number(&integral);
    if (!integral) unusual();
    return parse_int64(text);
  }

  void skip_value(int depth) {
    if (depth > kMaxUnknownDepth) unusual();
    switch (peek()) {
      case '{':
        object([&](const std::string&) { skip_value(depth + 1); });
        return;
      case '[':
        array([&] { skip_value(depth + 1); });
        return;
      case '"': {
        std::string ignored;
        string(ignored);
        return;
      }
      case 't': literal("true"); return;
      case 'f': literal("false"); return;
      case 'n': literal("null"); return;
      default: {
        bool integral = false;
        number(&integral);
      }
    }
  }

  const char* p_;
  const char* end_;
};

/// Each known key at most once per object (the DOM path would keep the last of duplicates).
class Seen {
 public:
  void mark(unsigned bit) {
    if ((bits_ & (1U << bit)) != 0) unusual();
    bits_ |= 1U << bit;
  }

 private:
  unsigned bits_ = 0;
};

RepositoryRef read_repository(Reader& r) {
  RepositoryRef out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "html_url") seen.mark(0), out.html_url = r.optional_string();
    else r.keep_unknown(out.extra, key);
  });
  return out;
}

TicketRef read_ticket(Reader& r) {
  TicketRef out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "html_url") seen.mark(0), out.html_url = r.optional_string();
    else r.keep_unknown(out.extra, key);
  });
  return out;
}

TestStatus read_status(Reader& r) {
  TestStatus out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "reason") seen.mark(0), out.reason = r.optional_string();
    else if (key == "timestamp") seen.mark(1), out.timestamp = r.optional_timestamp();
    else if (key == "value") seen.mark(2), out.value = r.optional_string();
    else r.keep_unknown(out.extra, key);
  });
  return out;
}

FailureSummary read_failure(Reader& r) {
  FailureSummary out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "summary") seen.mark(0), out.summary = r.optional_string();
    else if (key == "occurrence_count") seen.mark(1), out.occurrence_count = r.optional_integer();
    else if (key == "last_occurrence") seen.mark(2), out.last_occurrence = r.optional_timestamp();
    else r.keep_unknown(out.extra, key);
  });
  return out;
}

/// A child object, or nullopt for null (like the DOM path's read_child).
template <typename M, typename Read>
std::optional<M> optional_child(Reader& r, Read read) {
  if (r.null()) return std::nullopt;
  return read(r);
}

TestCase read_test(Reader& r) {
  TestCase out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "id") seen.mark(0), out.id = r.optional_string();
    else if (key == "name") seen.mark(1), out.name = r.optional_string();
    else if (key == "html_url") seen.mark(2), out.html_url = r.optional_string();
    else if (key == "variant") seen.mark(3), out.variant = r.optional_string();
    else if (key == "file_path") seen.mark(4), out.file_path = r.optional_string();
    else if (key == "parent") seen.mark(5), out.parent = r.optional_string();
    else if (key == "classname") seen.mark(6), out.classname = r.optional_string();
    else if (key == "repository") seen.mark(7), out.repository = optional_child<RepositoryRef>(r, read_repository);
    else if (key == "status") seen.mark(8), out.status = optional_child<TestStatus>(r, read_status);
    else if (key == "ticket") seen.mark(9), out.ticket = optional_child<TicketRef>(r, read_ticket);
    else if (key == "failure_rate_last_7d") seen.mark(10), out.failure_rate_last_7d = r.optional_number();
    else if (key == "failure_rate_last_24h") seen.mark(11), out.failure_rate_last_24h = r.optional_number();
    else if (key == "pull_requests_impacted_last_7d") seen.mark(12), out.pull_requests_impacted_last_7d = r.optional_integer();
    else if (key == "quarantined") seen.mark(13), out.quarantined = r.optional_boolean();
    else if (key == "codeowners") seen.mark(14), out.codeowners = r.optional_strings();
    else if (key == "most_common_failures") {
      seen.mark(15);
      if (!r.null()) {
        out.most_common_failures.emplace();
        r.array([&] { out.most_common_failures->push_back(read_failure(r)); });
      }
    } else {
      r.keep_unknown(out.extra, key);
    }
  });
  return out;
}

PageInfo read_page_info(Reader& r) {
  PageInfo out;
  Seen seen;
  r.object([&](const std::string& key) {
    if (key == "total_rows") seen.mark(0), out.total_rows = r.optional_integer();
    else if (key == "total_pages") seen.mark(1), out.total_pages = r.optional_integer();
    else if (key == "page_index") seen.mark(2), out.page_index = r.optional_integer();
    else if (key == "next_page_token") seen.mark(3), out.next_page_token = r.optional_string();
    else if (key == "prev_page_token") seen.mark(4), out.prev_page_token = r.optional_string();
    else if (key == "last_page_token") seen.mark(5), out.last_page_token = r.optional_string();
    else r.keep_unknown(out.extra, key);
  });
  return out;
}

template <typename Read>
auto guarded(std::string_view body, Read read) -> std::optional<decltype(read(std::declval<Reader&>()))> {
  try {
    Reader reader(body);
    auto result = read(reader);
    reader.finish();
    return result;
  } catch (const Unusual&) {
    return std::nullopt;
  } catch (const Json::exception&) {  // an unknown member's value nlohmann would not take
    return std::nullopt;
  }
}

}  // namespace

std::optional<TestPage> fast_read_test_page(std::string_view body) {
  return guarded(body, [](Reader& r) {
    TestPage page;
    Seen seen;
    r.object([&](const std::string& key) {
      if (key == "tests") {
        seen.mark(0);
        if (!r.null()) {
          page.tests.reserve(100);  // the service's largest page
          r.array([&] { page.tests.push_back(read_test(r)); });
        }
      } else if (key == "page") {
        seen.mark(1);
        if (!r.null()) page.page = read_page_info(r);
      } else {
        r.keep_unknown(page.extra, key);
      }
    });
    return page;
  });
}

std::optional<TestDetails> fast_read_test_details(std::string_view body) {
  return guarded(body, [](Reader& r) {
    TestDetails details;
    Seen seen;
    r.object([&](const std::string& key) {
      if (key == "test") {
        seen.mark(0);
        if (!r.null()) details.test = read_test(r);
      } else {
        r.keep_unknown(details.extra, key);
      }
    });
    return details;
  });
}

}  // namespace trunk::detail
