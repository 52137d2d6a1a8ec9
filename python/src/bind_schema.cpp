// _core.declarations.schema() and option_rows(): the declarations of the API and of the engines' options (describe.hpp, operations.hpp) as Python data, so that what is
// written in Python about the API is derived, not spelled again: the .pyi stubs (scripts/generate-stubs), the
// CLI's options for every settable field with their help (trunk_api/cli.py), enum values and defaults.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "bindings.hpp"
#include "build_request.hpp"
#include "listing_iterator.hpp"
#include "trunk/listings.hpp"
#include "model_values.hpp"
#include "trunk/models.hpp"
#include "trunk/operations.hpp"
#include "trunk/webhook_events.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

template <typename V>
std::string python_type();

/// "A | B" for a variant (an enum alternative also accepts its wire string).
template <typename V, std::size_t... I>
std::string variant_type(std::index_sequence<I...>) {
  std::string out;
  auto add = [&]<typename X>(std::type_identity<X>) {
    out += (out.empty() ? "" : " | ") + python_type<X>();
    if constexpr (schema::DescribedEnum<X>) out += " | str";
  };
  (add(std::type_identity<std::variant_alternative_t<I, V>>{}), ...);
  return out;
}

/// The Python type annotation of a field's value.
template <typename V>
std::string python_type() {
  if constexpr (schema::IsOptional<V>::value) {
    return python_type<typename V::value_type>() + " | None";
  } else if constexpr (requires { typename V::is_open_enum; }) {
    return std::string(schema::Enum<typename V::enum_type>::name) + " | str";
  } else if constexpr (schema::DescribedEnum<V>) {
    return std::string(schema::Enum<V>::name);
  } else if constexpr (schema::Described<V>) {
    return std::string(schema::Model<V>::name);
  } else if constexpr (schema::IsVector<V>::value) {
    return "list[" + python_type<typename V::value_type>() + "]";
  } else if constexpr (schema::IsVariant<V>::value) {
    return variant_type<V>(std::make_index_sequence<std::variant_size_v<V>>{});
  } else if constexpr (std::is_same_v<V, Json>) {
    return "Any";
  } else if constexpr (std::is_same_v<V, Timestamp>) {
    return "datetime";
  } else if constexpr (std::is_same_v<V, std::string>) {
    return "str";
  } else if constexpr (std::is_same_v<V, bool>) {
    return "bool";
  } else if constexpr (std::is_same_v<V, std::int64_t>) {
    return "int";
  } else {
    static_assert(std::is_same_v<V, double>, "a field type the schema export does not know");
    return "float";
  }
}

/// The enumeration a field takes its values from ("" when none).
template <typename V>
std::string enum_of() {
  using Value = schema::unwrap_optional_t<V>;
  if constexpr (requires { typename Value::is_open_enum; }) {
    return std::string(schema::Enum<typename Value::enum_type>::name);
  } else if constexpr (schema::DescribedEnum<Value>) {
    return std::string(schema::Enum<Value>::name);
  } else {
    return "";
  }
}

/// Whether T is a request part bound as a class of its own (TRUNK_DYNAMIC_CI_V2_REQUEST_PARTS).
template <typename T>
constexpr bool is_request_part() {
#define TRUNK_IS_PART_(Type) std::is_same_v<T, Type> ||
  return TRUNK_DYNAMIC_CI_V2_REQUEST_PARTS(TRUNK_IS_PART_) false;
#undef TRUNK_IS_PART_
}

template <schema::Described T>
py::dict describe_model() {
  py::list fields;
  schema::for_each_field<T>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    py::dict entry;
    entry["name"] = std::string(field.name);
    entry["wire"] = std::string(field.wire);
    entry["type"] = python_type<Member>();
    entry["optional"] = schema::IsOptional<Member>::value;
    entry["enum"] = enum_of<Member>();
    entry["doc"] = std::string(field.doc);
    entry["required"] = field.rules.required;
    entry["page_position"] = field.rules.page_position;
    // A part a call takes as its own fields (pr -> number, sha; Dynamic CI's repo -> owner, name, host): the one
    // rule (build_request.hpp) the CLI, the v2 resources and the stubs read here rather than spell again.
    entry["flattened"] = kFlattened<Member>;
    // The declared default of a field that is neither optional nor required (take = 50): what is sent when the
    // caller does not say.
    if constexpr (!schema::IsOptional<Member>::value && !schema::Described<Member>) {
      entry["default"] = to_python(T{}.*(field.member));
    } else {
      entry["default"] = py::none();
    }
    entry["min"] = field.rules.has_range() ? py::object(py::int_(field.rules.min)) : py::object(py::none());
    entry["max"] = field.rules.has_range() ? py::object(py::int_(field.rules.max)) : py::object(py::none());
    fields.append(entry);
  });
  py::dict model;
  model["name"] = std::string(schema::Model<T>::name);
  model["doc"] = std::string(schema::Model<T>::doc);
  model["answer"] = schema::HasExtras<T>;
  // Whether Python has a class of it: every answer, Repo, and the request parts given whole (bind_models.cpp).
  model["bound"] = schema::HasExtras<T> || std::is_same_v<T, Repo> || is_request_part<T>();
  model["fields"] = fields;
  return model;
}

