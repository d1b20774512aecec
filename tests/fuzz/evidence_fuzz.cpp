// libFuzzer target for the .evid reader (runtime/evidence.cpp) over a fixed three-variable model:
// no crash, every rejection names its line, and every accepted case observes only states the
// model has (or kContradicted, with the reason said).
#include "runtime/evidence.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    static const std::vector<zbddc::Variable> vars = {
        {"A", {"a0", "a1"}}, {"B", {"b0", "b1", "b2"}}, {"C", {"c0", "c1", "c2", "c3"}}};
    auto cases = zbddc::parseUaiEvidence(text, "fuzz.evid", vars);
    if (!cases) {
        if (cases.error().line == 0 || cases.error().message.empty())
            std::abort();
        return 0;
    }
    for (const zbddc::Evidence &e : cases->cases) {
        if (e.states.size() != vars.size())
            std::abort();
        for (size_t v = 0; v < vars.size(); ++v) {
            const uint32_t s = e.states[v];
            if (s == zbddc::kContradicted ? e.contradiction.empty()
                                          : s != zbddc::kNone && s >= vars[v].states.size())
                std::abort();
        }
    }
    return 0;
}
