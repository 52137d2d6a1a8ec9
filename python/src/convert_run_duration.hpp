#pragma once
// A CI run duration distribution from Python: a FixedRunDuration, LognormalRunDuration or EmpiricalRunDuration
// (bound in bind_queue_controls.cpp), or None. Shared by Sandbox.set_queue_controls and twin.TeamModel, so the
// three types are read in one place.

#include <pybind11/pybind11.h>

#include <optional>

#include "trunk/sandbox/run_duration.hpp"

namespace trunk::python {

/// nullopt for None; throws TypeError naming `field` for anything else.
std::optional<trunk::sandbox::RunDuration> run_duration_from_python(pybind11::handle value, const char* field);

}  // namespace trunk::python
