// The typed access of MergeQueueMetrics and Histogram (merge_queue_answers.hpp, histogram.hpp) as Python
// methods on the model classes bind_models made: labels are keyword arguments (branch="main"), converted and
// checked here, and the work is the C++ one, so Python computes no quantile of its own.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <string_view>
#include <vector>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "trunk/histogram.hpp"
#include "trunk/merge_queue_answers.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// The labels a series must carry, from keyword arguments: every value a str (ValidationError naming the
/// label otherwise).
Json labels_of(const py::kwargs& labels) {
  ArgCollector args;
  Json wanted = Json::object();
  for (const auto& [key, value] : labels) {
    const std::string name = py::str(key).cast<std::string>();
    wanted[name] = args.text(value, "labels." + name);
  }
  args.throw_if_failed();
  return wanted;
}

std::string series_name_or_text(py::handle value, std::string_view field) {
  ArgCollector args;
  std::string text = args.text(value, field);
  args.throw_if_failed();
  return text;
}

/// The series name: the one positional argument (a label may itself be called "name", so the name cannot be a
/// parameter pybind11 would also look for among the keywords).
std::string series_name(const py::args& args) {
  if (args.size() != 1) {
    throw py::type_error("expected the series name as the one positional argument, got " +
                         std::to_string(args.size()) + " positional arguments");
  }
  return series_name_or_text(args[0], "name");
}

}  // namespace

void bind_metrics(py::module_& m) {
  auto histogram = py::reinterpret_borrow<py::class_<Histogram>>(m.attr("Histogram"));
  histogram.def(
      "quantile",
      [](const Histogram& self, py::handle q) {
        ArgCollector args;
        const double value = args.number(q, "q");
        args.throw_if_failed();
        return self.quantile(value);
      },
      py::arg("q"),
      "The q-quantile (0 <= q <= 1) as PromQL's histogram_quantile estimates it: linear inside the bucket "
      "where it falls; the highest finite bound when it falls in +Inf; NaN when there is nothing to estimate "
      "from (no observation, no +Inf bucket or only that one). ValidationError for q outside [0, 1].");

  histogram.def_static(
      "merge", [](const std::vector<Histogram>& histograms) { return Histogram::merge(histograms); },
      py::arg("histograms"),
      "The histograms added bucket by bucket (PromQL's sum by (le)), e.g. hourly windows read an hour apart; "
      "labels are those all share.");

  auto metrics = py::reinterpret_borrow<py::class_<MergeQueueMetrics>>(m.attr("MergeQueueMetrics"));
  metrics.def_static(
      "parse", [](py::handle text) { return MergeQueueMetrics::parse(series_name_or_text(text, "text")); },
      py::arg("text"),
      "Reads a Prometheus text exposition (version 0.0.4), e.g. one scraped elsewhere; DecodeError names the "
      "line it cannot read.");
  metrics.def(
      "gauge",
      [](const MergeQueueMetrics& self, const py::args& args, const py::kwargs& labels) {
        return self.gauge(series_name(args), labels_of(labels));
      },
      "The gauge `name` summed over the series carrying every label given (branch=\"main\", "
      "queue_type=\"main\", conclusion=\"merged\"...), as PromQL's sum(); None when no series matches.");
  metrics.def(
      "histogram",
      [](const MergeQueueMetrics& self, const py::args& args, const py::kwargs& labels) {
        return self.histogram(series_name(args), labels_of(labels));
      },
      "The histogram `name` (from name_bucket, name_sum, name_count) of the series carrying every label given, "
      "merged bucket by bucket when several match (PromQL's sum by (le)); None when none matches.");
  metrics.def(
      "histograms",
      [](const MergeQueueMetrics& self, const py::args& args, const py::kwargs& labels) {
        return self.histograms(series_name(args), labels_of(labels));
      },
      "Every histogram series of family `name` carrying every label given, one per label set (le excluded).");
}

}  // namespace trunk::python
