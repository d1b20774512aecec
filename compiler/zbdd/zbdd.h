// Our own ZBDD package (Minato's zero-suppressed BDDs): families of sets over variables
// 0..numVars-1, hash-consed into flat arrays (one unique table, one lossy operation cache).
// Variable order is by id: a node's children have strictly greater variables, so the top variable
// of a family is its smallest. Operations stop with a Result error, never abort, when the node
// limit is reached; between phases the arena can be compacted (collectGarbage) or cleared (reset).
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

using ZbddRef = uint32_t;                      // a node index; 0 and 1 are the terminals
inline constexpr ZbddRef kZbddEmpty = 0;       // the empty family
inline constexpr ZbddRef kZbddBase = 1;        // the family {∅}
inline constexpr uint32_t kNoGroup = UINT32_MAX;

class ZbddManager {
  public:
    // maxNodes bounds the arena (terminals included); each node costs about 40 bytes with its
    // share of the unique table and cache.
    ZbddManager(uint32_t numVars, size_t maxNodes);

    uint32_t numVars() const { return numVars_; }
    size_t liveNodes() const { return var_.size(); } // nodes in the arena, terminals included
    size_t maxNodes() const { return maxNodes_; }
    size_t peakNodes() const { return peakNodes_; }

    // Structure of a non-terminal node.
    uint32_t var(ZbddRef f) const { return var_[f]; }
    ZbddRef lo(ZbddRef f) const { return lo_[f]; }
    ZbddRef hi(ZbddRef f) const { return hi_[f]; }
    static bool isTerminal(ZbddRef f) { return f <= kZbddBase; }

    // Variables of one exclusive group may not occur together in a set of joinExclusive's
    // result (the indicators λ of one network variable: Minato et al. 2011's MLF terms are
    // consistent).
    void setGroup(uint32_t v, uint32_t group);
    uint32_t group(uint32_t v) const { return group_[v]; }

    // Families.
    Result<ZbddRef> single(uint32_t v);                 // {{v}}
    Result<ZbddRef> unite(ZbddRef f, ZbddRef g);        // f ∪ g
    Result<ZbddRef> intersect(ZbddRef f, ZbddRef g);    // f ∩ g
    Result<ZbddRef> difference(ZbddRef f, ZbddRef g);   // f \ g
    Result<ZbddRef> join(ZbddRef f, ZbddRef g);         // {a ∪ b : a ∈ f, b ∈ g}
    // The sets of join(f, g) with at most one variable of each group. f and g must themselves
    // hold such sets only (as the MLF families do).
    Result<ZbddRef> joinExclusive(ZbddRef f, ZbddRef g);
    Result<ZbddRef> onset(ZbddRef f, uint32_t v);  // {a \ {v} : a ∈ f, v ∈ a}
    Result<ZbddRef> offset(ZbddRef f, uint32_t v); // {a : a ∈ f, v ∉ a}
    Result<ZbddRef> change(ZbddRef f, uint32_t v); // toggles v in every set
    // restrict f to the sets that contain v (v kept): {a ∈ f : v ∈ a}
    Result<ZbddRef> restrictTo(ZbddRef f, uint32_t v);

    double countSets(ZbddRef f) const;  // number of sets (paths to the 1 terminal)
    size_t countNodes(ZbddRef f) const; // non-terminal nodes reachable from f

    // Compacts the arena to the nodes reachable from roots, which are rewritten in place. Node
    // indices stay in creation order, so children keep smaller indices than their parents.
    void collectGarbage(std::span<ZbddRef> roots);
    // Drops every node (all outstanding refs other than the terminals become invalid).
    void reset();

  private:
    static constexpr ZbddRef kOverflow = UINT32_MAX; // internal: the node limit was hit

    enum class Op : uint32_t { Unite = 1, Intersect, Difference, Join, JoinExclusive, Onset,
                               Offset, Change, DropGroup };

    ZbddRef node(uint32_t v, ZbddRef lo, ZbddRef hi); // zero-suppressed, hash-consed
    uint32_t top(ZbddRef f) const { return var_[f]; } // terminals have var numVars_

    ZbddRef setOpRec(Op op, ZbddRef f, ZbddRef g); // Unite, Intersect or Difference
    ZbddRef joinRec(ZbddRef f, ZbddRef g, bool exclusive);
    ZbddRef dropGroupRec(ZbddRef f, uint32_t group); // sets with no variable of group
    ZbddRef cofactorRec(Op op, ZbddRef f, uint32_t v);

    bool cacheLookup(Op op, uint32_t a, uint32_t b, ZbddRef &out) const;
    void cacheStore(Op op, uint32_t a, uint32_t b, ZbddRef result);
    void growUniqueTable();
    void rebuildUniqueTable();
    Result<ZbddRef> finish(ZbddRef r) const;

    uint32_t numVars_;
    size_t maxNodes_;
    size_t peakNodes_ = 2;
    std::vector<uint32_t> var_, group_;
    std::vector<ZbddRef> lo_, hi_;
    std::vector<uint32_t> unique_; // open addressing: node index or 0 (free)
    struct CacheEntry {
        uint32_t op = 0, a = 0, b = 0;
        ZbddRef result = 0;
    };
    std::vector<CacheEntry> cache_;
    std::vector<uint32_t> groupMax_; // largest variable of each group (for early exits)
};

} // namespace zbddc
