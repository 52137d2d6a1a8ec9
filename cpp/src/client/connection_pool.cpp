#include "connection_pool.hpp"

#include <unistd.h>

namespace trunk::detail {

ConnectionPool::ConnectionPool(std::size_t max_idle) : max_idle_(max_idle), owner_pid_(::getpid()) {}

ConnectionPool::~ConnectionPool() {
  std::lock_guard lock(mutex_);
  forget_inherited_connections();
}

void ConnectionPool::forget_inherited_connections() noexcept {
  const pid_t pid = ::getpid();
  if (pid == owner_pid_) return;
  // A forked child: the idle connections share their sockets (and TLS state) with the parent. Using one
  // would interleave two processes' bytes on one stream, and cleaning one up could send a TLS close_notify
  // on the parent's behalf, so they are abandoned: a bounded, one-time leak in the child.
  for (auto& inherited : idle_) static_cast<void>(inherited.release());
  idle_.clear();
  owner_pid_ = pid;
}

ConnectionPool::Lease::~Lease() {
  if (pool_ != nullptr && connection_) pool_->give_back(std::move(connection_));
}

ConnectionPool::Lease ConnectionPool::acquire() {
  {
    std::lock_guard lock(mutex_);
    forget_inherited_connections();
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
  }
  // Built outside the lock: creating handles allocates and must not serialize the other threads.
  auto connection = std::make_unique<HandleSet>();
  connection->multi = make_multi();
  return Lease(this, std::move(connection));
}

void ConnectionPool::give_back(std::unique_ptr<HandleSet> connection) noexcept {
  std::unique_ptr<HandleSet> surplus;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  if (connection->discard || idle_.size() >= max_idle_) {
    surplus = std::move(connection);
    return;
  }
  try {
    idle_.push_back(std::move(connection));
  } catch (...) {
    // Out of memory while growing the vector: the connection is simply closed instead of pooled.
  }
}

}  // namespace trunk::detail
