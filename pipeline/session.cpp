#include "pipeline/session.h"
#include "pipeline/load_model.h"
#include "pipeline/route_choice.h"
#include "ir/file_io.h"
#include "pipeline/route_pilot.h"

#include <algorithm>
#include <ostream>

namespace zbddc::pipeline {

Result<std::unique_ptr<Session>> Session::open(const std::string &path, const OpenOptions &options) {
    auto model = readModel(path, options.reading);
    if (!model)
        return model.error();
    return open(std::move(*model), options);
}

Result<std::unique_ptr<Session>> Session::open(ModelFile model, const OpenOptions &asked) {
    OpenOptions options = asked; // the order serves the cases to come (order_choice.h)
    options.order.expectedCases = options.expectedCases;
    std::unique_ptr<Session> s(new Session);
    s->path_ = model.path;
    s->kind_ = model.kind;
    s->warnings_ = std::move(model.warnings);
    s->numeric_ = options.target.numeric;
    s->threads_ = options.target.threads;
    // A network's factors, kept for MPE's tie rule before a route takes them (a later MPE
    // after another task was announced reads the file again).
    if (model.kind == ModelKind::Network && model.network &&
        (!options.task || *options.task == Task::Mpe))
        s->tieModel_ = factorModelOf(*model.network);
    const Placement placement = place(options.target, options.expectedCases);
    RouteInput in{model, options, placement};
    const bool library = model.kind == ModelKind::ModelLibrary ||
                         model.kind == ModelKind::NetworkLibrary ||
                         model.kind == ModelKind::ProblemLibrary;
    if (library) {
        auto route = openLibraryRoute(in, s->route_);
        if (!route)
            return route.error();
        s->impl_ = std::move(*route);
        s->why_ = "compiled into " + model.path;
        return s;
    }
    auto choice = chooseRoute(in);
    if (!choice)
        return choice.error();
    for (Diagnostic &w : choice->warnings)
        s->warnings_.push_back(std::move(w));
    if (pilotApplies(*choice, options)) { // the estimate unsure: the routes timed
        auto piloted = pilotRoute(in, *choice);
        if (!piloted)
            return piloted.error();
        s->impl_ = std::move(piloted->route);
        s->route_ = std::string(piloted->choice.route->name);
        s->why_ = piloted->choice.why;
        return s;
    }
    rememberRoute(in, *choice);
    auto route = choice->route->compile(in);
    // A MARKOV network's junction tree refused for its size: auto --approximate falls back to
    // loopy BP, as where the size was plain before any order was searched (route_choice.cpp).
    if (!route && options.route == "auto" && options.approximate &&
        choice->route == &kJunctionTreeRoute && model.kind == ModelKind::CostNetwork) {
        std::string why = route.error().message;
        why.erase(std::min(why.size(), why.find(kNoExactRoute))); // lbp is the pointer's answer
        choice = RouteChoice{&kLoopyRoute, "auto --approximate: " + why};
        route = choice->route->compile(in);
    }
    if (!route)
        return route.error();
    s->impl_ = std::move(*route);
    s->route_ = std::string(choice->route->name);
    s->why_ = choice->why;
    return s;
}

const std::vector<Variable> &Session::variables() const { return impl_->variables(); }
const std::string &Session::route() const { return route_; }
const std::string &Session::routeWhy() const { return why_; }
bool Session::routeIsChosen() const {
    return kind_ == ModelKind::Network || kind_ == ModelKind::NetworkLibrary ||
           kind_ == ModelKind::ModelLibrary || route_ == "lbp" || route_ == "jt";
}
std::vector<Task> Session::tasks() const { return impl_->tasks(); }

std::vector<Result<TaskResult>> Session::answer(Task task, std::span<const Evidence> cases,
                                                const TaskOptions &options) {
    TaskOptions resolved = options;
    if (resolved.numeric == NumericChoice::Auto)
        resolved.numeric = numeric_;
    std::vector<Result<TaskResult>> results = impl_->answer(task, cases, resolved);
    for (Result<TaskResult> &r : results)
        if (r) {
            r->route = route_;
            r->routeWhy = why_;
            r->device.route = route_;
            if (!r->device.arithmetic && r->device.kind != DeviceKind::Split && !r->cost)
                r->device.arithmetic = r->numeric;
        }
    if (task == Task::Mpe)
        breakTies(cases, results);
    return results;
}

void Session::breakTies(std::span<const Evidence> cases, std::vector<Result<TaskResult>> &results) {
    const bool open = std::any_of(results.begin(), results.end(), mayHoldTie);
    if (!open || results.size() != cases.size())
        return;
    if (!tieBreakTried_) {
        tieBreakTried_ = true;
        // A MARKOV .uai (or a network not kept) read again as factors. A .wcsp has one route,
        // bucket elimination, whose program (its order a function of the model) is the same on
        // every executor and in its problem.so, and whose integer costs tie exactly: its own
        // traceback answers alike everywhere. A compiled library, a .zdd and a circuit have no
        // model to read.
        const bool network = kind_ == ModelKind::Network ||
                             (kind_ == ModelKind::CostNetwork && fileExtension(path_) == ".uai");
        if (!tieModel_ && network) {
            auto model = readFactorModelFile(path_);
            if (model)
                tieModel_ = std::move(*model);
            else
                impl_->notes.push_back("MPE ties left as the route broke them: " +
                                       model.error().message);
        }
        if (tieModel_) {
            auto built = MpeTieBreak::build(std::move(*tieModel_), physicalMemoryBytes() / 2);
            tieModel_.reset();
            if (built)
                tieBreak_ = std::move(*built);
            else
                impl_->notes.push_back("MPE ties left as the route broke them: " +
                                       built.error().message);
        }
    }
    if (tieBreak_)
        tieBreak_->apply(cases, results, impl_->notes, threads_);
}

Status Session::save(const std::string &path, const SaveOptions &options) {
    const std::string ext = fileExtension(path);
    if (ext == ".zdd")
        return emit("zbdd", path, options);
    if (ext == ".txt")
        return emit("circuit", path, options);
    return impl_->save(path, options);
}

Status Session::emit(const std::string &stage, const std::string &path, const SaveOptions &options) {
    const std::vector<std::string> stages = impl_->stages();
    if (std::find(stages.begin(), stages.end(), stage) == stages.end())
        return errorAt(path_, 0, "route " + route_ + " has no stage '" + stage + "' to emit");
    Status inner = Ok{};
    Status written = writeFileAtomically(path, [&](std::ostream &out) {
        inner = impl_->emit(stage, out, options);
        return inner.ok() && bool(out);
    });
    if (!inner)
        return inner;
    return written;
}

std::vector<Diagnostic> Session::takeWarnings() {
    std::vector<Diagnostic> all = std::exchange(warnings_, {});
    if (impl_)
        for (Diagnostic &d : std::exchange(impl_->warnings, {}))
            all.push_back(std::move(d));
    return all;
}
std::vector<std::string> Session::takeNotes() { return std::exchange(impl_->notes, {}); }

} // namespace zbddc::pipeline
