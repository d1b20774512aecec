#include "runtime/evidence.h"

#include "ir/text_lines.h"
#include "support/name_table.h"

#include <algorithm>

namespace zbddc {

Evidence noEvidence(const std::vector<Variable> &variables) {
    return Evidence{std::vector<uint32_t>(variables.size(), kNone), {}};
}

static Result<uint32_t> findVariable(std::string_view name, const std::vector<Variable> &vars) {
    for (uint32_t v = 0; v < vars.size(); ++v)
        if (vars[v].name == name)
            return v;
    return error("evidence: unknown variable '" + std::string(name) + "'");
}

// Records variable v observed in state s; a second, different state contradicts the case.
static void observe(Evidence &e, uint32_t v, uint32_t s, const std::vector<Variable> &vars) {
    const uint32_t before = e.states[v];
    if (before == kNone || before == s)
        e.states[v] = s;
    else if (before != kContradicted) {
        e.states[v] = kContradicted;
        if (e.contradiction.empty())
            e.contradiction = "variable '" + vars[v].name + "' is observed as '" +
                              vars[v].states[before] + "' and '" + vars[v].states[s] + "'";
    }
}

Result<Evidence> parseEvidenceList(std::string_view list, const std::vector<Variable> &vars) {
    Evidence e = noEvidence(vars);
    size_t pos = 0;
    while (pos < list.size()) {
        const size_t end = std::min(list.find_first_of(", ", pos), list.size());
        const std::string_view item = list.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty())
            continue;
        const size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            return error("evidence: '" + std::string(item) + "' is not VAR=state");
        auto v = findVariable(item.substr(0, eq), vars);
        if (!v)
            return v.error();
        const std::string_view state = item.substr(eq + 1);
        const auto &states = vars[*v].states;
        auto it = std::find(states.begin(), states.end(), state);
        if (it == states.end())
            return error("evidence: unknown state '" + std::string(state) + "' of variable '" +
                         vars[*v].name + "'");
        const uint32_t s = static_cast<uint32_t>(it - states.begin());
        observe(e, *v, s, vars);
    }
    return e;
}

// One case: its count n and then n (variable, state) pairs, with `oneLine` all on the line of
// the count: a line that ends early or runs on is an error, never half a case.
static Result<Evidence> readCase(TokenCursor &in, const std::vector<Variable> &vars,
                                 bool oneLine) {
    auto count = in.unsignedInt("number of observed variables");
    if (!count)
        return count.error();
    // n may exceed the variable count (pairs may repeat); the text read bounds the loop.
    const uint64_t n = *count;
    Evidence e = noEvidence(vars);
    const size_t line = in.line();
    for (uint64_t i = 0; i < n; ++i) {
        if (oneLine && in.atLineEnd())
            return errorAt(in.name(), line,
                           "the case declares " + std::to_string(n) +
                               " observed variables but its line holds " + std::to_string(i));
        auto v = in.unsignedInt("variable index");
        if (!v)
            return v.error();
        if (*v >= vars.size())
            return in.fail("variable " + std::to_string(*v) + " is out of range (the model has " +
                           std::to_string(vars.size()) + ")");
        if (oneLine && in.atLineEnd())
            return in.fail("variable " + std::to_string(*v) + " has no state on its line");
        auto s = in.unsignedInt("state index");
        if (!s)
            return s.error();
        if (*s >= vars[*v].states.size())
            return in.fail("state " + std::to_string(*s) + " is out of range for variable '" +
                           vars[*v].name + "'");
        observe(e, *v, static_cast<uint32_t>(*s), vars);
    }
    if (oneLine && !in.atLineEnd())
        return in.fail("unexpected data after the case's " + std::to_string(n) +
                       " (variable, state) pairs");
    return e;
}

// The 2010 layout after its count line: `count` cases, one per line, and nothing after.
static Result<std::vector<Evidence>> readBatch(TokenCursor &in, uint64_t count,
                                               const std::vector<Variable> &vars) {
    std::vector<Evidence> cases;
    for (uint64_t c = 0; c < count; ++c) {
        if (in.atEnd())
            return in.failAtEnd("the file declares " + std::to_string(count) +
                                " evidence cases but holds " + std::to_string(c));
        auto e = readCase(in, vars, true);
        if (!e)
            return e.error();
        cases.push_back(std::move(*e));
    }
    if (!in.atEnd())
        return in.fail("unexpected data after " + std::to_string(count) + " evidence cases");
    return cases;
}

std::optional<EvidenceLayout> parseEvidenceLayout(std::string_view name) {
    constexpr Named<EvidenceLayout> kNames[] = {{EvidenceLayout::Single, "single"},
                                                {EvidenceLayout::Batch, "batch"}};
    return valueNamed(kNames, name);
}

// The whole file as one case, on one line or spread over several (older writers: "1\n1 0").
static Result<EvidenceFile> readSingle(std::string_view text, const std::string &name,
                                       const std::vector<Variable> &vars, bool oneLine) {
    TokenCursor in(text, name);
    if (in.atEnd())
        return in.fail("empty evidence file");
    auto e = readCase(in, vars, oneLine);
    if (!e)
        return e.error();
    if (!in.atEnd())
        return in.fail("unexpected data after the evidence case (a batch of cases starts with "
                       "their number alone on the first line)");
    return EvidenceFile{{std::move(*e)}, false};
}

