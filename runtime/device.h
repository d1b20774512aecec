// Devices as data: the one enum of what runs work (asked for, or reported after a run), the one
// check whether a GPU can run it, and the report of where an answer was computed that every
// route fills and every caller reads (the command line prints it, Python hands it over).
#pragma once

#include "ir/interpret.h"
#include "ir/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace zbddc {

// Asked for: any of them (Auto settles on Cpu or Cuda). Reported: never Auto. Split is bucket
// elimination's host/device split: small buckets on the CPU, large ones on a GPU.
enum class DeviceKind : uint8_t { Auto, Cpu, Cuda, Reference, Split };

const char *deviceKindName(DeviceKind d); // "auto", "cpu", "cuda", "reference", "split"
std::optional<DeviceKind> parseDeviceKind(std::string_view name);

// Ok where a GPU can run work here: this build has the CUDA backend (NVRTC found), the driver
// loads and a device answers; else why not.
Status gpuUsable();

// Where an answer (or a program's tables) was computed. Programs decide on the fields; people
// read label(), the line the command line has always printed as "device".
struct DeviceReport {
    using Kind = DeviceKind;
    DeviceReport() = default;
    DeviceReport(Kind kind, std::string name = {}, std::string notes = {})
        : kind(kind), name(std::move(name)), notes(std::move(notes)) {}
    Kind kind = Kind::Cpu;
    std::string name;  // the GPU(s) that ran work, as DeviceInfo::label() says; "" where none did
    std::string notes; // said in parentheses: "LLVM JIT, float64", "incomplete tables", ...
    int ordinal = -1;  // the GPU's ordinal where one GPU ran the work; -1 otherwise
    std::optional<Numeric> arithmetic; // what the values were held in, where one mode answered
    std::string route;                 // mlf, jt, be, lbp; "" where the caller names none
    // "cpu", "cpu (LLVM JIT, float64)", "cuda: NVIDIA H100 80GB HBM3 (sm_90) (float64)".
    std::string label() const;
    void addNote(std::string_view note); // "; note" after the notes there are
};

} // namespace zbddc
