#include "data_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/validation.hpp"

namespace trunk::sandbox {

namespace {

constexpr const char* kFormat = "trunk-sandbox-data";
constexpr int kVersion = 1;

[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  throw trunk::Error(what + " " + path + ": " + std::strerror(errno));
}

// Reads the JSON with the path of every value at hand, so a bad file gets an error that says where.
class Reader {
 public:
  Reader(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw trunk::Error("data file " + file_ + ": " + (path.empty() ? "" : path + ": ") + problem);
  }
  const Json& member(const Json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) fail(path.empty() ? key : path + "." + key, "missing");
    return *it;
  }
  std::string string(const Json& object, const std::string& path, const char* key) const {
    const Json& value = member(object, path, key);
    if (!value.is_string()) fail(join(path, key), "expected a string");
    return value.get<std::string>();
  }
  const Json& array(const Json& object, const std::string& path, const char* key) const {
    const Json& value = member(object, path, key);
    if (!value.is_array()) fail(join(path, key), "expected an array");
    return value;
  }
  std::vector<std::string> strings(const Json& object, const std::string& path, const char* key) const {
    std::vector<std::string> out;
    const Json& values = array(object, path, key);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_string()) fail(join(path, key) + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(values[i].get<std::string>());
    }
    return out;
  }
  static std::string join(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

 private:
  std::string file_;
};

Run read_run(const Reader& reader, const Json& value, const std::string& path, std::size_t message_count) {
  if (!value.is_array() || value.size() != 3 || !value[0].is_number_integer() || !value[1].is_number_integer() ||
      !value[2].is_number_integer()) {
    reader.fail(path, "expected [time_us, pull_request, failure] (three integers)");
  }
  Run run;
  run.time_us = value[0].get<std::int64_t>();
  const auto pr = value[1].get<std::int64_t>();
  const auto failure = value[2].get<std::int64_t>();
  if (pr < 0 || pr > 4294967295) reader.fail(path, "pull_request must be between 0 and 4294967295");
  if (failure < -1 || failure >= static_cast<std::int64_t>(message_count)) {
    reader.fail(path, "failure must be -1 (passed) or an index into failure_messages (0.." +
                          std::to_string(static_cast<std::int64_t>(message_count) - 1) + ")");
  }
  run.pull_request = static_cast<std::uint32_t>(pr);
  run.failure = static_cast<std::int32_t>(failure);
  return run;
}

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_io("cannot open", path);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) fail_io("cannot read", path);
  return contents.str();
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  static std::atomic<unsigned> counter{0};
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot create", temp);
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      errno = saved;
      fail_io("cannot write", temp);
    }
    written += static_cast<std::size_t>(n);
  }
  // fsync before rename: after a crash the file is either the old or the new version, never half of one.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail_io("cannot flush", temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    fail_io("cannot rename onto", path);
  }
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {  // best effort: makes the rename itself durable
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void save_history(const History& history, const std::string& path) {
  Json repos = Json::array();
  for (const RepoHistory& repo : history.repos) {
    Json tests = Json::array();
    for (const TestRecord& test : repo.tests) {
      Json runs = Json::array();
      for (const Run& run : test.runs) runs.push_back(Json::array({run.time_us, run.pull_request, run.failure}));
      tests.push_back({{"id", test.id},
                       {"name", test.name},
                       {"classname", test.classname},
                       {"parent", test.parent},
                       {"file_path", test.file_path},
                       {"variant", test.variant},
                       {"codeowners", test.codeowners},
                       {"quarantined", test.quarantined},
                       {"ticket_url", test.ticket_url},
                       {"runs", std::move(runs)}});
    }
    repos.push_back({{"host", repo.repo.host},
                     {"owner", repo.repo.owner},
                     {"name", repo.repo.name},
                     {"html_url", repo.html_url},
                     {"failure_messages", repo.failure_messages},
                     {"tests", std::move(tests)}});
  }
  const Json document = {{"format", kFormat},
                         {"version", kVersion},
                         {"now", trunk::format_rfc3339(history.now)},
                         {"repos", std::move(repos)}};
  write_file_atomically(path, document.dump());
}

History load_history(const std::string& path) {
  const Reader reader(path);
  Json document;
  try {
    document = Json::parse(read_file(path));
  } catch (const Json::parse_error& e) {
    reader.fail("", std::string("malformed JSON: ") + e.what());
  }
  if (reader.string(document, "", "format") != kFormat) reader.fail("format", "expected \"trunk-sandbox-data\"");
  const Json& version = reader.member(document, "", "version");
  if (!version.is_number_integer() || version.get<std::int64_t>() != kVersion) reader.fail("version", "expected 1");
  History history;
  std::string problem;
  const std::string now_text = reader.string(document, "", "now");
  auto now = trunk::try_parse_rfc3339(now_text, &problem);
  if (!now) reader.fail("now", "not an RFC 3339 timestamp (" + problem + ")");
  history.now = *now;

  const Json& repos = reader.array(document, "", "repos");
  std::set<std::string> repo_names;
  for (std::size_t r = 0; r < repos.size(); ++r) {
    const std::string rpath = "repos[" + std::to_string(r) + "]";
    RepoHistory repo;
    repo.repo = {reader.string(repos[r], rpath, "host"), reader.string(repos[r], rpath, "owner"),
                 reader.string(repos[r], rpath, "name")};
    if (!trunk::check(repo.repo, rpath).empty()) reader.fail(rpath, "host, owner and name must be non-empty");
    if (!repo_names.insert(repo.repo.to_string()).second) reader.fail(rpath, "repository listed twice");
    repo.html_url = reader.string(repos[r], rpath, "html_url");
    repo.failure_messages = reader.strings(repos[r], rpath, "failure_messages");
    const Json& tests = reader.array(repos[r], rpath, "tests");
    std::set<std::string> ids;
    for (std::size_t t = 0; t < tests.size(); ++t) {
      const std::string tpath = rpath + ".tests[" + std::to_string(t) + "]";
      const Json& value = tests[t];
      TestRecord test;
      test.id = reader.string(value, tpath, "id");
      if (!trunk::is_uuid(test.id)) reader.fail(tpath + ".id", "not a UUID: " + test.id);
      std::transform(test.id.begin(), test.id.end(), test.id.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (!ids.insert(test.id).second) reader.fail(tpath + ".id", "duplicate test id " + test.id);
      test.name = reader.string(value, tpath, "name");
      test.classname = reader.string(value, tpath, "classname");
      test.parent = reader.string(value, tpath, "parent");
      test.file_path = reader.string(value, tpath, "file_path");
      test.variant = reader.string(value, tpath, "variant");
      test.codeowners = reader.strings(value, tpath, "codeowners");
      const Json& quarantined = reader.member(value, tpath, "quarantined");
      if (!quarantined.is_boolean()) reader.fail(tpath + ".quarantined", "expected a boolean");
      test.quarantined = quarantined.get<bool>();
      test.ticket_url = reader.string(value, tpath, "ticket_url");
      const Json& runs = reader.array(value, tpath, "runs");
      test.runs.reserve(runs.size());
      for (std::size_t i = 0; i < runs.size(); ++i) {
        test.runs.push_back(
            read_run(reader, runs[i], tpath + ".runs[" + std::to_string(i) + "]", repo.failure_messages.size()));
      }
      std::stable_sort(test.runs.begin(), test.runs.end(),
                       [](const Run& a, const Run& b) { return a.time_us < b.time_us; });
      repo.tests.push_back(std::move(test));
    }
    history.repos.push_back(std::move(repo));
  }
  return history;
}

}  // namespace trunk::sandbox
