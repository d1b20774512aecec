#include "backends/tensor/so/emit_network_c.h"
#include "backends/tensor/so/emit_tensor_ops_c.h"
#include "support/shared_object_seal.h"

#include <algorithm>
#include <sstream>

namespace zbddc {

namespace {

// What the generic loop reads per op: its axes (the output's scope, then the eliminated
// variables), their sizes, and each input's stride along each axis.
void emitGenericOps(const TensorProgram &p, const std::string &x, std::ostream &c) {
    std::vector<uint32_t> kind, output, outAxes;
    FlatLists<uint32_t> axisSizes;
    FlatLists<uint64_t> strides;
    for (const TensorOp &op : p.ops) {
        const Table &out = p.tables[op.output];
        kind.push_back(op.kind == TensorOpKind::InverseMax);
        output.push_back(op.output);
        outAxes.push_back(static_cast<uint32_t>(out.scope.size()));
        std::vector<uint32_t> axes = out.scope;
        axes.insert(axes.end(), op.vars.begin(), op.vars.end());
        for (uint32_t v : axes)
            axisSizes.items.push_back(p.domainSizes[v]);
        axisSizes.endList();
        for (uint32_t in : op.inputs)
            for (uint32_t v : axes)
                strides.items.push_back(variableStride(p.tables[in], v));
        strides.endList();
    }
    emitArray(c, "unsigned char", x + "op_inverse_max", kind);
    emitArray(c, "unsigned", x + "op_output", output);
    emitArray(c, "unsigned", x + "op_out_axes", outAxes);
    emitFlatLists(c, "unsigned", x + "op_axis_first", x + "op_axis_size", axisSizes);
    emitFlatLists(c, "uint64_t", x + "op_stride_first", x + "op_stride", strides);
}

std::string checkProgram(const NetworkProgram &n, Semiring semiring, uint32_t numVariables,
                         uint32_t batch) {
    const TensorProgram &p = n.program;
    if (Status s = p.verify(); !s)
        return s.error().message;
    if (p.semiring != semiring)
        return "a network.so program in the wrong semiring";
    if (p.domainSizes.size() != numVariables + 1 || p.domainSizes.back() != batch)
        return "a network.so program without the case variable last";
    if (std::string why = unsupportedByOpsC(p); !why.empty())
        return "a network.so cannot hold " + why;
    auto bad = [&](uint32_t t) { return t >= p.tables.size(); };
    if (n.evidenceTable.size() != numVariables ||
        std::any_of(n.evidenceTable.begin(), n.evidenceTable.end(), bad) || bad(n.normaliser) ||
        std::any_of(n.scales.begin(), n.scales.end(), bad) ||
        std::any_of(n.marginalTable.begin(), n.marginalTable.end(), bad))
        return "a network.so program without its evidence, root or marginal tables";
    for (uint32_t t : n.evidenceTable)
        if (!p.tables[t].input)
            return "a network.so program whose evidence is computed";
    return {};
}

// One program's ops and arrays (emitOpsC), the op table the driver runs, and its jt_program.
void emitProgram(const NetworkProgram &n, const std::string &name, uint64_t blobBase,
                 uint64_t specialiseWork, std::ostream &c, std::vector<double> &blob) {
    const TensorProgram &p = n.program;
    TensorOpsC ops;
    ops.prefix = name + "_";
    ops.blobSymbol = "zbdd_tables";
    ops.blobBase = blobBase;
    ops.callerFilled.assign(p.tables.size(), false);
    for (uint32_t t : n.evidenceTable)
        ops.callerFilled[t] = true;
    for (const TensorOp &op : p.ops)
        ops.specialised.push_back(opWork(p, op) >= specialiseWork);
    const TensorTableLayout layout = layoutTables(p, ops);
    appendBlob(p, layout, blob);
    emitOpsC(p, layout, ops, c);
    emitGenericOps(p, ops.prefix, c);

    const std::string &x = ops.prefix;
    c << "static const op_fn " << x << "ops[" << std::max<size_t>(p.ops.size(), 1) << "] = {";
    for (uint32_t o = 0; o < p.ops.size(); ++o)
        c << (o % 8 ? " " : "\n    ")
          << (ops.specialised[o] ? x + "op_" + std::to_string(o) : std::string("0")) << ",";
    c << (p.ops.empty() ? "0" : "") << "\n};\n";
    std::vector<uint64_t> outer, work;
    for (const TensorOp &op : p.ops) {
        outer.push_back(outerRows(p.tables[op.output]));
        work.push_back(opWork(p, op));
    }
    emitArray(c, "uint64_t", x + "op_outer", outer);
    emitArray(c, "uint64_t", x + "op_work", work);
    emitArray(c, "unsigned", x + "evidence_table", n.evidenceTable);
    emitArray(c, "unsigned", x + "scales", n.scales);
    emitArray(c, "unsigned", x + "marginal_table", n.marginalTable);
    // PR stops after the root: every op up to the last that writes the root or a collect scale.
    uint32_t prOps = 0;
    for (uint32_t o = 0; o < p.ops.size(); ++o)
        if (p.ops[o].output == n.normaliser ||
            std::find(n.scales.begin(), n.scales.end(), p.ops[o].output) != n.scales.end())
            prOps = o + 1;
    c << "static const struct jt_program " << name << "_program = {\n"
      << "    " << x << "domain, " << x << "table_blob, " << x << "table_offset, " << x
      << "scope_stride,\n"
      << "    " << x << "table_first, " << x << "scope_var,\n"
      << "    " << x << "op_first, " << x << "op_input, " << x << "op_vfirst, " << x << "op_var,\n"
      << "    " << x << "op_reduces, " << x << "ops, " << x << "op_outer, " << x << "op_work,\n"
      << "    " << x << "op_inverse_max, " << x << "op_output, " << x << "op_out_axes, " << x
      << "op_axis_first, " << x << "op_axis_size, " << x << "op_stride_first, " << x
      << "op_stride,\n"
      << "    " << p.ops.size() << "u, " << prOps << "u, " << layout.messageEntries << "u,\n"
      << "    " << x << "evidence_table, " << n.normaliser << "u, " << n.scales.size() << "u, " << x
      << "scales, " << x << "marginal_table};\n\n";
}

} // namespace

Result<NetworkSource> emitNetworkC(const NetworkProgram &sum, const NetworkProgram &max,
                                   uint32_t batch, const std::string &metadata,
                                   const std::string &blobPath, uint64_t specialiseWork) {
    const uint32_t numVariables = static_cast<uint32_t>(sum.evidenceTable.size());
    if (std::string why = checkProgram(sum, Semiring::SumProduct, numVariables, batch);
        !why.empty())
        return error("internal error: " + why);
    if (std::string why = checkProgram(max, Semiring::MaxProduct, numVariables, batch);
        !why.empty())
        return error("internal error: " + why);
    if (sum.marginalTable.size() != numVariables)
        return error("internal error: a network.so's sum program without its marginals");
    if (blobPath.find_first_of("\"\\\n") != std::string::npos)
        return error("cannot embed tables from a path with quotes or backslashes: " + blobPath);

    uint64_t marginals = 0;
    for (uint32_t v = 0; v < numVariables; ++v)
        marginals += sum.program.domainSizes[v];
    NetworkSource out;
    std::ostringstream c;
    c << "/* Generated by zbddc: a Bayesian network's junction tree (docs/c-api.md). */\n"
         "#define _DEFAULT_SOURCE /* mincore */\n"
         "#include <math.h>\n#include <pthread.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
         "#include <unistd.h>\n"
         "#include \"zbdd_network.h\"\n\n"
         "#define EXPORT __attribute__((visibility(\"default\")))\n\n";
    c << valueTypeC(Semiring::SumProduct) << embedBlobC("zbdd_tables", blobPath);
    c << "#define NUM_VARIABLES " << numVariables << "u\n";
    c << "#define NUM_MARGINALS " << marginals << "u\n";
    c << "#define BATCH " << batch << "u\n\n";
    // What zbddc checks before it dlopens a network.so (runtime/shared_objects/shared_library.h).
    c << containerHeaderC("network.so", "ZBDD_NETWORK_ABI_STRING");
    emitStringLiteral(c, "metadata", metadata);
    c << kRunOpC;
    c << "#include \"zbdd_network_so_driver.c\"\n\n";
    emitProgram(sum, "sum", 0, specialiseWork, c, out.blob);
    emitProgram(max, "max", out.blob.size(), specialiseWork, c, out.blob);
    out.c = c.str();
    return out;
}

} // namespace zbddc
