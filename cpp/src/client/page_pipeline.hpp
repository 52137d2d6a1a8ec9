#pragma once
// The page pipeline of a Client's listings (see the top of trunk/pager.hpp): one walk over a listing's pages on
// the client's transfer engine, consumed by the sync pagers and the async listings alike.
//
// When a page's answer completes, on the engine thread, it is parsed - the one parse of its bytes
// (decode_body.hpp), into a parser of the answer's own - its next cursor and item count are read from that
// document, the walk advances (PageWalk: the repeated-cursor check) and the next page is requested at once -
// before anybody reads this one - as long as fewer than kWindow answers wait unread and the caller's budget
// wants more. The consumer takes the answers in order and reads the models from their documents on its own
// thread, so the models are built and freed on the thread that uses them, and the network, the parse and the
// reading overlap. A parser goes back to the pipeline once its page is read (kWindow + 1 of them at most).
//
// An answer whose cursor could not be read on arrival (not shaped as a page) holds the walk until the consumer
// has decoded it and reports the page (advance()); an answer that does not parse is left to the consumer's
// decoding, which says why. Not a template: what differs per listing is the request for a cursor and where the
// answer holds the cursor (WireAt); PipelinePages<Page> below decodes.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <simdjson.h>

#include "transfer_engine.hpp"
#include "trunk/error.hpp"
#include "trunk/page_walk.hpp"
#include "trunk/pager.hpp"

namespace trunk::detail {

/// What a page's answer says without decoding it: its next cursor and how many items it holds.
struct PagePeek {
  std::optional<std::string> next;  ///< the next cursor, when the answer has one (a string)
  std::size_t items = 0;
  bool ok = false;  ///< false: the answer is not shaped as expected (the decoder will say why)
};

/// The next cursor and the item count of a page's answer (its parsed document), at the places `at` names.
/// Never throws.
PagePeek peek_page(const simdjson::dom::element& root, const WireAt& at);

/// One page's answer as the pipeline hands it over: its document (parsed) or, when it did not parse, its body,
/// which is wiped when it goes (it may echo the token).
struct PageAnswer {
  PageAnswer() = default;
  explicit PageAnswer(std::string&& text) : body(std::move(text)) {}
  PageAnswer(PageAnswer&&) noexcept = default;
  PageAnswer& operator=(PageAnswer&&) noexcept = default;
  ~PageAnswer();

  /// Read the model from root() (decode_parsed); false: decode `body`, which says why it does not parse.
  bool parsed() const { return parser != nullptr; }
  const simdjson::dom::element& root() const { return document; }

  /// The 2xx body (with the decoder's padding as spare capacity). Wiped when the answer goes, on the consumer's
  /// thread: not on the engine thread, where the next page waits for this one's cursor.
  std::string body;
  std::unique_ptr<simdjson::dom::parser> parser;  ///< holds the document; back to the pipeline after reading
  simdjson::dom::element document;                ///< the root, in `parser`
  bool advanced = false;  ///< the walk has read its next cursor; false: call PagePipeline::advance once decoded
};

class PagePipeline {
 public:
  /// Answers that may wait unread while the next page is requested (1 more is then in flight).
  static constexpr std::size_t kWindow = 2;

  struct Setup {
    PagingStyle style = PagingStyle::token;
    WireAt at;
    std::string first_cursor;
    /// Request pages before they are asked for (ClientOptions::prefetch_pages); false: one at a time, on demand.
    bool ahead = true;
    TransferEngine* engine = nullptr;
    /// The request for the page a cursor names, when the caller wants only `wanted` more items (nullopt: no
    /// limit).
    std::function<HttpRequest(const std::string& cursor, const std::optional<std::size_t>& wanted)> request_for;
    /// Polled while next() waits (every 100 ms): true -> CancelledError. Must outlive the pipeline.
    const std::function<bool()>* interrupt_check = nullptr;
  };

  explicit PagePipeline(Setup setup);
  /// Cancels the request in flight and wipes the answers nobody took.
  ~PagePipeline();
  PagePipeline(const PagePipeline&) = delete;
  PagePipeline& operator=(const PagePipeline&) = delete;

  /// The next page's answer, in order, waiting for it (nothing is requested before the first call); nullopt after
  /// the last. Throws the error that ended the walk once (then nullopt); CancelledError when the interrupt check
  /// asks while waiting (the walk stays where it was).
  std::optional<PageAnswer> next();
  /// Calls `ready` once next() would not wait - at once, here, or later on the engine thread - requesting the
  /// next page if nothing is on its way. One waiter at a time; a later call replaces it. For the async listings.
  void when_ready(std::function<void()> ready);
  /// Stops waiting: the waiter when_ready() registered is dropped uncalled, the request in flight cancelled; the
  /// walk stays where it was (the next call requests that page again).
  void cancel();

  /// The walk continues from a page decoded by the consumer whose answer was not advanced (PageAnswer::advanced
  /// false): its item count and next cursor. Throws PaginationError for a repeated cursor (the walk then ends).
  void advance(std::size_t items, const std::optional<std::string>& next);
  /// The consumer could not decode a page: the walk ends (the request in flight is cancelled).
  void fail() noexcept;
  /// The consumer has read `answer`: its parser serves a later page.
  void recycle(PageAnswer&& answer) noexcept;
  /// The caller will read at most `max_items` items in all.
  void limit(std::size_t max_items);
  /// True once next() would return nullopt.
  bool done() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// A Pager's source over a PagePipeline: `decode` reads an answer into a page (on the consumer's thread), fresh
/// or one read before (next_into).
template <class Page>
class PipelinePages final : public PageSource<Page> {
 public:
  using Traits = PageTraits<Page>;
  using Decode = std::function<void(PageAnswer&, Page&)>;

  PipelinePages(PagePipeline::Setup setup, Decode decode) : pipeline_(std::move(setup)), decode_(std::move(decode)) {}

  std::optional<Page> next() override {
    std::optional<Page> page(std::in_place);
    if (!next_into(*page)) return std::nullopt;
    return page;
  }
  bool next_into(Page& page) override {
    std::optional<PageAnswer> answer = pipeline_.next();
    if (!answer) return false;
    try {
      decode_(*answer, page);
    } catch (...) {
      pipeline_.fail();
      throw;
    }
    if (!answer->advanced) pipeline_.advance(Traits::items(page).size(), Traits::next(page));
    pipeline_.recycle(std::move(*answer));
    return true;
  }
  void limit(std::size_t max_items) override { pipeline_.limit(max_items); }
  bool done() const override { return pipeline_.done(); }
  void when_ready(std::function<void()> ready) override { pipeline_.when_ready(std::move(ready)); }
  void cancel() override { pipeline_.cancel(); }

 private:
  PagePipeline pipeline_;
  Decode decode_;
};

}  // namespace trunk::detail
