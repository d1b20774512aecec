#include "compiler/frontends/load_model.h"

#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"

#include <algorithm>
#include <cctype>

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

Result<ZddModel> loadZddModel(const std::string &path) {
    const std::string ext = fileExtension(path);
    if (ext == ".zdd")
        return readZddFile(path);
    return errorAt(path, 0, "unknown model type '" + ext + "' (expected .zdd)");
}

Result<Circuit> loadCircuit(const std::string &path) {
    auto zdd = loadZddModel(path);
    if (!zdd)
        return zdd.error();
    Circuit c = lowerZdd(*zdd);
    if (Status s = verify(c); !s)
        return errorAt(path, 0, "invalid circuit: " + s.error().message);
    return c;
}

} // namespace zbddc
