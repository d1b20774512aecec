// One opened model as Python holds it: the pipeline's Session, a lock that lets one batch run at
// a time (the session's engines and buffers are not shared between threads, and Python threads
// run batches with the GIL released), and the variables' names indexed for evidence.
#pragma once

#include "pipeline/pipeline.h"

#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zbddc::python {

// What zbddc.compile() passes down; names as the command line spells them.
struct OpenRequest {
    std::string path;
    std::string route = "auto";   // mlf | jt | be | lbp | auto
    std::string device = "auto";  // auto | cpu | cuda | reference
    std::string numeric = "auto"; // auto | float64 | log | float32 | log32
    std::string devices;          // the command line's --devices: all, a count, ordinals 0,1
    unsigned threads = 0;         // CPU threads, 0: all cores
    size_t expectedCases = 1;     // the route and device choice weighs the batch size
};

class SessionHandle {
  public:
    static Result<std::unique_ptr<SessionHandle>> open(const OpenRequest &request);

    const std::string &path() const { return session_->path(); }
    const char *kind() const { return pipeline::modelKindName(session_->modelKind()); }
    // Reading's accepted oddities (`file:line: ...`), one line each.
    const std::vector<std::string> &warnings() const { return warnings_; }
    const std::vector<Variable> &variables() const { return session_->variables(); }
    const std::string &route() const { return session_->route(); }
    const std::string &routeWhy() const { return session_->routeWhy(); }
    std::vector<Task> tasks() const { return session_->tasks(); }

    std::optional<uint32_t> variableIndex(std::string_view name) const;

    // One result per case, and the session's notes on how the batch went (a device fallen back
    // from, a request that could not apply). Blocks while another thread's batch runs here.
    struct Answered {
        std::vector<Result<TaskResult>> results;
        std::vector<std::string> notes;
    };
    Answered answer(Task task, std::span<const Evidence> cases, NumericChoice numeric);
    Status save(const std::string &path);

  private:
    std::vector<std::string> warnings_;
    std::unique_ptr<pipeline::Session> session_;
    std::mutex busy_;
    std::unordered_map<std::string, uint32_t> byName_;
};

} // namespace zbddc::python
