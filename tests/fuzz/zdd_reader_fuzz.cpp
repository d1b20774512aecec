// libFuzzer target for the .zdd and SAPPOROBDD readers. Beyond "no crash", it checks the
// properties the rest of the compiler relies on: an accepted model lowers to a circuit that
// verifies, and writing it out and reading it back gives the same model.
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    for (bool sapporo : {false, true}) {
        auto model = sapporo ? zbddc::parseSapporoZdd(text, "fuzz") : zbddc::parseZdd(text, "fuzz");
        if (!model) {
            if (model.error().line == 0 || model.error().message.empty())
                std::abort(); // every rejection must name its line and say what is wrong
            continue;
        }
        if (!zbddc::verify(zbddc::lowerZdd(*model)))
            std::abort();
        auto back = zbddc::parseZdd(zbddc::writeZddToString(*model), "fuzz");
        if (!back || !(*back == *model))
            std::abort();
    }
    return 0;
}
