// libFuzzer target for the network and cost-network readers: BIF, XMLBIF, Hugin .net, UAI BAYES,
// toulbar2 .wcsp and UAI read as costs. The first byte picks the reader, the rest is the file.
// Beyond "no crash" (ASan/UBSan), every rejection must say what is wrong, and an accepted Bayesian
// network must survive the checks that run after parsing (cycles, row sums) without crashing.
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/wcsp/uai_cost_reader.h"
#include "compiler/frontends/wcsp/wcsp_reader.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
using NetworkParser = zbddc::Result<zbddc::BayesNet> (*)(std::string_view, const std::string &);
using CostParser = zbddc::Result<zbddc::CostNetwork> (*)(std::string_view, const std::string &);

const NetworkParser kNetworkParsers[] = {zbddc::parseBif, zbddc::parseXmlBif, zbddc::parseHuginNet,
                                         zbddc::parseUaiBayes};
const CostParser kCostParsers[] = {zbddc::parseWcsp, zbddc::parseUaiAsCostNetwork};
constexpr size_t kReaders = std::size(kNetworkParsers) + std::size(kCostParsers);

void requireMessage(const zbddc::Diagnostic &error) {
    if (error.message.empty() || error.file != "fuzz")
        std::abort(); // every rejection names the file and says what is wrong
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    const size_t reader = data[0] % kReaders;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    if (reader < std::size(kNetworkParsers)) {
        auto net = kNetworkParsers[reader](text, "fuzz");
        if (!net) {
            requireMessage(net.error());
            return 0;
        }
        for (bool strict : {false, true}) {
            zbddc::BayesNet copy = *net;
            zbddc::ReadOptions options;
            options.strict = strict;
            if (auto checked = zbddc::checkNetwork(copy, options); !checked)
                requireMessage(checked.error());
        }
        return 0;
    }
    auto net = kCostParsers[reader - std::size(kNetworkParsers)](text, "fuzz");
    if (!net)
        requireMessage(net.error());
    return 0;
}
