// Building blocks the passes share: lowering a Circuit to the first (sequential, SSA) Schedule,
// interning op types, and rebuilding the level/group/block arrays after ops move.
#pragma once

#include "ir/circuit.h"
#include "ir/schedule.h"

#include <span>
#include <vector>

namespace zbddc {

// One op per Plus/Times/MulAdd node, in circuit order, one level per op; op i writes slot
// computedBase() + i (SSA: every slot written once). Operands that are inputs become LoadX
// leaves, all others LoadF; commutative operands are ordered F before X so that Minato et al.
// 2011's typeA is always "F X * F +" and typeB "F X *". Zero/One/Const nodes are the fixed slots.
Schedule lowerToSchedule(const Circuit &circuit);

// Finds type `code` in the catalogue or appends it; the templates of Minato et al. 2011 §5 get
// their names there (type1–type6).
uint32_t internType(Schedule &s, std::span<const uint32_t> code);

// Appends type `code` without looking for it (the caller knows it is new).
uint32_t appendType(Schedule &s, std::span<const uint32_t> code);

// Type t's template as a vector of its own (for containers keyed by templates).
std::vector<uint32_t> templateCode(const Schedule &s, uint32_t t);

// A schedule with `s`'s SlotLayout (semiring, constants, inputs, slot count, outputs) and no
// types, ops or levels: where a pass that rebuilds every op starts.
Schedule withoutOps(const Schedule &s);

// The level of every op (by position).
std::vector<uint32_t> levelOfOps(const Schedule &s);

// For every slot, the op writing it (kNone for fixed slots). Requires SSA slots.
std::vector<uint32_t> producerOfSlots(const Schedule &s);

// For every slot, how many operands read it, counting each circuit output as one reader.
// Requires no preloaded block (operands hold slots).
std::vector<uint32_t> readerCounts(const Schedule &s);

// Rebuilds the ops as `order` (old op ids, each at most once) with `newLevel[k]` the level of
// order[k] (non-decreasing; levels may be empty and are kept). Groups become the runs of one type
// inside each level, one block per group, no preload, threads 0; levels are on the Host.
void rebuildOps(Schedule &s, const std::vector<uint32_t> &order,
                const std::vector<uint32_t> &newLevel, uint32_t numLevels);

// Groups = runs of one type inside each level, one block per group, no preload.
void resetGroupsAndBlocks(Schedule &s);

} // namespace zbddc
