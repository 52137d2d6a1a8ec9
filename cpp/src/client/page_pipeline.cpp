#include "page_pipeline.hpp"

#include <simdjson.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "core/decode_body.hpp"
#include "secret_memory.hpp"

namespace trunk::detail {

namespace {

/// How often next() checks the interrupt while it waits.
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

PageAnswer::~PageAnswer() { wipe(body); }

/// Shared with the engine's completions, which may run after the pipeline is gone (they then only wipe).
struct PagePipeline::State {
  explicit State(Setup given) : setup(std::move(given)), walk(setup.style, setup.first_cursor) {
    spare_parsers.reserve(kWindow + 1);  // recycle() must not allocate
  }

  Setup setup;
  std::mutex mutex;
  std::condition_variable changed;
  // Guarded by mutex:
  PageWalk walk;
  std::deque<PageAnswer> answers;  // arrived, in order, not taken yet
  std::exception_ptr error;        // what ended the walk, handed out after `answers`
  bool ended = false;              // the error was handed out, or the consumer failed: nothing more
  bool closed = false;             // the pipeline is gone
  bool in_flight = false;
  std::uint64_t generation = 0;  // of the request in flight; a completion of an older one is ignored
  SubmissionHandle handle;
  std::function<void()> waiter;
  std::vector<std::unique_ptr<simdjson::dom::parser>> spare_parsers;  // of pages read, for the next ones

  /// A parser for an arriving page: a spare one, or a new one (at most kWindow + 1 pages hold one at a time).
  std::unique_ptr<simdjson::dom::parser> take_parser() {
    {
      std::lock_guard lock(mutex);
      if (!spare_parsers.empty()) {
        std::unique_ptr<simdjson::dom::parser> parser = std::move(spare_parsers.back());
        spare_parsers.pop_back();
        return parser;
      }
    }
    return make_body_parser();
  }

  /// Whether next() has something to return without waiting.
  bool ready() const { return !answers.empty() || error || ended || (walk.done() && !in_flight); }

  /// Requests the page the walk names next when it should: asked for (`demand`), or ahead of the consumer while
  /// the window has room and the budget wants more. Never while an answer not advanced yet holds the cursor.
  void request(bool demand) {
    if (in_flight || closed || ended || error || walk.done()) return;
    if (!answers.empty() && !answers.back().advanced) return;
    if (!demand && (!setup.ahead || answers.size() >= kWindow || !walk.wants_more())) return;
    const std::uint64_t number = ++generation;
    try {
      handle = setup.engine->submit(setup.request_for(walk.next_cursor(), walk.wanted()),
                                    [weak = self, number](std::string&& body, std::exception_ptr failure) {
                                      arrived(weak, number, std::move(body), std::move(failure));
                                    });
      in_flight = true;
    } catch (...) {
      error = std::current_exception();  // the engine has ended (its client is being destroyed)
    }
  }

  /// Drops the request in flight (its answer, if it still comes, is ignored).
  void cancel_in_flight() {
    if (!in_flight) return;
    ++generation;
    in_flight = false;
    handle.cancel();
  }

  /// The completion of request `number` (on the engine thread).
  static void arrived(const std::weak_ptr<State>& weak, std::uint64_t number, std::string&& body,
                      std::exception_ptr failure);

