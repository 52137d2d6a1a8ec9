#pragma once
// What the sandbox's v2 answers share (v2_merge_queues.cpp, v2_pull_requests.cpp, v2_repositories.cpp): cursors
// bound to a listing's filter, the page of a listing, a refusal of the queue simulation as a v2 error.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "merge_queue.hpp"
#include "service.hpp"
#include "trunk/codec.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/v2_page.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox::v2 {

/// The cursor of the page that starts at `offset` of a listing filtered by `filter`: bound to the filter, as v2's
/// cursors are ("c<offset>.<hash of the filter>").
std::string cursor_for(std::size_t offset, const std::string& filter);
/// The offset a cursor stands for; nullopt when it was not made for this filter.
std::optional<std::size_t> offset_of(const std::string& cursor, const std::string& filter);

/// A refusal of the queue store or simulation as v2 answers it: its own v2 status and code when it has them, else
/// 404 with `not_found_code`, 409 with `conflict_code`, 500 for 5xx and 400 VALIDATION_FAILED for the rest.
Reply of_refusal(const Refusal& refusal, std::string_view not_found_code, std::string_view conflict_code);

/// The reply to a queue operation run through QueueStore::with_queue that did not go through, or nullopt when it
/// did. Its outcome is the store's Refusal (no such queue: `queue_not_found_code`) or the operation's own optional
/// Refusal (a 404 of it: `not_found_code`; a 409: `conflict_code`).
template <typename Outcome>
std::optional<Reply> refusal_of(const Outcome& outcome, std::string_view queue_not_found_code,
                                std::string_view not_found_code, std::string_view conflict_code) {
  if (const auto* refused = std::get_if<Refusal>(&outcome)) {
    return of_refusal(*refused, queue_not_found_code, conflict_code);
  }
  if (const auto& inner = std::get<0>(outcome)) return of_refusal(*inner, not_found_code, conflict_code);
  return std::nullopt;
}

template <typename E>
std::optional<E> known(const std::optional<trunk::OpenEnum<E>>& value) {
  return value ? value->known() : std::nullopt;
}

/// The page a v2 listing request asks for (limit, cursor, includeTotal) of `count` selected items, building only
/// the page's: make(i) builds the i-th (a listing costs its page, not its whole length, per request); or the 400
/// INVALID_CURSOR of a cursor made for another filter. `filter` holds every parameter that selects the listing's
/// items; the limit is not one of them (a cursor is bound to its filter, docs/reference/v2.md#pagination), so a
/// client may ask for fewer items on its last page than on the others.
template <typename List, typename Request, typename Make>
std::variant<List, Reply> page_of(std::size_t count, const Request& request, const std::string& filter, Make&& make) {
  const std::size_t limit = static_cast<std::size_t>(request.limit.value_or(kV2DefaultLimit));
  std::size_t offset = 0;
  if (request.cursor) {
    const auto at = offset_of(*request.cursor, filter);
    if (!at) return v2_error(400, "INVALID_CURSOR", "the cursor was not made for this listing");
    offset = *at;
  }
  List page;
  for (std::size_t i = offset; i < count && i < offset + limit; ++i) page.data.push_back(make(i));
  const bool more = offset + limit < count;
  page.has_more = more;
  if (more) page.next_cursor = cursor_for(offset + limit, filter);
  if (request.include_total.value_or(false)) page.total = static_cast<std::int64_t>(count);
  return page;
}

/// The canonical text of a listing's filter: every field of the request but the page's own.
template <typename Request>
std::string filter_of(std::string_view listing, const Request& request) {
  trunk::Json json = trunk::to_json(request);
  for (const char* page_field : {"limit", "cursor", "includeTotal"}) json.erase(page_field);
  return std::string(listing) + "\n" + json.dump();
}

/// The page of `all`, built already.
template <typename List, typename Request, typename Item>
std::variant<List, Reply> page_of(std::vector<Item> all, const Request& request, const std::string& filter) {
  return page_of<List>(all.size(), request, filter, [&](std::size_t i) { return std::move(all[i]); });
}

/// Writes null into `json` (the encoding of `value`) for every field, at any depth, that the description requires
/// and allows as null (schema::kRequiredNullable) and `value` leaves absent: the encoder writes no absent field,
/// and v2 answers such a field as null ("null when unknown"), which its readers may count on.
template <typename T>
void write_required_nulls(const T& value, trunk::Json& json) {
  if constexpr (trunk::schema::Described<T>) {
    trunk::schema::for_each_field<T>([&](const auto& field) {
      const auto& member = value.*(field.member);
      using Member = std::remove_cvref_t<decltype(member)>;
      const std::string key(field.wire);
      if constexpr (trunk::schema::IsOptional<Member>::value) {
        if (!member && field.rules.required && field.rules.nullable) json[key] = nullptr;
        if (member && json.contains(key)) write_required_nulls(*member, json[key]);
      } else if constexpr (trunk::schema::IsVector<Member>::value) {
        if (!json.contains(key)) return;
        for (std::size_t i = 0; i < member.size(); ++i) write_required_nulls(member[i], json[key][i]);
      }
    });
  }
}

/// The JSON of an answer, with its required nulls written (write_required_nulls).
template <typename T>
trunk::Json answer_json(const T& value) {
  trunk::Json json = trunk::to_json(value);
  write_required_nulls(value, json);
  return json;
}

/// The JSON answer of a page: nextCursor null on the last page, as v2 answers (write_required_nulls).
template <typename List>
Reply page_reply(const std::variant<List, Reply>& page) {
  if (const auto* refused = std::get_if<Reply>(&page)) return *refused;
  return json_reply(answer_json(std::get<List>(page)));
}

}  // namespace trunk::sandbox::v2
