#include "memory_scan.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace trunk::testing {

namespace {

struct Mapping {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  bool readable = false;
  bool dont_dump = false;
  bool special = false;  // [vvar] / [vsyscall]: not readable through /proc/self/mem
  bool main_stack = false;
  std::size_t hits = 0;
};

/// An anonymous DONTDUMP mapping used as scratch memory: the scan allocates nothing on the heap, because a
/// heap allocation could reuse (and overwrite) a freed block holding a copy before it is counted.
class Scratch {
 public:
  explicit Scratch(std::size_t size) : size_(size) {
    base_ = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap of scan scratch memory failed");
    ::madvise(base_, size_, MADV_DONTDUMP);
  }
  ~Scratch() {
    ::explicit_bzero(base_, size_);
    ::munmap(base_, size_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  unsigned char* data() const { return static_cast<unsigned char*>(base_); }
  std::size_t size() const { return size_; }
  std::uintptr_t begin() const { return reinterpret_cast<std::uintptr_t>(base_); }
  std::uintptr_t end() const { return begin() + size_; }

 private:
  void* base_;
  std::size_t size_;
};

/// Reads all of `path` into `into`; returns its length. Throws when it does not fit.
std::size_t read_whole(const char* path, const Scratch& into) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open /proc/self/smaps");
  std::size_t length = 0;
  for (;;) {
    const ssize_t got = ::read(fd, into.data() + length, into.size() - length);
    if (got <= 0) break;
    length += static_cast<std::size_t>(got);
    if (length == into.size()) {
      ::close(fd);
      throw std::runtime_error("/proc/self/smaps is larger than the scan's scratch memory");
    }
  }
  ::close(fd);
  return length;
}

bool starts_with(const char* text, const char* end, const char* prefix) {
  const std::size_t n = std::strlen(prefix);
  return static_cast<std::size_t>(end - text) >= n && std::memcmp(text, prefix, n) == 0;
}

/// Parses smaps text into `mappings` (capacity `capacity`); returns how many.
std::size_t parse_smaps(const char* text, std::size_t length, Mapping* mappings, std::size_t capacity) {
  std::size_t count = 0;
  const char* const end = text + length;
  for (const char* line = text; line < end;) {
    const char* line_end = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    if (line_end == nullptr) line_end = end;
    const char* space = static_cast<const char*>(std::memchr(line, ' ', static_cast<std::size_t>(line_end - line)));
    const char* dash = static_cast<const char*>(std::memchr(line, '-', static_cast<std::size_t>(line_end - line)));
    if (space != nullptr && dash != nullptr && dash < space && space[-1] != ':') {  // "start-end perms ..."
      if (count == capacity) throw std::runtime_error("too many mappings for the scan's scratch memory");
      Mapping& mapping = mappings[count++];
      mapping = Mapping{};
      mapping.start = std::strtoull(line, nullptr, 16);
      mapping.end = std::strtoull(dash + 1, nullptr, 16);
      mapping.readable = space[1] == 'r';
      const std::size_t line_length = static_cast<std::size_t>(line_end - line);
      const auto ends_with = [&](const char* name) {
        const std::size_t n = std::strlen(name);
        return line_length >= n && std::memcmp(line_end - n, name, n) == 0;
      };
      mapping.special = ends_with("[vvar]") || ends_with("[vsyscall]");
      mapping.main_stack = ends_with("[stack]");
    } else if (count > 0 && starts_with(line, line_end, "VmFlags:")) {
      for (const char* flag = line + 8; flag + 2 <= line_end; ++flag) {
        if (flag[-1] == ' ' && flag[0] == 'd' && flag[1] == 'd' && (flag + 2 == line_end || flag[2] == ' ')) {
          mappings[count - 1].dont_dump = true;
        }
      }
    }
    line = line_end + 1;
  }
  return count;
}

/// Occurrences of the secret starting in data[0, starts) (data holds starts + secret.size() - 1 bytes or
/// fewer at the end of a mapping).
std::size_t count_in(const unsigned char* data, std::size_t length, std::size_t starts, const MaskedSecret& secret) {
  const std::size_t n = secret.size();
  if (n == 0 || length < n) return 0;
  std::size_t found = 0;
  const std::size_t last_start = std::min(starts, length - n + 1);
  const unsigned char first = secret.at(0);  // one byte of the secret: not findable on its own
  for (std::size_t i = 0; i < last_start; ++i) {
    const void* next = std::memchr(data + i, first, last_start - i);
    if (next == nullptr) break;
    i = static_cast<std::size_t>(static_cast<const unsigned char*>(next) - data);
    std::size_t j = 1;
    while (j < n && data[i + j] == secret.at(j)) ++j;
    if (j == n) ++found;
  }
  return found;
}

}  // namespace

std::size_t count_occurrences(std::string_view text, const MaskedSecret& secret) {
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  return count_in(data, text.size(), text.size(), secret);
}

ScanResult scan_own_memory(const MaskedSecret& secret) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  constexpr std::size_t kSmapsBytes = std::size_t{16} << 20;
  constexpr std::size_t kMaxMappings = 65536;
  constexpr std::uintptr_t kMaxDontDumpMapping = std::uintptr_t{256} << 20;
  const std::size_t overlap = secret.size() > 0 ? secret.size() - 1 : 0;
  // Everything the scan needs, allocated before it starts and skipped by it.
  Scratch buffer(kChunk + overlap);
  Scratch smaps(kSmapsBytes);
  Scratch mapping_table(kMaxMappings * sizeof(Mapping));
  auto* mappings = reinterpret_cast<Mapping*>(mapping_table.data());
  const std::size_t count =
      parse_smaps(reinterpret_cast<const char*>(smaps.data()), read_whole("/proc/self/smaps", smaps), mappings,
                  kMaxMappings);
  const int memory = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (memory < 0) throw std::runtime_error("cannot open /proc/self/mem");
  const Scratch* const own[] = {&buffer, &smaps, &mapping_table};

