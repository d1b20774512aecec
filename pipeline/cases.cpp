#include "pipeline/cases.h"
#include "ir/text_lines.h"

#include <filesystem>

namespace zbddc::pipeline {

Result<EvidenceFile> readEvidenceCases(const std::string &evidence, EvidenceLayout layout,
                                       const std::vector<Variable> &variables) {
    if (evidence.empty())
        return EvidenceFile{{noEvidence(variables)}, false};
    if (evidence.find('=') == std::string::npos) {
        if (!std::filesystem::exists(evidence))
            return error("--evidence '" + evidence +
                         "': no such file (evidence is a UAI .evid "
                         "file, or a list VAR=state[,VAR=state...])");
        return readUaiEvidenceFile(evidence, variables, layout);
    }
    auto e = parseEvidenceList(evidence, variables);
    if (!e)
        return e.error();
    return EvidenceFile{{std::move(*e)}, false};
}

Result<EvidenceFile> readRunCases(const std::string &evidence, const std::string &layout,
                                  const std::vector<Variable> &variables, ModelKind kind, Task task,
                                  const std::string &route, std::vector<Diagnostic> &notes) {
    auto file = readEvidenceCases(
        evidence, parseEvidenceLayout(layout).value_or(EvidenceLayout::Detect), variables);
    if (!file)
        return file;
    // A MARKOV network's PR and MAR are sums over its junction tree: P(e) = 0 there, as on any
    // network; only an optimum's evidence must hold together.
    const bool optimum = (kind == ModelKind::CostNetwork || kind == ModelKind::ProblemLibrary) &&
                         task == Task::Mpe && route != "jt";
    for (size_t i = 0; i < file->cases.size(); ++i)
        if (const std::string &why = file->cases[i].contradiction; why.empty())
            continue;
        else if (optimum)
            return errorAt(evidence, 0, "the evidence contradicts itself: " + why);
        else
            notes.push_back(
                error((file->cases.size() > 1 ? "case " + std::to_string(i) + ": " : "") + why +
                      ", so P(e) = 0"));
    return file;
}

Result<std::vector<double>> readFreeInputs(const std::string &path) {
    std::vector<double> values;
    if (path.empty())
        return values;
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    TokenCursor in(*text, path);
    while (!in.atEnd()) {
        auto v = in.number("input value");
        if (!v)
            return v.error();
        values.push_back(*v);
    }
    return values;
}

} // namespace zbddc::pipeline
