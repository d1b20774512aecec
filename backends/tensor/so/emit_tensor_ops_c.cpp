#include "backends/tensor/so/emit_tensor_ops_c.h"
#include "ir/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace zbddc {

namespace {

uint64_t strideOf(const Table &t, const std::vector<uint64_t> &strides, uint32_t v) {
    const auto it = std::find(t.scope.begin(), t.scope.end(), v);
    return it == t.scope.end() ? 0 : strides[it - t.scope.begin()];
}

// Leading output variables merged into one outer index (the least prefix with at least 64
// values, or the whole scope).
size_t outerVariables(const Table &out) {
    size_t c = 0;
    for (uint64_t outer = 1; c < out.scope.size() && outer < 64; ++c)
        outer *= out.domains[c];
    return c;
}

// The semiring's C: ⊗ of two operands (an infix operator, or a function where `call`), the ⊕
// identity, and `acc = acc ⊕ v`.
struct RingC {
    const char *times, *zero, *accumulate;
    bool call = false;
};

RingC ringC(Semiring s, bool inverseMax) {
    if (inverseMax) // max over the entries, then its reciprocal
        return {" * ", "0.0", "acc = v > acc ? v : acc;"};
    switch (s) {
    case Semiring::SumProduct:
        return {" * ", "0.0", "acc += v;"};
    case Semiring::MaxProduct:
        return {" * ", "0.0", "acc = v > acc ? v : acc;"};
    case Semiring::MinSum:
        return {" + ", "INFINITY", "acc = v < acc ? v : acc;"};
    case Semiring::MaxSum:
        return {" + ", "(-INFINITY)", "acc = v > acc ? v : acc;"};
    case Semiring::MinSumInt64:
        return {"zb_cost_sum", "INT64_MAX", "acc = v < acc ? v : acc;", true};
    }
    return {" * ", "0.0", "acc += v;"};
}

std::string tableBase(const TensorTableLayout &l, const TensorOpsC &o, uint32_t t) {
    return l.inBlob[t] ? o.blobSymbol + " + " + std::to_string(o.blobBase + l.offset[t]) + "u"
                       : "msg + " + std::to_string(l.offset[t]) + "u";
}

// One op: for each output row (an odometer of constant-bound loops over the output scope, the
// leading ones merged into the outer index a thread takes), ⊕ over the eliminated variables'
// values (nested constant-bound loops) of ⊗ every input's entry.
void emitOp(const TensorProgram &p, const TensorTableLayout &l, const TensorOpsC &opt, uint32_t o,
            std::ostream &c) {
    const TensorOp &op = p.ops[o];
    const Table &out = p.tables[op.output];
    const bool inverseMax = op.kind == TensorOpKind::InverseMax;
    const RingC ring = ringC(p.semiring, inverseMax);
    const size_t merged = outerVariables(out);
    c << "/* " << tensorOpKindName(op.kind) << " of " << op.vars.size()
      << " variable(s): " << op.inputs.size() << " table(s) in, " << out.entries()
      << " rows out */\n";
    c << "static void " << opt.prefix << "op_" << o
      << "(zb_val *msg, const zb_val *ev, uint64_t o_begin, uint64_t o_end) {\n";
    for (size_t j = 0; j < op.inputs.size(); ++j)
        c << "    const zb_val *in" << j << " = " << tableBase(l, opt, op.inputs[j]) << ";\n";
    c << "    zb_val *out = " << tableBase(l, opt, op.output) << ";\n";
    c << "    (void)msg;\n    (void)ev;\n";
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
    std::vector<std::vector<uint64_t>> elimStride(op.inputs.size());
    for (size_t j = 0; j < op.inputs.size(); ++j) {
        const Table &t = p.tables[op.inputs[j]];
        const std::vector<uint64_t> strides = tableStrides(t);
        c << indent << "    const zb_val *p" << j << " = in" << j;
        for (size_t i = 0; i < out.scope.size(); ++i)
            if (const uint64_t s = strideOf(t, strides, out.scope[i]))
                c << " + i" << i << " * " << s << "u";
        c << ";\n";
        for (uint32_t v : op.vars)
            elimStride[j].push_back(strideOf(t, strides, v));
    }
    // ⊗ of the inputs at the eliminated variables' values e0, e1, ...
    std::vector<std::string> operands;
    if (opt.evidenceMask && op.vars.size() == 1)
        operands.push_back("ev[e0]");
    for (size_t j = 0; j < op.inputs.size(); ++j) {
        std::ostringstream entry;
        entry << "p" << j << "[0";
        for (size_t k = 0; k < op.vars.size(); ++k)
            if (elimStride[j][k])
                entry << " + e" << k << " * " << elimStride[j][k] << "u";
        entry << "]";
        operands.push_back(entry.str());
    }
    std::string product = operands[0];
    for (size_t i = 1; i < operands.size(); ++i)
        product = ring.call ? std::string(ring.times) + "(" + product + ", " + operands[i] + ")"
                            : product + ring.times + operands[i];
    if (op.vars.empty() && !inverseMax) {
        c << indent << "    out[row++] = " << product << ";\n";
    } else {
        c << indent << "    zb_val acc = " << ring.zero << ";\n";
        std::string inner = indent + "    ";
        for (size_t k = 0; k < op.vars.size(); ++k) {
            c << inner << "for (uint64_t e" << k << " = 0; e" << k << " < "
              << p.domainSizes[op.vars[k]] << "u; ++e" << k << ")\n";
            inner += "  ";
        }
        c << inner << "{\n"
          << inner << "    const zb_val v = " << product << ";\n"
          << inner << "    " << ring.accumulate << "\n"
          << inner << "}\n";
        if (inverseMax) // the factor that rescales a message to a maximum of 1 (1 for a 0 message)
            c << indent << "    out[row++] = acc > 0.0 ? 1.0 / acc : 1.0;\n";
        else
            c << indent << "    out[row++] = acc;\n";
    }
    c << indent << "}\n    }\n}\n\n";
}

} // namespace

