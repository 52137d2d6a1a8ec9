// Token safety, core dumps (issue 8): after a Client has used the token for every kind of call, a core dump
// of the process contains no copy of it, neither while the Client lives nor after it is destroyed; its one
// copy lives in pages marked MADV_DONTDUMP.
//
// The client runs in a fork()ed child whose token is generated there at run time from /dev/urandom, so the
// only copies in the child's memory are the ones the test put there (and wiped) and the ones the library
// makes. The server runs in the parent (bound before the fork, serving after it): what it receives and echoes is in the
// parent's memory, not the child's. The child scans its own memory (memory_scan.hpp) and reports the counts
// through a pipe; the parent asserts.
#include <gtest/gtest.h>
#include <curl/curl.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "memory_scan.hpp"
#include <httplib.h>
#include "test_support.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"

namespace trunk {
namespace {

using testing::MaskedSecret;
using testing::uuid_for;

const std::string kEchoId = uuid_for(401);   // answered 401 with the received token in a 100 KB body
const std::string kFlakyId = uuid_for(503);  // answered 503 once, then 200

/// The test's server: details (with the two special ids above) and three pages of unhealthy tests. Bound
/// before the fork (the child needs its port) but serving only after it, from start(): the child is forked
/// from a process with no other thread, so it cannot inherit a lock (of the allocator, say) that some thread
/// held at that moment and that nobody would ever release in the child.
class EchoingServer {
 public:
  EchoingServer() {
    server_.set_tcp_nodelay(true);
    server_.set_keep_alive_max_count(100000);
    server_.Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
      answer(request, response);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("the test server could not bind 127.0.0.1");
  }
  ~EchoingServer() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  EchoingServer(const EchoingServer&) = delete;
  EchoingServer& operator=(const EchoingServer&) = delete;

  /// Connections made before this wait in the listen backlog.
  void start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void answer(const httplib::Request& request, httplib::Response& response) {
    const nlohmann::json body = nlohmann::json::parse(request.body);
    if (request.path.find("list-unhealthy-tests") != std::string::npos) {
      response.set_content(pages_.at(body["page_query"].value("page_token", "")), "application/json");
      return;
    }
    const std::string id = body.value("test_id", "");
    if (id == kEchoId) {
      // Padded to arrive in several pieces, so the client's body buffer grows (and moves) after the token.
      // Echoed in a header line too, which libcurl reads into its own header buffer.
      response.status = 401;
      response.set_header("X-Rejected-Token", request.get_header_value("x-api-token"));
      response.set_content(R"({"error":"token )" + request.get_header_value("x-api-token") +
                               R"( is not valid","padding":")" + std::string(100000, 'x') + R"("})",
                           "application/json");
      return;
    }
    if (id == kFlakyId) {
      std::lock_guard lock(mutex_);
      if (flaky_answered_++ == 0) {
        response.status = 503;
        response.set_header("Retry-After", "0");
        response.set_content(R"({"error":"busy"})", "application/json");
        return;
      }
    }
    response.set_content(testing::details_json(id), "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  int flaky_answered_ = 0;
  const std::map<std::string, std::string> pages_ = {
      {"", testing::page_json({uuid_for(1), uuid_for(2)}, "p2", 0)},
      {"p2", testing::page_json({uuid_for(3), uuid_for(4)}, "p3", 1)},
      {"p3", testing::page_json({uuid_for(5)}, "", 2)}};
};

/// The scans look for the token's last 40 of 64 characters (160 random bits): see MaskedSecret::tail.
constexpr std::size_t kScannedTail = 40;

/// What the child sends back. Plain data: written to the pipe as bytes.
struct ChildReport {
  std::size_t token_size = 0;
  std::size_t constructed_dumpable = 0;  // before any call
  std::size_t alive_dumpable = 0;
  std::size_t alive_dump_excluded = 0;
  std::size_t destroyed_dumpable = 0;
  std::size_t destroyed_dump_excluded = 0;
  std::size_t bytes_scanned = 0;
  int details_ok = 0;
  int echo_errors = 0;          // AuthenticationError for the echoing server, its message redacted
  int echo_errors_quoting = 0;  // ... whose message quoted the token anyway
  int bulk_ok = 0;
  int bulk_errors = 0;
  int pages = 0;
  int log_records = 0;
  int log_records_quoting = 0;
  int retries_logged = 0;
  int warnings = 0;  // warning records (the one about libcurl's allocator)
  char places[512] = {};  // where dumpable copies were found
  char failure[256] = {};
};

void note_places(ChildReport& report, const testing::ScanResult& scan) {
  std::string text;
  for (const auto& place : scan.dumpable_places) text += place + "; ";
  std::strncat(report.places, text.c_str(), sizeof report.places - std::strlen(report.places) - 1);
}

/// A fresh random token of `bytes` random bytes in hex: written straight into `token`, and known otherwise
/// only masked.
void make_token(std::string& token, MaskedSecret& secret, std::size_t bytes) {
  std::vector<unsigned char> random(bytes * 5);  // bytes for the token, bytes * 4 for the mask
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(reinterpret_cast<char*>(random.data()), static_cast<std::streamsize>(random.size()));
  if (!urandom) throw std::runtime_error("cannot read /dev/urandom");
  static constexpr char kDigits[] = "0123456789abcdef";
  token.assign(bytes * 2, '0');
  secret.masked.resize(bytes * 2);
  secret.mask.assign(random.begin() + static_cast<std::ptrdiff_t>(bytes),
                     random.begin() + static_cast<std::ptrdiff_t>(bytes * 3));
  for (std::size_t i = 0; i < bytes * 2; ++i) {
    const unsigned nibble = (i % 2 == 0) ? random[i / 2] >> 4 : random[i / 2] & 0x0fu;
    token[i] = kDigits[nibble];
    secret.masked[i] = static_cast<unsigned char>(kDigits[nibble] ^ secret.mask[i]);
  }
  ::explicit_bzero(random.data(), random.size());
}

/// One call to the server that echoes the token in its 401 body.
void expect_echo_error(Client& client, const MaskedSecret& secret, ChildReport& report) {
  try {
    client.get_test_details(testing::details_request(kEchoId));
  } catch (const AuthenticationError& error) {
    ++report.echo_errors;
    if (testing::count_occurrences(error.what(), secret) > 0) ++report.echo_errors_quoting;
  }
}

void exercise_client(Client& client, const MaskedSecret& secret, ChildReport& report) {
  for (int i = 0; i < 3; ++i) {
    if (client.get_test_details(testing::details_request(uuid_for(10 + i))).test.id == uuid_for(10 + i)) {
      ++report.details_ok;
    }
  }
  expect_echo_error(client, secret, report);
  if (client.get_test_details(testing::details_request(kFlakyId)).test.id == kFlakyId) ++report.details_ok;

  // Bulk details from several threads at once, each over its own multi handle, one id echoing the token.
  std::mutex mutex;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> ids;
      for (int i = 0; i < 6; ++i) ids.push_back(uuid_for(100 * (t + 1) + i));
      if (t == 0) ids.push_back(kEchoId);
      const auto results = client.get_test_details_many(testing::sample_repo(), "trunk-org", ids, BulkOptions{3});
      std::lock_guard lock(mutex);
      for (const auto& result : results) {
        if (result.value) ++report.bulk_ok;
        if (result.error) ++report.bulk_errors;
      }
    });
  }
  for (auto& thread : threads) thread.join();

  ListUnhealthyTestsRequest listing;
  listing.repo = testing::sample_repo();
  listing.org_url_slug = "trunk-org";
  listing.page_query.page_size = 2;
  auto pager = client.unhealthy_tests(listing);  // prefetch_pages is on by default
  while (pager.next_page()) ++report.pages;
  // Last: nothing overwrites what the echoing answer left in the handle's receive buffer by chance.
  expect_echo_error(client, secret, report);
}

