// Webhook events and Svix-compatible verification (trunk/webhook_event.hpp, trunk/webhook_signature.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <variant>

#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/models.hpp"
#include "trunk/webhook_signature.hpp"

namespace trunk {
namespace {

using namespace std::chrono_literals;

// The vector Svix's own libraries test their signing with (docs/webhooks.md, "A known answer").
constexpr const char* kVectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kVectorId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t kVectorTimestamp = 1614265330;
constexpr const char* kVectorBody = R"({"test": 2432232314})";
constexpr const char* kVectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

std::chrono::system_clock::time_point at(std::int64_t unix_seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds));
}

WebhookHeaders vector_headers(std::string signature = kVectorSignature) {
  return {kVectorId, std::to_string(kVectorTimestamp), std::move(signature)};
}

WebhookFailure failure_of(const auto& call) {
  try {
    call();
  } catch (const WebhookVerificationError& error) {
    return error.reason();
  }
  ADD_FAILURE() << "no WebhookVerificationError";
  return WebhookFailure::malformed_body;
}

TEST(WebhookSignature, SignsThePublishedVector) {
  EXPECT_EQ(sign_webhook(WebhookSecret(kVectorSecret), kVectorId, kVectorTimestamp, kVectorBody), kVectorSignature);
  // The bare base64 form of the secret is the same key.
  EXPECT_EQ(sign_webhook(WebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), kVectorId, kVectorTimestamp, kVectorBody),
            kVectorSignature);
}

TEST(WebhookSignature, VerifiesThePublishedVectorOnItsClock) {
  const WebhookSecret secret(kVectorSecret);
  EXPECT_NO_THROW(verify_webhook_signature(secret, vector_headers(), kVectorBody, 300s, at(kVectorTimestamp)));
  // The published negative case.
  EXPECT_EQ(failure_of([&] {
              verify_webhook_signature(secret, vector_headers("v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="),
                                       kVectorBody, 300s, at(kVectorTimestamp));
            }),
            WebhookFailure::bad_signature);
}

TEST(WebhookSignature, ToleranceBoundariesBothWays) {
  const WebhookSecret secret(kVectorSecret);
  const auto verify_at = [&](std::int64_t now) {
    verify_webhook_signature(secret, vector_headers(), kVectorBody, 300s, at(now));
  };
  EXPECT_NO_THROW(verify_at(kVectorTimestamp + 300));  // exactly the tolerance old: accepted
  EXPECT_NO_THROW(verify_at(kVectorTimestamp - 300));  // exactly the tolerance ahead: accepted
  EXPECT_EQ(failure_of([&] { verify_at(kVectorTimestamp + 301); }), WebhookFailure::timestamp_outside_tolerance);
  EXPECT_EQ(failure_of([&] { verify_at(kVectorTimestamp - 301); }), WebhookFailure::timestamp_outside_tolerance);
  // The real clock: the 2021 vector is stale.
  EXPECT_EQ(failure_of([&] { verify_webhook_signature(secret, vector_headers(), kVectorBody); }),
            WebhookFailure::timestamp_outside_tolerance);
}

TEST(WebhookSignature, AnyListedV1SignatureMatchesDuringRotation) {
  const WebhookSecret secret(kVectorSecret);
  const std::string other = sign_webhook(WebhookSecret::generate(), kVectorId, kVectorTimestamp, kVectorBody);
  for (const std::string& header :
       {other + " " + kVectorSignature, std::string(kVectorSignature) + " " + other,
        "v1a,c29tZXRoaW5nIGVsc2U= " + std::string(kVectorSignature), "v2,xyz " + std::string(kVectorSignature)}) {
    EXPECT_NO_THROW(verify_webhook_signature(secret, vector_headers(header), kVectorBody, 300s, at(kVectorTimestamp)))
        << header;
  }
  EXPECT_EQ(failure_of([&] {
              verify_webhook_signature(secret, vector_headers(other), kVectorBody, 300s, at(kVectorTimestamp));
            }),
            WebhookFailure::bad_signature);
  // The signature of another version with our bytes does not count.
  EXPECT_EQ(failure_of([&] {
              verify_webhook_signature(secret, vector_headers("v1a," + std::string(kVectorSignature).substr(3)),
                                       kVectorBody, 300s, at(kVectorTimestamp));
            }),
            WebhookFailure::bad_signature);
}

