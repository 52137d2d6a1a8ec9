// libFuzzer target: the tolerant response decoders (what the client reads from the network).
//
// Input: one selector byte, then the response body. The selector picks the decoder (byte % 4): '0' TestPage
// (both listings), '1' TestDetails, '2' QueueSettings, '3' QuarantinedTestPage, so seed files stay readable
// JSON with one prefix character.
//
// Properties:
//  - decode<T> either returns or throws trunk::Error; any other exception escapes and libFuzzer reports it;
//  - whatever decodes re-encodes to JSON that decodes to an equal model (nothing the server sent is lost or
//    changed, including unknown keys and unknown enum values), and encoding that again gives the same text;
//  - differential against an independent parser: whatever the decoder (simdjson On-Demand) accepts, nlohmann
//    accepts as JSON too, and reading nlohmann's value (from_json) gives an equal model.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace {

template <typename Model>
void check_decoder(std::string_view body) {
  Model decoded;
  try {
    decoded = trunk::decode<Model>(body);
  } catch (const trunk::Error&) {
    return;  // rejected with the library's own error: the expected outcome for most inputs
  }
  const std::string encoded = trunk::encode(decoded);
  Model again;
  try {
    again = trunk::decode<Model>(encoded);
  } catch (const trunk::Error& e) {
    FUZZ_REQUIRE(false, "re-encoded model does not decode: " + std::string(e.what()) +
                            "\ninput:   " + trunk::fuzz::excerpt(body) + "\nencoded: " + trunk::fuzz::excerpt(encoded));
  }
  FUZZ_REQUIRE(again == decoded, "decode(encode(x)) != x\ninput:   " + trunk::fuzz::excerpt(body) +
                                     "\nencoded: " + trunk::fuzz::excerpt(encoded) +
                                     "\nagain:   " + trunk::fuzz::excerpt(trunk::encode(again)));
  const std::string encoded_again = trunk::encode(again);
  FUZZ_REQUIRE(encoded_again == encoded, "encoding is not stable\nfirst:  " + trunk::fuzz::excerpt(encoded) +
                                             "\nsecond: " + trunk::fuzz::excerpt(encoded_again));
}

/// What the decoder accepts must be JSON to nlohmann as well, and read the same from nlohmann's value.
template <typename Model>
void check_other_parser_agrees(std::string_view body) {
  Model decoded;
  try {
    decoded = trunk::decode<Model>(body);
  } catch (const trunk::Error&) {
    return;
  }
  Model via_dom;
  try {
    via_dom = trunk::from_json<Model>(trunk::Json::parse(body));
  } catch (const std::exception& e) {
    FUZZ_REQUIRE(false, "the decoder accepted what nlohmann rejects: " + std::string(e.what()) +
                            "\ninput: " + trunk::fuzz::excerpt(body));
  }
  FUZZ_REQUIRE(decoded == via_dom, "the decoder and nlohmann's reading disagree\ninput:   " +
                                       trunk::fuzz::excerpt(body) + "\ndecoder: " +
                                       trunk::fuzz::excerpt(trunk::encode(decoded)) +
                                       "\nnlohmann: " + trunk::fuzz::excerpt(trunk::encode(via_dom)));
}

template <typename Model>
void check(std::string_view body) {
  check_decoder<Model>(body);
  check_other_parser_agrees<Model>(body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  trunk::fuzz::run_input([&] {
    switch (data[0] % 4) {
      case 0: check<trunk::TestPage>(body); break;
      case 1: check<trunk::TestDetails>(body); break;
      case 2: check<trunk::QueueSettings>(body); break;
      default: check<trunk::QuarantinedTestPage>(body); break;
    }
  });
  return 0;
}