/// The child's whole run; never returns.
[[noreturn]] void run_child(const std::string& base_url, int report_fd) {
  ChildReport report;
  try {
    MaskedSecret secret;
    ClientOptions options = testing::test_options(base_url);
    options.retry.max_retries = 2;
    auto records = std::make_shared<std::vector<std::string>>();
    auto records_mutex = std::make_shared<std::mutex>();
    auto warnings = std::make_shared<int>(0);
    options.log = [records, records_mutex, warnings](LogLevel level, std::string_view message) {
      std::lock_guard lock(*records_mutex);
      records->emplace_back(message);
      if (level == LogLevel::warning) ++*warnings;
    };
    std::string token;
    make_token(token, secret, 32);
    options.token = std::move(token);  // the Secret wipes `token`
    report.token_size = secret.size();
    report.warnings = -1;

    auto client = std::make_unique<Client>(std::move(options));
    const testing::ScanResult constructed = testing::scan_own_memory(secret.tail(kScannedTail));
    report.constructed_dumpable = constructed.dumpable;
    note_places(report, constructed);
    exercise_client(*client, secret, report);
    for (const auto& record : *records) {
      ++report.log_records;
      if (testing::count_occurrences(record, secret) > 0) ++report.log_records_quoting;
      if (record.find("retry 1 of") != std::string::npos) ++report.retries_logged;
    }
    report.warnings = *warnings;

    const testing::ScanResult alive = testing::scan_own_memory(secret.tail(kScannedTail));
    report.alive_dumpable = alive.dumpable;
    report.alive_dump_excluded = alive.dump_excluded;
    report.bytes_scanned = alive.bytes_read;
    note_places(report, alive);

    client.reset();
    const testing::ScanResult destroyed = testing::scan_own_memory(secret.tail(kScannedTail));
    report.destroyed_dumpable = destroyed.dumpable;
    report.destroyed_dump_excluded = destroyed.dump_excluded;
    note_places(report, destroyed);
  } catch (const std::exception& error) {
    std::strncpy(report.failure, error.what(), sizeof report.failure - 1);
  }
  const bool sent = ::write(report_fd, &report, sizeof report) == static_cast<ssize_t>(sizeof report);
  ::_exit(sent ? 0 : 3);
}

