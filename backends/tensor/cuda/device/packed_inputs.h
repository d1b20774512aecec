// Input tables on the way to a device. Small ones share one device block filled by one copy: each
// copy is a round trip of tens of microseconds, and a WCSP such as SPOT5 404 has hundreds of small
// cost functions. Larger ones get a block of their own (the pool rounds a block up to a power of
// two, too costly for large tables packed together).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace zbddc::cuda {

inline constexpr uint64_t kPackedInputMaxBytes = uint64_t{1} << 20;
inline constexpr uint64_t kPackedAlign = 256; // each piece starts at a multiple of this
inline constexpr uint64_t kUnpacked = UINT64_MAX;

// The bytes a piece of `bytes` takes in the shared block: up to the next piece's start.
inline constexpr uint64_t packedPieceBytes(uint64_t bytes) {
    return (bytes + kPackedAlign - 1) / kPackedAlign * kPackedAlign;
}

struct PackedInputs {
    std::vector<uint64_t> at; // by piece: its offset in the shared block, or kUnpacked
    uint64_t bytes = 0;       // the shared block's size
};

// The pieces of `bytes` that `packable(i)` allows and that are at most kPackedInputMaxBytes, laid
// out one after another.
template <class Packable>
PackedInputs packSmallInputs(std::span<const uint64_t> bytes, Packable packable) {
    PackedInputs out;
    out.at.assign(bytes.size(), kUnpacked);
    for (size_t i = 0; i < bytes.size(); ++i)
        if (packable(i) && bytes[i] <= kPackedInputMaxBytes) {
            out.at[i] = out.bytes;
            out.bytes += packedPieceBytes(bytes[i]);
        }
    return out;
}

// `values` as the device holds them, at `dst`: doubles, or floats where narrow_costs.h proved every
// value an integer a float holds exactly.
inline void writeTableImage(std::span<const double> values, bool float32, unsigned char *dst) {
    if (!float32) {
        std::memcpy(dst, values.data(), values.size() * sizeof(double));
        return;
    }
    for (size_t i = 0; i < values.size(); ++i) {
        const float f = static_cast<float>(values[i]);
        std::memcpy(dst + i * sizeof(float), &f, sizeof f);
    }
}

} // namespace zbddc::cuda
