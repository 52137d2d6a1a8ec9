// The answer models, the webhook events, Repo and the request parts given whole as immutable, dataclass-like Python classes over the C++ structs, each made
// from its declaration (describe.hpp): attributes, docs, repr, ==, pickle, to_dict/from_dict, __match_args__.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "bind_webhooks.hpp"
#include "build_request.hpp"
#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_time.hpp"
#include "dataclass_like.hpp"
#include "model_values.hpp"
#include "py_enums.hpp"
#include "trunk/models.hpp"
#include "trunk/validation.hpp"
#include "trunk/webhook_events.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// A field holding another model (optional or not): given out by reference, not copied.
template <typename Member>
constexpr bool kHoldsModel = schema::Described<Member> || (schema::IsOptional<Member>::value && [] {
  if constexpr (schema::IsOptional<Member>::value) return schema::Described<typename Member::value_type>;
  return false;
}());

/// The value of a model's I-th field as its attribute gives it. A model inside a model (event.test_case,
/// test.status) is a view of the part its parent holds, which it keeps alive (pybind11's reference_internal):
/// reading the attribute copies nothing, and reading it again gives the same object while one is alive. Models
/// are immutable, so the view can never see a change.
template <schema::Described T, std::size_t I>
py::object read_field(py::handle self) {
  constexpr const auto& field = schema::get<I>(schema::Model<T>::fields);
  using Member = typename std::remove_cvref_t<decltype(field)>::member_type;
  const Member& value = self.cast<const T&>().*(field.member);
  if constexpr (kHoldsModel<Member>) {
    const auto* part = [&] {
      if constexpr (schema::IsOptional<Member>::value) {
        return value ? &*value : nullptr;
      } else {
        return &value;
      }
    }();
    return py::cast(part, py::return_value_policy::reference_internal, self);
  } else {
    return to_python(value);
  }
}

/// The Python class of an answer model: one read-only attribute per declared field, with its doc.
template <schema::Described T>
DataclassLike<T> model_class(py::module_& m) {
  DataclassLike<T> cls(m, schema::Model<T>::name.data(), schema::Model<T>::doc.data());
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (cls.field(schema::get<I>(schema::Model<T>::fields).name.data(), &read_field<T, I>,
               schema::get<I>(schema::Model<T>::fields).doc.data()),
     ...);
  }(std::make_index_sequence<schema::field_count<T>()>{});
  return cls;
}

void bind_repo(py::module_& m) {
  auto repo = model_class<Repo>(m);
  auto cls = repo.hashable().finish();
  cls.def(py::init([](py::handle host, py::handle owner, py::handle name) {
            ArgCollector args;
            Repo result{args.text(host, "repo.host"), args.text(owner, "repo.owner"), args.text(name, "repo.name")};
            args.finish_and_check(result);
            return result;
          }),
          py::arg("host"), py::arg("owner"), py::arg("name"));
  cls.def_static("parse", [](py::handle text) {
    ArgCollector args;
    Repo result = args.repo(text, "repo");
    args.finish_and_check(result);
    return result;
  }, py::arg("text"), "Parses \"host/owner/name\"; the owner is everything between the first and last '/'.");
  cls.def("__str__", &Repo::to_string);
}

/// The class of a request's part given whole (Dynamic CI's changed files, a force): the model's class with a
/// keyword constructor that converts and checks each field as an operation's call does (build_request.hpp), so
/// a bad value is refused when the part is made, named by its field.
template <schema::Described T>
void request_part_class(py::module_& m) {
  auto cls = model_class<T>(m).finish();
  cls.def(py::init([](const py::args& positional, const py::kwargs& keywords) {
            // build_request converts (and reports a bad conversion with the rules); a call checks the rest when
            // it sends, a part when it is made.
            T part = build_request<T>(schema::Model<T>::name, positional, keywords);
            if (auto violations = check(part); !violations.empty()) throw ValidationError(std::move(violations));
            return part;
          }),
          (std::string(schema::Model<T>::doc) + " Made from its fields (keywords, or the required ones in order) or "
                                                "from_dict() of its wire form.")
              .c_str());
}

}  // namespace

#define TRUNK_BIND_MODEL_(Type) model_class<Type>(m).finish();
#define TRUNK_BIND_REQUEST_PART_(Type) request_part_class<Type>(m);

void bind_models(py::module_& m) {
  bind_enums(m);
  bind_repo(m);
  TRUNK_ANSWER_MODELS(TRUNK_BIND_MODEL_)
  TRUNK_DYNAMIC_CI_V2_REQUEST_PARTS(TRUNK_BIND_REQUEST_PART_)
}

void bind_webhook_models(py::module_& m) { TRUNK_WEBHOOK_MODELS(TRUNK_BIND_MODEL_) }

#undef TRUNK_BIND_MODEL_
#undef TRUNK_BIND_REQUEST_PART_

}  // namespace trunk::python
