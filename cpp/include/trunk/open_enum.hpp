#pragma once
// OpenEnum<E>: an enumeration value read from the wire that may be one the library does not know yet.
// The service adds values over time; a response carrying one must still decode. The raw wire string is
// always kept, so nothing is lost and the value re-encodes exactly as it arrived.

#include <optional>
#include <string>
#include <string_view>

#include "trunk/enums.hpp"

namespace trunk {

template <typename E>
class OpenEnum {
 public:
  using is_open_enum = void;  ///< lets generic code (the decoder, bindings) recognise the type
  using enum_type = E;

  /// A known value (implicit, so `settings.state == QueueState::paused` reads naturally).
  OpenEnum(E known) : known_(known), wire_(to_wire(known)) {}  // NOLINT(google-explicit-constructor)

  /// Any wire string: known values map to E, others are kept as raw text.
  static OpenEnum from_wire(std::string_view wire) {
    OpenEnum result;
    result.known_ = enum_from_wire<E>(wire);
    result.wire_ = std::string(wire);
    return result;
  }

  bool is_known() const noexcept { return known_.has_value(); }
  /// The known value, or nullopt when the wire string is one this library does not know.
  std::optional<E> known() const noexcept { return known_; }
  /// The wire string, exactly as received (or as to_wire(E) for known values).
  const std::string& wire() const noexcept { return wire_; }

  bool operator==(const OpenEnum& other) const { return wire_ == other.wire_; }
  bool operator==(E other) const { return known_ == other; }

 private:
  OpenEnum() = default;
  std::optional<E> known_;
  std::string wire_;
};

}  // namespace trunk
