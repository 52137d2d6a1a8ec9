#pragma once
// Blocking C++ calls from Python: the GIL is released for their whole duration, and Ctrl-C still ends them.
//
// How Ctrl-C works: Python's SIGINT handler only sets a flag; the KeyboardInterrupt is raised when the main
// thread next runs Python code, which never happens while it is blocked in libcurl. The client polls
// ClientOptions::interrupt_check (about every 100 ms); python_interrupt_check() takes the GIL on the main
// thread, runs PyErr_CheckSignals(), and when that raised, keeps the exception and answers true. The client
// then throws trunk::CancelledError, and call_without_gil() puts the kept KeyboardInterrupt back, so the
// caller sees exactly what Ctrl-C raises anywhere else.

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "trunk/error.hpp"
#include "trunk/log.hpp"

namespace trunk::python {

/// Records Python's main thread, the one that receives signals (called at import).
void remember_main_thread();

/// For ClientOptions::interrupt_check. Cheap off the main thread (returns false without touching the GIL).
bool python_interrupt_check();

/// Clears / takes the exception kept by python_interrupt_check() on this thread (GIL held).
void forget_pending_interrupt();
bool restore_pending_interrupt();

/// What a Python callback the C++ code calls back into (a progress bar) raised (GIL held): a KeyboardInterrupt
/// or SystemExit (Ctrl-C may surface inside the callback, which ran the signal handler) is kept as this
/// thread's pending interrupt, so that the next interrupt_check cancels the call and the call wrapper raises
/// it; any other error is reported as unraisable under `where` (a progress bar must not end the call).
void keep_callback_error(pybind11::error_already_set& error, const char* where);

/// Runs `call` with the GIL released; a CancelledError caused by a signal becomes the signal's exception, and
/// so does an interrupt kept by keep_callback_error() during a call that then ended normally.
template <typename Call>
auto call_without_gil(Call&& call) -> decltype(call()) {
  forget_pending_interrupt();
  try {
    if constexpr (std::is_void_v<decltype(call())>) {
      {
        pybind11::gil_scoped_release release;
        std::forward<Call>(call)();
      }
      if (restore_pending_interrupt()) throw pybind11::error_already_set();
    } else {
      auto result = [&] {
        pybind11::gil_scoped_release release;
        return std::forward<Call>(call)();
      }();
      if (restore_pending_interrupt()) throw pybind11::error_already_set();
      return result;
    }
  } catch (const CancelledError&) {
    if (restore_pending_interrupt()) throw pybind11::error_already_set();
    throw;
  }
}

/// A LogCallback forwarding to a Python callable `sink(level: int, message: str)` with logging's levels
/// (DEBUG 10, INFO 20, WARNING 30, ERROR 40). Safe from any thread; errors in the sink are reported as
/// unraisable rather than thrown into the C++ client.
LogCallback python_log_callback(pybind11::object sink);

/// Whether the interpreter is shutting down (then no thread may take the GIL).
bool interpreter_finalizing();

/// Holds a Python object inside C++ state that may be destroyed without the GIL (std::function copies).
std::shared_ptr<pybind11::object> hold_with_gil(pybind11::object object);

}  // namespace trunk::python
