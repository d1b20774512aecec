#include "runtime/bucket_elimination/run_by_levels.h"

#include <algorithm>
#include <limits>

namespace zbddc {

namespace {

// 1 / max of a product semiring's table, 1 where the max is 0: the InverseMax of a whole table.
double inverseMax(const std::vector<double> &values) {
    double top = 0;
    for (double v : values)
        top = std::max(top, v);
    return top > 0 ? 1 / top : 1.0;
}

} // namespace

Result<CompleteTables> runByLevels(const TensorProgram &program, const RunTensorProgram &run) {
    CompleteTables out;
    out.tables.resize(program.tables.size());
    std::vector<uint32_t> readers(program.tables.size(), 0);
    for (const TensorOp &op : program.ops)
        for (uint32_t t : op.inputs)
            ++readers[t];
    for (const std::vector<uint32_t> &level : program.levels) {
        TensorProgram sub;
        sub.semiring = program.semiring;
        sub.domainSizes = program.domainSizes;
        std::vector<uint32_t> local(program.tables.size(), UINT32_MAX);
        auto bring = [&](uint32_t id, bool asInput) {
            if (local[id] != UINT32_MAX)
                return local[id];
            Table t = program.tables[id];
            if (asInput && !t.input) { // computed by an earlier level
                t.input = true;
                if (readers[id] == 1 && !t.scope.empty()) // its last reader: moved (scalars stay)
                    t.values = std::move(out.tables[id]);
                else
                    t.values = out.tables[id];
            }
            sub.tables.push_back(std::move(t));
            return local[id] = static_cast<uint32_t>(sub.tables.size() - 1);
        };
        std::vector<uint32_t> produced;
        for (uint32_t o : level) {
            const TensorOp &op = program.ops[o];
            if (op.kind == TensorOpKind::InverseMax) {
                if (!program.tables[op.output].scope.empty())
                    return error("internal error: a level-by-level run rescales whole tables only");
                out.tables[op.output] = {inverseMax(out.tables[op.inputs[0]])};
                continue;
            }
            TensorOp mapped = op;
            for (uint32_t &t : mapped.inputs)
                t = bring(t, true);
            mapped.output = bring(op.output, false);
            sub.ops.push_back(std::move(mapped));
            produced.push_back(op.output);
        }
        if (!sub.ops.empty()) {
            computeLevels(sub);
            auto ran = run(sub);
            if (!ran)
                return ran.error();
            for (uint32_t id : produced)
                out.tables[id] = std::move(ran->tables[local[id]]);
            out.device = std::move(ran->device);
        }
        for (uint32_t o : level) // tables whose last reader has run are freed
            for (uint32_t t : program.ops[o].inputs)
                if (--readers[t] == 0 && !program.tables[t].scope.empty())
                    std::vector<double>().swap(out.tables[t]);
    }
    return out;
}

} // namespace zbddc
