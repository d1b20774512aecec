// libFuzzer target for damaged .so files: the input is a list of byte edits (5 bytes each: a
// little-endian 32-bit offset, taken modulo the file's size, and the byte's new value) applied to
// a .so zbddc wrote and sealed (ZBDDC_SO_SEED, KIND in ZBDDC_SO_KIND, default model.so). The check
// zbddc runs before dlopen (runtime/shared_objects/shared_object_check.h) must refuse every edited file that
// differs from the original, and accept the original: a damaged file never reaches dlopen, where
// one changed byte once crashed zbddc.
#include "runtime/shared_objects/shared_object_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

const std::string &seed() {
    static const std::string bytes = [] {
        const char *path = std::getenv("ZBDDC_SO_SEED");
        std::ifstream in(path ? path : "", std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        if (!path || s.str().empty()) {
            std::fprintf(stderr, "ZBDDC_SO_SEED must name a .so zbddc wrote\n");
            std::abort();
        }
        return s.str();
    }();
    return bytes;
}

// The check on `bytes` as a file (a memfd: the same reader and checks as for a path).
bool accepted(const std::string &bytes) {
    const int fd = memfd_create("so", 0);
    if (fd < 0 || write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        std::abort();
    const char *kind = std::getenv("ZBDDC_SO_KIND");
    const bool ok = zbddc::checkSharedObjectFile("/proc/self/fd/" + std::to_string(fd),
                                                 kind ? kind : "model.so")
                        .ok();
    close(fd);
    return ok;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    std::string bytes = seed();
    for (size_t at = 0; at + 5 <= size; at += 5) {
        const uint32_t offset = uint32_t{data[at]} | uint32_t{data[at + 1]} << 8 |
                                uint32_t{data[at + 2]} << 16 | uint32_t{data[at + 3]} << 24;
        bytes[offset % bytes.size()] = static_cast<char>(data[at + 4]);
    }
    if (accepted(bytes) != (bytes == seed()))
        std::abort(); // a damaged file accepted, or the sealed original refused
    return 0;
}
