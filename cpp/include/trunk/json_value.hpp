#pragma once
// The JSON value type of the public API: Extras (the unknown keys a decoder kept) and to_json().
//
// Decision: nlohmann::json stays in the public headers. The unknown keys of an answer must be kept losslessly
// and handed back (to_json, Python's to_dict, pickling), which needs a complete JSON value type; writing our
// own would be a second JSON library. nlohmann 3.11 puts its ABI in a versioned inline namespace, so a program
// that links trunk::api with another nlohmann version gets a link error rather than silent ODR breakage, and
// the CMake package finds nlohmann for its users. Parsing does not use it (the decoder runs on simdjson).

#include <nlohmann/json.hpp>

namespace trunk {
using Json = nlohmann::json;
/// Object of the keys a decoder did not know, or null when there were none.
using Extras = nlohmann::json;
}  // namespace trunk
