#pragma once
// RAII owners of every libcurl resource the client uses, and the once-per-process global init.

#include <curl/curl.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>

namespace trunk::detail {

/// curl_global_init(CURL_GLOBAL_DEFAULT) exactly once per process, thread-safe (std::call_once).
/// Throws TransportError when libcurl cannot initialise. The matching cleanup is left to process exit:
/// other libraries in the process may use libcurl too, so no single client may tear it down.
void ensure_curl_initialized();

struct EasyDeleter {
  void operator()(CURL* handle) const noexcept { curl_easy_cleanup(handle); }
};
struct MultiDeleter {
  void operator()(CURLM* handle) const noexcept { curl_multi_cleanup(handle); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
struct UrlDeleter {
  void operator()(CURLU* url) const noexcept { curl_url_cleanup(url); }
};
struct CurlStringDeleter {
  void operator()(char* text) const noexcept { curl_free(text); }
};

using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using MultiHandle = std::unique_ptr<CURLM, MultiDeleter>;
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;
using CurlString = std::unique_ptr<char, CurlStringDeleter>;

/// New handles; throw TransportError when libcurl is out of memory.
EasyHandle make_easy();
MultiHandle make_multi();

/// Appends one header line ("Name: value"); throws TransportError on allocation failure.
void append_header(HeaderList& list, const std::string& line);

/// A CURLSH sharing the DNS cache and TLS sessions between all handles of one client, with one mutex per
/// kind of data as libcurl requires for use from several threads. The connection cache is deliberately not
/// shared: libcurl does not support sharing connections between concurrently running threads; the client
/// pools whole handles instead (see connection_pool.hpp).
/// Not movable: libcurl keeps a pointer to this object for the lock callbacks.
class SharedCache {
 public:
  SharedCache();
  ~SharedCache();
  SharedCache(const SharedCache&) = delete;
  SharedCache& operator=(const SharedCache&) = delete;

  CURLSH* get() const noexcept { return share_; }

 private:
  static void lock(CURL* handle, curl_lock_data data, curl_lock_access access, void* self) noexcept;
  static void unlock(CURL* handle, curl_lock_data data, void* self) noexcept;

  CURLSH* share_ = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> mutexes_;
};

}  // namespace trunk::detail
