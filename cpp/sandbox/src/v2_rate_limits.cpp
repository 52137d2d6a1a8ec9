#include "v2_rate_limits.hpp"

#include <algorithm>
#include <cmath>

namespace trunk::sandbox::v2 {

const DocumentedLimit* limit_of(std::string_view method, std::string_view path) noexcept {
  for (const DocumentedLimit& limit : kDocumentedLimits) {
    if (method == limit.method && path.starts_with(limit.prefix) && path.ends_with(limit.suffix)) return &limit;
  }
  return nullptr;
}

std::optional<std::pair<const DocumentedLimit*, int>> RateLimits::admit(std::string_view method,
                                                                        std::string_view path,
                                                                        const std::string& key,
                                                                        Clock::time_point now) {
  const DocumentedLimit* limit = limit_of(method, path);
  if (limit == nullptr) return std::nullopt;
  std::lock_guard lock(mutex_);
  std::deque<Clock::time_point>& recent = recent_[{limit, limit->by == LimitedBy::api_key ? key : std::string()}];
  const Clock::time_point window_start = now - std::chrono::seconds(1);
  while (!recent.empty() && recent.front() <= window_start) recent.pop_front();
  if (recent.size() < static_cast<std::size_t>(limit->per_second)) {
    recent.push_back(now);
    return std::nullopt;
  }
  // Within the limit again once the oldest request counted leaves the window.
  const double wait = std::chrono::duration<double>(recent.front() + std::chrono::seconds(1) - now).count();
  return std::pair{limit, std::max(1, static_cast<int>(std::ceil(wait)))};
}

}  // namespace trunk::sandbox::v2
