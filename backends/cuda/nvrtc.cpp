#include "backends/cuda/nvrtc.h"
#include "ir/file_io.h"
#include "ir/loaded_library.h"
#include "support/cleanup_on_signal.h"
#include "support/gpu_settings.h"

#include <nvrtc.h> // types and prototypes only: every entry point comes from the table below

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <unistd.h>

namespace zbddc::cuda {

namespace fs = std::filesystem;

namespace {

// 64-bit FNV-1a, applied twice with different seeds for a 128-bit key: collisions would silently
// load the wrong kernel, so the key is wide and also covers the NVRTC version and options.
uint64_t fnv1a(const std::string &s, uint64_t h) {
    for (unsigned char ch : s) {
        h ^= ch;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string cacheKey(const std::string &source, const std::vector<std::string> &opts) {
    std::string all = nvrtcVersion() + '\n';
    for (const std::string &o : opts)
        all += o + '\n';
    all += source;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx",
                  static_cast<unsigned long long>(fnv1a(all, 0xcbf29ce484222325ULL)),
                  static_cast<unsigned long long>(fnv1a(all, 0x84222325cbf29ce4ULL)));
    return buf;
}

std::string lineOf(const std::string &source, size_t line) {
    std::istringstream in(source);
    std::string text;
    for (size_t i = 0; i < line && std::getline(in, text); ++i) {
    }
    return text;
}

// NVRTC reports "name(LINE): error: ..."; turn the first error into "name:LINE: error ... | code".
Diagnostic describeFailure(const std::string &log, const std::string &source,
                           const std::string &name) {
    std::smatch m;
    const std::regex where("\\((\\d+)\\): (error[^\\n]*)");
    if (std::regex_search(log, m, where)) {
        const size_t line = std::stoul(m[1].str());
        return errorAt(name, line, "NVRTC " + m[2].str() + " in generated code: `" +
                                       lineOf(source, line) + "`");
    }
    return error(name + ": NVRTC compilation failed: " + log);
}

// NVRTC is loaded on first use, as the driver is (driver.cpp): a process that compiles no kernel
// never maps its 100 MB. Found by its soname through the library search path, else in the folder
// the build found it in (ZBDDC_NVRTC_LIBRARY: the CUDA toolkit's lib folder).
#define ZBDDC_NVRTC_FUNCTIONS(X)                                                                   \
    X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)  \
    X(nvrtcCreateProgram) X(nvrtcCompileProgram) X(nvrtcDestroyProgram)                            \
    X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetPTXSize) X(nvrtcGetPTX)              \
    X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)

struct NvrtcApi {
    ZBDDC_NVRTC_FUNCTIONS(ZBDDC_FUNCTION_POINTER)
    std::string whyNot; // empty when loaded
};

std::vector<std::string> nvrtcCandidates() {
    const std::string soname = ZBDDC_NVRTC_SONAME;
    const fs::path found = ZBDDC_NVRTC_LIBRARY;
    return {soname, "libnvrtc.so", (found.parent_path() / soname).string(), found.string()};
}

const NvrtcApi &nvrtc() {
    static const NvrtcApi api = [] {
        NvrtcApi a;
        auto lib = loadFirstLibrary(nvrtcCandidates());
        if (!lib) {
            a.whyNot = std::string(ZBDDC_NVRTC_SONAME) +
                       " not found: install the CUDA toolkit's NVRTC (" + lib.error().message + ")";
            return a;
        }
#define ZBDDC_LOAD(name) bindFunction(*lib, a.name, #name, a.whyNot);
        ZBDDC_NVRTC_FUNCTIONS(ZBDDC_LOAD)
#undef ZBDDC_LOAD
        if (!a.whyNot.empty())
            a.whyNot = "NVRTC too old: " + a.whyNot;
        return a;
    }();
    return api;
}

Status nvrtcLoaded() {
    if (!nvrtc().whyNot.empty())
        return error(nvrtc().whyNot);
    return Ok{};
}

Status checkNvrtc(nvrtcResult r, const char *call) {
    if (r == NVRTC_SUCCESS)
        return Ok{};
    return error(std::string(call) + " failed: " + nvrtc().nvrtcGetErrorString(r));
}

} // namespace

