#include "read_ahead.hpp"

#include <simdjson.h>

#include <string.h>

#include <chrono>
#include <utility>

#include "secret_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

namespace od = simdjson::ondemand;

/// How often a fetch waiting for a read-ahead answer checks its cancellation.
constexpr std::chrono::milliseconds kWaitSlice{100};

/// The string at `key` of `object`; nullopt when absent or not a string.
std::optional<std::string> string_at(od::object& object, std::string_view key) {
  std::string_view text;
  if (object.find_field_unordered(key).get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
  return std::string(text);
}

}  // namespace

PagePeek peek_page(std::string_view body, const WireAt& at) {
  // A copy with simdjson's padding: the body itself is the decoder's afterwards, untouched. Wiped when done,
  // as the body is (an answer may echo the token).
  simdjson::padded_string padded(body);
  struct WipeOnExit {
    simdjson::padded_string& copy;
    ~WipeOnExit() { ::explicit_bzero(copy.data(), copy.size()); }
  } wipe_on_exit{padded};
  thread_local od::parser parser;
  PagePeek peek;
  od::document document;
  if (parser.iterate(padded).get(document) != simdjson::SUCCESS) return peek;
  od::object root;
  if (document.get_object().get(root) != simdjson::SUCCESS) return peek;
  od::array items;
  if (root.find_field_unordered(at.items).get_array().get(items) != simdjson::SUCCESS) return peek;
  std::size_t count = 0;
  if (items.count_elements().get(count) != simdjson::SUCCESS) return peek;
  if (at.next[1].empty()) {
    peek.next = string_at(root, at.next[0]);
  } else {
    od::object holder;
    if (root.find_field_unordered(at.next[0]).get_object().get(holder) == simdjson::SUCCESS) {
      peek.next = string_at(holder, at.next[1]);
    }
  }
  peek.items = count;
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
