// The TensorProgram: ops over tables, the coarse-grained IR of the elimination route (seeds 000,
// 001, 002). A table has a scope in layout order (scope[0] most significant, scope.back() varies
// fastest), the domain size of each scope variable, and a density: complete (every row stored) or
// sparse (explicit rows, every other row holds a default value). Ops are listed in a topological
// order; `levels` groups ops whose inputs are all produced by earlier levels, so the ops of one
// level (independent buckets of the elimination tree) may run concurrently.
#pragma once

#include "ir/result.h"
#include "ir/semiring.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct Table {
    std::vector<uint32_t> scope;
    std::vector<uint32_t> domains; // domain size of scope[i]
    bool sparse = false;
    bool input = false;         // input tables carry their data; op outputs are computed
    std::vector<double> values; // complete: every row; sparse: the values of `rows`
    std::vector<uint64_t> rows; // sparse: ascending row indices
    double defaultValue = 0;    // sparse: the value of every row not in `rows`

    uint64_t entries() const; // number of rows of the complete table
    // Every row's value (sparse tables expanded with their default); may throw std::bad_alloc.
    std::vector<double> denseValues() const;
};

enum class TensorOpKind : uint8_t {
    Join,            // out = ⊗ inputs, over the union of their scopes
    Marginalize,     // out = ⊕ over `vars` of the single input
    EliminateBucket, // out = ⊕ over `vars` of ⊗ inputs, the join never materialised
                     // (Fioretto et al. 2015 §3.2)
    SliceEvidence,   // out = the single input with `vars` fixed to `values`
    InverseMax,      // out = 1 / (max over `vars` of the single input), 1 where that max is 0:
                     // the factor that rescales each case of a batched message to at most 1
                     // (product semirings only; junction-tree messages, lower_junction_tree.h)
    // Message state for loopy BP in tensor form (no route lowers into it: loopy BP runs its own
    // message loops, runtime/loopy), product semirings only. ⊕ is the
    // semiring's (sum, or max); N(t) is t divided by its ⊕ over `vars` (0 where that ⊕ is 0).
    DampMessage,     // inputs {fresh, old, w}: out = N(N(fresh)^(1-w) · old^w), over `vars`;
                     // out's scope is fresh's ∪ old's, w's (a per-case weight) a subset of it.
                     // w = 0 normalises fresh; 0 < w < 1 damps it geometrically (in log space
                     // a weighted mean); w = 1 keeps old (a converged case stays put)
    MessageResidual, // inputs pairs {a0, b0, a1, b1, ...}: out = the largest distance between
                     // N(a_k) and N(b_k), N over the pair's variables outside out's scope (a
                     // table lacking one reads alike for all its values): |p - q| (sum-product),
                     // |ln p - ln q| (max-product)
};

// The message-state ops: not a ⊕ of ⊗, so only the interpreter and the CPU executor run them;
// every other path refuses a program that has them.
inline bool isMessageOp(TensorOpKind kind) {
    return kind == TensorOpKind::DampMessage || kind == TensorOpKind::MessageResidual;
}

// Ops whose output drops `vars` from their inputs' scope by a reduction.
inline bool reducesVariables(TensorOpKind kind) {
    return kind == TensorOpKind::Marginalize || kind == TensorOpKind::EliminateBucket ||
           kind == TensorOpKind::InverseMax;
}

const char *tensorOpKindName(TensorOpKind kind);

struct TensorOp {
    TensorOpKind kind = TensorOpKind::Join;
    std::vector<uint32_t> inputs; // table ids
    uint32_t output = 0;          // table id
    std::vector<uint32_t> vars;   // eliminated (Marginalize, EliminateBucket) or fixed (Slice)
    std::vector<uint32_t> values; // SliceEvidence: the fixed values
};

// The scalar arithmetic of the message ops, shared by every executor that runs them (the CUDA
// kernels spell out the same formulas). `fresh` and `old` already normalised.
double dampedEntry(double fresh, double old, double w);
// Distance of two normalised entries: |p - q|, or with `logDistance` |ln p - ln q| (0 where both
// are 0, infinite where one is).
double messageDistance(double p, double q, bool logDistance);

struct TensorProgram {
    Semiring semiring = Semiring::MinSum;
    std::vector<uint32_t> domainSizes; // by variable
    std::vector<Table> tables;
    std::vector<TensorOp> ops;
    std::vector<std::vector<uint32_t>> levels; // op ids; see computeLevels
    std::vector<uint32_t> results;             // empty-scope tables; their ⊗ is the answer
    // Computed tables the caller reads back; empty: all of them. A GPU executor downloads only
    // these (a batched junction tree reads its marginals, not its messages).
    std::vector<uint32_t> fetch;

    // Structural checks: ids in range, ops in topological order, every computed table written
    // exactly once, scopes consistent with each op's semantics, levels a valid partition.
    Status verify() const;
    std::string dump() const;
};

// The variables of message-residual pair k (inputs 2k and 2k+1) outside its output's scope: the
// ones each pair is normalised over.
std::vector<uint32_t> residualPairVariables(const TensorProgram &program, const TensorOp &op,
                                            size_t k);

