#pragma once
// A pool of idle connections: a multi handle (which owns the connection cache: its kept-alive connections)
// plus the easy handles that ran on it. Every run of the transfer engine (transfer_engine.hpp) - a single call
// or a whole bulk call - leases one and gives it back when done, so:
//  - sequential calls reuse the same handles and therefore the same TCP connection (most recently returned
//    first, so the warm connection is the one picked);
//  - after fork() the child never touches a connection inherited from the parent (its socket, and its TLS
//    state, are the parent's): the first acquire() in a new process abandons them and starts fresh.
//  - concurrent calls each hold their own handle (libcurl handles are single-threaded), and a connection
//    opened by one thread serves the next call of any thread once it is back in the pool.

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <sys/types.h>

#include "curl_handles.hpp"

namespace trunk::detail {

/// What the pool lends: a libcurl multi handle, whose connection cache holds the kept-alive connections, and
/// the easy handles that ran on it (their TLS sessions and buffers warm).
struct HandleSet {
  /// Idle easy handles, back = most recently used. A run takes as many as it needs, makes more when short,
  /// and puts them back.
  std::vector<EasyHandle> easy;
  /// Declared last: destroyed first, closing its cached connections before the easy handles go.
  MultiHandle multi;
  /// A response on one of these connections echoed the API token: the lease closes them all when it ends
  /// instead of pooling them, so libcurl frees (and wipes, curl_memory.hpp) every buffer that held it.
  bool discard = false;
};

class ConnectionPool {
 public:
  /// max_idle bounds how many idle connections are kept after a burst of concurrent calls.
  explicit ConnectionPool(std::size_t max_idle);
  /// Closes the idle connections, unless they were inherited through fork() (then they are left alone).
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<HandleSet> connection) noexcept
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    HandleSet& operator*() const noexcept { return *connection_; }
    HandleSet* operator->() const noexcept { return connection_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<HandleSet> connection_;
  };

  /// An idle connection, or a new one (a multi handle without easy handles) when none is idle.
  Lease acquire();

 private:
  void give_back(std::unique_ptr<HandleSet> connection) noexcept;
  /// Abandons the idle connections when this process is not the one that opened them. Caller holds mutex_.
  void forget_inherited_connections() noexcept;

  std::size_t max_idle_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<HandleSet>> idle_;  // back = most recently returned
  pid_t owner_pid_;  // the process the idle connections belong to (see the fork note above)
};

}  // namespace trunk::detail
