#include "ir/loaded_library.h"

#include <dlfcn.h>
#include <filesystem>
#include <link.h>

namespace zbddc {

Result<LoadedLibrary> loadFirstLibrary(const std::vector<std::string> &candidates) {
    std::string why, whyPresent; // the first failure; the first of a file that is there
    for (const std::string &candidate : candidates) {
        if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
            return LoadedLibrary{handle, candidate};
        const char *text = dlerror();
        const std::string reason = text ? text : candidate + ": dlopen failed";
        if (why.empty())
            why = reason;
        std::error_code ec;
        if (whyPresent.empty() && candidate.find('/') != std::string::npos &&
            std::filesystem::exists(candidate, ec))
            whyPresent = reason;
    }
    return error(whyPresent.empty() ? why : whyPresent);
}

Result<void *> librarySymbol(const LoadedLibrary &library, const char *symbol) {
    dlerror();
    if (void *address = dlsym(library.handle, symbol))
        return address;
    return error(library.path + " lacks " + symbol);
}

std::string folderHolding(const void *address) {
    Dl_info info{};
    link_map *map = nullptr;
    if (!dladdr1(address, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP))
        return {};
    // The main program's link map has no name (dladdr may give argv[0] instead): its file is
    // /proc/self/exe.
    const bool program = !map || !map->l_name || !*map->l_name;
    const char *name = program ? "/proc/self/exe" : map->l_name;
    std::error_code ec;
    const std::filesystem::path file = std::filesystem::canonical(name, ec);
    return ec ? std::string() : file.parent_path().string();
}

} // namespace zbddc
