#pragma once
// RFC 3339 timestamps.
//
// Parsing accepts: 'T', 't' or ' ' between date and time; 'Z', 'z' or ±hh:mm offsets; no offset at all
// (read as UTC, a project decision for what the service and data files send; times people give the Python
// binding and the command line must carry one, see rfc3339_has_offset); 0 to 9 fractional digits (kept to the microsecond: digits beyond the
// sixth are truncated, as Python's datetime does). A leap second (:60) is normalized to the first instant
// of the next minute, since std::chrono's system clock (like POSIX and the service) has no leap seconds.
// The instant, once converted to UTC, must lie in the years 0000..9999 so that it formats back as RFC 3339.
// Formatting always gives UTC: YYYY-MM-DDTHH:MM:SS[.ffffff]Z, with the fraction only when non-zero.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace trunk {

/// A point in time, UTC, microsecond precision.
using Timestamp = std::chrono::sys_time<std::chrono::microseconds>;

/// Parses RFC 3339 text; throws trunk::ValidationError naming `field` and the offending text when invalid.
Timestamp parse_rfc3339(std::string_view text, std::string_view field = "timestamp");

/// Like parse_rfc3339 but returns nullopt (and fills *problem when given) instead of throwing.
std::optional<Timestamp> try_parse_rfc3339(std::string_view text, std::string* problem = nullptr) noexcept;

/// Whether RFC 3339 text that parses carries its offset ('Z' or ±hh:mm). Text without one is a wall-clock time
/// of an unknown zone: the Python binding refuses it from callers, as it refuses naive datetimes, rather than
/// guess UTC or local time (issue 14).
bool rfc3339_has_offset(std::string_view text) noexcept;

/// Formats as YYYY-MM-DDTHH:MM:SS[.ffffff]Z.
std::string format_rfc3339(Timestamp t);

}  // namespace trunk
