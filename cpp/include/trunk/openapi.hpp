#pragma once
// The OpenAPI 3.1 document of the API as this library implements it, derived from the declarations alone
// (operations.hpp, the field lists of describe.hpp, the enumerations): every operation, request, answer and
// enumeration, with the declared rules (required, ranges, UUID, non-empty) as JSON Schema keywords.
//
// Requests are strict (additionalProperties: false, only the values a request may carry); answers are
// tolerant (additional properties allowed, enumeration fields are open strings whose known values are listed
// as examples), as the decoders are.

#include <string>

namespace trunk {

/// The document as JSON text: 2-space indentation, the same key order on every call.
std::string openapi_document();

}  // namespace trunk
