#include "backends/tensor/so/network_so.h"

#include "backends/cpu/shared_object.h"
#include "network_sources.inc"

#include <cstring>
#include <filesystem>

namespace zbddc {

namespace fs = std::filesystem;

Result<double> writeNetworkSharedObject(const NetworkProgram &sum, const NetworkProgram &max,
                                        uint32_t batch, const std::string &metadata,
                                        const std::string &path, const NetworkSoOptions &options) {
    TempDir tmp;
    if (Status s = tmp.create("zbddc-network"); !s)
        return s.error();
    const fs::path blobPath = tmp.path / "tables.bin";
    auto source =
        emitNetworkC(sum, max, batch, metadata, blobPath.string(), options.specialiseWork);
    if (!source)
        return source.error();
    const std::pair<const char *, const char *> texts[] = {
        {"zbdd_network.h", embedded::kNetworkHeader},
        {"zbdd_network_so_driver.c", embedded::kNetworkDriver},
        {"zbdd_buffer_check.h", embedded::kBufferCheck},
        {"network.c", source->c.c_str()}};
    for (const auto &[name, text] : texts)
        if (Status s = writeBinaryFile(tmp.path / name, text, std::strlen(text)); !s)
            return s.error();
    if (Status s = writeBinaryFile(blobPath, reinterpret_cast<const char *>(source->blob.data()),
                                   source->blob.size() * sizeof(double));
        !s)
        return s.error();
    std::vector<std::string> argv{options.compiler, "-shared", "-fPIC", "-fvisibility=hidden"};
    argv.insert(argv.end(), options.flags.begin(), options.flags.end());
    argv.insert(argv.end(), {"-I", tmp.path.string(), (tmp.path / "network.c").string(), "-lm"});
    return compileIntoPlace(std::move(argv), path, (tmp.path / "cc.log").string());
}

} // namespace zbddc
