// `zbddc INPUT -o model.so [-O0..-O3] [--numeric float64|log] [--semiring S]` and `--emit=c|ll`: the CPU
// backend's outputs (backends/cpu). The evaluation order is Minato et al. 2011 §3's DFS order.
#include "backends/cpu/emit_c.h"
#include "ir/model_interface.h"
#include "backends/cpu/object_compile.h"
#include "backends/cpu/shared_object.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"
#include "backends/cpu/dfs_order.h"

#include <iostream>

namespace zbddc::cli {

int compileCpuOutput(const CompileOptions &o, const Circuit &circuit) {
    CpuOptions options;
    options.optLevel = o.optLevel;
    options.numeric = o.numeric == "log" ? Numeric::Log : Numeric::Float64;
    if (!o.semiring.empty())
        options.semiring = parseSemiring(o.semiring);
    const Semiring semiring = options.semiring.value_or(circuit.semiring);
    if (options.numeric == Numeric::Log && semiring != Semiring::SumProduct &&
        semiring != Semiring::MaxProduct) {
        std::cerr << "zbddc: --numeric log needs a product semiring (sum-product or max-product)\n";
        return 2;
    }
    options.order = dfsOrder(circuit).order;
    options.hostCpu = false; // a .so may be copied to another machine
    if (o.emit == "c") {
        Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
            return emitC(circuit, options, out).ok();
        });
        return written ? 0 : reportError(written.error());
    }
    if (o.emit == "ll") {
        auto ir = emitLlvmIr(circuit, options,
                             writeModelMetadata(circuit, semiring, options.numeric));
        if (!ir)
            return reportError(ir.error());
        Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
            out << *ir;
            return bool(out);
        });
        return written ? 0 : reportError(written.error());
    }
    SharedObjectOptions link;
    link.symbolPrefix = o.symbolPrefix;
    auto report = writeSharedObject(circuit, options, o.output, link);
    if (!report)
        return reportError(report.error());
    return 0;
}

} // namespace zbddc::cli
