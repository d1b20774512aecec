#include "backends/tensor/so/emit_problem_c.h"
#include "backends/tensor/so/emit_tensor_ops_c.h"
#include "ir/number_text.h"
#include "ir/so_metadata.h"
#include "support/shared_object_seal.h"

#include <cmath>
#include <sstream>

namespace zbddc {

namespace {

// The problem.so's thread setting, over run_op (emit_tensor_ops_c.h's kRunOpC).
constexpr const char *kThreads = R"zbdd_c(
static unsigned configured_threads = 0; /* 0: every online core */

EXPORT void zbdd_problem_set_threads(unsigned n) { configured_threads = n; }

static unsigned solve_threads(void) {
    long n = configured_threads ? (long)configured_threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

)zbdd_c";

// The generic part: tables' scopes and strides, ops, solve, traceback, the cost check, metadata.
// Entries are zb_val (valueTypeC): ZB_SUM, ZB_FORBIDDEN and ZB_TO_DOUBLE come with the program.
constexpr const char *kRuntime = R"zbdd_c(
static const zb_val *table_data(unsigned t, const zb_val *msg) {
    return table_blob[t] ? zbdd_tables + table_offset[t] : msg + table_offset[t];
}

/* Entry of table t at a complete assignment (indexed by variable). */
static zb_val value_at(unsigned t, const zb_val *msg, const unsigned *a) {
    uint64_t row = 0;
    for (unsigned i = table_first[t]; i < table_first[t + 1]; ++i)
        row += (uint64_t)a[scope_var[i]] * scope_stride[i];
    return table_data(t, msg)[row];
}

EXPORT int zbdd_problem_abi_version(void) { return ZBDD_PROBLEM_ABI_VERSION; }
EXPORT size_t zbdd_problem_num_variables(void) { return NUM_VARIABLES; }
EXPORT unsigned zbdd_problem_domain_size(size_t v) { return v < NUM_VARIABLES ? domain[v] : 0u; }
EXPORT const char *zbdd_problem_metadata(void) { return metadata; }

static zb_val assignment_total(const unsigned *a) {
    zb_val total = 0;
    if (!a)
        return ZB_FORBIDDEN;
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        if (a[v] >= domain[v])
            return ZB_FORBIDDEN;
    for (unsigned i = 0; i < NUM_INPUT_TABLES; ++i)
        total = ZB_SUM(total, value_at(input_table[i], 0, a));
    return total < UPPER_BOUND ? total : ZB_FORBIDDEN;
}

/* Whether p is aligned for its type: a misaligned buffer is refused, as every buffer is. */
#define ZB_ALIGNED(p) (((uintptr_t)(p) & (_Alignof(__typeof__(*(p))) - 1)) == 0)

static int solve(const int *evidence, zb_val *cost, unsigned *assignment) {
    if (!cost || !assignment || !ZB_ALIGNED(cost) || !ZB_ALIGNED(assignment) ||
        (evidence && !ZB_ALIGNED(evidence)))
        return ZBDD_PROBLEM_EARG;
    for (unsigned v = 0; evidence && v < NUM_VARIABLES; ++v)
        if (evidence[v] != ZBDD_PROBLEM_FREE && (evidence[v] < 0 || (unsigned)evidence[v] >= domain[v]))
            return ZBDD_PROBLEM_EARG;
    zb_val *msg = (zb_val *)malloc((MESSAGE_ENTRIES + MASK_ENTRIES + 1) * sizeof(zb_val));
    if (!msg)
        return ZBDD_PROBLEM_ENOMEM;
    /* Evidence as a mask on each variable: 0 for its observed value (or every value when free),
     * forbidden for the others, added in the bucket that eliminates it. */
    zb_val *mask = msg + MESSAGE_ENTRIES;
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        for (unsigned x = 0; x < domain[v]; ++x)
            mask[mask_offset[v] + x] = evidence && evidence[v] != ZBDD_PROBLEM_FREE &&
                                               (unsigned)evidence[v] != x
                                           ? ZB_FORBIDDEN
                                           : 0;
    run_ops(msg, mask, solve_threads());
    zb_val total = 0;
    for (unsigned r = 0; r < NUM_RESULTS; ++r)
        total = ZB_SUM(total, table_data(result_table[r], msg)[0]);
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        assignment[v] = evidence && evidence[v] != ZBDD_PROBLEM_FREE ? (unsigned)evidence[v] : 0u;
    /* The VALUE phase: last bucket first, each variable takes its first least-cost value given
     * the variables eliminated after it. */
    for (unsigned o = NUM_OPS; o-- > 0;) {
        const unsigned v = op_var[op_vfirst[o]];
        unsigned best_x = 0;
        zb_val best = 0;
        for (unsigned x = 0; x < domain[v]; ++x) {
            assignment[v] = x;
            zb_val c = mask[mask_offset[v] + x];
            for (unsigned i = op_first[o]; i < op_first[o + 1]; ++i)
                c = ZB_SUM(c, value_at(op_input[i], msg, assignment));
            if (x == 0 || c < best) {
                best = c;
                best_x = x;
            }
        }
        assignment[v] = best_x;
    }
    free(msg);
    *cost = total < UPPER_BOUND ? total : ZB_FORBIDDEN;
    return ZBDD_PROBLEM_OK;
}

EXPORT double zbdd_problem_assignment_cost(const unsigned *a) {
    return ZB_TO_DOUBLE(assignment_total(a));
}

EXPORT int zbdd_problem_solve(const int *evidence, double *cost, unsigned *assignment) {
    if (cost && !ZB_ALIGNED(cost))
        return ZBDD_PROBLEM_EARG;
    zb_val c = 0;
    const int status = solve(evidence, cost ? &c : 0, assignment);
    if (status == ZBDD_PROBLEM_OK)
        *cost = ZB_TO_DOUBLE(c);
    return status;
}
)zbdd_c";

// The exact entry points of a problem whose costs are int64 (ZBDD_PROBLEM_INT64_FORBIDDEN where
// the double ones say +infinity).
constexpr const char *kInt64Runtime = R"zbdd_c(
EXPORT int64_t zbdd_problem_assignment_cost_int64(const unsigned *a) { return assignment_total(a); }

EXPORT int zbdd_problem_solve_int64(const int *evidence, int64_t *cost, unsigned *assignment) {
    return solve(evidence, cost, assignment);
}
)zbdd_c";

