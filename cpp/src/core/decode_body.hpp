#pragma once
// Internal: decoding an answer's body in place, and checking its syntax apart from decoding it.
//
// The decoder checks a document's syntax with simdjson's validating parser before reading it into the model
// (json_decoder.hpp). A listing's page pipeline (client/page_pipeline.hpp) runs that check on the engine thread
// as soon as a page arrives, reads the next cursor from the checked document, and has the page decoded later
// without checking it again (decode_checked_body). The body's spare capacity serves as simdjson's padding (the
// transfer reserves it), so the body is not copied either.

#include <cstddef>
#include <functional>
#include <string>

namespace simdjson::dom {
class element;
}  // namespace simdjson::dom

namespace trunk::detail {

/// Sees the whole document as the syntax check parsed it. Not called when that check took its slow path (a
/// number no double holds) or refused the text, so what it does must be a hint, never needed for the result.
using OnValidated = std::function<void(const simdjson::dom::element& root)>;

/// Bytes a body needs beyond its size for decode_body to read it in place (simdjson's padding).
inline constexpr std::size_t kDecodePadding = 64;

/// decode<T>(body), reading `body` in place when its spare capacity is at least kDecodePadding (else from a
/// wiped copy); `on_validated` sees the validated document first. Instantiated with decode<T>.
template <typename T>
T decode_body(std::string& body, const OnValidated& on_validated);

/// Checks the syntax of `body` (the check decode_body starts with) and lets `on_validated` see the document;
/// throws the DecodeError decode_body would. True when the document was seen (false: the check took its slow
/// path, a number no double holds). A listing's page pipeline runs it on the engine thread, as soon as a page
/// arrives, and decodes later with decode_checked_body, so the page's syntax is checked once.
bool check_body(std::string& body, const OnValidated& on_validated);

/// decode_body for a body check_body has accepted: the syntax is not checked again. Instantiated with decode<T>.
template <typename T>
T decode_checked_body(std::string& body);

}  // namespace trunk::detail