  std::weak_ptr<State> self;  // what the completions hold: they must not keep a dropped pipeline alive
};

void PagePipeline::State::arrived(const std::weak_ptr<State>& weak, std::uint64_t number, std::string&& body,
                                  std::exception_ptr failure) {
  PageAnswer answer(std::move(body));
  const std::shared_ptr<State> state = weak.lock();
  if (!state) return;  // the pipeline is gone; the answer is wiped
  // The parse and the peek run here, without the lock: only this completion touches this answer.
  PagePeek peek;
  if (!failure) {
    try {
      std::unique_ptr<simdjson::dom::parser> parser = state->take_parser();
      answer.document = parse_body(answer.body, *parser);
      answer.parser = std::move(parser);
      peek = peek_page(answer.document, state->setup.at);
    } catch (...) {
      // Not JSON: the consumer's decoding of the body reports it (with the token redacted).
    }
  }
  std::function<void()> waiter;
  {
    std::lock_guard lock(state->mutex);
    if (state->closed || number != state->generation || !state->in_flight) return;
    state->in_flight = false;
    if (failure) {
      state->error = std::move(failure);
    } else {
      if (peek.ok) {
        try {
          state->walk.advance(peek.items, peek.next);
          answer.advanced = true;
        } catch (...) {
          state->error = std::current_exception();  // a repeated cursor: the error takes this page's place
        }
      }
      if (!state->error) {
        state->answers.push_back(std::move(answer));
        state->request(false);
      }
    }
    state->changed.notify_all();
    waiter = std::exchange(state->waiter, nullptr);
  }
  if (waiter) waiter();
}

PagePipeline::PagePipeline(Setup setup) : state_(std::make_shared<State>(std::move(setup))) { state_->self = state_; }

PagePipeline::~PagePipeline() {
  std::function<void()> waiter;  // destroyed after the lock is released (it may hold what owns this pipeline)
  std::lock_guard lock(state_->mutex);
  state_->closed = true;
  state_->cancel_in_flight();
  state_->answers.clear();
  waiter = std::exchange(state_->waiter, nullptr);
}

std::optional<PageAnswer> PagePipeline::next() {
  State& state = *state_;
  std::unique_lock lock(state.mutex);
  while (true) {
    if (!state.answers.empty()) {
      PageAnswer answer = std::move(state.answers.front());
      state.answers.pop_front();
      state.request(false);  // the window has room again
      return answer;
    }
    if (state.error) {
      state.ended = true;
      std::rethrow_exception(std::exchange(state.error, nullptr));
    }
    if (state.ended || (state.walk.done() && !state.in_flight)) return std::nullopt;
    state.request(true);
    if (state.error) continue;
    state.changed.wait_for(lock, kWaitSlice, [&] { return state.ready(); });
    if (!state.ready() && state.setup.interrupt_check != nullptr && *state.setup.interrupt_check &&
        (*state.setup.interrupt_check)()) {
      state.cancel_in_flight();  // the walk stays where it was: the next call requests that page again
      throw CancelledError("pagination: cancelled by the caller");
    }
  }
}

void PagePipeline::when_ready(std::function<void()> ready) {
  std::function<void()> replaced;  // destroyed after the lock is released, as every waiter
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->ready()) state_->request(true);
    if (!state_->ready()) {
      replaced = std::exchange(state_->waiter, std::move(ready));
      return;
    }
    replaced = std::exchange(state_->waiter, nullptr);
  }
  ready();
}

void PagePipeline::cancel() {
  std::function<void()> dropped;  // destroyed after the lock is released
  std::lock_guard lock(state_->mutex);
  dropped = std::exchange(state_->waiter, nullptr);
  state_->cancel_in_flight();
}

void PagePipeline::advance(std::size_t items, const std::optional<std::string>& next) {
  std::lock_guard lock(state_->mutex);
  try {
    state_->walk.advance(items, next);
  } catch (...) {
    state_->ended = true;
    state_->cancel_in_flight();
    state_->answers.clear();
    throw;
  }
  state_->request(false);
}

void PagePipeline::fail() noexcept {
  std::lock_guard lock(state_->mutex);
  state_->ended = true;
  state_->error = nullptr;
  state_->cancel_in_flight();
  state_->answers.clear();
}

void PagePipeline::recycle(PageAnswer&& answer) noexcept {
  if (!answer.parser) return;
  std::lock_guard lock(state_->mutex);
  if (state_->spare_parsers.size() < kWindow + 1) state_->spare_parsers.push_back(std::move(answer.parser));
}

void PagePipeline::limit(std::size_t max_items) {
  std::lock_guard lock(state_->mutex);
  state_->walk.limit(max_items);
}

bool PagePipeline::done() const {
  std::lock_guard lock(state_->mutex);
  return state_->ended || (state_->walk.done() && state_->answers.empty() && !state_->in_flight && !state_->error);
}

}  // namespace trunk::detail
