#pragma once
// Unknown keys that a decoder meets are kept on the model as raw JSON (Extras), so nothing the service
// sends is lost and to_json() gives it back. Extras is null when there were none: that keeps each model
// small and allocation-free in the common case.

#include <nlohmann/json.hpp>

namespace trunk {
using Json = nlohmann::json;
/// Object of the keys a decoder did not know, or null when there were none.
using Extras = nlohmann::json;
}  // namespace trunk
