#pragma once
// trunk::Client: the four operations of interface.md over HTTPS (libcurl), with validation before sending,
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

  /// One page of POST /v1/flaky-tests/list-failing-tests (the page named by request.page_query).
  TestPage list_failing_tests(const ListFailingTestsRequest& request);
  /// One page of POST /v1/flaky-tests/list-unhealthy-tests.
  TestPage list_unhealthy_tests(const ListUnhealthyTestsRequest& request);
  /// POST /v1/flaky-tests/get-test-details.
  TestDetails get_test_details(const GetTestDetailsRequest& request);
  /// get_test_details for every id of `test_ids`, concurrently (see bulk.hpp): results in input order, one
  /// per id (duplicates included), each holding the details or the error that ended that id. Throws
  /// ValidationError naming every bad id ("test_ids[3]"), a bad repo/org_url_slug or a bad concurrency before
  /// anything is sent, and CancelledError when interrupt_check stops the call.
  std::vector<BulkResult<TestDetails>> get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                             const std::vector<std::string>& test_ids,
                                                             BulkOptions options = {});
  /// POST /v1/updateQueue; returns the settings after the update. Only the fields set are sent.
  QueueSettings update_queue(const UpdateQueueRequest& request);

  /// Every failing test of the window, page after page, fetched lazily. The request is validated here,
  /// before anything is sent. The pager refers to this Client (or the Client it is moved into), which must
  /// outlive it.
  TestPager failing_tests(ListFailingTestsRequest request);
  /// Every unhealthy test with the requested status, fetched lazily (same rules as failing_tests).
  TestPager unhealthy_tests(ListUnhealthyTestsRequest request);

  /// The resolved base address, without a trailing '/'.
  const std::string& base_url() const noexcept;

 private:
  friend struct detail::ClientInternals;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trunk