TEST(WebhookSignature, RefusesForgedTruncatedAndAlteredDeliveries) {
  const WebhookSecret secret(kVectorSecret);
  const auto check = [&](WebhookHeaders headers, std::string body) {
    return failure_of([&] { verify_webhook_signature(secret, headers, body, 300s, at(kVectorTimestamp)); });
  };
  const std::string body = kVectorBody;
  EXPECT_EQ(check(vector_headers(), body.substr(0, body.size() - 1)), WebhookFailure::bad_signature);  // truncated
  EXPECT_EQ(check(vector_headers(), body + " "), WebhookFailure::bad_signature);
  EXPECT_EQ(check(vector_headers(std::string(kVectorSignature).substr(0, 20)), body), WebhookFailure::bad_signature);
  WebhookHeaders other_id = vector_headers();
  other_id.id = "msg_other";
  EXPECT_EQ(check(other_id, body), WebhookFailure::bad_signature);
  // Signed with another secret.
  const std::string forged = sign_webhook(WebhookSecret::generate(), kVectorId, kVectorTimestamp, body);
  EXPECT_EQ(check(vector_headers(forged), body), WebhookFailure::bad_signature);
}

TEST(WebhookSignature, MissingAndMalformedHeaders) {
  const WebhookSecret secret(kVectorSecret);
  const auto check = [&](WebhookHeaders headers) {
    return failure_of([&] { verify_webhook_signature(secret, headers, kVectorBody, 300s, at(kVectorTimestamp)); });
  };
  WebhookHeaders headers = vector_headers();
  headers.id.reset();
  EXPECT_EQ(check(headers), WebhookFailure::missing_header);
  headers = vector_headers();
  headers.timestamp = "";
  EXPECT_EQ(check(headers), WebhookFailure::missing_header);
  headers = vector_headers();
  headers.signature.reset();
  EXPECT_EQ(check(headers), WebhookFailure::missing_header);
  for (const char* timestamp : {"1614265330.5", "abc", "1614265330 ", "-", "99999999999999999999999"}) {
    headers = vector_headers();
    headers.timestamp = timestamp;
    EXPECT_EQ(check(headers), WebhookFailure::malformed_header) << timestamp;
  }
  headers = vector_headers("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");  // no "v1,"
  EXPECT_EQ(check(headers), WebhookFailure::malformed_header);
}

TEST(WebhookSignature, SecretFormatsAndMessagesThatNeverShowTheSecret) {
  for (const char* text : {"", "whsec_", "whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",
                           "whsec_MfKQ9r8GKYqrTwjU!D8ILPZIo2LaLaSw", "whsec_ MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}) {
    try {
      WebhookSecret secret(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const WebhookVerificationError& error) {
      EXPECT_EQ(error.reason(), WebhookFailure::bad_secret_format);
      if (std::string(text).size() > 8) {
        EXPECT_EQ(std::string(error.what()).find(std::string(text).substr(8)), std::string::npos);
      }
    }
  }
  // Nothing of the body nor the secret in a bad-signature message.
  const std::string body = R"({"type":"pull_request.merged","author":"octo-secret-body"})";
  try {
    verify_webhook_signature(WebhookSecret(kVectorSecret), vector_headers(), body, 300s, at(kVectorTimestamp));
    ADD_FAILURE();
  } catch (const WebhookVerificationError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find("octo-secret-body"), std::string::npos);
    EXPECT_EQ(message.find("MfKQ9r8"), std::string::npos);
    EXPECT_NE(message.find("bad_signature"), std::string::npos);
  }
}

// HMAC's key handling at its boundaries: a key of up to one SHA-256 block (64 bytes) is used as it is, a longer
// one is hashed first (RFC 2104). Expected values from Python's hmac module, an independent implementation.
TEST(WebhookSignature, KeysOfEveryLengthSignAsHmacSha256Does) {
  // RFC 4231, test case 7: a 131-byte key and data longer than a block; its two dots split it into Svix's
  // "{id}.{timestamp}.{body}" (the body empty).
  const WebhookSecret rfc(std::string("whsec_") + std::string(174, 'q') + "o=");
  EXPECT_EQ(rfc.signature("This is a test using a larger than block-size key and a larger than block-size data",
                          " The key needs to be hashed before being used by the HMAC algorithm", ""),
            "mwn/pxuUL8snY1+81bDpRL/cY2RPBxOTin9RU1w6NeI=");  // 9b09ffa7...3a35e2 in hex, as published
  // Keys of bytes (7 i + 3) mod 256: 1 byte, exactly one block, one byte more, the largest allowed.
  const std::string block =
      "AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dzj6vH4/wYNFBsiKTA3PkVMU1phaG92fYSLkpmgp661vA==";
  const std::string longest =
      "AwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dzj6vH4/wYNFBsiKTA3PkVMU1phaG92fYSLkpmgp661vMPK0djf5u30+wIJEBceJSwz"
      "OkFIT1ZdZGtyeYCHjpWco6qxuL/GzdTb4unw9/4FDBMaISgvNj1ES1JZYGdudXyDipGYn6attLvCydDX3uXs8/oBCA8WHSQrMjlAR05VXGNq"
      "cXh/ho2Um6KpsLe+xczT2uHo7/b9BAsSGSAnLjU8Q0pRWF9mbXR7gomQl56lrLO6wcjP1t3k6/L5AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qh"
      "qK+2vcTL0tng5+71/A==";
  const struct {
    int bytes;
    std::string key;
    const char* expected;
  } cases[] = {{1, "Aw==", "Dbb1+3qBaVBq0TjJybu3X83Lah+U5NZat0mmSsbTcwA="},
               {64, block, "r8GJKijEtQWstOLglcqpvFiIE1Ak6suaT4E6VvLB6wU="},
               {65, block.substr(0, 84) + "vMM=", "j5r9f5KOXINapkdHB3IPm7ARoxBZrO7t4VMz0WYpxVc="},
               {256, longest, "E0RJt8RcesyGIwEBxWmCdxlTuFWCd68MJyDy6SShEUU="}};
  for (const auto& each : cases) {
    const WebhookSecret secret("whsec_" + each.key);
    const std::string id = "msg_key" + std::to_string(each.bytes);
    const std::string body = R"({"type":"pull_request.merged"})";
    EXPECT_EQ(secret.signature(id, "1700000000", body), each.expected) << each.bytes << " key bytes";
    // A copy of the secret signs the same, and verification accepts what it signs.
    EXPECT_EQ(WebhookSecret(secret).signature(id, "1700000000", body), each.expected) << each.bytes;
    EXPECT_NO_THROW(verify_webhook(secret, {id, "1700000000", std::string("v1,") + each.expected}, body, 300s,
                                   at(1700000000)));
  }
}

TEST(WebhookSignature, GeneratedSecretsRoundTrip) {
  const WebhookSecret secret = WebhookSecret::generate();
  const std::string text = secret.reveal();
  EXPECT_TRUE(text.starts_with("whsec_"));
  EXPECT_EQ(text.size(), 6u + 32u);  // 24 bytes of key
  EXPECT_NE(text, WebhookSecret::generate().reveal());
  const std::string signature = sign_webhook(secret, "msg_1", 1000, "{}");
  EXPECT_NO_THROW(verify_webhook_signature(WebhookSecret(text), {"msg_1", "1000", signature}, "{}", 300s, at(1000)));
}

TEST(WebhookSignature, HugeBodiesAreCheckedWhole) {
  const WebhookSecret secret = WebhookSecret::generate();
  std::string body = R"({"type":"pull_request.merged","pad":")" + std::string(16 << 20, 'x') + "\"}";
  const std::string signature = sign_webhook(secret, "msg_big", 1000, body);
  const WebhookEvent event = verify_webhook(secret, {"msg_big", "1000", signature}, body, 300s, at(1000));
  EXPECT_TRUE(std::holds_alternative<PullRequestEvent>(event));
  body[body.size() / 2] = 'y';
  EXPECT_EQ(failure_of([&] { verify_webhook(secret, {"msg_big", "1000", signature}, body, 300s, at(1000)); }),
            WebhookFailure::bad_signature);
}

