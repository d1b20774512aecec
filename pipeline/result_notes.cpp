#include "pipeline/result_notes.h"

#include "ir/number_text.h"

#include <algorithm>
#include <sstream>

namespace zbddc::pipeline {

std::string loopySummary(const std::vector<Result<TaskResult>> &batch, const std::string &routeWhy,
                         double tolerance) {
    size_t converged = 0, answered = 0;
    double worst = 0;
    for (const Result<TaskResult> &r : batch)
        if (r && r->approximate) {
            ++answered;
            converged += r->approximate->converged;
            worst = std::max(worst, r->approximate->maxResidual);
        }
    std::ostringstream out;
    out << "route lbp (" << routeWhy << "): approximate answers by loopy belief propagation; "
        << converged << " of " << answered << " case(s) converged (tolerance " << tolerance
        << "), largest last residual " << worst;
    return out.str();
}

std::string errorBoundNotes(const std::vector<Result<TaskResult>> &batch) {
    ErrorBound worst;
    size_t bounded = 0, elsewhere = 0;
    std::string mode, firstNote;
    for (const Result<TaskResult> &r : batch) {
        if (!r)
            continue;
        if (!r->numericNote.empty()) {
            if (elsewhere++ == 0)
                firstNote = r->numericNote;
            continue;
        }
        if (!r->errorBound)
            continue;
        ++bounded;
        mode = numericName(r->numeric);
        worst.value = std::max(worst.value, r->errorBound->value);
        worst.logAbsolute = std::max(worst.logAbsolute, r->errorBound->logAbsolute);
        worst.marginals = std::max(worst.marginals, r->errorBound->marginals);
    }
    std::ostringstream out;
    if (elsewhere)
        out << "zbddc: note: "
            << (batch.size() > 1
                    ? std::to_string(elsewhere) + " of " + std::to_string(batch.size()) + " cases: "
                    : "")
            << firstNote
            << (elsewhere > 1 ? " (the first's reason; the JSON's device has each)" : "") << "\n";
    if (bounded == 0)
        return out.str();
    out << "zbddc: note: " << mode << " error bound: P(e) relative " << twoDigits(worst.value)
        << " (log " << twoDigits(worst.logAbsolute) << ")";
    if (worst.marginals > 0)
        out << ", marginals relative " << twoDigits(worst.marginals);
    out << (bounded > 1 ? ", the largest over " + std::to_string(bounded) + " cases" : "") << "\n";
    return out.str();
}

} // namespace zbddc::pipeline
