#include "v2_answers.hpp"

#include <cstdio>

#include "random.hpp"

namespace trunk::sandbox::v2 {

std::string cursor_for(std::size_t offset, const std::string& filter) {
  char text[64];
  std::snprintf(text, sizeof text, "c%zu.%016llx", offset, static_cast<unsigned long long>(text_hash(filter)));
  return text;
}
std::optional<std::size_t> offset_of(const std::string& cursor, const std::string& filter) {
  std::size_t offset = 0;
  unsigned long long hash = 0;
  char tail = 0;
  if (std::sscanf(cursor.c_str(), "c%zu.%16llx%c", &offset, &hash, &tail) != 2) return std::nullopt;
  if (cursor != cursor_for(offset, filter)) return std::nullopt;
  return offset;
}

Reply of_refusal(const Refusal& refusal, std::string_view not_found_code, std::string_view conflict_code) {
  if (!refusal.v2_code.empty()) {
    return v2_error(refusal.v2_status != 0 ? refusal.v2_status : refusal.status, refusal.v2_code, refusal.message);
  }
  if (refusal.status == 404) return v2_error(404, not_found_code, refusal.message);
  if (refusal.status == 409) return v2_error(409, conflict_code, refusal.message);
  if (refusal.status >= 500) return v2_error(500, "INTERNAL_ERROR", refusal.message);
  return v2_error(400, "VALIDATION_FAILED", refusal.message);
}

}  // namespace trunk::sandbox::v2
