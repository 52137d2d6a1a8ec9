#pragma once
// trunk::Client: every operation of operations.hpp over HTTPS (libcurl), with validation before sending,
// retries with backoff, typed errors, lazy pagination and connection reuse.
//
// Thread safety: one Client may be used from many threads at once. It keeps a pool of connections: a call
// takes an idle one (most recently used first) and returns it afterwards, so sequential calls reuse one TCP
// connection and concurrent calls each get their own. DNS and TLS sessions are shared by all of them.
//
// Errors (all derive from trunk::Error, see error.hpp):
//   ValidationError   the request broke a rule; nothing was sent
//   ApiError & co.    the server answered non-2xx (after retries for 429/5xx); redirects are not followed
//   TransportError    no usable answer (refused, reset, truncated, TLS...); TimeoutError when time ran out
//   DecodeError       the 2xx body is not the expected JSON
//   PaginationError   the server repeated a page token
//   CancelledError    ClientOptions::interrupt_check returned true
// The API token never appears in any message, log record or error body (it is replaced by "[REDACTED]").

#include <memory>
#include <string>
#include <vector>

#include "trunk/bulk.hpp"
#include "trunk/client_options.hpp"
#include "trunk/operations.hpp"
#include "trunk/pager.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"

namespace trunk {

namespace detail {
struct ClientInternals;  // the library's own entry point to the transfer engine (not part of the API)
}  // namespace detail

class Client {
 public:
  /// Resolves base_url and token (see ClientOptions) and checks them. Throws trunk::Error when no token is
  /// configured, the base_url is not http(s), or it is http:// to a non-loopback host without
  /// allow_insecure_http. No network traffic happens here.
  explicit Client(ClientOptions options = {});
  ~Client();
  /// Moving keeps pagers valid (they follow the moved state); a moved-from Client may only be destroyed or
  /// assigned to.
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // ---- One method per operation of operations.hpp (TRUNK_OPERATIONS), named as the operation:
  //   TestPage list_failing_tests(const ListFailingTestsRequest&);    TestDetails get_test_details(...);
  //   TestPage list_unhealthy_tests(const ListUnhealthyTestsRequest&); QueueSettings update_queue(...);
  //   QuarantinedTestPage list_quarantined_tests(...);                 QueueSettings get_queue(const GetQueueRequest&);
  //   Acknowledgement submit_pull_request(const SubmitPullRequestRequest&); PullRequestPage list_pull_requests(...);
  //   MergeQueueMetrics get_merge_queue_metrics(...) (GET, Prometheus text) ... one per row of TRUNK_OPERATIONS.
  // Each validates the request (ValidationError; nothing sent), sends it with its operation's retry rule
  // (trunk/repeat.hpp: only the fields that are set) and decodes the answer. A listing method reads the one
  // page its request's page_query names; the pagers below walk them all.
#define TRUNK_CLIENT_METHOD_(Type, name, method, path, RequestType, ResponseType, ...) \
  ResponseType name(const RequestType& request);
  TRUNK_OPERATIONS(TRUNK_CLIENT_METHOD_)
#undef TRUNK_CLIENT_METHOD_

  /// get_test_details for every id of `test_ids`, concurrently (see bulk.hpp): results in input order, one
  /// per id (duplicates included), each holding the details or the error that ended that id. Throws
  /// ValidationError naming every bad id ("test_ids[3]"), a bad repo/org_url_slug or a bad concurrency before
  /// anything is sent, and CancelledError when interrupt_check stops the call.
  std::vector<BulkResult<TestDetails>> get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                             const std::vector<std::string>& test_ids,
                                                             BulkOptions options = {});

  /// Every item of a listing, page after page, fetched lazily (see pager.hpp). The request is validated here,
  /// before anything is sent. A pager refers to this Client (or the Client it is moved into), which must
  /// outlive it.
  TestPager failing_tests(ListFailingTestsRequest request);
  TestPager unhealthy_tests(ListUnhealthyTestsRequest request);
  Pager<QuarantinedTestPage> quarantined_tests(ListQuarantinedTestsRequest request);
  Pager<PullRequestPage> pull_requests(ListPullRequestsRequest request);
  /// The same for any listing operation of operations.hpp, named by its declaration (the bindings use it).
  template <typename Op>
    requires requires { PageTraits<typename Op::Response>::style; }
  Pager<typename Op::Response> pager(typename Op::Request request);

  /// The resolved base address, without a trailing '/'.
  const std::string& base_url() const noexcept;

 private:
  friend struct detail::ClientInternals;
  friend class AsyncClient;  // runs its calls on this client's transfer engine (async_client.hpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trunk
