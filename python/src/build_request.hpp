#pragma once
// The Python call of an operation, derived from its request's declaration (describe.hpp), so that a new
// operation is bound without code here:
//   - the request's required fields are the positional (or keyword) parameters, in declaration order
//     (repo, org_url_slug, start_time, ...); a page_query field is flattened into the keywords page_size
//     (default 100) and page_token (default ""); another described part is flattened into its own fields
//     (pr -> number, sha), reported by their wire paths (pr.number);
//   - its optional fields are keyword-only, None meaning "not sent"; a field with a declared default (take)
//     is keyword-only too, and is sent with that default when not given;
//   - a variant takes whichever alternative the Python type fits (priority: int or str; targets: list or "ALL");
//   - each value is converted by its declared type (a Repo or "host/owner/name", str, int, bool, datetime or
//     RFC 3339, enum member or wire string, list of str), every problem named by its wire path, then
//     validate()'s rules add theirs: one ValidationError lists everything, and nothing is sent.
// A wrong call (unknown keyword, missing argument) is a TypeError, as for any Python function.

#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "convert_args.hpp"
#include "convert_json.hpp"
#include "trunk/codec.hpp"
#include "trunk/describe.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/page.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"

namespace trunk::python {

template <typename V>
void convert_value(ArgCollector& args, pybind11::handle value, const std::string& path, V& out);
template <typename M>
void convert_model(ArgCollector& args, pybind11::handle value, const std::string& path, M& out);
template <typename M>
void convert_model_list(ArgCollector& args, pybind11::handle value, const std::string& path, std::vector<M>& out);
template <typename X>
void convert_list(ArgCollector& args, pybind11::handle value, const std::string& path, std::vector<X>& out);

/// Whether a Python value can be the alternative X of a variant (told apart by Python type, as on the wire by
/// JSON kind): str for text and enums, int (not bool) for integers, list/tuple for lists.
template <typename X>
bool python_value_fits(pybind11::handle value) {
  namespace py = pybind11;
  if constexpr (std::is_same_v<X, std::string> || schema::DescribedEnum<X>) {
    return py::isinstance<py::str>(value) || (schema::DescribedEnum<X> && py::hasattr(value, "value") &&
                                              py::isinstance<py::str>(value.attr("value")));
  } else if constexpr (std::is_same_v<X, std::int64_t>) {
    return py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value);
  } else if constexpr (schema::IsVector<X>::value) {
    return py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value);
  } else {
    static_assert(sizeof(X) == 0, "a variant alternative Python cannot tell apart");
    return false;
  }
}

template <typename... A>
void convert_variant(ArgCollector& args, pybind11::handle value, const std::string& path, std::variant<A...>& out,
                     std::string_view accepted) {
  bool matched = false;
  auto try_alternative = [&]<typename X>(std::type_identity<X>) {
    if (matched || !python_value_fits<X>(value)) return;
    matched = true;
    X alternative{};
    convert_value(args, value, path, alternative);
    out = std::move(alternative);
  };
  (try_alternative(std::type_identity<A>{}), ...);
  if (!matched) args.reject_type(value, path, "must be " + std::string(accepted));
}

template <typename V>
void convert_value(ArgCollector& args, pybind11::handle value, const std::string& path, V& out) {
  if constexpr (schema::IsOptional<V>::value) {
    typename V::value_type inner{};
    convert_value(args, value, path, inner);
    out = std::move(inner);
  } else if constexpr (std::is_same_v<V, Repo>) {
    out = args.repo(value, path);
  } else if constexpr (std::is_same_v<V, std::string>) {
    out = args.text(value, path);
  } else if constexpr (std::is_same_v<V, Timestamp>) {
    out = args.timestamp(value, path);
  } else if constexpr (schema::DescribedEnum<V>) {
    out = args.enumeration<V>(value, path);
  } else if constexpr (std::is_same_v<V, bool>) {
    out = args.boolean(value, path);
  } else if constexpr (std::is_same_v<V, std::int64_t>) {
    out = args.integer(value, path);
  } else if constexpr (std::is_same_v<V, double>) {
    out = args.number(value, path);
  } else if constexpr (std::is_same_v<V, Priority>) {
    convert_variant(args, value, path, out, "an int (0..4294967295) or a priority name (str)");
  } else if constexpr (std::is_same_v<V, ImpactedTargets>) {
    convert_variant(args, value, path, out, "a list of target names or \"ALL\"");
  } else if constexpr (schema::Described<V>) {
    convert_model(args, value, path, out);
  } else if constexpr (schema::IsVector<V>::value && schema::Described<typename V::value_type>) {
    convert_model_list(args, value, path, out);
  } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
    out = args.text_list(value, path);
  } else {
    static_assert(schema::IsVector<V>::value, "a request field type Python cannot pass yet");
    convert_list(args, value, path, out);
  }
}

