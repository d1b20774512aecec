// The one entry point for programs: a model file (or a model already read) opened into a route
// chosen and compiled once, then asked tasks over batches of evidence cases.
//
//   auto session = Session::open("alarm.bif", {});           // read, route, device, compile
//   auto results = session->answer(Task::Mar, cases);        // one result per case
//
// The command line (tools/zbddc) only turns flags into OpenOptions and prints what comes back.
#pragma once

#include "pipeline/mpe_tie_break.h"
#include "pipeline/route.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc::pipeline {

class Session {
  public:
    static Result<std::unique_ptr<Session>> open(const std::string &path, const OpenOptions &options);
    // A model read before (readModel), e.g. to count the evidence cases first.
    static Result<std::unique_ptr<Session>> open(ModelFile model, const OpenOptions &options);

    const std::vector<Variable> &variables() const;
    const std::string &route() const;    // the route taken: mlf, jt, be or lbp
    const std::string &routeWhy() const; // why that route was taken
    // Whether the route was one of several this model kind has (a .zdd, a circuit and a cost
    // network's bucket elimination have one): where a result is worth naming it.
    bool routeIsChosen() const;
    std::vector<Task> tasks() const;     // the tasks this model and route answer
    const std::string &path() const { return path_; }
    ModelKind modelKind() const { return kind_; }

    // One result per case; a case that cannot be answered carries its own error. Each result
    // names its route and why, in itself and in its device report.
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &options = {});
    // The route's library (.so), the ZBDD (.zdd) or the circuit as text (.txt).
    Status save(const std::string &path, const SaveOptions &options = {});
    // --emit=STAGE: one stage of the route as text (route.h's stages()).
    Status emit(const std::string &stage, const std::string &path, const SaveOptions &options = {});

    // Reading's accepted oddities, and notes on how the run went (a device fallen back from, a
    // request that could not apply), each said once: take them after open and after answer.
    std::vector<Diagnostic> takeWarnings();
    std::vector<std::string> takeNotes();

  private:
    Session() = default;
    // MPE answers through the one tie rule (mpe_tie_break.h), its tree built at the first tie.
    void breakTies(std::span<const Evidence> cases, std::vector<Result<TaskResult>> &results);
    std::string path_;
    ModelKind kind_ = ModelKind::Network;
    std::string route_, why_;
    std::unique_ptr<Route> impl_;
    std::vector<Diagnostic> warnings_;
    NumericChoice numeric_ = NumericChoice::Auto;
    unsigned threads_ = 0;
    std::optional<FactorModel> tieModel_; // a network's factors, kept before a route takes them
    std::unique_ptr<MpeTieBreak> tieBreak_;
    bool tieBreakTried_ = false;
};

} // namespace zbddc::pipeline
