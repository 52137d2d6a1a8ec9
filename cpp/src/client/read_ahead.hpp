#pragma once
// Reading a listing ahead (see "Reading ahead" in trunk/pager.hpp): while a prefetching pager's background
// thread decodes page k+1, page k+2 is already on its way. The cursor of page k+2 is in page k+1's answer, so a
// fetch peeks at that answer once its syntax is checked (peek_page on the validated document the decoder hands
// over, decode_body.hpp: the next cursor and the number of items) and submits the following request to the
// transfer engine before the page is decoded into the model; the next fetch takes that answer.

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "core/decode_body.hpp"
#include "transfer_engine.hpp"
#include "trunk/pager.hpp"

namespace trunk::detail {

/// What peek_page finds in a page's answer without decoding it.
struct PagePeek {
  std::optional<std::string> next;  ///< the next cursor, when the answer has one (a string)
  std::size_t items = 0;            ///< how many items the page holds
  bool ok = false;                  ///< false: the answer is not shaped as expected (the decoder will say why)
};

/// The next cursor and the item count of a page's answer (its validated document), at the places `at` names.
/// Never throws: an answer shaped otherwise is left to the decoder, and nothing is read ahead.
PagePeek peek_page(const simdjson::dom::element& root, const WireAt& at);

/// The one page a pager's fetches have requested ahead, and the cursors they have requested so far. Used by one
/// pager (one fetch at a time); the engine's completion may arrive on the engine thread at any time.
class ReadAhead {
 public:
  ReadAhead() = default;
  ~ReadAhead();  ///< cancels a read-ahead in flight
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  /// The answer read ahead for `cursor`, waiting for it (CancelledError when `cancel` asks first, the request's
  /// own error if it failed); nullopt when nothing was read ahead for that cursor (a read-ahead for another one
  /// is cancelled). Records `cursor` as requested either way.
  std::optional<std::string> take(const std::string& cursor, const Cancellation& cancel);

  /// Submits `request` (the page `cursor` names) to `engine` unless that cursor was requested before (a server
  /// handing back a cursor again must not make the pager request it again: the pager reports it instead).
  void start(const std::string& cursor, TransferEngine& engine, HttpRequest request);

  /// Cancels the read-ahead in flight, if any.
  void cancel();

 private:
  struct Slot;  // one submission's answer, shared with the engine's completion
  std::shared_ptr<Slot> pending_;
  std::string pending_cursor_;
  std::unordered_set<std::string> requested_;
};

}  // namespace trunk::detail
