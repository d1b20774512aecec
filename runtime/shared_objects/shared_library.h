// The one loader of every .so zbddc writes (model.so, network.so, problem.so): the file checked
// before any of its code runs (shared_object_check.h: ELF, the container header of the kind asked
// for with an ABI this zbddc loads, the seal), then dlopened, its ABI function asked to agree with
// the header and its metadata text read. The kinds' loaders (shared_model.h, network_library.h,
// problem_library.h) bind their functions and read their metadata (ir/so_metadata.h) from here.
#pragma once

#include "ir/result.h"

#include <memory>
#include <string>
#include <string_view>

namespace zbddc {

// What a loader knows of one kind of .so: the marker's KIND, the C header of its ABI, the ABI
// versions this zbddc loads, and the functions that say its version and return its metadata.
struct SharedObjectKind {
    std::string_view name; // "model.so"
    std::string_view header; // "zbdd_model.h", named in messages
    unsigned oldestAbi, newestAbi;
    const char *abiFunction, *metadataFunction;
};
extern const SharedObjectKind kModelSo, kNetworkSo, kProblemSo;

class SharedLibrary {
  public:
    // Errors are one line, `path: ...`.
    static Result<SharedLibrary> open(const std::string &path, const SharedObjectKind &kind);

    // The function `name` bound to `fn`; a missing one is remembered for bound().
    template <typename Fn> void bind(Fn &fn, const char *name) {
        fn = reinterpret_cast<Fn>(symbol(name));
    }
    // Every bind() so far found its function, else `path: not a KIND...: NAME is missing`.
    Status bound() const;
    // The text a metadata function returns (its metadata() the kind's own).
    Result<std::string_view> text(const char *function) const;
    std::string_view metadata() const { return metadata_; }
    const std::string &path() const { return path_; }
    // `path(metadata)`: the name of the metadata text in messages.
    std::string metadataName() const { return path_ + "(metadata)"; }
    Diagnostic fail(const std::string &message) const { return errorAt(path_, 0, message); }

  private:
    void *symbol(const char *name);
    std::shared_ptr<void> handle_; // dlclose when the last copy goes
    const SharedObjectKind *kind_ = nullptr;
    std::string path_;
    std::string_view metadata_;
    std::string missing_; // the first function bind() did not find
};

} // namespace zbddc
