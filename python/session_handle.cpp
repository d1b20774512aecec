#include "session_handle.h"

#include "runtime/device_list.h"
#include "runtime/tensor/tensor_executor.h"

namespace zbddc::python {

Result<std::unique_ptr<SessionHandle>> SessionHandle::open(const OpenRequest &request) {
    pipeline::OpenOptions options;
    options.route = request.route;
    auto device = parseDeviceKind(request.device);
    if (!device)
        return error("unknown device '" + request.device +
                     "' (auto, cpu, cuda, reference or split)");
    auto numeric = pipeline::parseNumericChoice(request.numeric);
    if (!numeric)
        return error("unknown numeric '" + request.numeric +
                     "' (auto, float64, log, float32 or log32)");
    options.target.device = *device;
    if (!request.devices.empty())
        if (auto devices = parseDeviceRequest(request.devices); !devices)
            return devices.error();
    options.target.devices = request.devices;
    options.target.numeric = *numeric;
    options.target.threads = request.threads;
    options.target.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
    options.expectedCases = std::max<size_t>(request.expectedCases, 1);
    auto session = pipeline::Session::open(request.path, options);
    if (!session)
        return session.error();
    auto handle = std::make_unique<SessionHandle>();
    handle->session_ = std::move(*session);
    for (const Diagnostic &d : handle->session_->takeWarnings())
        handle->warnings_.push_back(d.str());
    const std::vector<Variable> &vars = handle->variables();
    for (uint32_t v = 0; v < vars.size(); ++v)
        handle->byName_.emplace(vars[v].name, v);
    return handle;
}

std::optional<uint32_t> SessionHandle::variableIndex(std::string_view name) const {
    auto it = byName_.find(std::string(name));
    if (it == byName_.end())
        return std::nullopt;
    return it->second;
}

SessionHandle::Answered SessionHandle::answer(Task task, std::span<const Evidence> cases,
                                              NumericChoice numeric) {
    std::lock_guard lock(busy_);
    TaskOptions options;
    options.numeric = numeric;
    Answered out{session_->answer(task, cases, options), session_->takeNotes()};
    return out;
}

Status SessionHandle::save(const std::string &path) {
    std::lock_guard lock(busy_);
    return session_->save(path);
}

} // namespace zbddc::python
