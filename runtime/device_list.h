// Which GPUs a run uses (`--devices all|N|a,b,...`): parsed once into a request, then resolved
// against the GPUs the machine has, so that a request the machine cannot meet fails naming what
// exists. A list may repeat an ordinal: `0,0` is two logical devices on GPU 0, each with its own
// streams and tables (how the multi-device path is tested on a machine of one GPU).
#pragma once

#include "ir/result.h"

#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace zbddc {

struct DeviceRequest {
    enum class Kind : uint8_t { All, Count, List };
    Kind kind = Kind::Count;
    unsigned count = 1;        // Kind::Count: the first `count` GPUs
    std::vector<int> ordinals; // Kind::List, in the order given (repeats allowed)
    std::string text;          // as written, for messages
};

// "all", a count ("2": GPUs 0 and 1) or a comma-separated list of ordinals ("0,2", "0,0").
Result<DeviceRequest> parseDeviceRequest(std::string_view text);

// The logical devices (ordinals, in order) of `request` on a machine whose GPUs are `gpuNames`
// (by ordinal); an error names the GPUs that exist.
Result<std::vector<int>> resolveDevices(const DeviceRequest &request,
                                        std::span<const std::string> gpuNames);

// How many distinct GPUs `ordinals` use.
size_t distinctGpus(std::span<const int> ordinals);

// Batched evaluation over several devices: `cases` split into `devices` contiguous ranges, in
// order, whose sizes differ by one at most (the first ones larger); empty ranges where there are
// fewer cases than devices.
struct CaseRange {
    size_t first = 0, count = 0;
};
std::vector<CaseRange> splitCasesEvenly(size_t cases, size_t devices);

// `cases` split as above and run(d, range) answering device d's range, every device on its own
// thread at once; the answers come back in case order.
template <class Answer, class Run>
std::vector<Answer> runSplitOverDevices(size_t cases, size_t devices, const Run &run) {
    const std::vector<CaseRange> ranges = splitCasesEvenly(cases, devices);
    std::vector<std::vector<Answer>> parts(devices);
    std::vector<std::thread> threads;
    for (size_t d = 0; d < devices; ++d)
        if (ranges[d].count)
            threads.emplace_back([&, d] { parts[d] = run(d, ranges[d]); });
    for (std::thread &t : threads)
        t.join();
    std::vector<Answer> answers;
    answers.reserve(cases);
    for (std::vector<Answer> &part : parts)
        for (Answer &a : part)
            answers.push_back(std::move(a));
    return answers;
}

} // namespace zbddc