template <schema::DescribedEnum E>
py::dict describe_enum() {
  using Description = schema::Enum<E>;
  py::list members;
  for (std::size_t i = 0; i < Description::wire.size(); ++i) {
    members.append(py::make_tuple(std::string(Description::names[i]), std::string(Description::wire[i])));
  }
  py::list requestable;
  for (const auto wire : enum_requestable_values<E>()) requestable.append(std::string(wire));
  py::dict entry;
  entry["name"] = std::string(Description::name);
  entry["doc"] = std::string(Description::doc);
  entry["members"] = members;
  entry["requestable"] = requestable;
  entry["case_insensitive_input"] = Description::options.case_insensitive_input;
  return entry;
}

py::dict describe_api() {
  py::list models;
#define TRUNK_DESCRIBE_MODEL_(Type) models.append(describe_model<Type>());
  TRUNK_ALL_MODELS(TRUNK_DESCRIBE_MODEL_)
  TRUNK_WEBHOOK_MODELS(TRUNK_DESCRIBE_MODEL_)
#undef TRUNK_DESCRIBE_MODEL_
  py::list enums;
#define TRUNK_DESCRIBE_ENUM_(Type) enums.append(describe_enum<Type>());
  TRUNK_ALL_ENUMS(TRUNK_DESCRIBE_ENUM_)
  TRUNK_WEBHOOK_ENUMS(TRUNK_DESCRIBE_ENUM_)
#undef TRUNK_DESCRIBE_ENUM_
  py::list operations;
  for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    py::dict entry;
    entry["name"] = std::string(Op::name);
    entry["method"] = std::string(Op::method);
    entry["path"] = std::string(Op::path);
    entry["request"] = std::string(schema::Model<typename Op::Request>::name);
    entry["response"] = std::string(schema::Model<typename Op::Response>::name);
    entry["safe_to_repeat"] = Op::repeat == Repeat::safe;
    entry["doc"] = std::string(Op::doc);
    entry["status"] = Op::status;
    entry["version"] = Op::credential == Credential::api_key ? 2 : 1;
    entry["resource"] = std::string(Op::resource);  // v2: client.v2.<resource>.<verb>
    entry["verb"] = std::string(Op::verb);
    if constexpr (requires { PageTraits<typename Op::Response>::style; }) {
      // The Python class of the listing's iterator (bind_pager.cpp names it).
      entry["iterator"] = py::type::of<ListingIterator<typename Op::Response>>().attr("__name__");
      entry["iter"] = iterator_method_name(Op::name);  // the client's lazy iterator method
    }
    operations.append(entry);
  });
  py::dict api;
  api["models"] = models;
  api["enums"] = enums;
  api["operations"] = operations;
  return api;
}

}  // namespace

void bind_schema(py::module_& m) {
  m.def("schema", &describe_api,
        "The API as declared in C++: models (fields with wire names, types, docs, rules), enumerations and "
        "operations. Used to generate the stubs and the command line's options.");
  m.def("option_rows", [](const std::string& of) {
    py::list rows;
    if (!describe_client_options(of, rows) && !describe_sandbox_options(of, rows)) {
      throw py::value_error("option_rows: no options named " + of + " (client, bulk, sandbox, faults)");
    }
    return rows;
  }, py::arg("of"),
        "The declared options (option_rows.hpp) of client, bulk, sandbox or faults as dicts: name, cpp_member, type, "
        "default, rule, unit, flag, choices, secret, variables, doc; "
        "the facades' signatures, the stubs, the command line and the docs' table are made from them.");
}

}  // namespace trunk::python
