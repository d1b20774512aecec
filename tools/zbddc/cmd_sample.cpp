// `zbddc sample NET --cases N [--observed F] [--seed S] [-o cases.evid]`: evidence cases as the
// network benchmarks use them (runtime/sample_evidence.h), in the UAI batch layout.
#include "runtime/sample_evidence.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

int sampleCommand(const SampleOptions &o) {
    if (!isNetworkFile(o.network)) {
        std::cerr << "zbddc: sample needs a network (.bif, .xmlbif, .net, BAYES .uai), not '"
                  << o.network << "'\n";
        return 2;
    }
    auto net = readNetworkFile(o.network);
    if (!net)
        return reportError(net.error());
    const std::string text = uaiEvidenceText(sampleEvidence(*net, o.cases, o.observed, o.seed));
    if (o.output.empty()) {
        std::cout << text;
        return std::cout.flush() ? 0 : reportError(error("cannot write to standard output"));
    }
    Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
        out << text;
        return static_cast<bool>(out);
    });
    return written ? 0 : reportError(written.error());
}

} // namespace zbddc::cli
