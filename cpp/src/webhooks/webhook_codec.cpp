// The codec's entry points for the webhook events (to_json, decode, from_json): the same derived encoder and
// tolerant decoder as the API's answers (codec.cpp instantiates those).
#include "core/decode_entry_points.hpp"
#include "core/json_encoder.hpp"
#include "trunk/codec.hpp"
#include "trunk/webhook_events.hpp"

namespace trunk {

template <schema::Described T>
Json to_json(const T& value) {
  return detail::encode_model(value);
}

#define TRUNK_INSTANTIATE_WEBHOOK_ENCODER_(Type) template Json to_json<Type>(const Type& value);
TRUNK_WEBHOOK_MODELS(TRUNK_INSTANTIATE_WEBHOOK_ENCODER_)
#undef TRUNK_INSTANTIATE_WEBHOOK_ENCODER_

}  // namespace trunk

TRUNK_WEBHOOK_MODELS(TRUNK_INSTANTIATE_DECODER)
