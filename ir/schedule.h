// The Schedule: a Circuit turned into parallel work — merged ops grouped into levels, each level
// split into blocks of one op type, value slots numbered so a level's outputs are contiguous and
// reused once dead (Minato et al. 2011 §2 levels, §5 merged types). It is the GPU's plan: the
// generic passes (compiler/passes) build it and the GPU's passes (backends/cuda/schedule) add
// phases, blocks and shared-memory preloads. Consumers today: the CUDA backend
// (backends/cuda/device_plan, when given a Schedule), `zbddc stats`, and the schedule interpreter
// that checks every pass. The CPU backend compiles the Circuit itself, in DFS order
// (backends/cpu/dfs_order.h). Plain data: flat vectors of 32-bit indices, ranges given as prefix
// arrays (`xBegin` of size n+1).
//
// Value slots. One evaluation (one batch lane) owns `numSlots` values, laid out as
//   [0]                              the semiring's Zero (dummy operand, Zero nodes)
//   [1]                              the semiring's One  (dummy operand, One nodes)
//   [kSlotConstBase, inputBase())    constants[i], linear values (log-space backends lift them)
//   [inputBase(), computedBase())    x[i], the inputs, written by the caller
//   [computedBase(), numSlots)       values computed by ops (reused after liveness)
// Ops only read slots and write computed slots; the first four ranges are set before level 0.
//
// Op types. Every op is an instance of a type from the catalogue: a small expression template in
// postfix over the op's operands. Leaves consume the op's operands in order: LoadF reads a value
// slot (an f operand of Minato et al. 2011), LoadX an input (an x operand; it may also name slot 0
// or 1 as a dummy). Minato et al. 2011's typeA f[b]x[c]+f[d] is "F X * F +", typeB f[b]x[c] is
// "F X *".
#pragma once

#include "ir/result.h"
#include "ir/semiring.h"

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kSlotZero = 0;      // holds the semiring's Zero
inline constexpr uint32_t kSlotOne = 1;       // holds the semiring's One
inline constexpr uint32_t kSlotConstBase = 2; // first constant slot

// One step of a type's postfix template.
enum class TemplateStep : uint32_t {
    LoadF = 0, // push the next operand, a value slot
    LoadX = 1, // push the next operand, an input (x) slot — the one shared-memory preload rewrites
    Times = 2, // pop q, p; push p ⊗ q
    Plus = 3,  // pop q, p; push p ⊕ q
};

// Where a level runs. A schedule without a target's passes stays on the host; the GPU's
// split-phases pass places every level on the grid or in one block. Minato et al. 2011's CPU
// preliminary and posterior phases are not levels of a schedule: the circuit is cut there
// (compiler/passes/host_phases.h) and the ends run on the host's own engine.
enum class Phase : uint32_t {
    Host = 0,        // not placed on a device
    Grid = 1,        // a GPU kernel (or grid-synchronised step) over many blocks
    SingleBlock = 2, // on the GPU inside one block, which runs all the level's blocks in turn;
                     // consecutive such levels are separated by __syncthreads
};
inline constexpr uint32_t kPhases = 3;
// Host levels have one block per group and levelThreads 0; grid levels one launch (or grid-wide
// barrier) each.

// LoadF and LoadX: the steps that consume an operand (the leaves of a template).
constexpr bool isLoadStep(uint32_t step) {
    return step <= static_cast<uint32_t>(TemplateStep::LoadX);
}

// Number of leaves of a postfix template: the operand count of an op of that type.
uint32_t leafCount(std::span<const uint32_t> code);

const char *phaseName(Phase p);

// What the scheduler knows of the target GPU; the CUDA backend fills it from the real device.
struct DeviceShape {
    uint32_t sms = 132;                 // streaming multiprocessors (H100 SXM)
    uint32_t warp = 32;                 // threads per warp
    uint32_t maxThreadsPerBlock = 1024; // hardware limit per block
    uint32_t sharedMemBytes = 49152;    // shared memory one block may use without opt-in
};

// What a schedule's values are, apart from the ops that compute them: the semiring, the slot
// layout and where the outputs end up. A pass that rebuilds every op keeps it (withoutOps).
struct SlotLayout {
    Semiring semiring = Semiring::SumProduct; // the circuit's semiring (ops are semiring-abstract)
    std::vector<double> constants;            // value of slot kSlotConstBase + i
    uint32_t numInputs = 0;                   // inputs x[0..numInputs) live at inputBase() + i
    uint32_t numSlots = 0;                    // value slots per evaluation, all ranges included
    std::vector<uint32_t> outputs;        // slot holding each circuit output after the last level
    std::vector<std::string> outputNames; // name of each output (may be empty strings)

