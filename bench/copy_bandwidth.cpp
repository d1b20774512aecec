// The device's own copy bandwidth: the ceiling BENCHMARKS.md sets kernel bandwidth against
// (bucket elimination's join-marginalise kernels should reach half of it on tables of 10^7+
// entries). A device-to-device copy of N bytes reads N and writes N, so it moves 2N; the best of
// several copies is reported, for each size, as GB/s of bytes moved. Host-to-device and back
// through pinned memory are reported beside it (what uploads and downloads can reach).
// Usage: copy_bandwidth [--gpu ORDINAL]
#include "backends/cuda/driver.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace zbddc;

namespace {

// A computed table's download into a pageable host vector, as the GPU executors read tables back:
// host microseconds per copy (best of 20), on the default stream and on a stream of the caller's
// (then waited for), into memory already touched.
void pageableDownloads(cuda::Device &d) {
    auto stream = d.createStream();
    if (!stream)
        return;
    std::printf("\n%12s %16s %16s   (pageable downloads, us)\n", "bytes", "default stream",
                "own stream");
    for (size_t bytes : {size_t{4} << 10, size_t{64} << 10, size_t{1} << 20, size_t{4} << 20,
                         size_t{16} << 20}) {
        auto a = d.allocate(bytes);
        if (!a)
            continue;
        std::vector<unsigned char> host(bytes, 1);
        const auto best = [&](auto &&copy) {
            double us = 1e30;
            for (int rep = 0; rep < 20; ++rep) {
                const auto t0 = std::chrono::steady_clock::now();
                if (!copy())
                    return -1.0;
                us = std::min(us, std::chrono::duration<double, std::micro>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count());
            }
            return us;
        };
        const double onDefault = best([&] { return d.download(host.data(), a->ptr(), bytes); });
        const double onOwn = best([&] {
            Status s = d.download(host.data(), a->ptr(), bytes, *stream);
            return s ? d.synchronize(*stream) : s;
        });
        std::printf("%12zu %16.1f %16.1f\n", bytes, onDefault, onOwn);
    }
    (void)d.destroyStream(*stream);
}

} // namespace

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
    pageableDownloads(d);
    return 0;
}