TEST(TokenCoreDump, NoDumpableCopyWhileTheClientLivesOrAfterItIsDestroyed) {
  EchoingServer server;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    run_child(server.base_url(), fds[1]);
  }
  ::close(fds[1]);
  server.start();
  ChildReport report;
  std::size_t received = 0;
  while (received < sizeof report) {
    const ssize_t got = ::read(fds[0], reinterpret_cast<char*>(&report) + received, sizeof report - received);
    if (got <= 0) break;
    received += static_cast<std::size_t>(got);
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died, status " << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  ASSERT_EQ(received, sizeof report);
  ASSERT_STREQ(report.failure, "") << "the child failed";

  // The calls really happened, through every path.
  EXPECT_EQ(report.token_size, 64U);
  EXPECT_EQ(report.details_ok, 4);
  EXPECT_EQ(report.echo_errors, 2);
  EXPECT_EQ(report.echo_errors_quoting, 0);
  EXPECT_EQ(report.bulk_ok, 18);
  EXPECT_EQ(report.bulk_errors, 1);
  EXPECT_EQ(report.pages, 3);
  EXPECT_GE(report.retries_logged, 1);
  EXPECT_EQ(report.warnings, 0);  // libcurl frees through the wiping allocator
  EXPECT_GT(report.log_records, 20);
  EXPECT_EQ(report.log_records_quoting, 0);
  EXPECT_GT(report.bytes_scanned, std::size_t{1} << 20);
  // Its single copy (in the header line) is in memory the kernel leaves out of core dumps ...
  EXPECT_EQ(report.alive_dump_excluded, 1U) << "the token is not (only) in MADV_DONTDUMP pages";
  // ... and no dumpable memory holds it, while the client lives or after it is gone.
  EXPECT_EQ(report.constructed_dumpable, 0U) << report.places;
  EXPECT_EQ(report.alive_dumpable, 0U) << report.places;
  EXPECT_EQ(report.destroyed_dumpable, 0U) << report.places;
  EXPECT_EQ(report.destroyed_dump_excluded, 0U) << "the secret memory was not wiped and unmapped";
}

/// When something else initialised libcurl first, the wiping allocator cannot be installed (libcurl ignores
/// curl_global_init_mem then): the first client with a log callback says so, once per process.
TEST(TokenCoreDump, LibcurlInitialisedByOthersFirstIsReportedOnce) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    int counts[2] = {-1, -1};  // warning records: first client, second client
    try {
      curl_global_init(CURL_GLOBAL_DEFAULT);  // "another library" of this process, before any Client
      for (int& count : counts) {
        count = 0;
        ClientOptions options = testing::test_options("http://127.0.0.1:9");
        options.log = [&count](LogLevel level, std::string_view message) {
          if (level == LogLevel::warning && message.find("libcurl was initialised by another part") != message.npos) {
            ++count;
          }
        };
        Client client(std::move(options));
      }
    } catch (...) {
    }
    const bool sent = ::write(fds[1], counts, sizeof counts) == static_cast<ssize_t>(sizeof counts);
    ::_exit(sent ? 0 : 3);
  }
  ::close(fds[1]);
  int counts[2] = {-1, -1};
  const ssize_t got = ::read(fds[0], counts, sizeof counts);
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof counts));
  EXPECT_EQ(counts[0], 1);
  EXPECT_EQ(counts[1], 0);
}

/// The scanner finds what it should: a dumpable heap copy (the test above would fail on the old client).
TEST(TokenCoreDump, TheScannerFindsAHeapCopyAndNotItsOwnNeedle) {
  MaskedSecret secret;
  std::string token;
  make_token(token, secret, 32);
  auto heap_copy = std::make_unique<std::string>(token);  // a second, dumpable copy
  const testing::ScanResult with_copies = testing::scan_own_memory(secret);
  EXPECT_GE(with_copies.dumpable, 2U);
  EXPECT_EQ(with_copies.dump_excluded, 0U);
  EXPECT_GE(testing::scan_own_memory(secret.tail(40)).dumpable, 2U);  // the tail is in both copies too
  ::explicit_bzero(heap_copy->data(), heap_copy->size());
  ::explicit_bzero(token.data(), token.size());
  const testing::ScanResult wiped = testing::scan_own_memory(secret);
  std::string places;
  for (const auto& place : wiped.dumpable_places) places += place + "; ";
  EXPECT_EQ(wiped.dumpable, 0U) << places;
}

}  // namespace
}  // namespace trunk
