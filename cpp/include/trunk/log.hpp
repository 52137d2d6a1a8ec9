#pragma once
// Diagnostics hook of the client: one callback, called synchronously on the calling thread.

#include <functional>
#include <string_view>

namespace trunk {

enum class LogLevel { debug, info, warning, error };

/// Receives one record per HTTP attempt (debug) and one per retry decision (info). The message never
/// contains the API token: the client redacts it before the callback sees the text. The callback may be
/// called from several threads at once when the client is shared between threads.
using LogCallback = std::function<void(LogLevel level, std::string_view message)>;

/// "debug", "info", "warning", "error".
std::string_view to_string(LogLevel level) noexcept;

}  // namespace trunk