std::string doubleLiteral(double v) {
    if (std::isinf(v))
        return v > 0 ? "INFINITY" : "(-INFINITY)";
    std::string s = exactText(v);
    if (s.find_first_of(".eEn") == std::string::npos)
        s += ".0";
    return s;
}

std::string valueTypeC(Semiring s) {
    if (s != Semiring::MinSumInt64)
        return "typedef double zb_val;\n\n";
    // The sum of two values in [0, INT64_MAX] fits in uint64_t; saturated, it is forbidden.
    return "typedef int64_t zb_val;\n"
           "static inline int64_t zb_cost_sum(int64_t a, int64_t b) {\n"
           "    const uint64_t s = (uint64_t)a + (uint64_t)b;\n"
           "    return s >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)s;\n"
           "}\n\n";
}

const char *const kRunOpC = R"zbdd_c(
typedef void (*op_fn)(zb_val *msg, const zb_val *ev, uint64_t o_begin, uint64_t o_end);
typedef struct {
    op_fn fn;
    zb_val *msg;
    const zb_val *ev;
    uint64_t begin, end;
} op_slice;

static void *run_slice(void *arg) {
    const op_slice *s = (const op_slice *)arg;
    s->fn(s->msg, s->ev, s->begin, s->end);
    return 0;
}

#define MAX_THREADS 256u
#define THREAD_WORK 32768u /* entries below which an op stays on one thread */

