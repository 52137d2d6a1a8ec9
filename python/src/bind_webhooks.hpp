#pragma once
// Webhooks from Python (bind_webhooks.cpp); registered after the models, whose event classes it returns.

#include <pybind11/pybind11.h>

namespace trunk::python {

void bind_webhooks(pybind11::module_& m);

}  // namespace trunk::python
