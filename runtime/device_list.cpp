#include "runtime/device_list.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace zbddc {

namespace {

Result<unsigned> parseNumber(std::string_view whole, std::string_view part) {
    unsigned value = 0;
    const char *end = part.data() + part.size();
    auto [p, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc{} || p != end || value > 1024)
        return error("--devices " + std::string(whole) + ": '" + std::string(part) +
                     "' is not a GPU number (want all, a count, or ordinals like 0,2)");
    return value;
}

std::string machine(std::span<const std::string> names) {
    if (names.empty())
        return "this machine has no usable GPU";
    std::string s = "this machine has " + std::to_string(names.size()) +
                    (names.size() == 1 ? " GPU: " : " GPUs: ");
    for (size_t i = 0; i < names.size(); ++i)
        s += (i ? ", " : "") + std::to_string(i) + " " + names[i];
    return s;
}

} // namespace

Result<DeviceRequest> parseDeviceRequest(std::string_view text) {
    DeviceRequest r;
    r.text = std::string(text);
    if (text == "all") {
        r.kind = DeviceRequest::Kind::All;
        return r;
    }
    if (text.find(',') == std::string_view::npos) {
        auto n = parseNumber(text, text);
        if (!n)
            return n.error();
        if (*n == 0)
            return error("--devices 0: a count must be at least 1 (for GPU 0 alone write 1)");
        r.count = *n;
        return r;
    }
    r.kind = DeviceRequest::Kind::List;
    for (size_t begin = 0; begin <= text.size();) {
        const size_t comma = std::min(text.find(',', begin), text.size());
        auto n = parseNumber(text, text.substr(begin, comma - begin));
        if (!n)
            return n.error();
        r.ordinals.push_back(static_cast<int>(*n));
        begin = comma + 1;
    }
    return r;
}

Result<std::vector<int>> resolveDevices(const DeviceRequest &request,
                                        std::span<const std::string> gpuNames) {
    const size_t have = gpuNames.size();
    std::vector<int> out;
    switch (request.kind) {
    case DeviceRequest::Kind::All:
        if (have == 0)
            return error("--devices all: " + machine(gpuNames));
        for (size_t i = 0; i < have; ++i)
            out.push_back(static_cast<int>(i));
        return out;
    case DeviceRequest::Kind::Count:
        if (request.count > have)
            return error("--devices " + request.text + ": " + std::to_string(request.count) +
                         " GPUs asked for, " + machine(gpuNames) +
                         " (a list such as 0,0 runs several logical devices on one GPU)");
        for (unsigned i = 0; i < request.count; ++i)
            out.push_back(static_cast<int>(i));
        return out;
    case DeviceRequest::Kind::List:
        for (int o : request.ordinals)
            if (static_cast<size_t>(o) >= have)
                return error("--devices " + request.text + ": no GPU " + std::to_string(o) + "; " +
                             machine(gpuNames));
        return request.ordinals;
    }
    return out;
}

std::vector<CaseRange> splitCasesEvenly(size_t cases, size_t devices) {
    std::vector<CaseRange> ranges;
    size_t first = 0;
    for (size_t d = 0; d < devices; ++d) {
        const size_t count = cases / devices + (d < cases % devices);
        ranges.push_back({first, count});
        first += count;
    }
    return ranges;
}

size_t distinctGpus(std::span<const int> ordinals) {
    return std::set<int>(ordinals.begin(), ordinals.end()).size();
}

} // namespace zbddc
