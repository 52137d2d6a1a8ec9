#pragma once
// Every listing, named once: the operations whose answer is a page (PageTraits, pager.hpp) and their page types
// with the Python names of their iterators. What must be instantiated or bound per listing expands these lists:
// the client's pagers (client.cpp), Python's iterators (bind_pager.cpp), the Arrow and column builders of the items
// (arrow_batch.cpp, to_columns.cpp). The checks at the end make the lists agree with the operation rows: an
// operation whose answer has PageTraits and is missing here fails the build, as does a page listed twice.

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "trunk/operations.hpp"
#include "trunk/pager.hpp"

namespace trunk {

/// X(Operation): every operation whose answer is a page.
#define TRUNK_LISTING_OPERATIONS(X)                                                                            \
  X(ListFailingTests) X(ListUnhealthyTests) X(ListQuarantinedTests) X(ListPullRequests) X(ListMergeQueues)     \
  X(ListMergeQueuePullRequests) X(ResolvePullRequests) X(ResolveRepositories) X(ListMergeQueueVerificationRuns)    \
  X(ListPullRequestVerificationRuns) X(ListQueueEntryHistory) X(ListQueueEntryHistories) X(ListTestingResults)     \
  X(ListTestCollections) X(ListTestCases) X(ListTestStatusHistory) X(ListTestRuns) X(ListCiPrJobs)               \
  X(ListCiForceOverrides) X(ListMonitorTests)

/// X(Page, "ItemIterator", "PageIterator"): every page type once (two listings may share one), with the Python
/// names of the iterator over its items and of the iterator over its pages (.pages).
#define TRUNK_LISTING_PAGES(X)                                                                                 \
  X(TestPage, "TestIterator", "PageIterator")                                                                  \
  X(QuarantinedTestPage, "QuarantinedTestIterator", "QuarantinedTestPageIterator")                             \
  X(PullRequestPage, "PullRequestIterator", "PullRequestPageIterator")                                         \
  X(MergeQueueList, "MergeQueueIterator", "MergeQueuePageIterator")                                            \
  X(PullRequestList, "PullRequestV2Iterator", "PullRequestV2PageIterator")                                     \
  X(RepositoryList, "RepositoryIterator", "RepositoryPageIterator")                                            \
  X(VerificationRunList, "VerificationRunIterator", "VerificationRunPageIterator")                             \
  X(QueueEntryHistoryList, "QueueEntryTransitionIterator", "QueueEntryHistoryPageIterator")                    \
  X(BatchQueueEntryHistoryList, "QueueEntryHistoryIterator", "BatchQueueEntryHistoryPageIterator")            \
  X(TestingResultList, "TestingResultIterator", "TestingResultPageIterator")                                   \
  X(TestCollectionList, "TestCollectionIterator", "TestCollectionPageIterator")                                \
  X(TestCaseList, "TestCaseSummaryIterator", "TestCaseSummaryPageIterator")                                    \
  X(StatusHistoryEntryList, "StatusHistoryEntryIterator", "StatusHistoryPageIterator")                         \
  X(TestRunList, "TestRunIterator", "TestRunPageIterator")                                                    \
  X(CiWorkflowList, "CiWorkflowIterator", "CiWorkflowPageIterator")                                            \
  X(ForceOverrideList, "ForceOverrideIterator", "ForceOverridePageIterator")                                   \
  X(MonitorTestList, "MonitorTestIterator", "MonitorTestPageIterator")

/// The name of a listing's lazy iterator in Python and the CLI: "iter_" and the operation's name without its leading
/// "list_" (list_failing_tests -> iter_failing_tests, resolve_pull_requests -> iter_resolve_pull_requests).
inline std::string iterator_method_name(std::string_view operation) {
  constexpr std::string_view kList = "list_";
  if (operation.starts_with(kList)) operation.remove_prefix(kList.size());
  return "iter_" + std::string(operation);
}

namespace listings_detail {
template <typename Op>
constexpr bool is_listing() {
  return requires { PageTraits<typename Op::Response>::style; };
}
template <typename Op>
constexpr bool listed() {
#define TRUNK_LISTED_OPERATION_(Type) std::is_same_v<Op, op::Type> ||
  return TRUNK_LISTING_OPERATIONS(TRUNK_LISTED_OPERATION_) false;
#undef TRUNK_LISTED_OPERATION_
}
template <typename Page>
constexpr std::size_t times_listed() {
#define TRUNK_LISTED_PAGE_(Type, ...) +(std::is_same_v<Page, Type> ? 1 : 0)
  return 0 TRUNK_LISTING_PAGES(TRUNK_LISTED_PAGE_);
#undef TRUNK_LISTED_PAGE_
}
constexpr bool every_listing_listed() {
  bool ok = true;
  for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    if constexpr (is_listing<Op>()) {
      ok = ok && listed<Op>() && times_listed<typename Op::Response>() == 1;
    } else {
      ok = ok && !listed<Op>();
    }
  });
  return ok;
}
}  // namespace listings_detail

static_assert(listings_detail::every_listing_listed(),
              "TRUNK_LISTING_OPERATIONS must name exactly the operations whose answer has PageTraits, and "
              "TRUNK_LISTING_PAGES each of their pages once");

}  // namespace trunk
