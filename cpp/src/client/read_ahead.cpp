#include "read_ahead.hpp"

#include <simdjson.h>

#include <chrono>
#include <utility>

#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

/// How often a fetch waiting for a read-ahead answer checks its cancellation.
constexpr std::chrono::milliseconds kWaitSlice{100};

}  // namespace

PagePeek peek_page(const simdjson::dom::element& root, const WireAt& at) {
  PagePeek peek;
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return peek;
  simdjson::dom::array items;
  if (object[at.items].get_array().get(items) != simdjson::SUCCESS) return peek;
  // The cursor: a key of the root object, or of the object at next[0].
  simdjson::dom::element cursor;
  if (object[at.next[0]].get(cursor) == simdjson::SUCCESS &&
      (at.next[1].empty() || cursor.get_object()[at.next[1]].get(cursor) == simdjson::SUCCESS)) {
    std::string_view next;
    if (cursor.get_string().get(next) == simdjson::SUCCESS) peek.next = std::string(next);
  }
  peek.items = items.size();
  peek.ok = true;
  return peek;
}

struct ReadAhead::Slot {
  std::mutex mutex;
  std::condition_variable arrived;
  bool done = false;  // guarded by mutex, as are body and error
  std::string body;
  std::exception_ptr error;
  SubmissionHandle handle;

  ~Slot() { wipe(body); }  // an answer nobody took: it may echo the token
};

ReadAhead::~ReadAhead() { cancel(); }

void ReadAhead::cancel() {
  if (!pending_) return;
  pending_->handle.cancel();
  pending_.reset();  // the completion keeps the slot alive until it has run
  pending_cursor_.clear();
}

std::optional<std::string> ReadAhead::take(const std::string& cursor, const Cancellation& cancel_check) {
  requested_.insert(cursor);
  if (!pending_) return std::nullopt;
  if (pending_cursor_ != cursor) {
    cancel();
    return std::nullopt;
  }
  const std::shared_ptr<Slot> slot = std::exchange(pending_, nullptr);
  pending_cursor_.clear();
  std::unique_lock lock(slot->mutex);
  while (!slot->arrived.wait_for(lock, kWaitSlice, [&] { return slot->done; })) {
    if (cancel_check.requested()) {
      lock.unlock();
      slot->handle.cancel();
      throw CancelledError("pagination: cancelled by the caller");
    }
  }
  if (slot->error) std::rethrow_exception(slot->error);
  return std::move(slot->body);
}

void ReadAhead::start(const std::string& cursor, TransferEngine& engine, HttpRequest request) {
  if (!requested_.insert(cursor).second) return;
  cancel();
  auto slot = std::make_shared<Slot>();
  slot->handle = engine.submit(std::move(request), [slot](std::string&& body, std::exception_ptr error) {
    std::lock_guard lock(slot->mutex);
    slot->body = std::move(body);
    slot->error = std::move(error);
    slot->done = true;
    slot->arrived.notify_all();
  });
  pending_ = std::move(slot);
  pending_cursor_ = cursor;
}

}  // namespace trunk::detail