static void run_op(op_fn fn, zb_val *msg, const zb_val *ev, uint64_t outer, uint64_t work,
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

std::string embedBlobC(const std::string &name, const std::string &path) {
    return "__asm__(\".section .rodata\\n.balign 64\\n.globl " + name + "\\n.hidden " + name +
           "\\n" + name + ":\\n.incbin \\\"" + path + "\\\"\\n.previous\\n\");\n" +
           "extern const zb_val " + name + "[] __attribute__((visibility(\"hidden\")));\n\n";
}

uint64_t outerRows(const Table &out) {
    uint64_t rows = 1;
    for (size_t i = 0; i < outerVariables(out); ++i)
        rows *= out.domains[i];
    return rows;
}

uint64_t opWork(const TensorProgram &p, const TensorOp &op) {
    uint64_t work = p.tables[op.output].entries();
    for (uint32_t v : op.vars)
        work *= p.domainSizes[v];
    return work;
}

TensorTableLayout layoutTables(const TensorProgram &p, const TensorOpsC &options) {
    TensorTableLayout l;
    for (size_t t = 0; t < p.tables.size(); ++t) {
        const bool blob =
            p.tables[t].input && !(t < options.callerFilled.size() && options.callerFilled[t]);
        uint64_t &next = blob ? l.blobEntries : l.messageEntries;
        l.offset.push_back(next);
        l.inBlob.push_back(blob);
        next += p.tables[t].entries();
    }
    return l;
}

void appendBlob(const TensorProgram &p, const TensorTableLayout &layout,
                std::vector<double> &blob) {
    blob.reserve(blob.size() + layout.blobEntries);
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (layout.inBlob[t])
            for (uint64_t r = 0; r < p.tables[t].entries(); ++r)
                blob.push_back(inputTableValue(p.tables[t], r));
}

std::string unsupportedByOpsC(const TensorProgram &p) {
    for (const Table &t : p.tables)
        if (t.sparse && !t.input)
            return "an incomplete computed table";
    for (const TensorOp &op : p.ops)
        if (op.kind == TensorOpKind::SliceEvidence || isMessageOp(op.kind))
            return std::string("a ") + tensorOpKindName(op.kind) + " op";
    return {};
}

void emitOpsC(const TensorProgram &p, const TensorTableLayout &l, const TensorOpsC &opt,
              std::ostream &c) {
    const std::string &n = opt.prefix;
    emitArray(c, "unsigned", n + "domain", p.domainSizes);
    std::vector<uint32_t> tableBlob;
    std::vector<uint64_t> tableOffset, scopeStride; // scopeStride: as scopes' items
    FlatLists<uint32_t> scopes;
    for (size_t t = 0; t < p.tables.size(); ++t) {
        const Table &tab = p.tables[t];
        tableBlob.push_back(l.inBlob[t]);
        tableOffset.push_back((l.inBlob[t] ? opt.blobBase : 0) + l.offset[t]);
        const std::vector<uint64_t> strides = tableStrides(tab);
        scopeStride.insert(scopeStride.end(), strides.begin(), strides.end());
        scopes.addList(tab.scope);
    }
    emitArray(c, "unsigned char", n + "table_blob", tableBlob);
    emitArray(c, "uint64_t", n + "table_offset", tableOffset);
    emitFlatLists(c, "unsigned", n + "table_first", n + "scope_var", scopes);
    emitArray(c, "uint64_t", n + "scope_stride", scopeStride);
    FlatLists<uint32_t> opInputs, opVars;
    std::vector<uint32_t> opReduces;
    for (const TensorOp &op : p.ops) {
        opInputs.addList(op.inputs);
        opVars.addList(op.vars);
        opReduces.push_back(op.kind == TensorOpKind::Marginalize ||
                            op.kind == TensorOpKind::EliminateBucket);
    }
    emitFlatLists(c, "unsigned", n + "op_first", n + "op_input", opInputs);
    emitFlatLists(c, "unsigned", n + "op_vfirst", n + "op_var", opVars);
    emitArray(c, "unsigned char", n + "op_reduces", opReduces);
    c << "\n";
    for (uint32_t o = 0; o < p.ops.size(); ++o)
        if (opt.specialised.empty() || opt.specialised[o])
            emitOp(p, l, opt, o, c);
}

void emitStringLiteral(std::ostream &c, const std::string &name, const std::string &text) {
    c << "static const char " << name << "[] =\n";
    std::istringstream lines(text);
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
    c << "    \"\";\n\n";
}

} // namespace zbddc
