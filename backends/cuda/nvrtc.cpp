#include "backends/cuda/nvrtc.h"
#include "support/cleanup_on_signal.h"

#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

Status checkNvrtc(nvrtcResult r, const char *call) {
    if (r == NVRTC_SUCCESS)
        return Ok{};
    return error(std::string(call) + " failed: " + nvrtcGetErrorString(r));
}

} // namespace

std::string nvrtcVersion() {
    int major = 0, minor = 0;
    ::nvrtcVersion(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string cacheDirectory(const NvrtcOptions &options) {
    if (!options.cacheDir.empty())
        return options.cacheDir;
    if (const char *d = std::getenv("ZBDDC_CACHE_DIR"); d && *d)
        return d;
    if (const char *h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/zbddc";
    return (fs::temp_directory_path() / "zbddc-cache").string();
}

Result<CompiledPtx> compileToPtx(const std::string &source, const std::string &name,
                                 const NvrtcOptions &options) {
    std::vector<std::string> opts{"--gpu-architecture=" + options.arch, "--std=c++17",
                                  "-default-device"};
    opts.insert(opts.end(), options.extra.begin(), options.extra.end());

    const fs::path cached = fs::path(cacheDirectory(options)) / (cacheKey(source, opts) + ".ptx");
    if (options.useCache) {
        std::ifstream in(cached, std::ios::binary);
        if (in) {
            std::ostringstream text;
            text << in.rdbuf();
            if (in.good() || in.eof())
                return CompiledPtx{text.str(), true, {}};
        }
    }

    nvrtcProgram prog;
    if (Status st = checkNvrtc(nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr,
                                                  nullptr),
                               "nvrtcCreateProgram");
        !st)
        return st.error();
    std::vector<const char *> argv;
    for (const std::string &o : opts)
        argv.push_back(o.c_str());
    const nvrtcResult compiled = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    size_t logSize = 0;
    nvrtcGetProgramLogSize(prog, &logSize);
    std::string log(logSize, '\0');
    if (logSize > 1)
        nvrtcGetProgramLog(prog, log.data());
    log.resize(logSize ? logSize - 1 : 0);
    if (compiled != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        return describeFailure(log, source, name);
    }
    size_t ptxSize = 0;
    nvrtcGetPTXSize(prog, &ptxSize);
    std::string ptx(ptxSize, '\0');
    nvrtcGetPTX(prog, ptx.data());
    nvrtcDestroyProgram(&prog);
    ptx.resize(ptxSize ? ptxSize - 1 : 0);

    if (options.useCache) {
        // Write then rename, so a concurrent reader never sees half a file. A cache that cannot be
        // written is not an error: the next run compiles again.
        std::error_code ec;
        fs::create_directories(cached.parent_path(), ec);
        const fs::path tmp = cached.string() + ".tmp" + std::to_string(::getpid());
        CleanupOnSignal onSignal(tmp.string(), CleanupOnSignal::Kind::File);
        {
            std::ofstream out(tmp, std::ios::binary);
            out << ptx;
        }
        fs::rename(tmp, cached, ec);
        if (ec)
            fs::remove(tmp, ec);
    }
    return CompiledPtx{std::move(ptx), false, std::move(log)};
}

} // namespace zbddc::cuda
