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
