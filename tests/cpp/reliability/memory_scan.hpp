#pragma once
// Counts a secret's occurrences in this process's memory the way a core dump would see it, without gdb:
// every readable mapping of /proc/self/smaps is read through /proc/self/mem. Mappings whose VmFlags hold
// `dd` (MADV_DONTDUMP) are counted apart: the kernel leaves them out of every core dump, and everything else
// readable is a superset of what it writes with the default coredump_filter. DONTDUMP mappings over 256 MiB
// (sanitizer shadow memory) are not read.
//
// The needle never exists in plain form in this process (that copy would be found too): it is kept XORed
// with a random mask and compared byte by byte against mask ^ masked. The read buffer is a DONTDUMP mapping
// of its own, skipped by the scan and wiped after each chunk.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trunk::testing {

/// A secret known only masked: byte i of the secret is masked[i] ^ mask[i].
struct MaskedSecret {
  std::vector<unsigned char> masked;
  std::vector<unsigned char> mask;

  std::size_t size() const { return masked.size(); }
  /// The last `n` bytes (all when n >= size()). Scanning for a tail also finds copies whose start the
  /// allocator overwrote when it freed them (glibc keeps its free-list pointers in a freed block's first
  /// 16 bytes), which a search for the whole secret would miss.
  MaskedSecret tail(std::size_t n) const {
    const std::size_t from = n >= size() ? 0 : size() - n;
    return {std::vector<unsigned char>(masked.begin() + static_cast<std::ptrdiff_t>(from), masked.end()),
            std::vector<unsigned char>(mask.begin() + static_cast<std::ptrdiff_t>(from), mask.end())};
  }
  /// Byte i of the secret, computed when compared (never stored).
  unsigned char at(std::size_t i) const { return static_cast<unsigned char>(masked[i] ^ mask[i]); }
};

struct ScanResult {
  std::size_t dumpable = 0;      ///< occurrences in mappings a core dump contains (VmFlags without dd)
  std::size_t dump_excluded = 0; ///< occurrences in DONTDUMP mappings
  std::size_t mappings_read = 0;
  bool main_stack_skipped = false;  ///< only in sanitizer builds, see memory_scan.cpp
  std::size_t dont_dump_bytes_skipped = 0;  ///< DONTDUMP mappings over 256 MiB (sanitizer shadow), not read
  std::size_t bytes_read = 0;
  std::vector<std::string> dumpable_places;  ///< "start-end path" of the mappings holding dumpable hits
};

/// Occurrences of the secret in `text`.
std::size_t count_occurrences(std::string_view text, const MaskedSecret& secret);

/// Scans this process. Throws std::runtime_error when /proc cannot be read.
ScanResult scan_own_memory(const MaskedSecret& secret);

}  // namespace trunk::testing
