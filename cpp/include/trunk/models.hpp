#pragma once
// Convenience header: every model and message of the API.
#include "trunk/dynamic_ci_v2.hpp"
#include "trunk/enums.hpp"
#include "trunk/merge_queue_answers.hpp"
#include "trunk/impacted_targets_v2.hpp"
#include "trunk/merge_queue_order.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/monitor_tests_v2.hpp"
#include "trunk/pull_request_v2.hpp"
#include "trunk/queue_entry_history.hpp"
#include "trunk/repository_v2.hpp"
#include "trunk/test_activity_v2.hpp"
#include "trunk/test_case_v2.hpp"
#include "trunk/test_collection_v2.hpp"
#include "trunk/test_quarantine_v2.hpp"
#include "trunk/testing_result.hpp"
#include "trunk/ticket_v2.hpp"
#include "trunk/verification_run.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/page.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/quarantined_test.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"

/// Every described struct (answers, then requests; the lists are beside the messages, in responses.hpp and
/// requests.hpp), for the code instantiated per model.
#define TRUNK_ALL_REQUEST_MODELS(X) \
  TRUNK_REQUEST_MODELS(X) TRUNK_MERGE_QUEUE_REQUEST_MODELS(X) TRUNK_MERGE_QUEUE_V2_REQUEST_MODELS(X) \
  TRUNK_PULL_REQUEST_V2_REQUEST_MODELS(X) TRUNK_REPOSITORY_V2_REQUEST_MODELS(X) \
  TRUNK_VERIFICATION_RUN_V2_REQUEST_MODELS(X) TRUNK_QUEUE_ENTRY_HISTORY_V2_REQUEST_MODELS(X) \
  TRUNK_MERGE_QUEUE_ORDER_V2_REQUEST_MODELS(X) TRUNK_TESTING_RESULT_V2_REQUEST_MODELS(X)                      \
  TRUNK_IMPACTED_TARGETS_V2_REQUEST_MODELS(X) TRUNK_MERGE_QUEUE_TESTING_RESULTS_REQUEST_MODELS(X) \
  TRUNK_SERVICE_STATUS_REQUEST_MODELS(X) TRUNK_TEST_COLLECTION_V2_REQUEST_MODELS(X) \
  TRUNK_TEST_CASE_V2_REQUEST_MODELS(X) TRUNK_TEST_ACTIVITY_V2_REQUEST_MODELS(X) TRUNK_TICKET_V2_REQUEST_MODELS(X) \
  TRUNK_TEST_QUARANTINE_V2_REQUEST_MODELS(X) TRUNK_DYNAMIC_CI_V2_REQUEST_MODELS(X) \
  TRUNK_MONITOR_TESTS_V2_REQUEST_MODELS(X)
#define TRUNK_ALL_MODELS(X) TRUNK_ANSWER_MODELS(X) TRUNK_ALL_REQUEST_MODELS(X)
