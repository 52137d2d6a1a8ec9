#pragma once
// The test collections of Trunk's v2 flaky-test API (docs/reference/v2.md#flaky-tests): the set of tests one
// upload stream feeds, with its quarantine settings. Every other flaky-test operation takes a collection's id,
// as a filter or in its path.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

/// The longest name and description a collection may have (the description's maxLength).
inline constexpr std::size_t kMaxCollectionNameLength = 100;
inline constexpr std::size_t kMaxCollectionDescriptionLength = 500;

#define TRUNK_TEST_COLLECTION_FIELDS(X)                                                                       \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the collection's id (8 letters and digits)") \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "its name")                              \
  X(std::optional<std::string>, description, "description", {}, schema::kRequiredNullable, "its description")  \
  X(std::optional<std::int64_t>, test_case_count, "testCaseCount", {}, schema::kRequired,                     \
    "distinct tests its ingested uploads hold (0 until the first)")                                          \
  X(std::optional<bool>, quarantine_enabled, "quarantineEnabled", {}, schema::kRequired,                      \
    "whether quarantining is on")                                                                            \
  X(std::optional<bool>, auto_quarantine_enabled, "autoQuarantineEnabled", {}, schema::kRequired,             \
    "whether flaky tests are quarantined automatically")                                                     \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when it was created")          \
  X(std::optional<Timestamp>, updated_at, "updatedAt", {}, schema::kRequired, "when it last changed")

struct TestCollection {
  TRUNK_MEMBERS(TRUNK_TEST_COLLECTION_FIELDS)
  Extras extra;
  bool operator==(const TestCollection&) const = default;
};
TRUNK_DESCRIBE(TestCollection, "A test collection: the tests of one upload stream, and its quarantine settings.",
               TRUNK_TEST_COLLECTION_FIELDS)

#define TRUNK_TEST_COLLECTION_LIST_FIELDS(X)                                                                  \
  X(std::vector<TestCollection>, data, "data", {}, schema::kRequired, "the collections of this page")          \
  TRUNK_V2_PAGE_FIELDS(X)

struct TestCollectionList {
  TRUNK_MEMBERS(TRUNK_TEST_COLLECTION_LIST_FIELDS)
  Extras extra;
  bool operator==(const TestCollectionList&) const = default;
};
TRUNK_DESCRIBE(TestCollectionList, "One page of test collections.", TRUNK_TEST_COLLECTION_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_LIST_TEST_COLLECTIONS_FIELDS(X)                                                                 \
  X(std::optional<std::string>, q, "q", {}, (schema::Rules{.non_empty = true}),                               \
    "only collections whose name holds this text (any case)")                                                \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ListTestCollectionsRequest {
  TRUNK_MEMBERS(TRUNK_LIST_TEST_COLLECTIONS_FIELDS)
  bool operator==(const ListTestCollectionsRequest&) const = default;
};
TRUNK_DESCRIBE(ListTestCollectionsRequest, "The organization's test collections, newest first.",
               TRUNK_LIST_TEST_COLLECTIONS_FIELDS)

#define TRUNK_CREATE_TEST_COLLECTION_FIELDS(X)                                                                \
  X(std::string, name, "name", {}, (schema::Rules{.required = true, .non_empty = true,                        \
                                                  .max_length = kMaxCollectionNameLength}),                  \
    "its name, 1 to 100 characters (the service trims spaces at either end)")                               \
  X(std::optional<std::string>, description, "description", {},                                              \
    (schema::Rules{.max_length = kMaxCollectionDescriptionLength}), "its description, at most 500 characters")

struct CreateTestCollectionRequest {
  TRUNK_MEMBERS(TRUNK_CREATE_TEST_COLLECTION_FIELDS)
  bool operator==(const CreateTestCollectionRequest&) const = default;
};
TRUNK_DESCRIBE(CreateTestCollectionRequest, "A new test collection.", TRUNK_CREATE_TEST_COLLECTION_FIELDS)

#define TRUNK_TEST_COLLECTION_ID_FIELD(X) \
  X(std::string, id, "id", {}, schema::kPathId, "the collection's id (8 letters and digits)")

struct TestCollectionRef {
  TRUNK_MEMBERS(TRUNK_TEST_COLLECTION_ID_FIELD)
  bool operator==(const TestCollectionRef&) const = default;
};
TRUNK_DESCRIBE(TestCollectionRef, "A test collection, by id.", TRUNK_TEST_COLLECTION_ID_FIELD)

#define TRUNK_TEST_COLLECTION_V2_ANSWER_MODELS(X) X(TestCollection) X(TestCollectionList)
#define TRUNK_TEST_COLLECTION_V2_REQUEST_MODELS(X) \
  X(ListTestCollectionsRequest) X(CreateTestCollectionRequest) X(TestCollectionRef)

}  // namespace trunk
