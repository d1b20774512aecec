// `zbddc INPUT -o OUTPUT`: a model opened through the pipeline on the route its output asks for
// (a .so: the route `zbddc run` takes for one case on the CPU; a .zdd, a circuit dump or
// --emit=STAGE: that stage of the route), then written.
#include "ir/file_io.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/flag_table.h"
#include "tools/zbddc/output.h"

#include <iostream>
#include <optional>

namespace zbddc::cli {

namespace {

Diagnostic atInput(const CompileOptions &o, Diagnostic d) {
    return d.file.empty() ? errorAt(o.input, 0, d.message) : d;
}

} // namespace

int compileCommand(const CompileOptions &o) {
    using pipeline::ModelKind;
    auto kind = pipeline::modelKindOf(o.input);
    if (!kind)
        return reportError(kind.error());
    const std::string route = o.route.empty() ? (o.costNetwork.elimination ? "be" : "auto") : o.route;
    if (o.costNetwork.elimination && route != "be")
        return usageError("--elimination is --route be; it does not apply to --route " + route);
    const std::string ext = fileExtension(o.output);
    const bool library = ext == ".so" && o.emit.empty();
    // Before any work, and named by the output: a device or FIFO takes text written in place,
    // never a .so or C source renamed over it (ir/file_io.h).
    if (auto target = resolveOutputTarget(o.output, !(library || o.emit == "c")); !target)
        return reportError(target.error());
    if (*kind == ModelKind::Circuit && ext == ".zdd" && o.emit.empty())
        return reportError(errorAt(o.input, 0, "a d-DNNF or SDD has no ZBDD to write"));
    if (!library && o.emit.empty() && ext != ".zdd" && ext != ".txt")
        return usageError("cannot write '" + o.output +
                          "': unknown output kind (use .so for a compiled model, .zdd for a ZBDD, "
                          ".txt for a circuit dump, or --emit=c|ll|cu|ptx)");
    uint16_t columns = candidateColumns(
        *kind, pipeline::possibleRoutes(*kind, o.input, route, std::nullopt, false), true);
    if (!columns)
        return usageError("--route " + route + " does not take a " +
                          pipeline::modelKindName(*kind));
    if (auto refused = refusedFlag(o.given, compileFlagRules(), columns, *kind, route))
        return usageError(*refused);
    if (!library) // a stage: the MLF's, or a problem.so's C
        columns &= NetworkMlf | ZddMlf | CircuitMlf | (o.emit == "c" ? NetworkBe | CostBe : 0);
    if (!columns)
        return usageError("a " + std::string(pipeline::modelKindName(*kind)) +
                          (route == "auto" ? "" : " on route " + route) + " does not compile into '" +
                          (o.emit.empty() ? ext : "--emit=" + o.emit) +
                          "' (a cost network compiles into a problem.so or its C, --emit=c)");
    if (!o.symbolPrefix.empty() && !library)
        return usageError("--symbol-prefix applies to a .so output only");
    if (!o.semiring.empty() && o.emit.empty() && ext != ".so")
        return usageError("--semiring applies to compiled outputs (.so, --emit), not to '" + ext + "'");

    pipeline::SaveOptions save;
    save.optLevel = o.optLevel;
    save.numeric = o.numeric;
    save.semiring = o.semiring;
    save.symbolPrefix = o.symbolPrefix;
    save.batch = o.batch;
    pipeline::OpenOptions open;
    open.route = route;
    open.reading = o.model;
    open.order = o.costNetwork.order;
    open.circuitOnly = route == "auto" ? pipeline::circuitOnlyOutput(save, o.model, !library) : "";
    auto session = pipeline::Session::open(o.input, open);
    if (!session)
        return reportError(atInput(o, withFlagHints(session.error())));
    pipeline::Session &s = **session;
    printWarnings(s.takeWarnings());
    save.emitC = o.emit == "c" && s.route() == "be";
    const bool stage = !o.emit.empty() && !save.emitC;
    Status written = stage ? s.emit(o.emit, o.output, save) : s.save(o.output, save);
    if (!written)
        return reportError(atInput(o, written.error()));
    if (*kind == ModelKind::Network && library && s.route() != "be") {
        std::cerr << "zbddc: note: route " << s.route() << ": " << s.routeWhy();
        for (const std::string &note : s.takeNotes())
            std::cerr << "; " << note;
        std::cerr << "\n";
    }
    return 0;
}

} // namespace zbddc::cli
