#include "bulk_validation.hpp"

#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace trunk::detail {

std::vector<GetTestDetailsRequest> validate_bulk_details(const Repo& repo, const std::string& org_url_slug,
                                                         const std::vector<std::string>& test_ids,
                                                         const BulkOptions& options) {
  std::vector<Violation> violations;
  if (options.concurrency < 1 || options.concurrency > kMaxBulkConcurrency) {
    violations.push_back(Violation{"concurrency", std::to_string(options.concurrency),
                                   "must be between 1 and " + std::to_string(kMaxBulkConcurrency)});
  }
  std::vector<GetTestDetailsRequest> requests;
  requests.reserve(test_ids.size());
  // The shared fields are checked once (an empty id list still needs a valid repo: the caller's mistake
  // should not depend on how many ids it had).
  for (Violation& v : check(GetTestDetailsRequest{repo, org_url_slug, "00000000-0000-0000-0000-000000000000"})) {
    violations.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < test_ids.size(); ++i) {
    GetTestDetailsRequest request{repo, org_url_slug, test_ids[i]};
    for (Violation& v : check(request)) {
      if (v.field != "test_id") continue;  // repo / org_url_slug problems are already listed once
      v.field = "test_ids[" + std::to_string(i) + "]";
      violations.push_back(std::move(v));
    }
    requests.push_back(std::move(request));
  }
  if (!violations.empty()) throw ValidationError(std::move(violations));
  return requests;
}

}  // namespace trunk::detail
