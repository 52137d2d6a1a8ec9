#pragma once
// Internal: the definitions of trunk::decode<T> and trunk::from_json<T> (codec.hpp) and the macro that
// instantiates them for a model. The core instantiates them for the answers (codec.cpp), the sandbox for the
// requests it reads (cpp/sandbox/src/request_decoding.cpp), so the strict request reading is the server's and
// not part of the client library.

#include "json_decoder.hpp"
#include "trunk/codec.hpp"

namespace trunk {

template <schema::Described T>
T decode(std::string_view body) {
  return detail::decode_document<T>(body);
}

template <schema::Described T>
T from_json(const Json& json, std::string_view path) {
  // One decoder: the parsed value goes back to text (compact, cheap next to any network call) and is read
  // like a body off the wire, with the same errors and tolerance.
  return detail::decode_document<T>(dump_json(json), path);
}

}  // namespace trunk

/// At global scope: the decoder's entry points for trunk::Type.
#define TRUNK_INSTANTIATE_DECODER(Type)                                                                  \
  template trunk::Type trunk::decode<trunk::Type>(std::string_view body);                             \
  template trunk::Type trunk::from_json<trunk::Type>(const trunk::Json& json, std::string_view path); \
  template trunk::Type trunk::detail::decode_body<trunk::Type>(std::string & body);                   \
  template trunk::Type trunk::detail::decode_parsed<trunk::Type>(const simdjson::dom::element& root); \
  template void trunk::detail::decode_parsed_into<trunk::Type>(const simdjson::dom::element& root, trunk::Type& out);
