// The device's own copy bandwidth: the ceiling BENCHMARKS.md sets kernel bandwidth against
// (bucket elimination's join-marginalise kernels should reach half of it on tables of 10^7+
// entries). A device-to-device copy of N bytes reads N and writes N, so it moves 2N; the best of
// several copies is reported, for each size, as GB/s of bytes moved. Host-to-device and back
// through pinned memory are reported beside it (what uploads and downloads can reach).
// Usage: copy_bandwidth [--gpu ORDINAL]
#include "backends/cuda/driver.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

using namespace zbddc;

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    int ordinal = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--gpu") == 0 && i + 1 < argc) {
            ordinal = std::stoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: copy_bandwidth [--gpu ORDINAL]\n");
            return 2;
        }
    }
    auto device = cuda::openDevice(ordinal);
    if (!device) {
        std::fprintf(stderr, "copy_bandwidth: no usable GPU: %s\n", device.error().str().c_str());
        return 1;
    }
    cuda::Device &d = **device;
    std::printf("device %s\n%12s %14s %14s %14s\n", d.info().label().c_str(), "bytes",
                "D2D GB/s", "H2D GB/s", "D2H GB/s");
    for (size_t bytes : {size_t{1} << 24, size_t{1} << 27, size_t{1} << 30, size_t{4} << 30}) {
        auto a = d.allocate(bytes), b = d.allocate(bytes);
        auto pinned = d.allocatePinned(bytes);
        if (!a || !b || !pinned) {
            std::printf("%12zu (does not fit)\n", bytes);
            continue;
        }
        // The best of five: the first copy of a size also pays for page mapping.
        auto best = [&](auto &&copy) {
            float ms = 1e30f;
            for (int rep = 0; rep < 5; ++rep)
                if (auto t = d.time(nullptr, copy))
                    ms = std::min(ms, *t);
            return ms;
        };
        const float d2d = best([&] { return d.copy(b->ptr(), a->ptr(), bytes); });
        const float h2d = best([&] { return d.upload(a->ptr(), pinned->data(), bytes); });
        const float d2h = best([&] { return d.download(pinned->data(), a->ptr(), bytes); });
        std::printf("%12zu %14.1f %14.1f %14.1f\n", bytes, 2.0 * bytes / (d2d * 1e6),
                    bytes / (h2d * 1e6), bytes / (d2h * 1e6));
    }
    return 0;
}
