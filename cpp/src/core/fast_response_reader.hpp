#pragma once
// Internal: a direct reader from response bytes to TestPage / TestDetails, without building a JSON DOM.
//
// Why: decoding a 100-test page through nlohmann's DOM (lexer, one heap node per value, std::map per object)
// and then walking it cost the client ~1 ms per page, most of its share of a listing. This reader walks the
// bytes once and fills the models directly.
//
// It handles the common shape only and says so by returning nullopt for anything else: malformed JSON, a
// wrong type, a bad timestamp, a duplicate key, a float where an integer belongs, a number out of range,
// invalid UTF-8, a lone surrogate, nesting deeper than a few levels. decode<T> then decodes the same bytes
// the DOM way, so every error keeps its exact type and message and every unusual-but-valid input its
// exact meaning. What it accepts it reads exactly as the DOM path would: null and missing fields are
// absent, unknown keys are kept in `extra` (their values parsed by nlohmann), enum-like strings kept raw.
// tests/cpp/core/fast_response_reader_test.cpp holds the two paths to the same result.

#include <optional>
#include <string_view>

#include "trunk/responses.hpp"

namespace trunk::detail {

std::optional<TestPage> fast_read_test_page(std::string_view body);
std::optional<TestDetails> fast_read_test_details(std::string_view body);

}  // namespace trunk::detail