    uint32_t inputBase() const { return kSlotConstBase + static_cast<uint32_t>(constants.size()); }
    uint32_t computedBase() const { return inputBase() + numInputs; }
};

struct Schedule : SlotLayout {
    // --- type catalogue ---
    std::vector<std::string> typeName;      // readable name ("typeA", "type4", "t9") per type
    std::vector<uint32_t> typeCodeBegin{0}; // type t's template: typeCode[typeCodeBegin[t], [t+1])
    std::vector<uint32_t> typeCode;         // TemplateStep values, postfix

    // --- ops (SoA), in execution order; level l's ops are a contiguous range ---
    std::vector<uint32_t> opType;            // type id of each op
    std::vector<uint32_t> opOut;             // computed slot each op writes
    std::vector<uint32_t> opOperandBegin{0}; // op i reads operands[opOperandBegin[i], [i+1])
    std::vector<uint32_t> operands; // slots (or, in a preloaded block, LoadX: tile offsets)

    // --- levels: all ops of a level are independent; level l+1 starts after level l ends ---
    std::vector<uint32_t> levelOpBegin{0}; // level l's ops are [levelOpBegin[l], [l+1])
    std::vector<uint32_t> levelPhase;      // Phase of each level
    std::vector<uint32_t> levelThreads;    // threads per block for each level (GPU phases)

    // --- groups: maximal runs of one type in a level (typeA first: Minato et al. 2011 §2) ---
    std::vector<uint32_t> levelGroupBegin{0}; // level l's groups are [levelGroupBegin[l], [l+1])
    std::vector<uint32_t> groupOpBegin{0};    // group g's ops are [groupOpBegin[g], [g+1])
    std::vector<uint32_t> groupType;          // type of every op in group g

    // --- blocks: the work of one thread block; inside one group, covering it in order ---
    std::vector<uint32_t> levelBlockBegin{0}; // level l's blocks are [levelBlockBegin[l], [l+1])
    std::vector<uint32_t> blockOpBegin{0}; // block b's ops are [blockOpBegin[b], [b+1]); size nb+1
    std::vector<uint32_t> blockLoadBegin{
        0};                           // block b preloads blockLoads[blockLoadBegin[b], [b+1])
    std::vector<uint32_t> blockLoads; // slots copied to shared memory before the block's ops;
                                      // when non-empty, the block's LoadX operands are
                                      // offsets into this list (Minato et al. 2011 §2, last para.)

    uint32_t numOps() const { return static_cast<uint32_t>(opType.size()); }
    uint32_t numLevels() const { return static_cast<uint32_t>(levelPhase.size()); }
    uint32_t numTypes() const { return static_cast<uint32_t>(typeName.size()); }
    uint32_t numGroups() const { return static_cast<uint32_t>(groupType.size()); }
    uint32_t numBlocks() const { return static_cast<uint32_t>(blockOpBegin.size()) - 1; }
    std::span<const uint32_t> typeTemplate(uint32_t t) const {
        return {typeCode.data() + typeCodeBegin[t], typeCode.data() + typeCodeBegin[t + 1]};
    }
    uint32_t typeArity(uint32_t t) const { return leafCount(typeTemplate(t)); }
    bool blockPreloads(uint32_t b) const { return blockLoadBegin[b] != blockLoadBegin[b + 1]; }
};

// Calls visit(step, k) for every leaf of op `op`'s template in order: step LoadF or LoadX, k the
// position of its operand in `operands`.
template <class Visit> void forEachLeaf(const Schedule &s, uint32_t op, Visit &&visit) {
    uint32_t k = s.opOperandBegin[op];
    for (uint32_t step : s.typeTemplate(s.opType[op]))
        if (isLoadStep(step))
            visit(static_cast<TemplateStep>(step), k++);
}

// Structural invariants every backend may rely on: prefix arrays monotone and consistent, every
// template well formed with its arity matching each op's operand count, groups and blocks of one
// type inside one level, every operand a constant/input slot or a computed slot written in an
// earlier level, no slot written twice in one level nor both read and written in one level (so
// a level's ops may run in any order, in parallel), outputs in range.
Status verify(const Schedule &schedule);

// Readable text: the type catalogue, then each level with its phase, groups and ops.
void dump(const Schedule &schedule, std::ostream &out);

// The postfix template of type t as text, e.g. "F X * F +".
std::string templateText(const Schedule &schedule, uint32_t t);

} // namespace zbddc
