#include "pipeline/write_file.h"
#include "support/cleanup_on_signal.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace zbddc::pipeline {

Status writeFileAtomically(const std::string &path,
                           const std::function<bool(std::ostream &)> &write) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    CleanupOnSignal onSignal(tmp, CleanupOnSignal::Kind::File);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            return errorAt(path, 0, "cannot write file");
        if (!write(out) || !out.flush()) {
            out.close();
            std::remove(tmp.c_str());
            return errorAt(path, 0, "cannot write file");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return errorAt(path, 0, "cannot write file");
    }
    return Ok{};
}

} // namespace zbddc::pipeline
