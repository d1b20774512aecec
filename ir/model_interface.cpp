#include "ir/model_interface.h"
#include "ir/indicator_set.h"

#include "ir/number_text.h"
#include "ir/so_metadata.h"
#include "ir/text_lines.h"

#include <sstream>

namespace zbddc {

ModelInterface interfaceOf(const Circuit &c) {
    ModelInterface m;
    m.semiring = c.semiring;
    m.variables = c.variables;
    m.inputs = c.inputs;
    m.outputNames = c.outputNames;
    m.outputNames.resize(c.numOutputs()); // an unverified circuit may name fewer
    return m;
}

std::string writeModelMetadata(const ModelMetadata &m) {
    const ModelInterface &c = m.interface;
    std::ostringstream out;
    writeMetadataHeader(out, "model", 1);
    // The C driver of a model.so reads these two too, in this order (zbdd_so_network.c).
    writeMetadataFacts(out, {{"semiring", std::string(semiringName(c.semiring))},
                             {"numeric", numericName(m.numeric)}});
    writeVariableList(out, c.variables);
    out << "inputs " << c.inputs.size() << "\n";
    for (const InputInfo &in : c.inputs) {
        switch (in.kind) {
        case InputKind::Indicator: out << "indicator " << in.variable << " " << in.state; break;
        case InputKind::Parameter: out << "parameter " << exactText(in.value); break;
        case InputKind::Free: out << "free"; break;
        }
        out << " " << encodeName(in.name) << "\n";
    }
    out << "outputs " << c.outputNames.size() << "\n";
    for (const std::string &name : c.outputNames)
        out << "output " << encodeName(name) << "\n";
    return out.str();
}

std::string writeModelMetadata(const Circuit &circuit, Semiring semiring, Numeric numeric) {
    ModelMetadata m{interfaceOf(circuit), numeric};
    m.interface.semiring = semiring;
    return writeModelMetadata(m);
}

namespace {

Status readInput(TokenCursor &in, ModelInterface &c, IndicatorSet &indicators) {
    auto kind = in.token("input kind (indicator, parameter or free)");
    if (!kind)
        return kind.error();
    InputInfo info;
    if (*kind == "indicator") {
        auto v = in.unsignedInt("variable index", c.variables.empty() ? 0 : c.variables.size() - 1);
        if (!v)
            return v.error();
        if (c.variables.empty())
            return in.fail("indicator input in a model without variables");
        auto s = in.unsignedInt("state index", c.variables[*v].states.size() - 1);
        if (!s)
            return s.error();
        info.kind = InputKind::Indicator;
        info.variable = static_cast<uint32_t>(*v);
        info.state = static_cast<uint32_t>(*s);
    } else if (*kind == "parameter") {
        auto value = in.number("parameter value");
        if (!value)
            return value.error();
        info.kind = InputKind::Parameter;
        info.value = *value;
    } else if (*kind == "free") {
        info.kind = InputKind::Free;
    } else {
        return in.fail("unknown input kind '" + std::string(*kind) + "'");
    }
    auto name = in.name("input name");
    if (!name)
        return name.error();
    info.name = *name;
    if (std::string repeat = indicators.add(info, c.inputs.size(), c.variables); !repeat.empty())
        return in.fail(repeat);
    c.inputs.push_back(std::move(info));
    return Ok{};
}

// `inputs N` and their records, then `outputs N` and theirs.
Status readInputsAndOutputs(TokenCursor &in, ModelInterface &c) {
    auto ni = readCount(in, "inputs", 1u << 31);
    if (!ni)
        return ni.error();
    IndicatorSet indicators;
    for (uint64_t i = 0; i < *ni; ++i)
        if (Status s = readInput(in, c, indicators); !s)
            return s.error();
    auto no = readCount(in, "outputs", 1u << 31);
    if (!no)
        return no.error();
    for (uint64_t o = 0; o < *no; ++o) {
        if (Status s = in.expect("output"); !s)
            return s.error();
        auto oname = in.name("output name");
        if (!oname)
            return oname.error();
        c.outputNames.push_back(*oname);
    }
    return Ok{};
}

} // namespace

Result<ModelMetadata> parseModelMetadata(std::string_view text, const std::string &name) {
    ModelMetadata m;
    ModelInterface &c = m.interface;
    Status read = readMetadata(text, "model", name, 1, 1,
                               [&](TokenCursor &in, MetadataFacts &facts) -> Status {
        const std::string *ring = findFact(facts, "semiring");
        const std::string *numeric = findFact(facts, "numeric");
        if (!ring || !numeric)
            return in.fail("the metadata has no semiring or no numeric mode");
        auto semiring = parseSemiring(*ring);
        if (!semiring)
            return in.fail("unknown semiring '" + *ring + "'");
        c.semiring = *semiring;
        if (*numeric != "float64" && *numeric != "log")
            return in.fail("unknown numeric mode '" + *numeric + "'");
        m.numeric = *numeric == "log" ? Numeric::Log : Numeric::Float64;
        auto variables = readVariableList(in);
        if (!variables)
            return variables.error();
        c.variables = std::move(*variables);
        return readInputsAndOutputs(in, c);
    });
    if (!read)
        return read.error();
    return m;
}

} // namespace zbddc
