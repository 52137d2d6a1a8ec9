#pragma once
// A pool of idle connections (an easy handle plus the multi handle that drives it and owns its connection
// cache). A call leases one and gives it back when done, so:
//  - sequential calls reuse the same handle and therefore the same TCP connection (most recently returned
//    first, so the warm connection is the one picked);
//  - after fork() the child never touches a connection inherited from the parent (its socket, and its TLS
//    state, are the parent's): the first acquire() in a new process abandons them and starts fresh.
//  - concurrent calls each hold their own handle (libcurl handles are single-threaded), and a connection
//    opened by one thread serves the next call of any thread once it is back in the pool.

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <sys/types.h>

#include "curl_handles.hpp"

namespace trunk::detail {

struct PooledConnection {
  EasyHandle easy;
  MultiHandle multi;  // declared last: destroyed first, closing its cached connection before the easy handle
};

class ConnectionPool {
 public:
  /// Called once on every new easy handle to set the options that never change between calls.
  using Configure = std::function<void(CURL*)>;

  /// max_idle bounds how many idle connections are kept after a burst of concurrent calls.
  ConnectionPool(Configure configure, std::size_t max_idle);
  /// Closes the idle connections, unless they were inherited through fork() (then they are left alone).
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<PooledConnection> connection) noexcept
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    PooledConnection& operator*() const noexcept { return *connection_; }
    PooledConnection* operator->() const noexcept { return connection_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<PooledConnection> connection_;
  };

  /// An idle connection, or a new one when none is idle.
  Lease acquire();

 private:
  void give_back(std::unique_ptr<PooledConnection> connection) noexcept;
  /// Abandons the idle connections when this process is not the one that opened them. Caller holds mutex_.
  void forget_inherited_connections() noexcept;

  Configure configure_;
  std::size_t max_idle_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<PooledConnection>> idle_;  // back = most recently returned
  pid_t owner_pid_;  // the process the idle connections belong to (see the fork note above)
};

}  // namespace trunk::detail
