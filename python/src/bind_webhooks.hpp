#pragma once
// Webhooks from Python: the events' classes (bind_webhook_models, made like every model in bind_models.cpp) and
// the secret, the verification and the parsing that return them (bind_webhooks.cpp), in one submodule.

#include <pybind11/pybind11.h>

namespace trunk::python {

void bind_webhook_models(pybind11::module_& m);
void bind_webhooks(pybind11::module_& m);  // after bind_webhook_models and bind_models

}  // namespace trunk::python