/// A list of plain values in a request (v2's states, numbers): each item converted as a field of its type would
/// be, named by its index. A lone string is refused (it would be a list of its characters).
template <typename X>
void convert_list(ArgCollector& args, pybind11::handle value, const std::string& path, std::vector<X>& out) {
  if (!(PyList_Check(value.ptr()) || PyTuple_Check(value.ptr()))) {
    args.reject_type(value, path, "must be a list");
    return;
  }
  std::size_t index = 0;
  for (pybind11::handle item : value) {
    X converted{};
    convert_value(args, item, path + "[" + std::to_string(index++) + "]", converted);
    out.push_back(std::move(converted));
  }
}

/// Whether M is a part named by one integer alone (PullRequestRef: its number), so that a list of them may be
/// given as the bare integers (get_submitted_pull_requests(repo, [7, 8], "main")).
template <typename M>
constexpr bool named_by_one_integer() {
  if constexpr (schema::field_count<M>() != 1) {
    return false;
  } else {
    using Member = typename std::remove_cvref_t<decltype(schema::get<0>(schema::Model<M>::fields))>::member_type;
    return std::is_same_v<Member, std::int64_t>;
  }
}

/// A list of models in a request (v2's batchingRules): each item the model's Python object or a dict as its
/// from_dict() takes it (wire names), or for a part named by one integer, that integer (converted and checked as
/// the field itself, named items[i].number); a bad item is named by its index.
template <typename M>
void convert_model_list(ArgCollector& args, pybind11::handle value, const std::string& path, std::vector<M>& out) {
  namespace py = pybind11;
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
    args.reject_type(value, path, "must be a list");
    return;
  }
  std::size_t index = 0;
  for (py::handle item : value) {
    const std::string item_path = path + "[" + std::to_string(index++) + "]";
    if constexpr (named_by_one_integer<M>()) {
      if (py::isinstance<py::int_>(item) && !py::isinstance<py::bool_>(item)) {
        const auto& field = schema::get<0>(schema::Model<M>::fields);
        M part{};
        convert_value(args, item, item_path + "." + std::string(field.wire), part.*(field.member));
        out.push_back(std::move(part));
        continue;
      }
    }
    M part{};
    convert_model(args, item, item_path, part);
    out.push_back(std::move(part));
  }
}

/// A model given whole in a request (Dynamic CI's changedFiles, an item of v2's batchingRules): its Python object,
/// or a dict as its from_dict() takes it (wire names); a wrong one is named by its path.
template <typename M>
void convert_model(ArgCollector& args, pybind11::handle value, const std::string& path, M& out) {
  namespace py = pybind11;
  try {
    out = py::isinstance<M>(value) ? value.cast<M>() : from_json<M>(json_from_python(value));
  } catch (const Error& error) {
    args.reject_type(value, path, std::string("must be a ") + std::string(schema::Model<M>::name) +
                                      " or its dict: " + error.what());
  }
}

/// A part of a request whose fields Python takes as parameters of their own (pr -> number, sha): any described
/// part except the repository (one parameter: a Repo or "host/owner/name") and page_query (keywords with
/// defaults).
template <typename Member>
constexpr bool kFlattened = schema::Described<Member> && !std::is_same_v<Member, Repo> && !std::is_same_v<Member, PageQuery>;

/// A parameter the caller must give (positional or by keyword): a required field that is not optional.
template <typename Field>
constexpr bool is_positional(const Field& field) {
  using Member = typename Field::member_type;
  return !schema::IsOptional<Member>::value && !std::is_same_v<Member, PageQuery> && field.rules.required;
}

/// The names a caller may pass, in order: positional parameters first.
template <schema::Described R>
std::vector<std::string> positional_parameters() {
  std::vector<std::string> names;
  schema::for_each_field<R>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    if constexpr (kFlattened<Member>) {
      for (std::string& inner : positional_parameters<Member>()) names.push_back(std::move(inner));
    } else if (is_positional(field)) {
      names.emplace_back(field.name);
    }
  });
  return names;
}

