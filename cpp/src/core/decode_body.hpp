#pragma once
// Internal: a body is parsed once, then read.
//
// parse_body runs simdjson's validating parser over a body (its syntax, its UTF-8, its nesting) and leaves the
// document in a parser; decode_parsed<T> reads the model from that document (json_decoder.hpp). decode_body<T>
// does both on the calling thread's parser. A listing's page pipeline (client/page_pipeline.hpp) parses each
// page on the engine thread, as soon as it arrives, into a parser of the page's own (make_body_parser), reads
// the next cursor from the document, and hands the document to the consumer, which reads the model on its
// thread: one parse per page, and the models made and freed on the thread that uses them. The body's spare
// capacity serves as simdjson's padding (the transfer reserves it), so the body is not copied either.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace simdjson::dom {
class element;
class parser;
}  // namespace simdjson::dom

namespace trunk::detail {

/// Bytes a body needs beyond its size for parse_body to read it in place (simdjson's padding).
inline constexpr std::size_t kDecodePadding = 64;

/// A parser for parse_body: it refuses documents nested deeper than the decoder allows. A document lives in
/// its parser until the parser parses again.
std::unique_ptr<simdjson::dom::parser> make_body_parser();
/// This thread's parser (for a body parsed and read on the same thread).
simdjson::dom::parser& thread_body_parser();

/// Parses `body` into `parser` and returns the document's root; throws DecodeError("", "malformed JSON: ...")
/// for text that is not JSON nested at most 128 levels deep. Reads the body in place when its spare capacity
/// is at least kDecodePadding, else from a wiped copy. A number no double holds (1e400 is malformed; a
/// 30-digit integer reads as the nearest double, as JSON parsers commonly do) takes a slower path.
simdjson::dom::element parse_body(std::string& body, simdjson::dom::parser& parser);
/// parse_body for any text (always from a wiped, padded copy).
simdjson::dom::element parse_text(std::string_view text, simdjson::dom::parser& parser);

/// The model T read from a document parse_body returned. Instantiated with decode<T>.
template <typename T>
T decode_parsed(const simdjson::dom::element& root);

/// decode_parsed into `out`, a model read before (or fresh): the same result, reusing the memory its strings and
/// lists hold (a listing read into Arrow columns decodes each page into the previous page's model). Should it
/// throw, `out` is left part read. Instantiated with decode<T>.
template <typename T>
void decode_parsed_into(const simdjson::dom::element& root, T& out);

/// parse_body on this thread's parser, then decode_parsed. Instantiated with decode<T>.
template <typename T>
T decode_body(std::string& body);

}  // namespace trunk::detail
