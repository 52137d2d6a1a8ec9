#pragma once
// Convenience header: every model and message of the API.
#include "trunk/enums.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/page.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/quarantined_test.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"
#include "trunk/time.hpp"

/// Every described struct, parts before the wholes that hold them (the order Python registers classes in).
/// Answers (with `extra`) first, then requests.
#define TRUNK_ANSWER_MODELS(X)                                                                                \
  X(RepositoryRef) X(TicketRef) X(TestStatus) X(FailureSummary) X(TestCase) X(PageInfo) X(TestPage) X(TestDetails) \
  X(QuarantinedTest) X(QuarantinedTestPage) X(PullRequest) X(QueueSettings)
#define TRUNK_REQUEST_MODELS(X)                                                                               \
  X(Repo) X(PageQuery) X(ListFailingTestsRequest) X(ListUnhealthyTestsRequest) X(GetTestDetailsRequest)       \
  X(ListQuarantinedTestsRequest) X(UpdateQueueRequest) X(GetQueueRequest)
#define TRUNK_ALL_MODELS(X) TRUNK_ANSWER_MODELS(X) TRUNK_REQUEST_MODELS(X)

/// Every enumeration.
#define TRUNK_ALL_ENUMS(X)                                                                                     \
  X(QueueState) X(QueueMode) X(DirectMergeMode) X(OptimizationMode) X(MergeMethod) X(HealthStatus)             \
  X(PullRequestState) X(QuarantinedTestStatus) X(QuarantineSetting)
