#pragma once
// Internal: decoding an answer's body in place, with a look at the validated document before it is decoded.
//
// The decoder checks a document's syntax with simdjson's validating parser before reading it into the model
// (json_decoder.hpp). A listing's pager needs one value early, the next page's cursor, to request the page after
// next while this one decodes (client/read_ahead.hpp); it reads it from that validated document instead of
// parsing the body a third time. The body's spare capacity serves as simdjson's padding (the transfer reserves
// it), so the body is not copied either.

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

}  // namespace trunk::detail
