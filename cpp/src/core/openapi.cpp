// The OpenAPI 3.1 document, generated from the declarations: operations.hpp gives the paths, the field lists
// the schemas, the enumerations their values. Nothing of the API (a path, a wire name, an enum value) is
// written here, so the document cannot drift from what the client sends and the sandbox checks; only the
// prose of the error answers is, since no declaration carries it.
#include "trunk/openapi.hpp"
#include "trunk/wire_request.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/models.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/operations.hpp"
#include "trunk/time.hpp"
#include "trunk/version.hpp"
#include "trunk/webhook_event_shapes.hpp"
#include "trunk/webhook_events.hpp"

namespace trunk {

namespace {

// Insertion order: the document reads top-down (openapi, info, ..., components) and is the same every time.
using Doc = nlohmann::ordered_json;

constexpr std::string_view kSchemasPrefix = "#/components/schemas/";
constexpr std::string_view kResponsesPrefix = "#/components/responses/";
// Also the header's name (docs/reference/service.md#authentication).
constexpr std::string_view kSecurityScheme = "x-api-token";
/// v2's credential: an API key as a bearer token (docs/reference/credentials.md).
constexpr std::string_view kApiKeyScheme = "apiKey";

/// Which side of the exchange a schema describes: requests are strict, answers tolerant (as the decoders).
enum class Side { request, answer };

template <typename T>
constexpr Side side_of() {
  return schema::HasExtras<T> ? Side::answer : Side::request;
}

Doc ref(std::string_view prefix, std::string_view name) {
  return Doc{{"$ref", std::string(prefix) + std::string(name)}};
}

/// Does a request accept fewer values of E than an answer may report (QueueState's switching_modes)?
template <schema::DescribedEnum E>
constexpr bool narrower_in_requests() {
  return schema::Enum<E>::options.requestable < schema::Enum<E>::wire.size();
}

/// The component that lists the values a request may carry: the enumeration's own, or "<Name>Request".
template <schema::DescribedEnum E>
std::string request_enum_name() {
  std::string name(schema::Enum<E>::name);
  return narrower_in_requests<E>() ? name + "Request" : name;
}

Doc wire_values(std::span<const std::string_view> values) {
  Doc list = Doc::array();
  for (const auto value : values) list.push_back(std::string(value));
  return list;
}

std::string joined(std::span<const std::string_view> values) {
  std::string text;
  for (const auto value : values) text += (text.empty() ? "" : ", ") + std::string(value);
  return text;
}

template <typename T, Side side>
Doc value_schema(const schema::Rules& rules);

/// A value that is one of several alternatives (told apart by their JSON kinds).
template <typename T, Side side, std::size_t... I>
Doc variant_schema(const schema::Rules& rules, std::index_sequence<I...>) {
  Doc alternatives = Doc::array();
  (alternatives.push_back(value_schema<std::variant_alternative_t<I, T>, side>(rules)), ...);
  return Doc{{"oneOf", std::move(alternatives)}};
}

/// The schema of one value of type T (a field's type, or an element of a list). May carry a "description"
/// of its own (open enumerations), which the field's description then precedes.
template <typename T, Side side>
Doc value_schema(const schema::Rules& rules) {
  if constexpr (schema::IsOptional<T>::value || schema::IsVector<T>::value) {
    // Absent is "not required", not null: the client does not send null, the service promises no null
    // (model_schema adds null only to a request field declared nullable).
    Doc inner = value_schema<typename T::value_type, side>(rules);
    if constexpr (schema::IsOptional<T>::value) {
      return inner;
    } else {
      Doc out{{"type", "array"}, {"items", std::move(inner)}};
      if (rules.min_items > 0) out["minItems"] = rules.min_items;
      if (rules.max_items != std::numeric_limits<std::size_t>::max()) out["maxItems"] = rules.max_items;
      return out;
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    Doc out{{"type", "string"}};
    if (rules.uuid) out["format"] = "uuid";
    if (rules.non_empty) out["minLength"] = 1;
    if (rules.max_length != std::numeric_limits<std::size_t>::max()) out["maxLength"] = rules.max_length;
    return out;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    Doc out{{"type", "integer"}, {"format", "int64"}};
    if (rules.min != std::numeric_limits<std::int64_t>::min()) out["minimum"] = rules.min;
    if (rules.max != std::numeric_limits<std::int64_t>::max()) out["maximum"] = rules.max;
    return out;
  } else if constexpr (std::is_same_v<T, double>) {
    return Doc{{"type", "number"}, {"format", "double"}};
  } else if constexpr (std::is_same_v<T, bool>) {
    return Doc{{"type", "boolean"}};
  } else if constexpr (std::is_same_v<T, Timestamp>) {
    return Doc{{"type", "string"}, {"format", "date-time"}};
  } else if constexpr (schema::DescribedEnum<T>) {
    // A closed enumeration: a request may carry only its requestable values.
    return ref(kSchemasPrefix,
               side == Side::request ? request_enum_name<T>() : std::string(schema::Enum<T>::name));
  } else if constexpr (requires { typename T::is_open_enum; }) {
    // Answers may carry values this library does not know yet (the decoder keeps them raw): a closed `enum`
    // would make a validator reject an answer the library reads fine. The known values are examples.
    using E = typename T::enum_type;
    return Doc{{"type", "string"},
               {"description", "Known values: " + joined(schema::Enum<E>::wire) + " (see " +
                                   std::string(schema::Enum<E>::name) + "); the service may add others."},
               {"examples", wire_values(schema::Enum<E>::wire)}};
  } else if constexpr (schema::Described<T>) {
    return ref(kSchemasPrefix, schema::Model<T>::name);
  } else if constexpr (schema::IsVariant<T>::value) {
    return variant_schema<T, side>(rules, std::make_index_sequence<std::variant_size_v<T>>{});
  } else if constexpr (std::is_same_v<T, Json>) {
    return Doc::object();  // any JSON value: the description gives no shape
  } else {
    static_assert(sizeof(T) == 0, "a field type the OpenAPI document does not know how to describe");
  }
}

/// The schema of a model. A request's path parameters (Rules::path) are in its path, never in a body or a query:
/// they are left out (path_parameters() describes them).
template <schema::Described T>
Doc model_schema() {
  constexpr Side side = side_of<T>();
  Doc properties = Doc::object();
  Doc required = Doc::array();
  schema::for_each_field<T>([&](const auto& field) {
    if (field.rules.path) return;
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    Doc property = value_schema<Member, side>(field.rules);
    if (field.rules.nullable) {
      // A request's one kind of null (the published description's "or null", read as absent), and an answer's
      // declared null (v2's nextCursor on the last page).
      if (!property.contains("oneOf")) property = Doc{{"oneOf", Doc::array({std::move(property)})}};
      property["oneOf"].push_back(Doc{{"type", "null"}});
    }
    std::string description(field.doc);
    if (property.contains("description")) description += ". " + property["description"].get<std::string>();
    property["description"] = description;
    properties[std::string(field.wire)] = std::move(property);
    if (field.rules.required) required.push_back(std::string(field.wire));
  });
  Doc out{{"type", "object"},
          {"description", std::string(schema::Model<T>::doc)},
          {"properties", std::move(properties)}};
  if (!required.empty()) out["required"] = std::move(required);
  // The sandbox rejects a request with an unknown key; an answer may grow keys (the decoder keeps them).
  out["additionalProperties"] = side == Side::answer;
  return out;
}

/// Adds a component, refusing a second one of the same name (two declarations would otherwise merge).
void add_component(Doc& schemas, const std::string& name, Doc schema) {
  if (schemas.contains(name)) throw std::logic_error("OpenAPI: two schemas named " + name);
  schemas[name] = std::move(schema);
}

template <schema::DescribedEnum E>
void add_enum(Doc& schemas) {
  using D = schema::Enum<E>;
  add_component(
      schemas, std::string(D::name),
      Doc{{"type", "string"}, {"description", std::string(D::doc)}, {"enum", wire_values(D::wire)}});
  if constexpr (narrower_in_requests<E>()) {
    const auto requestable = enum_requestable_values<E>();
    add_component(schemas, request_enum_name<E>(),
                  Doc{{"type", "string"},
                      {"description", "The values of " + std::string(D::name) + " a request may carry (" +
                                          joined(requestable) + "); the others are reported only."},
                      {"enum", wire_values(requestable)}});
  }
}

Doc text_answer(std::string description) {
  return Doc{{"description", std::move(description)},
             {"content", {{"text/plain", {{"schema", {{"type", "string"}}}}}}}};
}

/// The error answers every operation may give: one line of plain text (docs/reference/service.md#errors), not JSON.
Doc error_responses() {
  Doc rate_limited = text_answer(
      "Rate limited (the limit is per organization, shared by all its tokens). Retryable after Retry-After.");
  rate_limited["headers"] = {{"Retry-After",
                              {{"description", "When to retry: seconds, or an HTTP-date. May be missing."},
                               {"schema", {{"type", "string"}}}}}};
  return Doc{
      {"BadRequest",
       text_answer("Invalid request: malformed JSON, a wrong type, an unknown key, or a broken rule "
                   "(required, range, UUID, enumeration, time window). Not retryable.")},
      {"Unauthorized", text_answer("The x-api-token header is missing or not a valid token.")},
      {"NotFound", text_answer("Unknown organization, repository or test case.")},
      {"TooManyRequests", std::move(rate_limited)},
      {"ServerError",
       text_answer(
           "Server error, including a page_token the service did not issue for this query. Retryable.")},
  };
}

/// The error answers of v2: the JSON envelope {"error": {"code", "message"}} (docs/reference/v2.md#errors).
Doc v2_error_responses() {
  const auto envelope = [](std::string description) {
    return Doc{{"description", std::move(description)},
               {"content", {{"application/json", {{"schema", ref(kSchemasPrefix, "ErrorResponse")}}}}}};
  };
  Doc rate_limited = envelope("Rate limited. Retryable after Retry-After. From the edge it may come without the "
                              "envelope.");
  rate_limited["headers"] = {{"Retry-After",
                              {{"description", "When to retry: seconds, or an HTTP-date. May be missing."},
                               {"schema", {{"type", "string"}}}}}};
  return Doc{
      {"V2BadRequest", envelope("VALIDATION_FAILED (a broken rule, named in the message) or INVALID_CURSOR.")},
      {"V2Unauthorized", envelope("AUTHENTICATION_REQUIRED or INVALID_TOKEN: no API key, or not a valid one.")},
      {"V2Forbidden", envelope("INSUFFICIENT_PERMISSIONS: the key lacks the permission this operation needs.")},
      {"V2NotFound", envelope("The resource does not exist, or belongs to another organization.")},
      {"V2Conflict", envelope("The resource's state forbids it (QUEUE_ALREADY_EXISTS, QUEUE_HAS_ACTIVE_ENTRIES, "
                              "PR_ALREADY_ENQUEUED, MODE_CHANGE_IN_PROGRESS, ...).")},
      {"V2Unprocessable", envelope("The request is well formed but cannot be carried out now (PR_NOT_ENQUEUEABLE, "
                                   "PR_TESTS_NOT_RESTARTABLE, MERGE_QUEUE_NOT_CREATABLE, ...).")},
      {"V2TooManyRequests", std::move(rate_limited)},
      {"V2ServerError", envelope("INTERNAL_ERROR. Retryable.")},
      {"V2UpstreamError", envelope("UPSTREAM_ERROR: a service behind Trunk's API failed. Retryable.")},
  };
}

/// The error envelope's schema.
Doc error_envelope_schema() {
  return Doc{{"type", "object"},
             {"description", "The error answer of every v2 operation."},
             {"required", Doc::array({"error"})},
             {"properties",
              {{"error",
                {{"type", "object"},
                 {"required", Doc::array({"code", "message"})},
                 {"properties",
                  {{"code", {{"type", "string"}, {"description", "A machine-readable code; new ones may appear."}}},
                   {"message", {{"type", "string"}, {"description", "For people; not stable."}}}}}}}}}};
}

/// The path parameters of request T, and for a GET or DELETE its query parameters, each with its field's schema.
template <schema::Described T>
Doc parameters_of(bool query) {
  Doc out = Doc::array();
  schema::for_each_field<T>([&](const auto& field) {
    if (!field.rules.path && !query) return;
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    Doc parameter{{"name", std::string(field.wire)},
                  {"in", field.rules.path ? "path" : "query"},
                  {"required", field.rules.path || field.rules.required},
                  {"description", std::string(field.doc)},
                  {"schema", value_schema<Member, Side::request>(field.rules)}};
    if constexpr (schema::IsVector<schema::unwrap_optional_t<Member>>::value) {
      parameter["style"] = "form";
      parameter["explode"] = false;  // comma-separated, as v2 takes lists
    }
    out.push_back(std::move(parameter));
  });
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// A v2 operation: its parameters, its body (POST, PUT, PATCH), its declared success and the envelope's errors.
template <typename Op>
Doc v2_operation_object(const Doc& errors) {
  using Request = typename Op::Request;
  using Response = typename Op::Response;
  Doc out{{"operationId", std::string(Op::name)},
          {"summary", std::string(Op::doc)},
          {"tags", Doc::array({std::string(Op::resource)})},
          {"x-trunk-repeatable", Op::repeat == Repeat::safe},
          {"security", Doc::array({{{std::string(kApiKeyScheme), Doc::array()}}})}};
  const bool query = Op::method == std::string_view("GET") || Op::method == std::string_view("DELETE");
  if (Doc parameters = parameters_of<Request>(query); !parameters.empty()) out["parameters"] = std::move(parameters);
  if (!query && has_body_fields<Request>()) {
    out["requestBody"] = {{"required", true},
                          {"content",
                           {{"application/json", {{"schema", ref(kSchemasPrefix, schema::Model<Request>::name)}}}}}};
  }
  Doc answer{{"description", std::string(schema::Model<Response>::doc)}};
  if constexpr (kTextAnswer<Response>) {  // the metrics: Prometheus text
    answer = text_answer(std::string(schema::Model<Response>::doc));
  } else if constexpr (!std::is_same_v<Response, NoContent>) {
    answer["content"] = {{"application/json", {{"schema", ref(kSchemasPrefix, schema::Model<Response>::name)}}}};
  }
  Doc responses{{std::to_string(Op::status), std::move(answer)}};
  // Every v2 operation declares the same errors: the union of what the publisher lists per operation (docs/
  // reference/v2.md says where that differs).
  const std::pair<const char*, const char*> codes[] = {
      {"400", "V2BadRequest"},    {"401", "V2Unauthorized"},    {"403", "V2Forbidden"},
      {"404", "V2NotFound"},      {"409", "V2Conflict"},        {"422", "V2Unprocessable"},
      {"429", "V2TooManyRequests"}, {"500", "V2ServerError"},   {"502", "V2UpstreamError"}};
  for (const auto& [code, name] : codes) {
    if (!errors.contains(name)) throw std::logic_error(std::string("OpenAPI: no error answer named ") + name);
    responses[code] = ref(kResponsesPrefix, name);
  }
  out["responses"] = std::move(responses);
  return out;
}

template <typename Op>
Doc operation_object(const Doc& errors) {
  using Response = typename Op::Response;
  if constexpr (Op::credential == Credential::api_key) {
    return v2_operation_object<Op>(errors);
  } else {
  Doc out{{"operationId", std::string(Op::name)},
          {"summary", std::string(Op::doc)},
          {"x-trunk-repeatable", Op::repeat == Repeat::safe},
          {"security", Op::credential == Credential::none
                           ? Doc::array()  // the publisher's `security: []` (GET /v1/status)
                           : Doc::array({{{std::string(kSecurityScheme), Doc::array()}}})}};
  if constexpr (Op::method == std::string_view("POST")) {
    out["requestBody"] = {{"required", true},
                          {"content",
                           {{"application/json",
                             {{"schema", ref(kSchemasPrefix, schema::Model<typename Op::Request>::name)}}}}}};
  }
  if constexpr (Op::method == std::string_view("GET") && requires(const typename Op::Request& r) { r.repo; }) {
    // The one GET (getMergeQueueMetrics) carries its repository as the metrics guide queries it; whether it
    // must comes from the request's declaration.
    using RepoMember = decltype(Op::Request::repo);
    const bool repo_required = !schema::IsOptional<RepoMember>::value;
    const std::string repo_doc = repo_required ? "owner/name" : "owner/name; absent: every repository";
    out["parameters"] = Doc::array(
        {{{"name", "repo"}, {"in", "query"}, {"required", repo_required}, {"description", repo_doc},
          {"schema", {{"type", "string"}, {"pattern", "^.+/[^/]+$"}}}},
         {{"name", "repoHost"}, {"in", "query"}, {"required", false},
          {"description", "the repository's host (github.com when not given); only with repo, which it qualifies: "
                          "alone it names no repository and is refused (400)"},
          {"schema", {{"type", "string"}, {"minLength", 1}}}}});
  }
  Doc answer;
  if constexpr (kTextAnswer<Response>) {
    answer = text_answer(std::string(schema::Model<Response>::doc) +
                         " On the wire: the Prometheus text exposition format, version 0.0.4.");
  } else {
    answer = Doc{{"description", std::string(schema::Model<Response>::doc)},
                 {"content", {{"application/json", {{"schema", ref(kSchemasPrefix, schema::Model<Response>::name)}}}}}};
  }
  Doc responses{{"200", std::move(answer)}};
  if constexpr (std::is_same_v<Op, op::CreateQueue>) {
    // Not in the service's description, but in its guides: a second createQueue of a branch is a conflict.
    responses["409"] = text_answer("The queue already exists.");
  }
  const std::pair<const char*, const char*> codes[] = {{"400", "BadRequest"},
                                                       {"401", "Unauthorized"},
                                                       {"404", "NotFound"},
                                                       {"429", "TooManyRequests"},
                                                       {"500", "ServerError"}};
  for (const auto& [code, name] : codes) {
    if (!errors.contains(name)) throw std::logic_error(std::string("OpenAPI: no error answer named ") + name);
    responses[code] = ref(kResponsesPrefix, name);
  }
  out["responses"] = std::move(responses);
  return out;
  }
}

/// The headers of every delivery (docs/webhooks.md, "Verifying a delivery").
Doc delivery_headers() {
  const std::pair<const char*, const char*> headers[] = {
      {"svix-id", "The message's id, the same on every retry: the key to de-duplicate by."},
      {"svix-timestamp", "Unix seconds of this attempt, signed; refused when outside the tolerance (5 minutes)."},
      {"svix-signature",
       "Space-separated \"v1,<base64 HMAC-SHA256>\" entries over \"{svix-id}.{svix-timestamp}.{body}\"; "
       "any one may match (several while the secret rotates)."}};
  Doc out = Doc::array();
  for (const auto& [name, description] : headers) {
    out.push_back({{"name", name}, {"in", "header"}, {"required", true}, {"description", description},
                   {"schema", {{"type", "string"}}}});
  }
  return out;
}

/// The JSON schema of one merge queue event type, as Trunk publishes it: the fields of its model that its family
/// and action carry (webhook_event_shapes.hpp), those it always carries required, its type, action and status
/// constant, and a reason field's values listed as an `enum` (what the service sends; the SDK's reader still
/// takes a value it does not list).
template <typename Event>
Doc queue_event_schema(WebhookEventType type, const event_shape::QueueEventKind& kind) {
  const std::span<const event_shape::Field> shape =
      kind.batch ? std::span<const event_shape::Field>(event_shape::kBatchFields)
                 : std::span<const event_shape::Field>(event_shape::kPullRequestFields);
  const event_shape::Action& action = event_shape::action_shape(kind.action);
  Doc properties = Doc::object();
  Doc required = Doc::array();
  std::size_t shaped = 0;
  schema::for_each_field<Event>([&](const auto& field) {
    const auto row = std::find_if(shape.begin(), shape.end(), [&](const auto& f) { return f.wire == field.wire; });
    if (row == shape.end()) {
      throw std::logic_error("webhook_event_shapes.hpp: no row for " + std::string(schema::Model<Event>::name) + "." +
                             std::string(field.wire));
    }
    ++shaped;
    const std::optional<bool> carried = event_shape::carried(*row, action);
    if (!carried) return;
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    Doc property = value_schema<Member, Side::answer>(field.rules);
    if (property.contains("examples")) {  // an open enumeration: as sent, its values are a closed list
      property["enum"] = std::move(property["examples"]);
      property.erase("examples");
    }
    property["description"] = std::string(field.doc);
    properties[std::string(field.wire)] = std::move(property);
    if (*carried) required.push_back(std::string(field.wire));
  });
  if (shaped != shape.size()) {
    throw std::logic_error("webhook_event_shapes.hpp: a row names no field of " + std::string(schema::Model<Event>::name));
  }
  const auto constant = [&](const char* name, std::string_view value) {
    properties[name].erase("enum");
    properties[name]["const"] = std::string(value);
  };
  constant("type", to_wire(type));
  constant("action", to_wire(kind.action));
  constant("status", to_wire(kind.action));
  return Doc{{"type", "object"},
             {"description", std::string(schema::Model<Event>::doc)},
             {"properties", std::move(properties)},
             {"required", std::move(required)}};
}

template <schema::Described T>
Doc inline_model_schema();

/// A value's schema with every part spelled out, as a published event's schema is (no $ref), and open
/// enumerations as the closed list of values the sender uses.
template <typename T>
Doc inline_value_schema(const schema::Rules& rules) {
  if constexpr (schema::IsOptional<T>::value) {
    return inline_value_schema<typename T::value_type>(rules);
  } else if constexpr (schema::IsVector<T>::value) {
    return Doc{{"type", "array"}, {"items", inline_value_schema<typename T::value_type>(rules)}};
  } else if constexpr (schema::Described<T>) {
    return inline_model_schema<T>();
  } else if constexpr (requires { typename T::is_open_enum; }) {
    return Doc{{"type", "string"}, {"enum", wire_values(schema::Enum<typename T::enum_type>::wire)}};
  } else {
    return value_schema<T, Side::answer>(rules);
  }
}

template <schema::Described T>
Doc inline_model_schema() {
  Doc properties = Doc::object();
  schema::for_each_field<T>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    Doc property = inline_value_schema<Member>(field.rules);
    if (field.rules.nullable) property = Doc{{"oneOf", Doc::array({std::move(property), Doc{{"type", "null"}}})}};
    property["description"] = std::string(field.doc);
    properties[std::string(field.wire)] = std::move(property);
  });
  return Doc{{"type", "object"}, {"description", std::string(schema::Model<T>::doc)}, {"properties", std::move(properties)}};
}

/// Marks `path` ("a.b", "a[].b": webhook_event_shapes.hpp) required in `schema`; a path naming no field of the
/// model is a mistake in the table, refused when the document is built.
void require_path(Doc& schema, std::string_view path) {
  Doc* node = &schema;
  while (true) {
    const std::size_t dot = path.find('.');
    std::string name(path.substr(0, dot));
    const bool items = name.ends_with("[]");
    if (items) name.resize(name.size() - 2);
    if (!(*node)["properties"].contains(name)) {
      throw std::logic_error("webhook_event_shapes.hpp: no field " + name + " where a path names it");
    }
    if (dot == std::string_view::npos) {
      if (!node->contains("required")) (*node)["required"] = Doc::array();
      (*node)["required"].push_back(name);
      return;
    }
    node = items ? &(*node)["properties"][name]["items"] : &(*node)["properties"][name];
    path.remove_prefix(dot + 1);
  }
}

/// The JSON schema of a flaky-test event whose schema Trunk publishes: its model spelled out, its type constant,
/// and what it always carries required (webhook_event_shapes.hpp).
template <typename Event>
Doc published_flaky_test_event_schema(WebhookEventType type, const event_shape::PublishedEvent& published) {
  Doc schema = inline_model_schema<Event>();
  schema["properties"]["type"].erase("enum");
  schema["properties"]["type"]["const"] = std::string(to_wire(type));
  for (const std::string_view path : published.always) require_path(schema, path);
  for (const std::string_view path : event_shape::kEventTestCaseAlways) require_path(schema, path);
  return schema;
}

/// An event's body: a merge queue event's own schema (its shape depends on its type), a published flaky-test
/// event's spelled out, else its model's.
template <typename Event>
Doc event_body_schema(WebhookEventType type) {
  if constexpr (std::is_same_v<Event, PullRequestEvent> || std::is_same_v<Event, PullRequestBatchEvent>) {
    if (const auto kind = event_shape::queue_event_kind(type)) return queue_event_schema<Event>(type, *kind);
    throw std::logic_error("a merge queue event type whose name gives no family and action: " +
                           std::string(to_wire(type)));
  } else {
    if (const auto* published = event_shape::published_flaky_test_event(type)) {
      return published_flaky_test_event_schema<Event>(type, *published);
    }
    return ref(kSchemasPrefix, schema::Model<Event>::name);
  }
}

/// One entry per event type: what Trunk POSTs (through Svix) to a registered endpoint.
Doc webhooks_section() {
  Doc webhooks = Doc::object();
  const Doc headers = delivery_headers();
#define TRUNK_OPENAPI_WEBHOOK_(enumerator, wire, Event)                                                          \
  webhooks[wire] = {                                                                                             \
      {"post",                                                                                                   \
       {{"operationId", std::string("webhook_") + #enumerator},                                                  \
        {"summary", std::string(schema::Model<Event>::doc)},                                                     \
        {"parameters", headers},                                                                                 \
        {"requestBody",                                                                                          \
         {{"required", true},                                                                                    \
          {"content",                                                                                            \
           {{"application/json", {{"schema", event_body_schema<Event>(WebhookEventType::enumerator)}}}}}}},     \
        {"responses",                                                                                            \
         {{"2XX", {{"description", "Received. Any other answer, or none within 15 s, is retried on the "        \
                                   "delivery schedule."}}}}}}}};
  TRUNK_WEBHOOK_EVENT_TYPES(TRUNK_OPENAPI_WEBHOOK_)
#undef TRUNK_OPENAPI_WEBHOOK_
  return webhooks;
}

std::string build_document() {
  Doc schemas = Doc::object();
#define TRUNK_OPENAPI_MODEL_(Type) \
  add_component(schemas, std::string(schema::Model<Type>::name), model_schema<Type>());
  TRUNK_ALL_MODELS(TRUNK_OPENAPI_MODEL_)
  TRUNK_WEBHOOK_MODELS(TRUNK_OPENAPI_MODEL_)
#undef TRUNK_OPENAPI_MODEL_
#define TRUNK_OPENAPI_ENUM_(Type) add_enum<Type>(schemas);
  TRUNK_ALL_ENUMS(TRUNK_OPENAPI_ENUM_)
  TRUNK_WEBHOOK_ENUMS(TRUNK_OPENAPI_ENUM_)
#undef TRUNK_OPENAPI_ENUM_

  add_component(schemas, "ErrorResponse", error_envelope_schema());
  Doc errors = error_responses();
  errors.update(v2_error_responses());
  Doc paths = Doc::object();
  for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    paths[std::string(Op::path)][lower(Op::method)] = operation_object<Op>(errors);
  });

