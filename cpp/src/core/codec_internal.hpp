#pragma once
// Internal: the per-type readers behind trunk::from_json<T> (codec.cpp instantiates the template for each).
// Responses (codec_responses.cpp) are read tolerantly, requests (codec_requests.cpp) strictly.

#include <string>

#include "trunk/json_fwd.hpp"
#include "trunk/page.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"

namespace trunk::detail {

template <typename T>
struct Tag {};

// Tolerant (responses).
PageInfo read(const Json& json, const std::string& path, Tag<PageInfo>);
RepositoryRef read(const Json& json, const std::string& path, Tag<RepositoryRef>);
TicketRef read(const Json& json, const std::string& path, Tag<TicketRef>);
TestStatus read(const Json& json, const std::string& path, Tag<TestStatus>);
FailureSummary read(const Json& json, const std::string& path, Tag<FailureSummary>);
TestCase read(const Json& json, const std::string& path, Tag<TestCase>);
QueueSettings read(const Json& json, const std::string& path, Tag<QueueSettings>);
TestPage read(const Json& json, const std::string& path, Tag<TestPage>);
TestDetails read(const Json& json, const std::string& path, Tag<TestDetails>);

// Strict (requests): DecodeError for wrong types, one ValidationError listing every other problem.
Repo read(const Json& json, const std::string& path, Tag<Repo>);
PageQuery read(const Json& json, const std::string& path, Tag<PageQuery>);
ListFailingTestsRequest read(const Json& json, const std::string& path, Tag<ListFailingTestsRequest>);
ListUnhealthyTestsRequest read(const Json& json, const std::string& path, Tag<ListUnhealthyTestsRequest>);
GetTestDetailsRequest read(const Json& json, const std::string& path, Tag<GetTestDetailsRequest>);
UpdateQueueRequest read(const Json& json, const std::string& path, Tag<UpdateQueueRequest>);

/// Adds the keys of `extra` that `out` does not already have (known fields win over extras).
void merge_extras(Json& out, const Extras& extra);

}  // namespace trunk::detail
