#include "pipeline/load_model.h"

#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace zbddc {

std::string fileExtension(const std::string &path) {
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return "";
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return ext;
}

bool isNetworkFile(const std::string &path) {
    const std::string ext = fileExtension(path);
    return ext == ".bif" || ext == ".xmlbif" || ext == ".xml" || ext == ".net" || ext == ".uai";
}

Result<ZddModel> loadZddModel(const std::string &path, const LoadOptions &options) {
    if (fileExtension(path) == ".zdd")
        return readZddFile(path);
    if (isLogicCircuitFile(path))
        return errorAt(path, 0, "a d-DNNF or SDD has no ZBDD: it compiles into a circuit (.so, "
                                ".txt, --emit) only");
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        return errorAt(path, 0, "is a directory, not a file"); // whatever its name says
    if (fileExtension(path) == ".so")
        return errorAt(path, 0,
                       "a compiled .so holds no circuit to read: give the model's own "
                       "file (.zdd or a network)");
    if (!isNetworkFile(path))
        return errorAt(path, 0, "unknown model type '" + fileExtension(path) +
                                    "' (expected .zdd, .bif, .xmlbif, .xml, .net, .uai, .nnf or .sdd)");
    ReadOptions read;
    read.strict = options.strict;
    auto net = readNetworkFile(path, read);
    if (!net)
        return net.error();
    if (options.warnings)
        options.warnings->insert(options.warnings->end(), net->warnings.begin(), net->warnings.end());
    auto zdd = compileMlf(*net, options.mlf);
    if (!zdd)
        return errorAt(path, 0, zdd.error().message);
    return zdd;
}

Result<Circuit> lowerVerified(const ZddModel &zdd, const std::string &path) {
    Circuit c = lowerZdd(zdd);
    if (Status s = verify(c); !s)
        return errorAt(path, 0, "invalid circuit: " + s.error().message);
    return c;
}

Result<Circuit> loadCircuit(const std::string &path, const LoadOptions &options) {
    if (isLogicCircuitFile(path))
        return loadLogicCircuit(path, options.weights);
    auto zdd = loadZddModel(path, options);
    if (!zdd)
        return zdd.error();
    return lowerVerified(*zdd, path);
}

} // namespace zbddc
