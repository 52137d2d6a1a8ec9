#pragma once
// Validation of a bulk call's inputs, all at once, before anything is sent.

#include <string>
#include <vector>

#include "trunk/bulk.hpp"
#include "trunk/requests.hpp"

namespace trunk::detail {

/// One request per id, in input order. Throws one ValidationError listing every problem: the repo and
/// org_url_slug (once, under their own names), every bad id (as "test_ids[<index>]"), and a concurrency
/// outside 1..kMaxBulkConcurrency.
std::vector<GetTestDetailsRequest> validate_bulk_details(const Repo& repo, const std::string& org_url_slug,
                                                         const std::vector<std::string>& test_ids,
                                                         const BulkOptions& options);

}  // namespace trunk::detail
