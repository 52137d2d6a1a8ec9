#pragma once
// libcurl's memory, wiped when libcurl frees it.
//
// libcurl copies the request headers, the x-api-token line included, into a heap buffer for every request
// it sends (and keeps received bytes in others), then frees them: freed heap keeps its bytes until reused,
// so a core dump would show them. curl_global_init_mem lets a program give libcurl its allocator; ours is
// malloc/free, except that free (and the old block of a realloc) overwrites the block with explicit_bzero
// first. That costs one memset per free of memory libcurl allocated, nothing else.
//
// The allocator can only be installed by the first curl_global_init of the process. When some other part
// of the process initialised libcurl before the first Client, libcurl silently keeps plain malloc/free; a
// probe detects that (see curl_frees_are_wiped) and the Client logs one warning.

#include <curl/curl.h>

namespace trunk::detail {

/// curl_global_init_mem(CURL_GLOBAL_DEFAULT, <wiping allocator>) exactly once per process, then the probe.
/// Returns libcurl's result (CURLE_OK when libcurl was already initialised by someone else).
CURLcode initialize_curl_with_wiping_allocator();

/// Whether libcurl really frees through the wiping allocator (false until initialised, and when libcurl
/// had been initialised with other memory functions before us).
bool curl_frees_are_wiped() noexcept;

}  // namespace trunk::detail
