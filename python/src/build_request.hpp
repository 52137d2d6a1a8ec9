#pragma once
// The Python call of an operation, derived from its request's declaration (describe.hpp), so that a new
// operation is bound without code here:
//   - the request's non-optional fields are the positional (or keyword) parameters, in declaration order
//     (repo, org_url_slug, start_time, ...); a page_query field is flattened into the keywords page_size
//     (default 100) and page_token (default "");
//   - its optional fields are keyword-only, None meaning "not sent";
//   - each value is converted by its declared type (a Repo or "host/owner/name", str, int, bool, datetime or
//     RFC 3339, enum member or wire string, list of str), every problem named by its wire path, then
//     validate()'s rules add theirs: one ValidationError lists everything, and nothing is sent.
// A wrong call (unknown keyword, missing argument) is a TypeError, as for any Python function.

#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "convert_args.hpp"
#include "trunk/describe.hpp"
#include "trunk/page.hpp"
#include "trunk/repo.hpp"

namespace trunk::python {

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
  } else {
    static_assert(std::is_same_v<V, std::vector<std::string>>, "a request field type Python cannot pass yet");
    out = args.text_list(value, path);
  }
}

/// The names a caller may pass, in order: positional parameters first.
template <schema::Described R>
std::vector<std::string> positional_parameters() {
  std::vector<std::string> names;
  schema::for_each_field<R>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    if constexpr (!schema::IsOptional<Member>::value && !std::is_same_v<Member, PageQuery>) {
      names.emplace_back(field.name);
    }
  });
  return names;
}

/// Builds R from a Python call of `operation`. `allow_page_token`: false for the iter_ calls (they start at
/// the first page).
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
  schema::for_each_field<R>([&](const auto& field) {
    using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
    auto& out = request.*(field.member);
    const std::string name(field.name);
    if constexpr (std::is_same_v<Member, PageQuery>) {
      known.emplace_back("page_size");
      if (given.contains("page_size")) {
        out.page_size = args.integer(given["page_size"], std::string(field.wire) + ".page_size");
      }
      if (allow_page_token) {
        known.emplace_back("page_token");
        if (given.contains("page_token")) {
          out.page_token = args.text(given["page_token"], std::string(field.wire) + ".page_token");
        }
      }
    } else {
      known.push_back(name);
      const bool present = given.contains(name.c_str()) && !given[name.c_str()].is_none();
      if constexpr (schema::IsOptional<Member>::value) {
        if (present) convert_value(args, given[name.c_str()], std::string(field.wire), out);
      } else {
        if (!given.contains(name.c_str())) throw py::type_error(call + " missing required argument: '" + name + "'");
        convert_value(args, given[name.c_str()], std::string(field.wire), out);
      }
    }
  });
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
