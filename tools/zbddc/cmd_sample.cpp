// `zbddc sample MODEL --cases N [--observed F] [--seed S] [-o cases.evid]`: evidence cases as the
// benchmarks use them, in the UAI batch layout: forward-sampled from a network
// (runtime/sample_evidence.h), Gibbs-sampled from a Markov or cost network, its chain started at
// its MPE (runtime/gibbs_evidence.h).
#include "compiler/frontends/factor_model/factor_model.h"
#include "pipeline/load_model.h"
#include "pipeline/session.h"
#include "runtime/gibbs_evidence.h"
#include "runtime/sample_evidence.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <cmath>
#include <iostream>
#include <optional>

namespace zbddc::cli {

namespace {

// Where a Markov or cost network's Gibbs chain starts: its MPE, answered on the CPU.
Result<std::vector<uint32_t>> gibbsStart(const std::string &path, const FactorModel &model) {
    pipeline::OpenOptions open;
    open.target.device = DeviceKind::Cpu;
    open.task = Task::Mpe;
    auto session = pipeline::Session::open(path, open);
    if (!session)
        return session.error();
    auto mpe = (*session)->answer(Task::Mpe, std::vector<Evidence>{noEvidence(model.variables)});
    if (!mpe.front())
        return mpe.front().error();
    std::vector<uint32_t> start = std::move(mpe.front()->assignment);
    if (start.size() != model.numVariables() || !std::isfinite(logWeight(model, start)))
        return Diagnostic{path, 0,
                          "its MPE has no assignment of positive weight to start the Gibbs "
                          "sampler from"};
    return start;
}

} // namespace

int sampleCommand(const SampleOptions &o) {
    auto kind = pipeline::modelKindOf(o.network);
    if (!kind ||
        (*kind != pipeline::ModelKind::Network && *kind != pipeline::ModelKind::CostNetwork)) {
        std::cerr << "zbddc: sample needs a network (.bif, .xmlbif, .net, BAYES .uai) or a Markov "
                     "or cost network (MARKOV .uai, .wcsp), not '"
                  << o.network << "'\n";
        return 2;
    }
    if (o.cases > kMaxSampledCases) {
        std::cerr << "zbddc: --cases " << o.cases << " is more than the " << kMaxSampledCases
                  << " cases an .evid batch may hold (see zbddc --help)\n";
        return 2;
    }
    std::optional<BayesNet> net;      // forward-sampled, or
    std::optional<FactorModel> model; // Gibbs-sampled from `start`
    std::vector<uint32_t> start;
    if (*kind == pipeline::ModelKind::Network) {
        auto read = readNetworkFile(o.network);
        if (!read)
            return reportError(read.error());
        net = std::move(*read);
    } else {
        auto read = readFactorModelFile(o.network);
        if (!read)
            return reportError(read.error());
        model = std::move(*read);
        auto mpe = gibbsStart(o.network, *model);
        if (!mpe)
            return reportError(mpe.error());
        start = std::move(*mpe);
    }
    auto write = [&](std::ostream &out) {
        return net ? writeSampledEvidence(*net, o.cases, o.observed, o.seed, out)
                   : writeGibbsEvidence(*model, start, o.cases, o.observed, o.seed, out);
    };
    if (o.output.empty()) // exit_guard.cpp reports a failed standard output
        return write(std::cout) ? 0 : 1;
    Status written = writeFileAtomically(o.output, write);
    return written ? 0 : reportError(written.error());
}

} // namespace zbddc::cli
