// The answer models, the webhook events (and Repo) as immutable, dataclass-like Python classes over the C++ structs, each made
// from its declaration (describe.hpp): attributes, docs, repr, ==, pickle, to_dict/from_dict, __match_args__.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_time.hpp"
#include "dataclass_like.hpp"
#include "model_values.hpp"
#include "py_enums.hpp"
#include "trunk/models.hpp"
#include "trunk/webhook_events.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// The Python class of an answer model: one read-only attribute per declared field, with its doc.
template <schema::Described T>
DataclassLike<T> model_class(py::module_& m) {
  DataclassLike<T> cls(m, schema::Model<T>::name.data(), schema::Model<T>::doc.data());
  schema::for_each_field<T>([&](const auto& field) {
    cls.field(field.name.data(), [member = field.member](const T& self) { return to_python(self.*member); },
              field.doc.data());
  });
  return cls;
}

void bind_repo(py::module_& m) {
  auto repo = model_class<Repo>(m);
  auto& cls = repo.hashable().finish();
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

}  // namespace

void bind_models(py::module_& m) {
  bind_enums(m);
  bind_repo(m);
#define TRUNK_BIND_MODEL_(Type) model_class<Type>(m).finish();
  TRUNK_ANSWER_MODELS(TRUNK_BIND_MODEL_)
  TRUNK_WEBHOOK_MODELS(TRUNK_BIND_MODEL_)
#undef TRUNK_BIND_MODEL_
}

}  // namespace trunk::python
