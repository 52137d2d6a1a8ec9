#include "curl_handles.hpp"

#include <string>

#include "trunk/error.hpp"

namespace trunk::detail {

void ensure_curl_initialized() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
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
