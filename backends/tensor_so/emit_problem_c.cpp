#include "backends/tensor_so/emit_problem_c.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace zbddc {

namespace {

// A name on one metadata line: line breaks would end the record.
std::string oneLine(std::string s) {
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    return s;
}

std::string doubleLiteral(double v) {
    if (std::isinf(v))
        return v > 0 ? "INFINITY" : "(-INFINITY)";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
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

// One bucket: for each output row (an odometer of constant-bound loops over the output scope),
// the least over the eliminated variable's values of the mask plus every input's entry.
void emitOp(const TensorProgram &p, const Layout &l, uint32_t o, std::ostream &c) {
    const TensorOp &op = p.ops[o];
    const Table &out = p.tables[op.output];
    const uint32_t v = op.vars[0];
    c << "/* bucket of variable " << v << ": " << op.inputs.size() << " tables in, "
      << out.entries() << " rows out */\n";
    c << "static void op_" << o << "(double *msg, const double *ev) {\n";
    for (size_t j = 0; j < op.inputs.size(); ++j)
        c << "    const double *in" << j << " = " << tableBase(p, l, op.inputs[j]) << ";\n";
    c << "    double *out = " << tableBase(p, l, op.output) << ";\n";
    c << "    uint64_t row = 0;\n";
    std::string indent = "    ";
    for (size_t i = 0; i < out.scope.size(); ++i) {
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
    c << indent << "}\n}\n\n";
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
    run_ops(msg, mask);
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
         "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
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
    c << "/* Buckets in program order (a topological order of the elimination tree). */\n"
         "static void run_ops(double *msg, const double *mask) {\n";
    for (uint32_t o = 0; o < p.ops.size(); ++o)
        c << "    op_" << o << "(msg, mask + " << maskOffset[p.ops[o].vars[0]] << "u);\n";
    if (p.ops.empty())
        c << "    (void)msg;\n    (void)mask;\n";
    c << "}\n";
    c << kRuntime;
    out.c = c.str();
    return out;
}

} // namespace zbddc
