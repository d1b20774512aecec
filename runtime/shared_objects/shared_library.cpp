#include "runtime/shared_objects/shared_library.h"

#include "ir/file_io.h"
#include "runtime/shared_objects/shared_object_check.h"
#include "zbdd_model.h"
#include "zbdd_network.h"
#include "zbdd_problem.h"

#include <cstring>
#include <dlfcn.h>

namespace zbddc {

// A model.so of ABI version 1 lacks only the zbdd_ctx_* functions, which zbddc does not call.
const SharedObjectKind kModelSo{"model.so", "zbdd_model.h", 1, ZBDD_ABI_VERSION,
                                "zbdd_abi_version", "zbdd_metadata"};
const SharedObjectKind kNetworkSo{"network.so", "zbdd_network.h", ZBDD_NETWORK_ABI_VERSION,
                                  ZBDD_NETWORK_ABI_VERSION, "zbdd_network_abi_version",
                                  "zbdd_network_metadata"};
const SharedObjectKind kProblemSo{"problem.so", "zbdd_problem.h", ZBDD_PROBLEM_ABI_VERSION,
                                  ZBDD_PROBLEM_ABI_VERSION, "zbdd_problem_abi_version",
                                  "zbdd_problem_metadata"};

namespace {

std::string versions(const SharedObjectKind &kind) {
    return kind.oldestAbi == kind.newestAbi
               ? std::to_string(kind.newestAbi)
               : std::to_string(kind.oldestAbi) + " to " + std::to_string(kind.newestAbi);
}

} // namespace

Result<SharedLibrary> SharedLibrary::open(const std::string &path, const SharedObjectKind &kind) {
    auto marker = checkSharedObjectFile(path, kind.name);
    if (!marker)
        return marker.error();
    SharedLibrary lib;
    lib.kind_ = &kind;
    lib.path_ = path;
    if (marker->abi < kind.oldestAbi || marker->abi > kind.newestAbi)
        return lib.fail("a " + std::string(kind.name) + " of ABI version " +
                        std::to_string(marker->abi) + "; this zbddc loads version " +
                        versions(kind) + " (compile it again)");
    // A path as a file (a bare name would make dlopen search the library path).
    const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
    void *handle = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        return lib.fail("cannot load the " + std::string(kind.name) + ": " +
                        (why ? why : "dlopen failed"));
    }
    lib.handle_ = std::shared_ptr<void>(handle, [](void *h) { dlclose(h); });
    int (*abi)(void) = nullptr;
    lib.bind(abi, kind.abiFunction);
    if (Status s = lib.bound(); !s)
        return s.error();
    if (abi() < 0 || static_cast<unsigned>(abi()) != marker->abi)
        return lib.fail(std::string(kind.abiFunction) + "() says " + std::to_string(abi()) +
                        ", its .zbddc marker " + std::to_string(marker->abi));
    auto text = lib.text(kind.metadataFunction);
    if (!text)
        return text.error();
    lib.metadata_ = *text;
    return lib;
}

void *SharedLibrary::symbol(const char *name) {
    void *found = dlsym(handle_.get(), name);
    if (!found && missing_.empty())
        missing_ = name;
    return found;
}

Status SharedLibrary::bound() const {
    if (missing_.empty())
        return Ok{};
    return fail("not a " + std::string(kind_->name) + " of " + std::string(kind_->header) + ": " +
                missing_ + " is missing (compile it again)");
}

Result<std::string_view> SharedLibrary::text(const char *function) const {
    auto read = reinterpret_cast<const char *(*)(void)>(dlsym(handle_.get(), function));
    if (!read)
        return fail("not a " + std::string(kind_->name) + " of " + std::string(kind_->header) +
                    ": " + function + " is missing (compile it again)");
    const char *text = read();
    if (!text)
        return fail("its metadata function returned NULL; zbddc does not use it");
    const size_t length = strnlen(text, kSharedObjectLimit);
    if (length == kSharedObjectLimit)
        return fail("its metadata text does not end");
    return std::string_view(text, length);
}

} // namespace zbddc
