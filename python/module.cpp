// The extension module zbddc._zbddc: a Session over the pipeline (pipeline/pipeline.h), evidence
// in as rows of state indices, answers out as NumPy arrays over the buffers the library filled.
// Compiling and answering run with the GIL released. Errors are raised as zbddc.Error carrying
// the command line's one-line message. A knowledge-compiled circuit over batches of literal
// weights is bound beside it (circuit_binding.h). The friendly API is zbddc/__init__.py.
#include "answer_columns.h"
#include "circuit_binding.h"
#include "device_report_dict.h"
#include "dict_evidence.h"
#include "evidence_rows.h"
#include "numpy_arrays.h"
#include "python_error.h"
#include "session_handle.h"
#include "support/gpu_settings.h"
#include "support/timer.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;

namespace zbddc::python {

namespace {

using Rows = nb::ndarray<const int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

std::unique_ptr<SessionHandle> openSession(const OpenRequest &request) {
    Result<std::unique_ptr<SessionHandle>> opened = error("");
    {
        nb::gil_scoped_release unlocked;
        opened = SessionHandle::open(request);
    }
    return valueOrRaise(std::move(opened));
}

nb::list variableList(const SessionHandle &s) {
    nb::list out;
    for (const Variable &v : s.variables())
        out.append(nb::make_tuple(v.name, nb::cast(v.states)));
    return out;
}

nb::list optionalTexts(const std::vector<std::string> &texts) {
    nb::list out;
    for (const std::string &t : texts)
        out.append(t.empty() ? nb::object(nb::none()) : nb::object(nb::str(t.c_str(), t.size())));
    return out;
}

nb::dict columnsDict(AnswerColumns &&c, size_t variables, const std::vector<std::string> &notes) {
    const size_t n = c.cases;
    nb::dict d;
    d["value"] = numpyArray(std::move(c.value), std::array{n});
    d["log10"] = numpyArray(std::move(c.log10), std::array{n});
    if (c.task == Task::Mar)
        d["marginals"] = numpyArray(std::move(c.marginals), std::array{n, c.width});
    if (c.task == Task::Mpe)
        d["states"] = numpyArray(std::move(c.states), std::array{n, variables});
    d["errors"] = optionalTexts(c.errors);
    d["notes"] = nb::cast(c.notes);
    d["numeric"] = nb::cast(c.numeric);
    if (!c.costs.empty()) {
        nb::list costs;
        for (const auto &cost : c.costs)
            costs.append(cost ? nb::object(nb::str(cost->c_str())) : nb::object(nb::none()));
        d["costs"] = costs;
    }
    if (!c.iterations.empty()) {
        d["iterations"] = numpyArray(std::move(c.iterations), std::array{n});
        d["converged"] = numpyArray(std::move(c.converged), std::array{n});
        d["max_residual"] = numpyArray(std::move(c.maxResidual), std::array{n});
    }
    d["device"] = c.device.label();
    d["device_report"] = deviceReportDict(c.device);
    d["route"] = c.route;
    d["route_why"] = c.routeWhy;
    d["batch_notes"] = nb::cast(notes);
    return d;
}

nb::dict answer(SessionHandle &s, const std::string &taskName, const Rows &rows,
                const std::string &numericName) {
    const auto task = parseTask(taskName);
    if (!task || *task == Task::Eval)
        throw Error("unknown task '" + taskName + "' (pr, mar or mpe)");
    const auto numeric = pipeline::parseNumericChoice(numericName);
    if (!numeric)
        throw Error("unknown numeric '" + numericName + "' (auto, float64, log, float32 or log32)");
    const std::vector<Variable> &variables = s.variables();
    if (rows.shape(1) != variables.size())
        throw Error("evidence: the array has " + std::to_string(rows.shape(1)) +
                    " columns but the model has " + std::to_string(variables.size()) +
                    " variables");
    Result<AnswerColumns> columns = error("");
    std::vector<std::string> notes;
    double timeMs = 0;
    {
        nb::gil_scoped_release unlocked;
        auto cases = casesFromRows(rows.data(), rows.shape(0), variables);
        if (!cases) {
            columns = cases.error();
        } else {
            const SteadyTime start = std::chrono::steady_clock::now();
            SessionHandle::Answered answered = s.answer(*task, *cases, *numeric);
            timeMs = msSince(start);
            notes = std::move(answered.notes);
            columns = answerColumns(*task, std::move(answered.results), variables, s.path());
        }
    }
    nb::dict d = columnsDict(valueOrRaise(std::move(columns)), variables.size(), notes);
    d["time_ms"] = timeMs;
    return d;
}

nb::object encode(const SessionHandle &s, nb::handle cases) {
    const size_t n = nb::len(cases);
    return numpyArray(valueOrRaise(rowsFromDicts(s, cases)), std::array{n, s.variables().size()});
}

// A UAI .evid file (either layout) as rows; a case that observes a variable in two states has no
// row form and is an error.
nb::object readEvidence(const SessionHandle &s, const std::string &path) {
    const std::vector<Variable> &variables = s.variables();
    EvidenceFile file = valueOrRaise(readUaiEvidenceFile(path, variables));
    std::vector<int64_t> rows;
    rows.reserve(file.cases.size() * variables.size());
    for (size_t c = 0; c < file.cases.size(); ++c) {
        if (!file.cases[c].contradiction.empty())
            throw Error(path + ": case " + std::to_string(c) + ": " + file.cases[c].contradiction);
        for (uint32_t state : file.cases[c].states)
            rows.push_back(state == kNone ? kUnobserved : int64_t(state));
    }
    return numpyArray(std::move(rows), std::array{file.cases.size(), variables.size()});
}

void save(SessionHandle &s, const std::string &path) {
    Status saved = Ok{};
    {
        nb::gil_scoped_release unlocked;
        saved = s.save(path);
    }
    valueOrRaise(std::move(saved));
}

} // namespace

} // namespace zbddc::python

