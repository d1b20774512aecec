// Libraries opened on first use (dlopen) instead of linked, so that a process which never needs
// one never pays for loading it (relocating libLLVM and libnvrtc took most of a fresh process's
// start): the CUDA driver, NVRTC, NCCL, the CPU backend's LLVM module and DPOP's MPI module. One
// way to find a library among several places, one way to look its functions up; each user keeps its
// own table of functions and says, in its own words, what to install when none is found.
#pragma once

#include "ir/result.h"

#include <string>
#include <vector>

namespace zbddc {

struct LoadedLibrary {
    void *handle = nullptr; // never closed: the functions taken from it live as long as the process
    std::string path;       // the candidate that opened
};

// The first of `candidates` that dlopen opens (RTLD_NOW | RTLD_LOCAL): a path, or a bare name
// that the dynamic linker's search path resolves (LD_LIBRARY_PATH, ld.so.cache). Otherwise
// dlopen's reason for the most telling failure: a file that exists but does not load (a missing
// dependency) before a file that is not there.
Result<LoadedLibrary> loadFirstLibrary(const std::vector<std::string> &candidates);

// The address of `symbol` in `library`, or "<path> lacks <symbol>".
Result<void *> librarySymbol(const LoadedLibrary &library, const char *symbol);

// Sets `function` to `symbol` of `library`; false (and `why` set, once) where it lacks it. For
// tables of functions filled one entry at a time.
template <class F>
bool bindFunction(const LoadedLibrary &library, F &function, const char *symbol, std::string &why) {
    auto address = librarySymbol(library, symbol);
    if (!address) {
        if (why.empty())
            why = address.error().message;
        return false;
    }
    function = reinterpret_cast<F>(*address);
    return true;
}

// A member of a table of functions, for an X-macro list of a library's functions: a pointer of the
// type its header declares, named as the header's macros name it (cuMemAlloc is cuMemAlloc_v2).
#define ZBDDC_FUNCTION_POINTER(name) decltype(&::name) name = nullptr;

// The folder of the executable or shared library that holds `address` (dladdr), so that a library
// installed beside it is found wherever the two were installed; empty where unknown.
std::string folderHolding(const void *address);

// Where a module of this build (a shared library of zbddc's own, e.g. libzbddc_llvm.so) is looked
// for, first found first: beside the executable or library holding `anchor` (its folder's
// `fromBin`, e.g. ../lib/zbddc, then the folder itself); by name on the library search path
// (LD_LIBRARY_PATH, the calling program's run path); where this build put it (`built`); where
// `cmake --install` puts it (`installed`).
std::vector<std::string> moduleCandidates(const std::string &name, const void *anchor,
                                          const char *fromBin, const char *built,
                                          const char *installed);

// The table of functions that a module's one export, `entry` (a C function), returns: from the
// first of `candidates` that opens. The table passes C++ types, so the module must come from the
// same build as its loader: a table whose first members (`int abi; size_t size;`) disagree with
// `abi` and sizeof(Table) is refused. Errors name the module by `what` (e.g. "the CPU backend's
// LLVM code").
Result<const void *> loadModuleEntry(const std::vector<std::string> &candidates, const char *entry,
                                     const std::string &what);
template <class Table>
Result<const Table *> loadModule(const std::vector<std::string> &candidates, const char *entry,
                                 int abi, const std::string &what) {
    auto found = loadModuleEntry(candidates, entry, what);
    if (!found)
        return found.error();
    const auto *table = static_cast<const Table *>(*found);
    if (!table || table->abi != abi || table->size != sizeof(Table))
        return error(what + ": a module of another zbddc build (" + entry + ")");
    return table;
}

} // namespace zbddc
