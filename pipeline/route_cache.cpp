#include "pipeline/route_cache.h"
#include "support/gpu_settings.h"
#include "ir/file_io.h"
#include "support/sha256.h"
#include "support/threads.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace zbddc::pipeline {

namespace {

namespace fs = std::filesystem;

constexpr const char *kHeader = "zbddc route choice 1";

std::optional<std::string> fileBytes(const std::string &path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    std::ifstream in(path, std::ios::binary);
    if (ec || !in)
        return std::nullopt;
    std::string bytes(size, '\0'); // one read into place: no stream's growing copies
    if (!in.read(bytes.data(), static_cast<std::streamsize>(size)))
        return std::nullopt;
    return bytes;
}

std::string sha256Of(std::string_view bytes) {
    Sha256 hash;
    hash.update(bytes);
    return hash.hex();
}

// The model file's content as a key: two 64-bit lanes over its 8-byte words (multiply, xor-shift).
// A run of a 5 MB network reads it in ~2 ms where SHA-256 took ~45 ms, as long as a one-case run's
// whole answer; a collision costs at most a slower route, never a wrong answer.
std::string contentHash(std::string_view bytes) {
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ bytes.size(), b = 0xc2b2ae3d27d4eb4fULL + bytes.size();
    const auto mix = [](uint64_t h, uint64_t w, uint64_t k) {
        h = (h ^ w) * k;
        return h ^ (h >> 31);
    };
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);
        a = mix(a, w, 0xff51afd7ed558ccdULL);
        b = mix(b, w + i, 0xc4ceb9fe1a85ec53ULL);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
    a = mix(a, tail, 0xff51afd7ed558ccdULL);
    b = mix(b, tail, 0xc4ceb9fe1a85ec53ULL);
    char text[40];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return text;
}

std::string fileFor(const std::string &folder, const std::string &key) {
    return (fs::path(folder) / (sha256Of(key).substr(0, 32) + ".route")).string();
}

} // namespace

std::optional<std::string> routeCacheKey(const ModelFile &model, const OpenOptions &options,
                                         const Placement &placement) {
    const std::optional<std::string> bytes = fileBytes(model.path);
    if (!bytes)
        return std::nullopt;
    // The device as it runs: the CPU's threads, or the GPUs asked for.
    std::string device = deviceKindName(placement.device);
    if (placement.onGpu) {
        device += " gpus";
        for (int g : options.target.gpus)
            device += " " + std::to_string(g);
        device += " " + options.target.devices;
    } else {
        device += " threads " + std::to_string(threadsOrCores(options.target.threads));
    }
    // A batch's size class, its decade: which route is faster turns with the batch (compile
    // against per-case work), slowly.
    const size_t cases = std::max<size_t>(options.expectedCases, 1);
    const int decade = static_cast<int>(std::floor(std::log10(static_cast<double>(cases))));
    // The rules' version: a choice remembered under rules since changed is not read (2: MPE on
    // the CPU took the junction tree; 3: it is piloted, the tie rule's work counted).
    return "rules 3; model " + contentHash(*bytes) + "; device " + device + "; task " +
           taskName(options.task.value_or(Task::Pr)) + "; cases 1e" + std::to_string(decade) +
           "; zbdd node limit " + std::to_string(options.reading.zbddNodeLimit) +
           (options.approximate ? "; approximate" : ""); // loopy BP a candidate too
}

// The process's cache folder (ZBDDC_CACHE_DIR where the edge read one), as NVRTC's.
static std::string cacheRoot() {
    return gpuSettings.cacheDir.empty() ? userCacheFolder() : gpuSettings.cacheDir;
}

std::string routeCacheFolder(const PilotOptions &pilot) {
    return pilot.cacheDir.empty() ? (fs::path(cacheRoot()) / "route-choice").string()
                                  : pilot.cacheDir;
}

std::optional<CachedRoute> readCachedRoute(const std::string &folder, const std::string &key,
                                           std::vector<Diagnostic> &warnings) {
    const std::string path = fileFor(folder, key);
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    std::ifstream in(path);
    std::string header, keyLine, routeLine, whyLine;
    std::getline(in, header);
    std::getline(in, keyLine);
    std::getline(in, routeLine);
    std::getline(in, whyLine);
    CachedRoute cached;
    cached.route = routeLine.rfind("route ", 0) == 0 ? routeLine.substr(6) : "";
    cached.why = whyLine.rfind("why ", 0) == 0 ? whyLine.substr(4) : "";
    const RouteKind *route = findRoute(cached.route);
    if (!in || header != kHeader || keyLine != "key " + key || !route || cached.why.empty()) {
        warnings.push_back(errorAt(path, 0,
                                   "not a route choice zbddc wrote for this model; ignored, the "
                                   "routes are timed again"));
        return std::nullopt;
    }
    return cached;
}

void writeCachedRoute(const std::string &folder, const std::string &key, const CachedRoute &route) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    (void)writeFileAtomically(fileFor(folder, key), [&](std::ostream &out) {
        out << kHeader << "\nkey " << key << "\nroute " << route.route << "\nwhy " << route.why
            << "\n";
        return bool(out);
    });
}

} // namespace zbddc::pipeline