using namespace zbddc;
using namespace zbddc::python;

NB_MODULE(_zbddc, m) {
    m.doc() = "zbddc's library, bound; use the zbddc package's API (zbddc.load) instead.";
    gpuSettings = gpuSettingsFromVariables(std::getenv); // ZBDDC_NCCL, ZBDDC_CACHE_DIR (docs/cli.md)
    nb::exception<Error>(m, "Error", PyExc_RuntimeError);

    nb::class_<SessionHandle>(m, "Session")
        .def_static(
            "open",
            [](const std::string &path, const std::string &route, const std::string &device,
               const std::string &numeric, const std::string &devices, unsigned threads,
               size_t expectedCases) {
                return openSession({path, route, device, numeric, devices, threads, expectedCases});
            },
            "path"_a, "route"_a = "auto", "device"_a = "auto", "numeric"_a = "auto",
            "devices"_a = "", "threads"_a = 0, "expected_cases"_a = 1)
        .def_prop_ro("path", &SessionHandle::path)
        .def_prop_ro("kind", &SessionHandle::kind)
        .def_prop_ro("warnings", &SessionHandle::warnings)
        .def_prop_ro("variables", &variableList)
        .def_prop_ro("route", &SessionHandle::route)
        .def_prop_ro("route_why", &SessionHandle::routeWhy)
        .def_prop_ro("tasks",
                     [](const SessionHandle &s) {
                         std::vector<std::string> names;
                         for (Task t : s.tasks())
                             names.push_back(taskName(t));
                         return names;
                     })
        .def("encode", &encode, "cases"_a)
        .def("answer", &answer, "task"_a, "rows"_a, "numeric"_a = "auto")
        .def("read_evidence", &readEvidence, "path"_a)
        .def("save", &save, "path"_a);

    bindCircuit(m);
}
