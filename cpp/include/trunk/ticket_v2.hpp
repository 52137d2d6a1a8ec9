#pragma once
// A ticket of an issue tracker linked to a test, in Trunk's v2 flaky-test API (docs/reference/v2.md#flaky-tests).
// v1 links one too (link-ticket-to-test-case) and shows it as the test's `ticket`; a test holds at most one.

#include <optional>
#include <string>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/test_case_v2.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk {

/// The longest ticket key or address a link takes (the description's maxLength).
inline constexpr std::size_t kMaxExternalTicketIdLength = 2048;

#define TRUNK_TICKET_FIELDS(X)                                                                                \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "Trunk's id for the linked ticket")          \
  X(std::optional<OpenEnum<TicketProvider>>, provider, "provider", {}, schema::kRequired,                     \
    "jiraCloud, linear or asana")                                                                            \
  X(std::optional<std::string>, key, "key", {}, schema::kRequired, "the tracker's key (TRUNK-123)")           \
  X(std::optional<std::string>, url, "url", {}, schema::kRequired, "its address")                             \
  X(std::optional<std::string>, title, "title", {}, schema::kRequired, "its title")                           \
  X(std::optional<std::string>, status, "status", {}, schema::kRequired, "the tracker's status name, as last read") \
  X(std::optional<std::string>, assignee, "assignee", {}, schema::kRequiredNullable, "who it is assigned to")  \
  X(std::optional<Timestamp>, synced_at, "syncedAt", {}, schema::kRequired, "when Trunk last read it")

struct Ticket {
  TRUNK_MEMBERS(TRUNK_TICKET_FIELDS)
  Extras extra;
  bool operator==(const Ticket&) const = default;
};
TRUNK_DESCRIBE(Ticket, "A ticket linked to a test, as Trunk last read it from its tracker.", TRUNK_TICKET_FIELDS)

#define TRUNK_LINK_TICKET_V2_FIELDS(X)                                                                           \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(std::string, external_ticket_id, "externalTicketId", {},                                                  \
    (schema::Rules{.required = true, .non_empty = true, .max_length = kMaxExternalTicketIdLength}),          \
    "the ticket, as its key (TRUNK-123) or its address, 1 to 2048 characters")                               \
  X(std::optional<std::string>, integration_id, "integrationId", {}, (schema::Rules{.uuid = true}),           \
    "the ticketing connection it lives on (default: the collection's)")

struct LinkTicketRequest {
  TRUNK_MEMBERS(TRUNK_LINK_TICKET_V2_FIELDS)
  bool operator==(const LinkTicketRequest&) const = default;
};
TRUNK_DESCRIBE(LinkTicketRequest, "Links an existing ticket to a test, replacing any linked before.",
               TRUNK_LINK_TICKET_V2_FIELDS)

#define TRUNK_TICKET_V2_ANSWER_MODELS(X) X(Ticket)
#define TRUNK_TICKET_V2_REQUEST_MODELS(X) X(LinkTicketRequest)

}  // namespace trunk
