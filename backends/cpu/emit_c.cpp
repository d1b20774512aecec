#include "backends/cpu/emit_c.h"

#include "backends/cpu/codegen.h"
#include "ir/model_interface.h"
#include "ir/number_text.h"
#include "evaluator_sources.inc"

#include <cmath>
#include <cstdio>

namespace zbddc {

namespace {

std::string literal(double v) {
    if (std::isinf(v))
        return v < 0 ? "(-INFINITY)" : "INFINITY";
    return exactText(v);
}

class CWriter {
  public:
    CWriter(const Circuit &c, const CpuPlan &p, std::ostream &out)
        : c_(c), p_(p), out_(out), log_(p.numeric == Numeric::Log), ring_{p.semiring} {}

    std::string zero() const { return literal(log_ ? -INFINITY : ring_.zero()); }
    std::string one() const { return literal(log_ ? 0.0 : ring_.one()); }

    std::string ref(NodeId id) const {
        switch (c_.kind[id]) {
        case OpKind::Input: return "x[" + std::to_string(c_.a[id]) + "]";
        case OpKind::Zero: return zero();
        case OpKind::One: return one();
        case OpKind::Const: {
            const double k = c_.constants[c_.a[id]];
            return literal(log_ ? std::log(k) : k);
        }
        default: return "f[" + std::to_string(p_.position[id]) + "]";
        }
    }

    // Plain operators where C has them (the Takahashi–Minato form), helpers otherwise.
    std::string plus(const std::string &a, const std::string &b) const {
        if (!log_ && ring_.kind == Semiring::SumProduct)
            return a + " + " + b;
        return "zp(" + a + ", " + b + ")";
    }
    std::string times(const std::string &a, const std::string &b) const {
        const bool additive = log_ || ring_.kind == Semiring::MaxSum || ring_.kind == Semiring::MinSum;
        return a + (additive ? " + " : " * ") + b;
    }

    void prelude() {
        out_ << "#include <math.h>\n#include <stdint.h>\n\n";
        // Mirrors ir/interpret.cpp's Arith (std::max/std::min and log-add-exp).
        out_ << "static inline double zp(double p, double q) {\n";
        if (log_ && ring_.kind == Semiring::SumProduct)
            out_ << "    double hi = p < q ? q : p, lo = q < p ? q : p;\n"
                    "    return hi == -INFINITY ? hi : hi + log1p(exp(lo - hi));\n";
        else if (ring_.kind == Semiring::MinSum)
            out_ << "    return q < p ? q : p;\n";
        else if (ring_.kind == Semiring::SumProduct)
            out_ << "    return p + q;\n";
        else
            out_ << "    return p < q ? q : p;\n";
        out_ << "}\n\n";
    }

    void forward() {
        out_ << "void zbdd_gen_forward(const double *restrict x, double *restrict f, "
                "double *restrict out) {\n";
        for (NodeId id : p_.ops) {
            const std::string a = ref(c_.a[id]), b = ref(c_.b[id]);
            out_ << "    " << ref(id) << " = ";
            switch (c_.kind[id]) {
            case OpKind::Plus: out_ << plus(a, b); break;
            case OpKind::Times: out_ << times(a, b); break;
            default: out_ << plus(times(a, b), ref(c_.c[id])); break;
            }
            out_ << ";\n";
        }
        for (size_t o = 0; o < c_.numOutputs(); ++o)
            out_ << "    out[" << o << "] = " << ref(c_.outputs[o]) << ";\n";
        out_ << "}\n\n";
        out_ << "void zbdd_gen_forward_all(const double *restrict x, double *restrict f, "
                "double *restrict out) {\n    zbdd_gen_forward(x, f, out);\n}\n\n";
    }

    // Mirrors inputAdjoints in ir/interpret.cpp; a[] holds the ops' adjoints, g[] the inputs'.
    void backward() {
        out_ << "void zbdd_gen_backward(const double *restrict x, const double *restrict f, "
                "double *restrict a, double *restrict g) {\n";
        auto accumulate = [&](NodeId target, const std::string &contribution) {
            std::string where;
            if (isOp(c_.kind[target]))
                where = "a[" + std::to_string(p_.position[target]) + "]";
            else if (c_.kind[target] == OpKind::Input)
                where = "g[" + std::to_string(c_.a[target]) + "]";
            else
                return;
            out_ << "    " << where << " = " << plus(where, contribution) << ";\n";
        };
        for (size_t i = p_.ops.size(); i-- > 0;) {
            const NodeId id = p_.ops[i];
            const std::string adj = "a[" + std::to_string(i) + "]";
            if (c_.kind[id] == OpKind::Plus) {
                accumulate(c_.a[id], adj);
                accumulate(c_.b[id], adj);
                continue;
            }
            accumulate(c_.a[id], "(" + times(adj, ref(c_.b[id])) + ")");
            accumulate(c_.b[id], "(" + times(adj, ref(c_.a[id])) + ")");
            if (c_.kind[id] == OpKind::MulAdd)
                accumulate(c_.c[id], adj);
        }
        out_ << "}\n\n";
        out_ << "void zbdd_gen_seed(double *a, double *g, uint64_t output) {\n"
                "    switch (output) {\n";
        for (size_t o = 0; o < c_.numOutputs(); ++o) {
            const NodeId id = c_.outputs[o];
            if (isOp(c_.kind[id]))
                out_ << "    case " << o << ": a[" << p_.position[id] << "] = " << one() << "; break;\n";
            else if (c_.kind[id] == OpKind::Input)
                out_ << "    case " << o << ": g[" << c_.a[id] << "] = " << one() << "; break;\n";
        }
        out_ << "    default: break;\n    }\n}\n\n";
    }

    void data(bool withBackward) {
        out_ << "const uint64_t zbdd_gen_info[" << kInfoCount << "] = {" << kGenVersion << ", "
             << c_.numInputs() << ", " << c_.numOutputs() << ", " << p_.ops.size() << ", "
             << p_.ops.size() << ", " << static_cast<int>(p_.semiring) << ", "
             << static_cast<int>(p_.numeric) << ", " << withBackward << "};\n";
        out_ << "const char zbdd_gen_metadata[] =\n";
        const std::string text = writeModelMetadata(c_, p_.semiring, p_.numeric);
        size_t start = 0;
        while (start < text.size()) {
            const size_t end = text.find('\n', start);
            std::string line;
            for (char ch : text.substr(start, end - start)) {
                if (ch == '"' || ch == '\\')
                    line += '\\';
                line += ch;
            }
            out_ << "    \"" << line << "\\n\"\n";
            start = end + 1;
        }
        out_ << "    \"\";\n";
    }

  private:
    const Circuit &c_;
    const CpuPlan &p_;
    std::ostream &out_;
    bool log_;
    SemiringOps ring_;
};

} // namespace

Status emitC(const Circuit &c, const CpuOptions &o, std::ostream &out) {
    auto plan = planCpu(c, o);
    if (!plan)
        return plan.error();
    CWriter w(c, *plan, out);
    out << "/* Generated by zbddc --emit=c: " << plan->ops.size() << " ops, "
        << semiringName(plan->semiring) << ", " << numericName(plan->numeric) << ". */\n";
    w.prelude();
    w.forward();
    if (o.backward)
        w.backward();
    w.data(o.backward);
    if (!out)
        return error("cannot write the emitted C");
    return Ok{};
}

std::vector<std::pair<std::string, std::string>> evaluatorHeaders() {
    return {{"zbdd_model.h", embedded::kModelHeader}, {"zbdd_evaluator.h", embedded::kEvaluatorHeader}};
}

} // namespace zbddc
