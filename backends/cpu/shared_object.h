// model.so: the circuit compiled to objects by LLVM (all cores), linked by the system C compiler
// with the C evaluator (evaluator/, compiled once when zbddc is built) into a shared object exporting
// the C ABI of zbdd_model.h and the model's metadata. The output appears atomically (temp file + rename) or not at all.
#pragma once

#include "support/cleanup_on_signal.h"

#include "backends/cpu/object_compile.h"

#include <filesystem>
#include <string>
#include <vector>

namespace zbddc {

struct SharedObjectOptions {
    std::string compiler = "cc"; // the system C compiler, used as the linker driver
    std::vector<std::string> flags{"-O2"}; // for C inputs (emitted C); the evaluator comes compiled
    std::string symbolPrefix; // non-empty: every export zbdd_X also as PREFIX_X (zbdd_model.h)
};

struct SharedObjectReport {
    CompileTimes llvm;  // IR and code generation
    double link = 0;    // the system compiler/linker, wall clock seconds
    size_t objects = 0; // object files linked
};

// `options.hostCpu` decides portability: false (generic x86-64) for a .so to ship elsewhere.
Result<SharedObjectReport> writeSharedObject(const Circuit &circuit, const CpuOptions &options,
                                             const std::string &path,
                                             const SharedObjectOptions &link = {});

// Runs argv[0] (found on PATH, no shell) and waits; its stderr and stdout go to the file `log`,
// whose first line is the error message when it fails, and its temporary files into the folder
// of `log` (TMPDIR), so that they go when that folder goes.
Status runSystemCompiler(const std::vector<std::string> &argv, const std::string &log);

// Runs the system compiler with `argv` and "-o" a temporary name beside `path`, seals it
// (sealSharedObject) and renames it onto `path` (replaceFileAtomically in ir/file_io.h): the
// output appears whole or not at all. Returns the compiler's wall time in seconds.
Result<double> compileIntoPlace(std::vector<std::string> argv, const std::string &path,
                                const std::string &log);

// Linker flags that export each of `exports` (names starting "zbdd_") also as PREFIX_ + the rest
// of the name, aliases of the same functions, so that several models can be linked into one
// program. The prefix must be a C identifier.
Result<std::vector<std::string>> symbolPrefixFlags(const std::string &prefix,
                                                   const std::vector<std::string> &exports);

// A temporary folder removed (with what is in it) on every path out.
struct TempDir {
    std::filesystem::path path;
    CleanupOnSignal onSignal; // removed by a fatal signal too (support/cleanup_on_signal.h)
    // Makes a fresh folder named `prefix`-XXXXXX in the system's temporary folder.
    Status create(const std::string &prefix);
    TempDir() = default;
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    ~TempDir();
};

// Writes `size` bytes to `path`; fails with "path: cannot write file: <the OS's reason>".
Status writeBinaryFile(const std::filesystem::path &path, const char *data, size_t size);

// Fills in the digest field of the .so at `path` (support/shared_object_seal.h); compileIntoPlace
// does so before the file is renamed into place.
Status sealSharedObject(const std::string &path);

// Compiles and links C files and object files together with the C evaluator into `path`
// (atomically). Returns the wall time of the compiler in seconds.
Result<double> linkModel(const std::vector<std::string> &inputs, const std::string &path,
                         const SharedObjectOptions &link = {});

} // namespace zbddc
