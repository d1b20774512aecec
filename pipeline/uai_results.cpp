#include "pipeline/uai_results.h"

#include "ir/number_text.h"
#include "support/name_table.h"

#include <cmath>
#include <limits>
#include <ostream>

namespace zbddc::pipeline {

std::string log10Text(double log10) {
    return shortestText(std::isinf(log10) && log10 < 0 ? std::numeric_limits<double>::lowest()
                                                       : log10);
}

const char *uaiTaskLine(Task task) {
    constexpr Named<Task> kLines[] = {
        {Task::Eval, "EVAL"}, {Task::Pr, "PR"}, {Task::Mar, "MAR"}, {Task::Mpe, "MPE"}};
    return nameIn(kLines, task);
}

namespace {

void writeSolutionLine(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    switch (r.task) {
    case Task::Eval:
        out << r.outputs.size();
        for (double v : r.outputs)
            out << " " << shortestText(v);
        break;
    case Task::Pr:
        out << log10Text(r.log10);
        break;
    case Task::Mar:
        out << r.marginals.size();
        for (const auto &m : r.marginals) {
            out << " " << m.size();
            for (double p : m)
                out << " " << shortestText(p);
        }
        break;
    case Task::Mpe:
        // Every route fails an MPE case whose evidence is impossible, so every state is known.
        out << vars.size();
        for (uint32_t s : r.assignment)
            out << " " << s;
        break;
    }
    out << "\n";
}

} // namespace

void writeUaiResult(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    out << uaiTaskLine(r.task) << "\n";
    writeSolutionLine(r, vars, out);
}

void writeUaiBatch(Task task, const std::vector<Result<TaskResult>> &batch,
                   const std::vector<Variable> &vars, std::ostream &out) {
    out << uaiTaskLine(task) << "\n" << batch.size() << "\n";
    for (const Result<TaskResult> &r : batch) {
        if (r)
            writeSolutionLine(*r, vars, out);
        else
            out << "0\n";
    }
}

} // namespace zbddc::pipeline
