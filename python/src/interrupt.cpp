#include "interrupt.hpp"

#include <pythread.h>

namespace py = pybind11;

namespace trunk::python {

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

namespace {

/// Python's own identifier of its main thread (signal handlers run there only).
unsigned long main_thread_ident = 0;

/// The exception PyErr_CheckSignals() raised on this thread, kept until the call wrapper restores it.
struct PendingInterrupt {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
};
thread_local PendingInterrupt pending;

}  // namespace

void remember_main_thread() {
  // Ask Python rather than recording the importing thread: the module may be imported from any thread.
  main_thread_ident = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
}

bool python_interrupt_check() {
  // Python runs signal handlers on the main thread only, so other threads have nothing to check.
  if (PyThread_get_thread_ident() != main_thread_ident) return false;  // safe without the GIL
  if (interpreter_finalizing()) return false;
  py::gil_scoped_acquire gil;
  if (pending.type != nullptr) return true;  // already cancelled; keep answering true
  if (PyErr_CheckSignals() == 0) return false;
  PyErr_Fetch(&pending.type, &pending.value, &pending.traceback);
  return true;
}

void keep_callback_error(py::error_already_set& error, const char* where) {
  if (PyErr_GivenExceptionMatches(error.type().ptr(), PyExc_Exception) != 0) {
    error.discard_as_unraisable(where);
    return;
  }
  error.restore();  // KeyboardInterrupt, SystemExit: kept for the call wrapper to raise
  if (pending.type != nullptr) {
    PyErr_Clear();  // one is kept already: the same Ctrl-C, seen again by a later callback of the same call
    return;
  }
  PyErr_Fetch(&pending.type, &pending.value, &pending.traceback);
}

void forget_pending_interrupt() {
  Py_CLEAR(pending.type);
  Py_CLEAR(pending.value);
  Py_CLEAR(pending.traceback);
}

bool restore_pending_interrupt() {
  if (pending.type == nullptr) return false;
  PyErr_Restore(pending.type, pending.value, pending.traceback);  // steals the references
  pending = PendingInterrupt{};
  return true;
}

std::shared_ptr<py::object> hold_with_gil(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)), [](py::object* held) {
    if (interpreter_finalizing()) {
      // The interpreter is going away: dropping the reference could run Python code without a runtime.
      held->release();
      delete held;
      return;
    }
    py::gil_scoped_acquire gil;
    delete held;
  });
}

LogCallback python_log_callback(py::object sink) {
  auto held = hold_with_gil(std::move(sink));
  return [held](LogLevel level, std::string_view message) {
    if (interpreter_finalizing()) return;
    int python_level = 10;
    switch (level) {
      case LogLevel::debug: python_level = 10; break;
      case LogLevel::info: python_level = 20; break;
      case LogLevel::warning: python_level = 30; break;
      case LogLevel::error: python_level = 40; break;
    }
    py::gil_scoped_acquire gil;
    try {
      PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
      if (text == nullptr) throw py::error_already_set();
      (*held)(python_level, py::reinterpret_steal<py::str>(text));
    } catch (py::error_already_set& error) {
      error.discard_as_unraisable("trunk_api log callback");
    }
  };
}

}  // namespace trunk::python
