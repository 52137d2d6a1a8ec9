#include "curl_handles.hpp"

#include <cstring>
#include <new>
#include <string>

#include "curl_memory.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

void ensure_curl_initialized() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = initialize_curl_with_wiping_allocator(); });
  if (result != CURLE_OK) {
    throw TransportError(std::string("libcurl could not be initialised: ") + curl_easy_strerror(result));
  }
}

EasyHandle make_easy() {
  EasyHandle handle(curl_easy_init());
  if (!handle) throw TransportError("libcurl could not create an easy handle (out of memory)");
  return handle;
}

MultiHandle make_multi() {
  MultiHandle handle(curl_multi_init());
  if (!handle) throw TransportError("libcurl could not create a multi handle (out of memory)");
  return handle;
}

void append_header(HeaderList& list, const std::string& line) {
  curl_slist* head = curl_slist_append(list.get(), line.c_str());
  if (head == nullptr) throw TransportError("libcurl could not build the request headers (out of memory)");
  // curl_slist_append returns the head of the list: the old head, or the new node when the list was empty.
  if (!list) list.reset(head);
}

SecretHeaderList::SecretHeaderList(const std::vector<std::vector<std::string>>& variants,
                                   std::string_view secret_name, std::string_view secret_value,
                                   std::string_view value_prefix) {
  constexpr std::string_view separator = ": ";
  // Layout: [curl_slist node][name ": " prefix value '\0'], the node first so it is suitably aligned.
  memory_ = SecretMemory(sizeof(curl_slist) + secret_name.size() + separator.size() + value_prefix.size() +
                         secret_value.size() + 1);
  char* text = memory_.data() + sizeof(curl_slist);
  char* cursor = text;
  for (const std::string_view part : {secret_name, separator, value_prefix, secret_value}) {
    if (part.empty()) continue;  // an empty view may hold no pointer at all, which memcpy must not get
    std::memcpy(cursor, part.data(), part.size());
    cursor += part.size();
  }
  *cursor = '\0';
  secret_ = std::string_view(cursor - secret_value.size(), secret_value.size());
  secret_node_ = new (memory_.data()) curl_slist{text, nullptr};

  heads_.reserve(variants.size());
  try {
    for (const std::vector<std::string>& lines : variants) {
      HeaderList ordinary;
      for (const std::string& line : lines) append_header(ordinary, line);
      curl_slist* tail = ordinary.get();
      while (tail != nullptr && tail->next != nullptr) tail = tail->next;
      if (tail != nullptr) tail->next = secret_node_;
      heads_.push_back(tail != nullptr ? ordinary.release() : secret_node_);
    }
  } catch (...) {
    release_ordinary_nodes();
    throw;
  }
}

void SecretHeaderList::release_ordinary_nodes() noexcept {
  for (curl_slist* head : heads_) {
    curl_slist* before = nullptr;
    for (curl_slist* node = head; node != nullptr && node != secret_node_; node = node->next) before = node;
    if (before != nullptr) {
      before->next = nullptr;  // the secret node is not libcurl's to free
      curl_slist_free_all(head);
    }
  }
  heads_.clear();
}

SecretHeaderList::~SecretHeaderList() {
  release_ordinary_nodes();
  // memory_ wipes the node and the line and unmaps them.
}

SharedCache::SharedCache() : share_(curl_share_init()) {
  if (share_ == nullptr) throw TransportError("libcurl could not create a share handle (out of memory)");
  curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &SharedCache::lock);
  curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &SharedCache::unlock);
  curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

SharedCache::~SharedCache() { curl_share_cleanup(share_); }

void SharedCache::lock(CURL* /*handle*/, curl_lock_data data, curl_lock_access /*access*/, void* self) noexcept {
  auto* cache = static_cast<SharedCache*>(self);
  const auto index = static_cast<std::size_t>(data);
  if (index < cache->mutexes_.size()) cache->mutexes_[index].lock();
}

void SharedCache::unlock(CURL* /*handle*/, curl_lock_data data, void* self) noexcept {
  auto* cache = static_cast<SharedCache*>(self);
  const auto index = static_cast<std::size_t>(data);
  if (index < cache->mutexes_.size()) cache->mutexes_[index].unlock();
}

}  // namespace trunk::detail