std::string nvrtcVersion() {
    if (!nvrtcLoaded())
        return "none";
    int major = 0, minor = 0;
    nvrtc().nvrtcVersion(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string cacheDirectory(const NvrtcOptions &options) {
    if (!options.cacheDir.empty())
        return options.cacheDir;
    if (!gpuSettings.cacheDir.empty())
        return gpuSettings.cacheDir;
    return userCacheFolder();
}

namespace {

// `arch`'s number ("sm_90" -> 90), or -1 where it is not a real architecture.
int realArchNumber(const std::string &arch) {
    if (arch.rfind("sm_", 0) != 0 || arch.size() == 3 ||
        arch.find_first_not_of("0123456789", 3) != std::string::npos)
        return -1;
    return std::stoi(arch.substr(3));
}

std::vector<int> supportedArchs() {
    int n = 0;
    if (!nvrtcLoaded() || nvrtc().nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
        return {};
    std::vector<int> archs(static_cast<size_t>(n));
    if (nvrtc().nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS)
        return {};
    return archs;
}

std::optional<std::string> readCached(const fs::path &cached) {
    std::ifstream in(cached, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof())
        return std::nullopt;
    return text.str();
}

// Write then rename, so a concurrent reader never sees half a file. A cache that cannot be
// written is not an error: the next run compiles again.
void writeCached(const fs::path &cached, const std::string &image) {
    std::error_code ec;
    fs::create_directories(cached.parent_path(), ec);
    const fs::path tmp = cached.string() + ".tmp" + std::to_string(::getpid());
    CleanupOnSignal onSignal(tmp.string(), CleanupOnSignal::Kind::File);
    {
        std::ofstream out(tmp, std::ios::binary);
        out << image;
    }
    fs::rename(tmp, cached, ec);
    if (ec)
        fs::remove(tmp, ec);
}

// One NVRTC compile for `arch`, its PTX or (with a real arch) its CUBIN taken.
Result<CompiledImage> compileImage(const std::string &source, const std::string &name,
                                   const NvrtcOptions &options, const std::string &arch,
                                   bool cubin) {
    if (Status loaded = nvrtcLoaded(); !loaded)
        return loaded.error();
    const NvrtcApi &api = nvrtc();
    // --split-compile=0: NVVM and ptxas optimise the kernels on all host threads (seq_fun's
    // single-launch module 0.54 → 0.42 s on 2 cores).
    std::vector<std::string> opts{"--gpu-architecture=" + arch, "--std=c++17", "-default-device",
                                  "--split-compile=0"};
    opts.insert(opts.end(), options.extra.begin(), options.extra.end());
    // The kind heads the key (with the arch among the options): the same source and options give
    // a PTX and a CUBIN, and neither may be read as the other.
    const std::string kind = cubin ? "cubin" : "ptx";
    const fs::path cached =
        fs::path(cacheDirectory(options)) / (cacheKey(kind + '\n' + source, opts) + "." + kind);
    if (options.useCache)
        if (std::optional<std::string> image = readCached(cached))
            return CompiledImage{std::move(*image), cubin, true, {}};
    if (options.cacheOnly)
        return error(name + ": not in the kernel cache " + cacheDirectory(options));

    nvrtcProgram prog;
    if (Status st = checkNvrtc(api.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0,
                                                      nullptr, nullptr),
                               "nvrtcCreateProgram");
        !st)
        return st.error();
    std::vector<const char *> argv;
    for (const std::string &o : opts)
        argv.push_back(o.c_str());
    const nvrtcResult compiled =
        api.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    size_t logSize = 0;
    api.nvrtcGetProgramLogSize(prog, &logSize);
    std::string log(logSize, '\0');
    if (logSize > 1)
        api.nvrtcGetProgramLog(prog, log.data());
    log.resize(logSize ? logSize - 1 : 0);
    if (compiled != NVRTC_SUCCESS) {
        api.nvrtcDestroyProgram(&prog);
        return describeFailure(log, source, name);
    }
    size_t size = 0;
    std::string image;
    const nvrtcResult got =
        cubin ? api.nvrtcGetCUBINSize(prog, &size) : api.nvrtcGetPTXSize(prog, &size);
    if (got == NVRTC_SUCCESS) {
        image.resize(size);
        (void)(cubin ? api.nvrtcGetCUBIN(prog, image.data())
                     : api.nvrtcGetPTX(prog, image.data()));
    }
    api.nvrtcDestroyProgram(&prog);
    if (Status st = checkNvrtc(got, cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize"); !st)
        return st.error();
    if (!cubin) // PTX is text with its NUL counted
        image.resize(size ? size - 1 : 0);
    if (options.useCache)
        writeCached(cached, image);
    return CompiledImage{std::move(image), cubin, false, std::move(log)};
}

} // namespace

bool nvrtcSupportsArch(const std::string &arch) {
    static const std::vector<int> archs = supportedArchs();
    const int n = realArchNumber(arch);
    return n >= 0 && std::find(archs.begin(), archs.end(), n) != archs.end();
}

Result<CompiledPtx> compileToPtx(const std::string &source, const std::string &name,
                                 const NvrtcOptions &options) {
    auto image = compileImage(source, name, options, options.arch, false);
    if (!image)
        return image.error();
    return CompiledPtx{std::move(image->image), image->fromCache, std::move(image->log)};
}

Result<CompiledImage> compileForArch(const std::string &source, const std::string &name,
                                     const NvrtcOptions &options) {
    if (nvrtcSupportsArch(options.arch))
        return compileImage(source, name, options, options.arch, true);
    // A device newer than NVRTC: PTX for the newest virtual architecture below it, which the
    // driver compiles forward; anything else goes to NVRTC as given (and its error says why).
    std::string arch = options.arch;
    if (const int n = realArchNumber(options.arch); n >= 0) {
        static const std::vector<int> archs = supportedArchs();
        int best = -1;
        for (int a : archs)
            if (a <= n)
                best = std::max(best, a);
        if (best >= 0)
            arch = "compute_" + std::to_string(best);
    }
    return compileImage(source, name, options, arch, false);
}

} // namespace zbddc::cuda