TEST(WebhookSignature, ASignedBodyThatIsNotAnEventIsRefused) {
  const WebhookSecret secret = WebhookSecret::generate();
  for (const std::string& body : {std::string("{\"type\":\"pull_request.merged\",\"author\":\"\xff\xfe\"}"),
                                 std::string("[1,2]"), std::string("not json"), std::string("{\"pr_number\":"),
                                 std::string(R"({"type":"pull_request.merged","pr_number":"seven"})")}) {
    const std::string signature = sign_webhook(secret, "msg_1", 1000, body);
    try {
      verify_webhook(secret, {"msg_1", "1000", signature}, body, 300s, at(1000));
      ADD_FAILURE() << body;
    } catch (const WebhookVerificationError& error) {
      EXPECT_EQ(error.reason(), WebhookFailure::malformed_body) << body;
      EXPECT_EQ(std::string(error.what()).find("seven"), std::string::npos);
    }
  }
}

TEST(WebhookEvents, DispatchOnTheType) {
  const WebhookEvent failed = construct_webhook_event(
      R"({"type":"pull_request.failed","timestamp":"2026-03-02T17:04:11Z","action":"failed","status":"failed",)"
      R"("author":"octo-dev","pr_number":4211,"repository":{"host":"github.com","owner":"acme","name":"webapp"},)"
      R"("target_branch":"main","batched":true,"is_bisection":false,"failure_reason":"TEST_RUN_REQUIRED_STATUS_FAILED",)"
      R"("brand_new":{"x":1}})");
  const auto& pr = std::get<PullRequestEvent>(failed);
  EXPECT_EQ(pr.type->known(), WebhookEventType::pull_request_failed);
  EXPECT_EQ(*pr.action, QueueEventAction::failed);
  EXPECT_EQ(pr.pr_number, 4211);
  EXPECT_EQ(pr.repository->owner, "acme");
  EXPECT_EQ(*pr.failure_reason, QueueFailureReason::test_run_required_status_failed);
  EXPECT_EQ(pr.extra["brand_new"]["x"], 1);  // unknown keys kept
  EXPECT_EQ(to_json(pr)["brand_new"]["x"], 1);

  const WebhookEvent v2 = construct_webhook_event(
      R"({"type":"v2.test_case.status_changed","previous_status":"HEALTHY","new_status":"FLAKY",)"
      R"("triggered_by":{"monitor_type":"pass_on_retry","monitor_status":"active"},)"
      R"("test_case":{"id":"c1d2e3f4-0000-4a4a-8b8b-123456789abc","name":"logs in","codeowners":["@acme/id"]}})");
  const auto& status = std::get<TestCaseStatusChangedEvent>(v2);
  EXPECT_EQ(*status.new_status, QuarantinedTestStatus::flaky);
  EXPECT_EQ(*status.triggered_by->monitor_status, MonitorStatus::active);
  EXPECT_EQ(status.test_case->name, "logs in");

  EXPECT_TRUE(std::holds_alternative<LegacyTestCaseStatusChangedEvent>(construct_webhook_event(
      R"({"type":"test_case.status_changed","status_change":{"previous_status":"healthy","current_status":{"value":"flaky"}}})")));
  const WebhookEvent batch = construct_webhook_event(
      R"({"type":"pull_request_batch.failed","action":"failed","pr_numbers":[4209,4211],"pr_numbers_in_batch":[4209,4211,4212],)"
      R"("failure_reason":"TEST_RUN_BLEW_UP","is_bisection":false})");
  const auto& failed_batch = std::get<PullRequestBatchEvent>(batch);
  EXPECT_EQ(failed_batch.pr_numbers, (std::vector<std::int64_t>{4209, 4211}));
  EXPECT_EQ(failed_batch.pr_numbers_in_batch->size(), 3U);
  EXPECT_FALSE(failed_batch.failure_reason->known());  // a reason Trunk adds later is kept as sent
  EXPECT_EQ(failed_batch.failure_reason->wire(), "TEST_RUN_BLEW_UP");
}

