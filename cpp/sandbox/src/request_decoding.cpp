// The strict reading of every request (codec.hpp), the server's side of the codec: the sandbox reads what
// clients send with the one decoder of the core, in its strict mode.
#include "decode_entry_points.hpp"
#include "trunk/models.hpp"

TRUNK_ALL_REQUEST_MODELS(TRUNK_INSTANTIATE_DECODER)
