#pragma once
// The history as a JSON file, so a user can pin or hand-edit the data the sandbox serves.
//
// {"format": "trunk-sandbox-data", "version": 1, "now": "2026-11-20T12:00:00Z",
//  "repos": [{"host": ..., "owner": ..., "name": ..., "html_url": ..., "failure_messages": [...],
//             "tests": [{"id", "name", "classname", "parent", "file_path", "variant", "codeowners": [...],
//                        "quarantined": bool, "ticket_url": "" , "runs": [[time_us, pull_request, failure], ...]}]}]}
// `failure` is -1 for a passing run, else an index into failure_messages; time_us is microseconds since the
// Unix epoch.

#include <string>

#include "history.hpp"

namespace trunk::sandbox {

/// Writes atomically (temporary file in the same directory, fsync, rename). Throws trunk::Error on failure.
void save_history(const History& history, const std::string& path);

/// Throws trunk::Error naming the file and the JSON path of the first problem.
History load_history(const std::string& path);

/// Writes `contents` to `path` atomically: temp file in the same directory, fsync, rename, fsync directory.
void write_file_atomically(const std::string& path, const std::string& contents);

/// Whole file as a string; throws trunk::Error when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace trunk::sandbox
