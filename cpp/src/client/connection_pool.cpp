#include "connection_pool.hpp"

namespace trunk::detail {

ConnectionPool::ConnectionPool(Configure configure, std::size_t max_idle)
    : configure_(std::move(configure)), max_idle_(max_idle) {}

ConnectionPool::Lease::~Lease() {
  if (pool_ != nullptr && connection_) pool_->give_back(std::move(connection_));
}

ConnectionPool::Lease ConnectionPool::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
  }
  // Built outside the lock: creating handles allocates and must not serialize the other threads.
  auto connection = std::make_unique<PooledConnection>();
  connection->easy = make_easy();
  connection->multi = make_multi();
  configure_(connection->easy.get());
  return Lease(this, std::move(connection));
}

void ConnectionPool::give_back(std::unique_ptr<PooledConnection> connection) noexcept {
  std::unique_ptr<PooledConnection> surplus;  // destroyed after the lock is released
  std::lock_guard lock(mutex_);
  if (idle_.size() >= max_idle_) {
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