// The value type's part of the runtime: ⊗ of two costs, the forbidden cost, and a cost as the
// double the float64 entry points return.
std::string costMacrosC(bool int64Costs) {
    if (int64Costs)
        return "#define ZB_SUM(a, b) zb_cost_sum(a, b)\n#define ZB_FORBIDDEN INT64_MAX\n"
               "#define ZB_TO_DOUBLE(c) ((c) == INT64_MAX ? INFINITY : (double)(c))\n";
    return "#define ZB_SUM(a, b) ((a) + (b))\n#define ZB_FORBIDDEN INFINITY\n"
           "#define ZB_TO_DOUBLE(c) (c)\n";
}

} // namespace

std::string writeProblemMetadata(const TensorProgram &p, const ProblemInfo &info) {
    std::ostringstream m;
    writeMetadataHeader(m, "problem", 2); // 2: names percent-encoded, as in the other kinds
    const bool int64Costs = p.semiring == Semiring::MinSumInt64;
    MetadataFacts facts{
        {"name", info.name},
        {"costs", int64Costs ? "int64" : info.integerCosts ? "integer" : "real"},
        {"upper_bound", int64Costs                    ? std::to_string(wordInt64(info.upperBound))
                        : std::isinf(info.upperBound) ? "inf"
                                                      : doubleLiteral(info.upperBound)}};
    facts.insert(facts.end(), info.facts.begin(), info.facts.end());
    writeMetadataFacts(m, facts);
    m << "variables " << p.domainSizes.size() << "\n";
    for (size_t v = 0; v < p.domainSizes.size(); ++v)
        m << "variable " << p.domainSizes[v] << " "
          << encodeName(v < info.variableNames.size() ? info.variableNames[v] : std::to_string(v))
          << "\n";
    return m.str();
}

