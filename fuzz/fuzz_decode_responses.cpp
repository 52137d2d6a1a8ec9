// libFuzzer target: the tolerant response decoders (what the client reads from the network).
//
// Input: one selector byte, then the response body. The selector picks the decoder (byte % 3): '0' TestPage
// (both listings), '1' TestDetails, '2' QueueSettings, so seed files stay readable JSON with one prefix
// character.
//
// Properties:
//  - decode<T> either returns or throws trunk::Error; any other exception escapes and libFuzzer reports it;
//  - whatever decodes re-encodes to JSON that decodes to an equal model (nothing the server sent is lost or
//    changed, including unknown keys and unknown enum values), and encoding that again gives the same text;
//  - differential: whenever the direct reader (fast_response_reader, no DOM) accepts a TestPage or
//    TestDetails body, the DOM path (nlohmann parse + from_json) accepts it too and reads an equal model.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fast_response_reader.hpp"
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

/// The direct reader may decline anything (decode<T> then takes the DOM path); what it accepts must be
/// exactly what the DOM path reads.
template <typename Model, typename FastReader>
void check_direct_reader_agrees(std::string_view body, FastReader fast_read) {
  const std::optional<Model> fast = fast_read(body);
  if (!fast) return;
  Model dom;
  try {
    dom = trunk::from_json<Model>(trunk::Json::parse(body));
  } catch (const std::exception& e) {
    FUZZ_REQUIRE(false, "the direct reader accepted what the DOM path rejects: " + std::string(e.what()) +
                            "\ninput: " + trunk::fuzz::excerpt(body));
  }
  FUZZ_REQUIRE(*fast == dom, "the direct reader and the DOM path disagree\ninput:  " + trunk::fuzz::excerpt(body) +
                                 "\ndirect: " + trunk::fuzz::excerpt(trunk::encode(*fast)) +
                                 "\nDOM:    " + trunk::fuzz::excerpt(trunk::encode(dom)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  trunk::fuzz::run_input([&] {
    switch (data[0] % 3) {
      case 0:
        check_decoder<trunk::TestPage>(body);
        check_direct_reader_agrees<trunk::TestPage>(body, trunk::detail::fast_read_test_page);
        break;
      case 1:
        check_decoder<trunk::TestDetails>(body);
        check_direct_reader_agrees<trunk::TestDetails>(body, trunk::detail::fast_read_test_details);
        break;
      default: check_decoder<trunk::QueueSettings>(body); break;
    }
  });
  return 0;
}
