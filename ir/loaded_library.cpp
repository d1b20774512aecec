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

std::vector<std::string> moduleCandidates(const std::string &name, const void *anchor,
                                          const char *fromBin, const char *built,
                                          const char *installed) {
    namespace fs = std::filesystem;
    std::vector<std::string> candidates;
    if (const std::string folder = folderHolding(anchor); !folder.empty())
        for (const fs::path &beside : {fs::path(folder) / fromBin, fs::path(folder)})
            candidates.push_back((beside / name).lexically_normal().string());
    candidates.insert(candidates.end(), {name, built, installed});
    return candidates;
}

Result<const void *> loadModuleEntry(const std::vector<std::string> &candidates, const char *entry,
                                     const std::string &what) {
    auto lib = loadFirstLibrary(candidates);
    if (!lib)
        return error(what + ": " + std::filesystem::path(candidates.back()).filename().string() +
                     " not found beside this program nor where it was built (" +
                     lib.error().message + "); install zbddc again");
    auto symbol = librarySymbol(*lib, entry);
    if (!symbol)
        return error(symbol.error().message + ": not a module of this zbddc build");
    return reinterpret_cast<const void *(*)()>(*symbol)();
}

} // namespace zbddc