  Doc document{
      {"openapi", "3.1.0"},
      {"info",
       {{"title", "Trunk API, v1 and v2 (as implemented by trunk-api)"},
        {"version", kVersion},
        {"description",
         "The operations, requests and answers of the Trunk API (v1 and v2; merge queue and flaky tests) "
         "that trunk-api implements, generated from its declarations. v1 takes the organization token "
         "(x-api-token), v2 an API key (Authorization: Bearer trunk_v2_...). Requests are strict: only the listed "
         "properties, only the values a request may carry, no null where none is declared. Answers are tolerant: they may carry "
         "more properties, and enumeration values beyond the known ones. x-trunk-repeatable tells whether a "
         "retry may send the request again. The webhooks are the events Trunk posts to the endpoints an "
         "organization registers, signed as Svix does."}}},
      {"servers", Doc::array({{{"url", "https://api.trunk.io"}}})},
      {"paths", std::move(paths)},
      {"webhooks", webhooks_section()},
      {"components",
       {{"schemas", std::move(schemas)},
        {"responses", errors},
        {"securitySchemes",
         {{std::string(kSecurityScheme),
           {{"type", "apiKey"},
            {"in", "header"},
            {"name", std::string(kSecurityScheme)},
            {"description", "An organization API token (v1)."}}},
          {std::string(kApiKeyScheme),
           {{"type", "http"},
            {"scheme", "bearer"},
            {"description", "A v2 API key, trunk_v2_... (v2)."}}}}}}}};
  return document.dump(2);
}

}  // namespace

std::string openapi_document() {
  // Built once: the declarations are compile-time constants, so every call gives the same text.
  static const std::string document = build_document();
  return document;
}

}  // namespace trunk