TEST(WebhookEvents, UnknownTypesAndOldPayloadsNeverFail) {
  const WebhookEvent unknown = construct_webhook_event(R"({"type":"pull_request.teleported","warp":9})");
  const auto& event = std::get<UnknownEvent>(unknown);
  EXPECT_EQ(*event.type, "pull_request.teleported");
  EXPECT_EQ(event.extra["warp"], 9);
  EXPECT_TRUE(std::holds_alternative<UnknownEvent>(construct_webhook_event(R"({"no_type":true})")));
  EXPECT_TRUE(std::holds_alternative<UnknownEvent>(construct_webhook_event(R"({"type":42})")));
  // Old pull_request.* payloads have no type: the action tells.
  const WebhookEvent old = construct_webhook_event(R"({"action":"merged","status":"merged","pr_number":7})");
  EXPECT_EQ(std::get<PullRequestEvent>(old).pr_number, 7);
  // Unknown enumeration values are kept raw.
  const WebhookEvent vanished = construct_webhook_event(R"({"type":"pull_request.merged","status":"vanished"})");
  const auto& odd = std::get<PullRequestEvent>(vanished);
  EXPECT_FALSE(odd.status->is_known());
  EXPECT_EQ(odd.status->wire(), "vanished");
  EXPECT_THROW(construct_webhook_event("[]"), DecodeError);
}

TEST(WebhookEvents, ATypeGivenTwiceCountsAsItsLastOccurrenceAsTheDecoderReadsIt) {
  // The model is chosen by the same occurrence the decoder then reads into `type`, so they agree.
  const WebhookEvent twice = construct_webhook_event(
      R"({"type":"pull_request.merged","type":"test_case.monitor_status_changed","monitor":{"status":"active"}})");
  const auto& monitor = std::get<TestCaseMonitorStatusChangedEvent>(twice);
  EXPECT_EQ(monitor.type->known(), WebhookEventType::test_case_monitor_status_changed);
  EXPECT_EQ(*monitor.monitor->status, MonitorStatus::active);
  // A last `type` that is no string leaves no type: the event is unknown, as if the first were not there.
  EXPECT_TRUE(std::holds_alternative<UnknownEvent>(
      construct_webhook_event(R"({"type":"pull_request.merged","type":7,"pr_number":1})")));
  // An integer beyond 64 bits makes the fast parser stop: the type is then read the slow way, with the same rule.
  const WebhookEvent huge = construct_webhook_event(
      R"({"type":"test_case.investigation_completed","type":"pull_request.merged","big":123456789012345678901234567890})");
  EXPECT_TRUE(std::holds_alternative<PullRequestEvent>(huge));
}

}  // namespace
}  // namespace trunk