// Whether a line after the first is one whole case ("n" and n pairs): then the file is a batch,
// short of lines or otherwise broken, and never one case spread over lines ("3\n1 0 0\n1 1 1"
// holds 7 numbers, as one case of 3 pairs would, but two lines of a batch of 3).
static bool holdsCaseLine(std::string_view text) {
    size_t start = text.find('\n');
    while (start != std::string_view::npos && start < text.size()) {
        const size_t end = std::min(text.find('\n', start + 1), text.size());
        TokenCursor line(text.substr(start + 1, end - start - 1), "");
        uint64_t n = 0, tokens = 0;
        bool numbers = true;
        for (; !line.atEnd(); ++tokens) {
            auto t = line.token("");
            uint64_t value = 0;
            numbers = numbers && t && parseUnsigned(*t, value);
            if (tokens == 0)
                n = value;
        }
        if (numbers && tokens > 0 && n < tokens && tokens == 1 + 2 * n)
            return true;
        start = end;
    }
    return false;
}

// By structure, line by line: a first line holding one number followed by more lines is the
// 2010 batch layout (the number of cases, then one case per line); otherwise the file is one
// case on one line (the 2014+ layout). Counting tokens first instead guessed: "2\n1 0 1\n0" was
// read as one case of two observations. Only a file that is no well-formed batch, holds exactly
// one case's numbers and has no line that is a case by itself is read as that case spread over
// lines ("1\n1 0", older writers).
Result<EvidenceFile> parseUaiEvidence(std::string_view text, const std::string &name,
                                      const std::vector<Variable> &vars, EvidenceLayout layout) {
    if (layout == EvidenceLayout::Single)
        return readSingle(text, name, vars, false);
    const bool batchOnly = layout == EvidenceLayout::Batch;
    TokenCursor in(text, name);
    if (in.atEnd())
        return in.fail("empty evidence file");
    auto first = in.unsignedInt(batchOnly ? "number of evidence cases"
                                          : "number of observed variables, or of cases");
    if (!first)
        return first.error();
    if (batchOnly && !in.atLineEnd())
        return in.fail("a batch starts with the number of cases alone on its first line");
    if (!batchOnly && (!in.atLineEnd() || in.atEnd())) // one case on one line
        return readSingle(text, name, vars, true);
    auto batch = readBatch(in, *first, vars);
    if (batch)
        return EvidenceFile{std::move(*batch), true};
    if (batchOnly)
        return batch.error();
    size_t tokens = 0;
    for (TokenCursor count(text, name); !count.atEnd(); (void)count.token(""))
        ++tokens;
    if (tokens != 1 + 2 * *first || holdsCaseLine(text))
        return batch.error();
    return readSingle(text, name, vars, false);
}

Result<EvidenceFile> readUaiEvidenceFile(const std::string &path, const std::vector<Variable> &vars,
                                         EvidenceLayout layout) {
    auto text = readTextFile(path, kEvidenceTextLimit);
    if (!text)
        return text.error();
    return parseUaiEvidence(*text, path, vars, layout);
}

std::vector<uint32_t> indicatorInputs(const ModelInterface &c) {
    std::vector<uint32_t> indicators;
    for (size_t i = 0; i < c.numInputs(); ++i)
        if (c.inputs[i].kind == InputKind::Indicator)
            indicators.push_back(static_cast<uint32_t>(i));
    return indicators;
}

Result<InputBatch> evidenceBatch(const ModelInterface &c, const std::vector<double> &freeValues) {
    InputBatch batch;
    batch.shared.resize(c.numInputs());
    batch.varying = indicatorInputs(c);
    size_t nextFree = 0;
    for (size_t i = 0; i < c.numInputs(); ++i) {
        const InputInfo &in = c.inputs[i];
        switch (in.kind) {
        case InputKind::Indicator:
            batch.shared[i] = 1.0; // every vector sets its own
            break;
        case InputKind::Parameter:
            batch.shared[i] = in.value;
            break;
        case InputKind::Free:
            if (nextFree >= freeValues.size())
                return error("input x[" + std::to_string(i) +
                             "] is free and no value was given (use --inputs)");
            batch.shared[i] = freeValues[nextFree++];
            break;
        }
    }
    if (nextFree != freeValues.size())
        return error("given " + std::to_string(freeValues.size()) +
                     " input values, the model has " + std::to_string(nextFree) + " free inputs");
    return batch;
}

void indicatorValues(const ModelInterface &c, std::span<const uint32_t> indicators,
                     const Evidence &e, std::span<double> values) {
    for (size_t j = 0; j < indicators.size(); ++j) {
        const InputInfo &in = c.inputs[indicators[j]];
        const uint32_t observed = e.states[in.variable];
        values[j] = observed == kNone || observed == in.state ? 1.0 : 0.0;
    }
}

void addEvidence(const ModelInterface &c, const Evidence &e, InputBatch &batch) {
    const size_t first = batch.values.size();
    batch.values.resize(first + batch.varying.size());
    indicatorValues(c, batch.varying, e, std::span(batch.values).subspan(first));
    ++batch.count;
}

Result<std::vector<double>> inputVector(const ModelInterface &c, const Evidence &e,
                                        const std::vector<double> &freeValues) {
    auto batch = evidenceBatch(c, freeValues);
    if (!batch)
        return batch.error();
    addEvidence(c, e, *batch);
    std::vector<double> x(c.numInputs());
    batch->vectorInto(0, x);
    return x;
}

} // namespace zbddc
