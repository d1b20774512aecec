#include "backends/tensor/so/emit_problem_c.h"
#include "ir/number_text.h"
#include "ir/text_lines.h" // oneLine: a name on one metadata line, as line breaks end records

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace zbddc {

namespace {

std::string doubleLiteral(double v) {
    if (std::isinf(v))
        return v > 0 ? "INFINITY" : "(-INFINITY)";
    std::string s = exactText(v);
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

uint64_t strideOf(const Table &t, const std::vector<uint64_t> &strides, uint32_t v) {
    const auto it = std::find(t.scope.begin(), t.scope.end(), v);
    return it == t.scope.end() ? 0 : strides[it - t.scope.begin()];
}

// Where each table lives: input tables in the embedded blob, computed ones in the message buffer
// that zbdd_problem_solve allocates.
struct Layout {
    std::vector<uint64_t> offset;
    uint64_t blobEntries = 0, messageEntries = 0;
};

Layout layoutTables(const TensorProgram &p) {
    Layout l;
    for (const Table &t : p.tables) {
        uint64_t &next = t.input ? l.blobEntries : l.messageEntries;
        l.offset.push_back(next);
        next += t.entries();
    }
    return l;
}

std::string tableBase(const TensorProgram &p, const Layout &l, uint32_t t) {
    return std::string(p.tables[t].input ? "zbdd_tables" : "msg") + " + " +
           std::to_string(l.offset[t]) + "u";
}

// Leading output variables merged into one outer index, so that threads can share a bucket's rows
// (the least prefix with at least 64 values, or the whole scope).
size_t outerVariables(const Table &out) {
    size_t c = 0;
    for (uint64_t outer = 1; c < out.scope.size() && outer < 64; ++c)
        outer *= out.domains[c];
    return c;
}

uint64_t outerRows(const Table &out) {
    uint64_t rows = 1;
    for (size_t i = 0; i < outerVariables(out); ++i)
        rows *= out.domains[i];
    return rows;
}

// One bucket: for each output row (an odometer of constant-bound loops over the output scope, the
// leading ones merged into the outer index [o_begin, o_end) that a thread takes), the least over
// the eliminated variable's values of the mask plus every input's entry.
void emitOp(const TensorProgram &p, const Layout &l, uint32_t o, std::ostream &c) {
    const TensorOp &op = p.ops[o];
    const Table &out = p.tables[op.output];
    const uint32_t v = op.vars[0];
    const size_t merged = outerVariables(out);
    c << "/* bucket of variable " << v << ": " << op.inputs.size() << " tables in, "
      << out.entries() << " rows out */\n";
    c << "static void op_" << o
      << "(double *msg, const double *ev, uint64_t o_begin, uint64_t o_end) {\n";
    for (size_t j = 0; j < op.inputs.size(); ++j)
        c << "    const double *in" << j << " = " << tableBase(p, l, op.inputs[j]) << ";\n";
    c << "    double *out = " << tableBase(p, l, op.output) << ";\n";
    c << "    for (uint64_t o = o_begin; o < o_end; ++o) {\n";
    c << "        uint64_t rest = o, row = o * " << out.entries() / outerRows(out) << "u;\n";
    for (size_t i = merged; i-- > 0;)
        c << "        const uint64_t i" << i << " = rest % " << out.domains[i] << "u;\n"
          << "        rest /= " << out.domains[i] << "u;\n";
    c << "        (void)rest;\n";
    std::string indent = "        ";
    for (size_t i = merged; i < out.scope.size(); ++i) {
        c << indent << "for (uint64_t i" << i << " = 0; i" << i << " < " << out.domains[i]
          << "u; ++i" << i << ")\n";
        indent += "  ";
    }
    c << indent << "{\n";
    std::vector<uint64_t> elimStride;
    for (size_t j = 0; j < op.inputs.size(); ++j) {
        const Table &t = p.tables[op.inputs[j]];
        const std::vector<uint64_t> strides = tableStrides(t);
        c << indent << "    const double *p" << j << " = in" << j;
        for (size_t i = 0; i < out.scope.size(); ++i)
            if (const uint64_t s = strideOf(t, strides, out.scope[i]))
                c << " + i" << i << " * " << s << "u";
        c << ";\n";
        elimStride.push_back(strideOf(t, strides, v));
    }
    c << indent << "    double best = INFINITY;\n";
    c << indent << "    for (uint64_t x = 0; x < " << p.domainSizes[v] << "u; ++x) {\n";
    c << indent << "        const double c = ev[x]";
    for (size_t j = 0; j < op.inputs.size(); ++j)
        c << " + p" << j << "[x * " << elimStride[j] << "u]";
    c << ";\n";
    c << indent << "        best = c < best ? c : best;\n";
    c << indent << "    }\n";
    c << indent << "    out[row++] = best;\n";
    c << indent << "}\n    }\n}\n\n";
}

template <typename T>
void emitArray(std::ostream &c, const char *type, const char *name, const std::vector<T> &values) {
    c << "static const " << type << " " << name << "[" << std::max<size_t>(values.size(), 1)
      << "] = {";
    for (size_t i = 0; i < values.size(); ++i)
        c << (i % 16 ? " " : "\n    ") << values[i] << "u,";
    if (values.empty())
        c << "0";
    c << "\n};\n";
}

// Rows of one bucket shared over threads (pthreads: the .so needs only libc and libm); small
// buckets, and any thread that cannot start, run on the calling thread. Each row is computed
// the same way whoever computes it, so the answer does not depend on the thread count.
constexpr const char *kThreads = R"zbdd_c(
typedef void (*op_fn)(double *, const double *, uint64_t, uint64_t);
typedef struct {
    op_fn fn;
    double *msg;
    const double *ev;
    uint64_t begin, end;
} op_slice;

static void *run_slice(void *arg) {
    const op_slice *s = (const op_slice *)arg;
    s->fn(s->msg, s->ev, s->begin, s->end);
    return 0;
}

#define MAX_THREADS 256u
#define THREAD_WORK 32768u /* entries below which a bucket stays on one thread */
static unsigned configured_threads = 0; /* 0: every online core */

EXPORT void zbdd_problem_set_threads(unsigned n) { configured_threads = n; }

static unsigned solve_threads(void) {
    long n = configured_threads ? (long)configured_threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

static void run_op(op_fn fn, double *msg, const double *ev, uint64_t outer, uint64_t work,
                   unsigned threads) {
    unsigned t = work < THREAD_WORK ? 1u : threads;
    if (t > outer)
        t = (unsigned)outer;
    if (t <= 1) {
        fn(msg, ev, 0, outer);
        return;
    }
    op_slice slices[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS];
    for (unsigned i = 0; i < t; ++i) {
        slices[i].fn = fn;
        slices[i].msg = msg;
        slices[i].ev = ev;
        slices[i].begin = outer * i / t;
        slices[i].end = outer * (i + 1) / t;
        started[i] = i > 0 && pthread_create(&ids[i], 0, run_slice, &slices[i]) == 0;
    }
    for (unsigned i = 0; i < t; ++i)
        if (!started[i])
            run_slice(&slices[i]);
    for (unsigned i = 1; i < t; ++i)
        if (started[i])
            pthread_join(ids[i], 0);
}

)zbdd_c";

// The generic part: tables' scopes and strides, ops, solve, traceback, the cost check, metadata.
constexpr const char *kRuntime = R"zbdd_c(
static const double *table_data(unsigned t, const double *msg) {
    return table_input[t] ? zbdd_tables + table_offset[t] : msg + table_offset[t];
}

/* Entry of table t at a complete assignment (indexed by variable). */
static double value_at(unsigned t, const double *msg, const unsigned *a) {
    uint64_t row = 0;
    for (unsigned i = table_first[t]; i < table_first[t + 1]; ++i)
        row += (uint64_t)a[scope_var[i]] * scope_stride[i];
    return table_data(t, msg)[row];
}

EXPORT int zbdd_problem_abi_version(void) { return ZBDD_PROBLEM_ABI_VERSION; }
EXPORT size_t zbdd_problem_num_variables(void) { return NUM_VARIABLES; }
EXPORT unsigned zbdd_problem_domain_size(size_t v) { return v < NUM_VARIABLES ? domain[v] : 0u; }
EXPORT const char *zbdd_problem_metadata(void) { return metadata; }

EXPORT double zbdd_problem_assignment_cost(const unsigned *a) {
    double total = 0.0;
    if (!a)
        return INFINITY;
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        if (a[v] >= domain[v])
            return INFINITY;
    for (unsigned i = 0; i < NUM_INPUT_TABLES; ++i)
        total += value_at(input_table[i], 0, a);
    return total < UPPER_BOUND ? total : INFINITY;
}

EXPORT int zbdd_problem_solve(const int *evidence, double *cost, unsigned *assignment) {
    if (!cost || !assignment)
        return ZBDD_PROBLEM_EARG;
    for (unsigned v = 0; evidence && v < NUM_VARIABLES; ++v)
        if (evidence[v] != ZBDD_PROBLEM_FREE && (evidence[v] < 0 || (unsigned)evidence[v] >= domain[v]))
            return ZBDD_PROBLEM_EARG;
    double *msg = (double *)malloc((MESSAGE_ENTRIES + MASK_ENTRIES + 1) * sizeof(double));
    if (!msg)
        return ZBDD_PROBLEM_ENOMEM;
    /* Evidence as a mask on each variable: 0 for its observed value (or every value when free),
     * +infinity for the others, added in the bucket that eliminates it. */
    double *mask = msg + MESSAGE_ENTRIES;
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        for (unsigned x = 0; x < domain[v]; ++x)
            mask[mask_offset[v] + x] =
                evidence && evidence[v] != ZBDD_PROBLEM_FREE && (unsigned)evidence[v] != x ? INFINITY : 0.0;
    run_ops(msg, mask, solve_threads());
    double total = 0.0;
    for (unsigned r = 0; r < NUM_RESULTS; ++r)
        total += table_data(result_table[r], msg)[0];
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        assignment[v] = evidence && evidence[v] != ZBDD_PROBLEM_FREE ? (unsigned)evidence[v] : 0u;
    /* The VALUE phase: last bucket first, each variable takes its first least-cost value given
     * the variables eliminated after it. */
    for (unsigned o = NUM_OPS; o-- > 0;) {
        const unsigned v = op_var[o];
        unsigned best_x = 0;
        double best = 0.0;
        for (unsigned x = 0; x < domain[v]; ++x) {
            assignment[v] = x;
            double c = mask[mask_offset[v] + x];
            for (unsigned i = op_first[o]; i < op_first[o + 1]; ++i)
                c += value_at(op_input[i], msg, assignment);
            if (x == 0 || c < best) {
                best = c;
                best_x = x;
            }
        }
        assignment[v] = best_x;
    }
    free(msg);
    *cost = total < UPPER_BOUND ? total : INFINITY;
    return ZBDD_PROBLEM_OK;
}
)zbdd_c";

} // namespace

std::string writeProblemMetadata(const TensorProgram &p, const ProblemInfo &info) {
    std::ostringstream m;
    m << "zbdd-problem 1\n";
    m << "name " << oneLine(info.name) << "\n";
    m << "costs " << (info.integerCosts ? "integer" : "real") << "\n";
    m << "upper_bound " << (std::isinf(info.upperBound) ? "inf" : doubleLiteral(info.upperBound))
      << "\n";
    for (const auto &[key, value] : info.facts)
        m << oneLine(key) << " " << oneLine(value) << "\n";
    m << "variables " << p.domainSizes.size() << "\n";
    for (size_t v = 0; v < p.domainSizes.size(); ++v)
        m << "variable " << p.domainSizes[v] << " "
          << (v < info.variableNames.size() ? oneLine(info.variableNames[v]) : std::to_string(v))
          << "\n";
    return m.str();
}

Result<ProblemSource> emitProblemC(const TensorProgram &p, const ProblemInfo &info,
                                   const std::string &blobPath) {
    if (Status s = p.verify(); !s)
        return s.error();
    if (p.semiring != Semiring::MinSum)
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
    const Layout layout = layoutTables(p);
    out.blob.reserve(layout.blobEntries);
    std::vector<uint32_t> inputTables;
    for (size_t t = 0; t < p.tables.size(); ++t) {
        const Table &tab = p.tables[t];
        if (!tab.input)
            continue;
        inputTables.push_back(static_cast<uint32_t>(t));
        for (uint64_t r = 0; r < tab.entries(); ++r)
            out.blob.push_back(inputTableValue(tab, r));
    }

    std::ostringstream c;
    c << "/* Generated by zbddc: bucket elimination of one problem (docs/c-api.md). */\n"
         "#include <math.h>\n#include <pthread.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
         "#include <unistd.h>\n"
         "#include \"zbdd_problem.h\"\n\n"
         "#define EXPORT __attribute__((visibility(\"default\")))\n\n";
    // The input tables, little-endian float64, aligned for vector loads.
    c << "__asm__(\".section .rodata\\n.balign 64\\n.globl zbdd_tables\\n.hidden zbdd_tables\\n"
         "zbdd_tables:\\n.incbin \\\""
      << blobPath << "\\\"\\n.previous\\n\");\n";
    c << "extern const double zbdd_tables[] __attribute__((visibility(\"hidden\")));\n\n";
    c << "#define NUM_VARIABLES " << p.domainSizes.size() << "u\n";
    c << "#define NUM_INPUT_TABLES " << inputTables.size() << "u\n";
    c << "#define NUM_RESULTS " << p.results.size() << "u\n";
    c << "#define NUM_OPS " << p.ops.size() << "u\n";
    c << "#define MESSAGE_ENTRIES " << layout.messageEntries << "u\n";
    c << "#define UPPER_BOUND " << doubleLiteral(info.upperBound) << "\n";

    std::vector<uint32_t> maskOffset;
    uint64_t maskEntries = 0;
    for (uint32_t d : p.domainSizes) {
        maskOffset.push_back(static_cast<uint32_t>(maskEntries));
        maskEntries += d;
    }
    c << "#define MASK_ENTRIES " << maskEntries << "u\n\n";
    emitArray(c, "unsigned", "domain", p.domainSizes);
    emitArray(c, "unsigned", "mask_offset", maskOffset);
    std::vector<uint32_t> tableInput, tableFirst{0}, scopeVar;
    std::vector<uint64_t> tableOffset, scopeStride;
    for (size_t t = 0; t < p.tables.size(); ++t) {
        const Table &tab = p.tables[t];
        tableInput.push_back(tab.input);
        tableOffset.push_back(layout.offset[t]);
        const std::vector<uint64_t> strides = tableStrides(tab);
        scopeVar.insert(scopeVar.end(), tab.scope.begin(), tab.scope.end());
        scopeStride.insert(scopeStride.end(), strides.begin(), strides.end());
        tableFirst.push_back(static_cast<uint32_t>(scopeVar.size()));
    }
    emitArray(c, "unsigned char", "table_input", tableInput);
    emitArray(c, "uint64_t", "table_offset", tableOffset);
    emitArray(c, "unsigned", "table_first", tableFirst);
    emitArray(c, "unsigned", "scope_var", scopeVar);
    emitArray(c, "uint64_t", "scope_stride", scopeStride);
    std::vector<uint32_t> opVar, opFirst{0}, opInput;
    for (const TensorOp &op : p.ops) {
        opVar.push_back(op.vars[0]);
        opInput.insert(opInput.end(), op.inputs.begin(), op.inputs.end());
        opFirst.push_back(static_cast<uint32_t>(opInput.size()));
    }
    emitArray(c, "unsigned", "op_var", opVar);
    emitArray(c, "unsigned", "op_first", opFirst);
    emitArray(c, "unsigned", "op_input", opInput);
    emitArray(c, "unsigned", "result_table", p.results);
    emitArray(c, "unsigned", "input_table", inputTables);

    // The marker zbddc checks before it dlopens a problem.so (runtime/shared_object_check.h).
    c << "\n__attribute__((section(\".zbddc\"), used)) static const char zbdd_marker[] = "
         "\"zbddc problem.so abi \" ZBDD_PROBLEM_ABI_STRING;\n";
    c << "\nstatic const char metadata[] =\n";
    std::istringstream lines(out.metadata);
    for (std::string line; std::getline(lines, line);) {
        c << "    \"";
        for (char ch : line) {
            if (ch == '"' || ch == '\\')
                c << '\\' << ch;
            else if (static_cast<unsigned char>(ch) < 0x20 || ch == '?') { // no trigraphs either
                char esc[8];
                std::snprintf(esc, sizeof esc, "\\%03o", static_cast<unsigned char>(ch));
                c << esc;
            } else
                c << ch;
        }
        c << "\\n\"\n";
    }
    c << "    ;\n\n";

    for (uint32_t o = 0; o < p.ops.size(); ++o)
        emitOp(p, layout, o, c);
    c << kThreads;
    c << "/* Buckets in program order (a topological order of the elimination tree). */\n"
         "static void run_ops(double *msg, const double *mask, unsigned threads) {\n";
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        const Table &out = p.tables[p.ops[o].output];
        c << "    run_op(op_" << o << ", msg, mask + " << maskOffset[p.ops[o].vars[0]] << "u, "
          << outerRows(out) << "u, " << out.entries() * p.domainSizes[p.ops[o].vars[0]]
          << "u, threads);\n";
    }
    c << "    (void)msg;\n    (void)mask;\n    (void)threads;\n";
    c << "}\n";
    c << kRuntime;
    out.c = c.str();
    return out;
}

} // namespace zbddc