  ScanResult result;
  for (std::size_t m = 0; m < count; ++m) {
    Mapping& mapping = mappings[m];
    if (!mapping.readable || mapping.special) continue;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // Instrumented builds leave the scanning thread's own byte comparisons (the test code's, not the client's)
    // in dead frames of its stack, so the main stack is only checked in normal builds. (Sanitizer builds do
    // not write core dumps by default anyway.)
    if (mapping.main_stack) {
      result.main_stack_skipped = true;
      continue;
    }
#endif
    // Huge DONTDUMP mappings are sanitizer shadow memory (terabytes, reserved not used): not read. The secret
    // memory the tests look for is a few pages.
    if (mapping.dont_dump && mapping.end - mapping.start > kMaxDontDumpMapping) {
      result.dont_dump_bytes_skipped += mapping.end - mapping.start;
      continue;
    }
    ++result.mappings_read;
    for (std::uintptr_t at = mapping.start; at < mapping.end; at += kChunk) {
      std::uintptr_t from = at;
      std::uintptr_t to = std::min<std::uintptr_t>(mapping.end, at + kChunk + overlap);
      // Skip the scan's own scratch memory (the kernel may merge adjacent anonymous mappings into one).
      for (const Scratch* scratch : own) {
        if (from < scratch->end() && to > scratch->begin()) {
          if (from >= scratch->begin()) from = std::min<std::uintptr_t>(scratch->end(), to);
          else to = scratch->begin();
        }
      }
      if (from >= to) continue;
      const ssize_t got = ::pread(memory, buffer.data(), to - from, static_cast<off_t>(from));
      if (got <= 0) continue;  // unreadable range (guard pages, device mappings)
      result.bytes_read += static_cast<std::size_t>(got);
      const std::size_t starts = at + kChunk > from ? static_cast<std::size_t>(at + kChunk - from) : 0;
      mapping.hits += count_in(buffer.data(), static_cast<std::size_t>(got), starts, secret);
      ::explicit_bzero(buffer.data(), static_cast<std::size_t>(got));
    }
  }
  ::close(memory);

  // Only now, with the counting done, may the heap be used again.
  for (std::size_t m = 0; m < count; ++m) {
    const Mapping& mapping = mappings[m];
    if (mapping.hits == 0) continue;
    if (mapping.dont_dump) {
      result.dump_excluded += mapping.hits;
      continue;
    }
    result.dumpable += mapping.hits;
    std::ostringstream place;
    place << std::hex << mapping.start << "-" << mapping.end << " (" << std::dec << mapping.hits << ")";
    result.dumpable_places.push_back(place.str());
  }
  return result;
}

}  // namespace trunk::testing