/// Reads R's fields from `given` (parameter name -> value); `prefix` is the wire path of R inside the request.
template <schema::Described R>
void read_fields(ArgCollector& args, const pybind11::dict& given, const std::string& call, const std::string& prefix,
                 bool allow_page_position, std::vector<std::string>& known, R& request) {
  namespace py = pybind11;
  schema::for_each_field<R>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    auto& out = request.*(field.member);
    const std::string name(field.name);
    const std::string wire = prefix + std::string(field.wire);
    if constexpr (std::is_same_v<Member, PageQuery>) {
      known.emplace_back("page_size");
      if (given.contains("page_size")) out.page_size = args.integer(given["page_size"], wire + ".page_size");
      if (allow_page_position) {
        known.emplace_back("page_token");
        if (given.contains("page_token")) out.page_token = args.text(given["page_token"], wire + ".page_token");
      }
    } else if constexpr (kFlattened<Member>) {
      read_fields(args, given, call, wire + ".", allow_page_position, known, out);
    } else {
      if (field.rules.page_position && !allow_page_position) return;
      known.push_back(name);
      const bool present = given.contains(name.c_str()) && !given[name.c_str()].is_none();
      if (is_positional(field)) {
        if (!given.contains(name.c_str())) throw py::type_error(call + " missing required argument: '" + name + "'");
        convert_value(args, given[name.c_str()], wire, out);
      } else if (present) {
        convert_value(args, given[name.c_str()], wire, out);  // optional, or a keyword with a default (take)
      }
    }
  });
}

/// A request value as Python source a caller could have written: text quoted by repr(), a repository as its
/// "host/owner/name", a time as its RFC 3339 text, an enumeration as its wire string.
template <typename V>
std::string argument_repr(const V& value) {
  namespace py = pybind11;
  if constexpr (schema::IsOptional<V>::value) {
    return value ? argument_repr(*value) : "None";
  } else if constexpr (std::is_same_v<V, Repo>) {
    return py::repr(py::str(value.to_string())).template cast<std::string>();
  } else if constexpr (std::is_same_v<V, Timestamp>) {
    return py::repr(py::str(format_rfc3339(value))).template cast<std::string>();
  } else if constexpr (schema::DescribedEnum<V>) {
    return py::repr(py::str(std::string(to_wire(value)))).template cast<std::string>();
  } else if constexpr (schema::IsVariant<V>::value) {
    return std::visit([](const auto& alternative) { return argument_repr(alternative); }, value);
  } else if constexpr (schema::IsVector<V>::value) {
    std::string out = "[";
    for (const auto& item : value) out += (out.size() > 1 ? ", " : "") + argument_repr(item);
    return out + "]";
  } else {
    return py::repr(py::cast(value)).template cast<std::string>();  // str, int, float, bool
  }
}

/// The arguments of a Python call that builds `request` ("repo='github.com/acme/widgets', org_url_slug='acme',
/// page_size=100"), under the parameter names read_fields takes; fields not sent (None) are left out. For a
/// repr that says what a lazy listing will ask for without asking.
template <schema::Described R>
std::string call_arguments(const R& request, bool allow_page_position) {
  std::string out;
  auto append = [&out](std::string_view name, const std::string& value) {
    out += (out.empty() ? "" : ", ") + std::string(name) + "=" + value;
  };
  schema::for_each_field<R>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    const auto& value = request.*(field.member);
    if constexpr (std::is_same_v<Member, PageQuery>) {
      append("page_size", argument_repr(value.page_size));
      if (allow_page_position) append("page_token", argument_repr(value.page_token));
    } else if constexpr (kFlattened<Member>) {
      const std::string inner = call_arguments(value, allow_page_position);
      if (!inner.empty()) out += (out.empty() ? "" : ", ") + inner;
    } else {
      if (field.rules.page_position && !allow_page_position) return;
      if constexpr (schema::IsOptional<Member>::value) {
        if (!value) return;
      }
      append(field.name, argument_repr(value));
    }
  });
  return out;
}

/// Builds R from a Python call of `operation`. `allow_page_token`: false for the iter_ calls (they start at
/// the first page, so they take no page_token or cursor).
template <schema::Described R>
R build_request(std::string_view operation, const pybind11::args& positional, const pybind11::kwargs& keywords,
                bool allow_page_token = true) {
  namespace py = pybind11;
  const std::vector<std::string> parameters = positional_parameters<R>();
  const std::string call = std::string(operation) + "()";
  if (positional.size() > parameters.size()) {
    throw py::type_error(call + " takes " + std::to_string(parameters.size()) + " positional arguments but " +
                         std::to_string(positional.size()) + " were given");
  }
  py::dict given;
  for (std::size_t i = 0; i < positional.size(); ++i) given[py::str(parameters[i])] = positional[i];
  for (auto item : keywords) {
    if (given.contains(item.first)) {
      throw py::type_error(call + " got multiple values for argument '" + py::str(item.first).cast<std::string>() + "'");
    }
    given[item.first] = item.second;
  }
  std::vector<std::string> known;
  ArgCollector args;
  R request{};
  read_fields(args, given, call, "", allow_page_token, known, request);
  for (auto item : given) {
    const std::string key = py::str(item.first).cast<std::string>();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw py::type_error(call + " got an unexpected keyword argument '" + key + "'");
    }
  }
  args.finish(request);
  return request;
}

}  // namespace trunk::python
