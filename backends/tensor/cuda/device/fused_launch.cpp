#include "backends/tensor/cuda/device/fused_launch.h"

#include "backends/tensor/cuda/codegen/generic_tensor_kernels.h"
#include "backends/tensor/cuda/device/op_launch.h"

#include <algorithm>
#include <map>

namespace zbddc::cuda {

namespace {
constexpr size_t kMaxFusedOps = 65535; // gridDim.y
} // namespace

LaunchUnits launchUnits(const TensorModules &modules, std::span<const std::vector<uint32_t>> levels) {
    LaunchUnits u;
    for (const std::vector<uint32_t> &level : levels) {
        std::vector<uint32_t> &ids = u.levels.emplace_back();
        std::map<uint32_t, uint32_t> unitOfKernel; // this level's fused units, by kernel
        for (uint32_t op : level) {
            const bool generic = modules.hasFused(op);
            if (generic)
                if (auto it = unitOfKernel.find(modules.kernelOf(op));
                    it != unitOfKernel.end() && u.ops[it->second].size() < kMaxFusedOps) {
                    u.ops[it->second].push_back(op);
                    continue;
                }
            const auto unit = static_cast<uint32_t>(u.ops.size());
            u.ops.push_back({op});
            ids.push_back(unit);
            if (generic)
                unitOfKernel[modules.kernelOf(op)] = unit;
        }
    }
    return u;
}

Result<FusedLaunches> FusedLaunches::upload(Device &device, const TensorProgram &program,
                                            const TensorModules &modules, LaunchUnits units,
                                            const DeviceAddressOf &inputListOf,
                                            const DeviceAddressOf &outputOf) {
    FusedLaunches f;
    f.units_ = std::move(units);
    f.at_.assign(f.units_.ops.size(), 0);
    std::vector<unsigned char> bytes;
    for (size_t unit = 0; unit < f.units_.ops.size(); ++unit) {
        if (f.units_.ops[unit].size() < 2)
            continue;
        f.at_[unit] = bytes.size();
        for (uint32_t op : f.units_.ops[unit])
            appendFusedOpDescriptor(bytes, inputListOf(op), outputOf(op),
                                    program.tables[program.ops[op].output].entries(),
                                    modules.shapeOf(op));
    }
    auto buf = uploadArray(device, bytes);
    if (!buf)
        return buf.error();
    f.descriptors_ = std::move(*buf);
    return f;
}

Status FusedLaunches::enqueue(Device &device, const TensorProgram &program,
                              const TensorModules &modules, const TensorKernelOptions &kernels,
                              uint32_t unit,
                              const std::function<Status(uint32_t op, StreamHandle)> &single,
                              StreamHandle stream) const {
    const std::vector<uint32_t> &ops = units_.ops[unit];
    if (ops.size() == 1)
        return single(ops[0], stream);
    auto f = modules.fusedFunction(ops[0]);
    if (!f)
        return f.error();
    const unsigned block = kernels.blockThreads;
    unsigned grid = 1;
    for (uint32_t op : ops) {
        const RowGroup &group = modules.rowGroup(op);
        const uint64_t rows = program.tables[program.ops[op].output].entries();
        const uint64_t threads =
            kernelThreads(group, usesWarpPerRow(program, op, kernels), 0, rows);
        grid = std::max(grid, launchGrid(device.info(), group, threads, block));
    }
    DevicePtr descriptors = descriptors_.ptr() + at_[unit];
    void *args[] = {&descriptors};
    LaunchDims dims{grid, block, 0};
    dims.gridY = static_cast<unsigned>(ops.size());
    return device.launch(*f, dims, args, stream);
}

} // namespace zbddc::cuda