// Ok where no op is a message op (isMessageOp); otherwise "`who` does not run ..." for the paths
// that refuse them.
Status refuseMessageOps(const TensorProgram &program, std::string_view who);

// Batched programs (a junction tree's, loopy BP's), whose variable `batchVariable` indexes the
// case. Writes case b's evidence indicators: for each variable v with an indicator table
// (evidenceTables[v] != UINT32_MAX), 1 at the values `states` allows (states[v], or every value
// where states[v] is UINT32_MAX or v is past its end), 0 elsewhere.
void writeEvidenceIndicators(TensorProgram &program, std::span<const uint32_t> evidenceTables,
                             uint32_t batchVariable, uint32_t b,
                             std::span<const uint32_t> states);
// What the two batched lowerings give: the program, the case variable and the number of cases,
// and per model variable its indicator table (UINT32_MAX where it has none).
struct BatchedProgram {
    TensorProgram program;
    uint32_t batchVariable = 0;
    uint32_t batch = 1;
    std::vector<uint32_t> evidenceTable;

    // Case b's indicators (writeEvidenceIndicators): states[v] observed, or UINT32_MAX.
    void setEvidence(uint32_t b, const std::vector<uint32_t> &states) {
        writeEvidenceIndicators(program, evidenceTable, batchVariable, b, states);
    }
};

// Appends a computed table (no data yet) over `vars`, in that order, and with `batched` the case:
// scope.back() where `batchFastest` (a case's rows interleave), else scope[0]. Returns its id.
uint32_t addBatchedTable(TensorProgram &program, std::span<const uint32_t> vars, bool batched,
                         uint32_t batchVariable, bool batchFastest);
// Whether `table`'s scope holds the case variable.
bool isBatched(const Table &table, uint32_t batchVariable);

// Assigns each op to level 1 + the deepest level among the producers of its inputs.
void computeLevels(TensorProgram &program);

// Entries an executor walks running `program` once: per op, its output's (Join, SliceEvidence)
// or the joint scope of its inputs (the reductions). A batch variable counts as any other.
double tensorProgramWork(const TensorProgram &program);

// Row-major strides of a table (stride of scope.back() is 1).
std::vector<uint64_t> tableStrides(const Table &table);
// Variable v's entry of tableStrides(table), without building them all; 0 where the table lacks v.
uint64_t variableStride(const Table &table, uint32_t v);

// The value of one row of an input table, complete or sparse.
double inputTableValue(const Table &table, uint64_t row);

// The value at `assignment` (indexed by variable) of table `id`, read from the input data or from
// `computed[id]` (complete values of computed tables, as the executors return them).
double tableValueAt(const TensorProgram &program, const std::vector<std::vector<double>> &computed,
                    uint32_t id, std::span<const uint32_t> assignment);

// Per table, 1 where only scales read it (InverseMax ops over variables, at least one, or ops whose
// own output only scales read) and it is not a result: the op that writes it only computes a
// scale, as the stages of a split InverseMax do (split_reductions.h). A scale is a positive factor
// per case, so the VALUE phase skips that op.
std::vector<uint8_t> scaleOnlyTables(const TensorProgram &program);

// The VALUE phase (Fioretto et al. 2015 §2.2; Dechter 1999's backward pass): walk the
// Marginalize/EliminateBucket ops (but those scaleOnlyTables marks) from last to first; each one's
// output scope is already assigned, so pick the ⊕-best joint value of its eliminated variables
// given its inputs. `assignment` arrives with evidence (and any default) filled in and returns
// completed. `pinned` (per variable, optional): variables that keep their value where an op
// eliminates them (a junction tree's observed variables, whose other states have indicator 0 and
// can never be the best). `tied` (optional) is set where some op met another joint value within
// the tie tolerance of the one it kept (ir/mpe_tie.h): another assignment reaches the optimum. It
// is left alone otherwise.
void recoverAssignment(const TensorProgram &program,
                       const std::vector<std::vector<double>> &computed,
                       std::vector<uint32_t> &assignment,
                       const std::vector<uint8_t> *pinned = nullptr, bool *tied = nullptr);

// The same walk under one rule for ties (max-product only): among the assignments whose value
// reaches the optimum within the tie tolerance (ir/mpe_tie.h), the lexicographically lowest in
// the order the walk decides variables — op by op from the last, each op's eliminated
// variables as listed. Each op keeps its first joint value whose best completion still reaches
// the optimum: that completion's value over the optimum is carried from op to op, so the
// tolerance is spent once over the whole assignment, not once per op. A function of the program
// alone: the MPE tie rule (pipeline/mpe_tie_break.h) runs it on one canonical program per case.
void recoverLowestAssignment(const TensorProgram &program,
                             const std::vector<std::vector<double>> &computed,
                             std::vector<uint32_t> &assignment,
                             const std::vector<uint8_t> *pinned = nullptr);

// recoverAssignment reading row `row` of table `id` through `value(id, row)` (for incomplete
// tables).
using RowValue = std::function<double(uint32_t id, uint64_t row)>;
void recoverAssignment(const TensorProgram &program, const RowValue &value,
                       std::vector<uint32_t> &assignment, bool *tied = nullptr);
// ⊗ of the program's result tables, read through `value`.
double programResult(const TensorProgram &program, const RowValue &value);

} // namespace zbddc
