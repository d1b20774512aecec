// `zbddc sample NET --cases N [--observed F] [--seed S] [-o cases.evid]`: evidence cases as the
// network benchmarks use them (runtime/sample_evidence.h), in the UAI batch layout.
#include "runtime/sample_evidence.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

int sampleCommand(const SampleOptions &o) {
    auto kind = pipeline::modelKindOf(o.network);
    if (!kind || *kind != pipeline::ModelKind::Network) {
        std::cerr << "zbddc: sample needs a network (.bif, .xmlbif, .net, BAYES .uai), not '"
                  << o.network << "'\n";
        return 2;
    }
    if (o.cases > kMaxSampledCases) {
        std::cerr << "zbddc: --cases " << o.cases << " is more than the " << kMaxSampledCases
                  << " cases an .evid batch may hold (see zbddc --help)\n";
        return 2;
    }
    auto net = readNetworkFile(o.network);
    if (!net)
        return reportError(net.error());
    auto write = [&](std::ostream &out) {
        return writeSampledEvidence(*net, o.cases, o.observed, o.seed, out);
    };
    if (o.output.empty()) // exit_guard.cpp reports a failed standard output
        return write(std::cout) ? 0 : 1;
    Status written = writeFileAtomically(o.output, write);
    return written ? 0 : reportError(written.error());
}

} // namespace zbddc::cli
