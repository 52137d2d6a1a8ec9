#pragma once
// RAII owners of every libcurl resource the client uses, and the once-per-process global init.

#include <curl/curl.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "secret_memory.hpp"

namespace trunk::detail {

/// curl_global_init(CURL_GLOBAL_DEFAULT) exactly once per process, thread-safe (std::call_once), with the
/// wiping allocator of curl_memory.hpp. Throws TransportError when libcurl cannot initialise. The matching
/// cleanup is left to process exit: other libraries in the process may use libcurl too, so no single client
/// may tear it down.
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

/// The request headers of one client for CURLOPT_HTTPHEADER: one or more variants of ordinary lines (e.g. for
/// JSON and for text answers), each followed by the same secret line "<name>: <value>" (the API token) that never
/// touches the heap and exists once. curl_slist_append would strdup it into libcurl's heap; instead its node
/// (struct curl_slist is public: {char* data; curl_slist* next}) and its text are built inside SecretMemory and
/// every variant's ordinary nodes are chained to it. libcurl only reads the lists (they must stay valid while a
/// handle uses them: the pool's handles are destroyed before this object). The destructor unchains the secret
/// node before curl_slist_free_all, which would otherwise free() memory it never allocated. Not movable:
/// handles keep a pointer to the lists.
class SecretHeaderList {
 public:
  /// Throws TransportError when libcurl runs out of memory, std::bad_alloc / trunk::Error from SecretMemory.
  /// The secret line is "<secret_name>: <value_prefix><secret_value>" (a prefix such as "Bearer " is part of the
  /// line but not of secret(), which is what a text must never contain).
  SecretHeaderList(const std::vector<std::vector<std::string>>& variants, std::string_view secret_name,
                   std::string_view secret_value, std::string_view value_prefix = {});
  ~SecretHeaderList();
  SecretHeaderList(const SecretHeaderList&) = delete;
  SecretHeaderList& operator=(const SecretHeaderList&) = delete;

  /// The list of variant `variant` (in the order given to the constructor).
  curl_slist* get(std::size_t variant = 0) const noexcept { return heads_[variant]; }
  /// The secret value (inside the secret memory), e.g. for redaction.
  std::string_view secret() const noexcept { return secret_; }
  /// Where the secret node, line and value live (tests check that these pages are excluded from dumps).
  const SecretMemory& secret_memory() const noexcept { return memory_; }

 private:
  /// Frees every variant's ordinary nodes (libcurl's), never the secret node.
  void release_ordinary_nodes() noexcept;

  SecretMemory memory_;
  std::vector<curl_slist*> heads_;  // per variant: ordinary nodes (libcurl's heap), then the secret node
  curl_slist* secret_node_ = nullptr;
  std::string_view secret_;
};

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