Result<ProblemSource> emitProblemC(const TensorProgram &p, const ProblemInfo &info,
                                   const std::string &blobPath) {
    if (Status s = p.verify(); !s)
        return s.error();
    const bool int64Costs = p.semiring == Semiring::MinSumInt64;
    if (p.semiring != Semiring::MinSum && !int64Costs)
        return error("a problem.so is compiled from a min-sum program");
    for (const TensorOp &op : p.ops)
        if (op.kind != TensorOpKind::EliminateBucket || op.vars.size() != 1)
            return error(std::string("a problem.so is compiled from fused buckets of one variable, "
                                     "not a ") +
                         tensorOpKindName(op.kind) + " op");
    if (blobPath.find_first_of("\"\\\n") != std::string::npos)
        return error("cannot embed tables from a path with quotes or backslashes: " + blobPath);

    ProblemSource out;
    out.metadata = writeProblemMetadata(p, info);
    TensorOpsC ops;
    ops.blobSymbol = "zbdd_tables";
    ops.evidenceMask = true;
    const TensorTableLayout layout = layoutTables(p, ops);
    appendBlob(p, layout, out.blob);
    std::vector<uint32_t> inputTables;
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (p.tables[t].input)
            inputTables.push_back(static_cast<uint32_t>(t));

    std::ostringstream c;
    c << "/* Generated by zbddc: bucket elimination of one problem (docs/c-api.md). */\n"
         "#include <math.h>\n#include <pthread.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
         "#include <unistd.h>\n"
         "#include \"zbdd_problem.h\"\n\n"
         "#define EXPORT __attribute__((visibility(\"default\")))\n\n";
    c << valueTypeC(p.semiring) << costMacrosC(int64Costs) << embedBlobC("zbdd_tables", blobPath);
    c << "#define NUM_VARIABLES " << p.domainSizes.size() << "u\n";
    c << "#define NUM_INPUT_TABLES " << inputTables.size() << "u\n";
    c << "#define NUM_RESULTS " << p.results.size() << "u\n";
    c << "#define NUM_OPS " << p.ops.size() << "u\n";
    c << "#define MESSAGE_ENTRIES " << layout.messageEntries << "u\n";
    c << "#define UPPER_BOUND "
      << (int64Costs ? "INT64_C(" + std::to_string(wordInt64(info.upperBound)) + ")"
                     : doubleLiteral(info.upperBound))
      << "\n";

    std::vector<uint32_t> maskOffset;
    uint64_t maskEntries = 0;
    for (uint32_t d : p.domainSizes) {
        maskOffset.push_back(static_cast<uint32_t>(maskEntries));
        maskEntries += d;
    }
    c << "#define MASK_ENTRIES " << maskEntries << "u\n\n";
    emitArray(c, "unsigned", "mask_offset", maskOffset);
    emitArray(c, "unsigned", "result_table", p.results);
    emitArray(c, "unsigned", "input_table", inputTables);

    // What zbddc checks before it dlopens a problem.so (runtime/shared_objects/shared_library.h).
    c << "\n" << containerHeaderC("problem.so", "ZBDD_PROBLEM_ABI_STRING");
    emitStringLiteral(c, "metadata", out.metadata);
    emitOpsC(p, layout, ops, c);
    c << kRunOpC << kThreads;
    c << "/* Buckets in program order (a topological order of the elimination tree). */\n"
         "static void run_ops(zb_val *msg, const zb_val *mask, unsigned threads) {\n";
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        c << "    run_op(op_" << o << ", msg, mask + " << maskOffset[p.ops[o].vars[0]] << "u, "
          << outerRows(p.tables[p.ops[o].output]) << "u, " << opWork(p, p.ops[o])
          << "u, threads);\n";
    }
    c << "    (void)msg;\n    (void)mask;\n    (void)threads;\n";
    c << "}\n";
    c << kRuntime;
    if (int64Costs)
        c << kInt64Runtime;
    out.c = c.str();
    return out;
}

} // namespace zbddc
