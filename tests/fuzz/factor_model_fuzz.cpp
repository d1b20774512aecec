// libFuzzer target for the factor-model readers of the exact routes: a UAI MARKOV or BAYES file
// (parseUaiFactorModel), then a .evid over that model's variables in either layout. The first
// byte picks the options (bit 0: strict reading; bits 1-2: the .evid layout, detected, single or
// batch); the rest is the model, and after the first byte 0x01 (if any) the evidence. Beyond "no
// crash": every rejection is one line naming its file and line, and every accepted model holds
// tables that agree with their scopes, variables in range, and finite nonnegative entries.
#include "compiler/frontends/factor_model/factor_model.h"
#include "runtime/evidence.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void requireOneLine(const zbddc::Diagnostic &error, const char *file) {
    if (error.file != file || error.line == 0 || error.message.empty() ||
        error.message.find('\n') != std::string::npos)
        std::abort();
}

void requireSound(const zbddc::FactorModel &m) {
    if (m.variables.size() != m.domainSizes.size() || !std::isfinite(m.logScale))
        std::abort();
    for (const zbddc::Factor &f : m.factors) {
        uint64_t rows = 1;
        for (uint32_t v : f.scope) {
            if (v >= m.domainSizes.size())
                std::abort();
            rows *= m.domainSizes[v];
        }
        if (rows != f.table.size())
            std::abort();
        for (double p : f.table)
            if (!std::isfinite(p) || p < 0)
                std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    const size_t split = text.find('\x01');
    zbddc::ReadOptions options;
    options.strict = data[0] & 1;
    auto model = zbddc::parseUaiFactorModel(text.substr(0, split), "fuzz.uai", options);
    if (!model) {
        requireOneLine(model.error(), "fuzz.uai");
        return 0;
    }
    requireSound(*model);
    if (split == std::string::npos)
        return 0;
    const zbddc::EvidenceLayout layouts[] = {zbddc::EvidenceLayout::Detect,
                                             zbddc::EvidenceLayout::Single,
                                             zbddc::EvidenceLayout::Batch};
    auto cases = zbddc::parseUaiEvidence(text.substr(split + 1), "fuzz.evid", model->variables,
                                         layouts[(data[0] >> 1) % 3]);
    if (!cases) {
        requireOneLine(cases.error(), "fuzz.evid");
        return 0;
    }
    for (const zbddc::Evidence &e : cases->cases) {
        if (e.states.size() != model->variables.size())
            std::abort();
        for (size_t v = 0; v < e.states.size(); ++v) {
            const uint32_t s = e.states[v];
            if (s == zbddc::kContradicted ? e.contradiction.empty()
                                          : s != zbddc::kNone && s >= model->domainSizes[v])
                std::abort();
        }
    }
    return 0;
}
