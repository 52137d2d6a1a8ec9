#pragma once
// GET /v1/status: whether Trunk's services are up (docs/reference/service.md#service-status). The shapes are the
// publisher's v1 description's (its `/status`), which also says `security: []`: the request declares that it
// sends no credential, and the client sends none.
//
// The description gives overallStatus as one of two objects, told apart by `type`: "up" (color green) or
// "impacted" (color yellow or red, with impactedStatuses). One struct holds both, impacted_statuses present only
// for the second. `type` and the colours are kept as text, not enumerations: an answer is read tolerantly, and a
// value the description does not list yet must not fail it.

#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"

namespace trunk {

#define TRUNK_STATUS_REQUEST_FIELDS(X)

/// GET /v1/status takes nothing (no query, no body) and sends no credential.
struct StatusRequest {
  TRUNK_MEMBERS(TRUNK_STATUS_REQUEST_FIELDS)
  /// The publisher's description: `security: []` (operations.hpp, credential_of).
  static constexpr Credential credential = Credential::none;
  bool operator==(const StatusRequest&) const = default;
};
TRUNK_DESCRIBE(StatusRequest, "Whether Trunk's services are up; no credential is sent.", TRUNK_STATUS_REQUEST_FIELDS)

#define TRUNK_COMPONENT_STATUS_FIELDS(X)                                                                      \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "the service")                            \
  X(std::optional<std::string>, color, "color", {}, schema::kRequired, "green, yellow or red")               \
  X(std::optional<std::string>, status_description, "statusDescription", {}, schema::kRequired,              \
    "how it stands, in words")

/// One service's status: an item of `statuses`, and of an impacted overallStatus' `impactedStatuses`.
struct ComponentStatus {
  TRUNK_MEMBERS(TRUNK_COMPONENT_STATUS_FIELDS)
  Extras extra;
  bool operator==(const ComponentStatus&) const = default;
};
TRUNK_DESCRIBE(ComponentStatus, "How one of Trunk's services stands.", TRUNK_COMPONENT_STATUS_FIELDS)

#define TRUNK_OVERALL_STATUS_FIELDS(X)                                                                        \
  X(std::optional<std::string>, type, "type", {}, schema::kRequired, "up, or impacted")                       \
  X(std::optional<std::string>, color, "color", {}, schema::kRequired,                                       \
    "green when up; yellow or red when impacted")                                                            \
  X(std::optional<std::string>, overall_status_description, "overallStatusDescription", {}, schema::kRequired, \
    "the whole, in words")                                                                                   \
  X(std::optional<std::vector<ComponentStatus>>, impacted_statuses, "impactedStatuses", {}, schema::kNone,    \
    "when impacted: the services that are")

/// overallStatus: up, or impacted with the services that are.
struct OverallStatus {
  TRUNK_MEMBERS(TRUNK_OVERALL_STATUS_FIELDS)
  Extras extra;
  bool operator==(const OverallStatus&) const = default;
};
TRUNK_DESCRIBE(OverallStatus, "Whether Trunk as a whole is up or impacted.", TRUNK_OVERALL_STATUS_FIELDS)

#define TRUNK_SERVICE_STATUS_FIELDS(X)                                                                        \
  X(std::optional<OverallStatus>, overall_status, "overallStatus", {}, schema::kRequired, "the whole")        \
  X(std::vector<ComponentStatus>, statuses, "statuses", {}, schema::kRequired, "each service")

/// GET /v1/status's answer.
struct ServiceStatus {
  TRUNK_MEMBERS(TRUNK_SERVICE_STATUS_FIELDS)
  Extras extra;
  bool operator==(const ServiceStatus&) const = default;
};
TRUNK_DESCRIBE(ServiceStatus, "Whether Trunk's services are up, and which are impacted.", TRUNK_SERVICE_STATUS_FIELDS)

#define TRUNK_SERVICE_STATUS_ANSWER_MODELS(X) X(ComponentStatus) X(OverallStatus) X(ServiceStatus)
#define TRUNK_SERVICE_STATUS_REQUEST_MODELS(X) X(StatusRequest)

}  // namespace trunk
