// The C of a TensorProgram's ops, shared by the problem.so (bucket elimination, emit_problem_c.h)
// and the network.so (a junction tree, emit_network_c.h): one function per op, specialised as the
// CUDA kernels are — domain sizes and every input's strides are constants, the join is never
// materialised (Fioretto et al. 2015's fused aggregate-project; Bistaffa et al. 2016 Alg. 3's
// closed-form indexing) — plus the tables' scopes and strides as arrays for the traceback.
//
// Tables live in two places: input tables with fixed values in an embedded blob (`blobSymbol`),
// everything else (computed tables, and inputs the caller fills, such as evidence indicators) in a
// message buffer `msg` that the caller allocates per solve.
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace zbddc {

struct TensorOpsC {
    std::string prefix;     // C names of this program: PREFIXop_3, PREFIXtable_offset, ...
    std::string blobSymbol; // the embedded blob of fixed input tables (const double[])
    uint64_t blobBase = 0;  // this program's first entry in that blob
    // Inputs stored in `msg` (filled by the caller each solve) instead of the blob.
    std::vector<bool> callerFilled;
    // Bucket elimination's evidence: each op of one eliminated variable takes ⊗ `ev[x]` of that
    // variable's value x (a 0/+inf mask in min-sum); op functions receive `ev` either way.
    bool evidenceMask = false;
    // Ops that get a specialised function (empty: all); the others are left to the caller's
    // generic loop, which reads the op arrays (a network.so's small ops: thousands of specialised
    // functions cost gcc a minute, and a small op's work is nothing beside a call).
    std::vector<bool> specialised;
};

struct TensorTableLayout {
    std::vector<uint64_t> offset; // by table: in the blob or in msg
    std::vector<bool> inBlob;
    uint64_t blobEntries = 0, messageEntries = 0;
};

TensorTableLayout layoutTables(const TensorProgram &p, const TensorOpsC &options);

// The blob's entries of `p` (its fixed input tables, complete), appended to `blob`.
void appendBlob(const TensorProgram &p, const TensorTableLayout &layout, std::vector<double> &blob);

// Whether emitOpsC can emit `p`: Join, Marginalize, EliminateBucket and InverseMax over complete
// tables in sum-product, max-product, min-sum or min-sum-int64. Empty when it can, else why not.
std::string unsupportedByOpsC(const TensorProgram &p);

// C of the entries' type `zb_val`: double, or int64_t under MinSumInt64 (with its saturating
// `zb_cost_sum`); the ops, kRunOpC and embedBlobC's declaration use it, so it comes first.
std::string valueTypeC(Semiring s);

// `static void PREFIXop_N(zb_val *msg, const zb_val *ev, uint64_t o_begin, uint64_t o_end)`
// per specialised op: rows [o_begin, o_end) of the op's outer index (its leading output variables
// merged into one index of at least 64 values, so that threads can share rows), and the arrays
// PREFIXdomain, PREFIXtable_blob, PREFIXtable_offset, PREFIXtable_first, PREFIXscope_var,
// PREFIXscope_stride, PREFIXop_first, PREFIXop_input, PREFIXop_vfirst, PREFIXop_var,
// PREFIXop_reduces (1 for the ops a traceback walks: Marginalize, EliminateBucket).
void emitOpsC(const TensorProgram &p, const TensorTableLayout &layout, const TensorOpsC &options,
              std::ostream &c);

// Rows of the op's outer index, and the work of the whole op (entries read).
uint64_t outerRows(const Table &out);
uint64_t opWork(const TensorProgram &p, const TensorOp &op);

// C of `run_op(fn, msg, ev, outer, work, threads)`: an op's outer rows shared over pthreads (the
// .so needs only libc and libm); ops under THREAD_WORK entries of work, and any thread that cannot
// start, run on the calling thread. Each row is computed the same way whoever computes it, so
// answers do not depend on the thread count. Defines op_fn and MAX_THREADS too.
extern const char *const kRunOpC;

// A static const array of unsigned values.
template <typename T>
void emitArray(std::ostream &c, const char *type, const std::string &name,
               const std::vector<T> &values) {
    c << "static const " << type << " " << name << "[" << (values.empty() ? 1 : values.size())
      << "] = {";
    for (size_t i = 0; i < values.size(); ++i)
        c << (i % 16 ? " " : "\n    ") << values[i] << "u,";
    if (values.empty())
        c << "0";
    c << "\n};\n";
}

// Lists laid end to end, as the generated C reads them: list i is items[first[i], first[i + 1]).
template <typename T> struct FlatLists {
    std::vector<uint32_t> first{0};
    std::vector<T> items;
    // Ends the list being built: the items pushed since the last end.
    void endList() { first.push_back(static_cast<uint32_t>(items.size())); }
    template <typename Range> void addList(const Range &list) {
        items.insert(items.end(), list.begin(), list.end());
        endList();
    }
};

// The arrays `firstName` (unsigned) and `itemsName` (of `itemType`) of `lists`.
template <typename T>
void emitFlatLists(std::ostream &c, const char *itemType, const std::string &firstName,
                   const std::string &itemsName, const FlatLists<T> &lists) {
    emitArray(c, "unsigned", firstName, lists.first);
    emitArray(c, itemType, itemsName, lists.items);
}

// `static const char NAME[]` holding `text` as a C string literal, one source line per line.
void emitStringLiteral(std::ostream &c, const std::string &name, const std::string &text);

std::string doubleLiteral(double v);

// C that embeds the file at `path` (little-endian 8-byte entries, 64-byte aligned for vector
// loads) as the hidden `const zb_val NAME[]` (valueTypeC), through the assembler's .incbin: a
// table of 10^7 entries costs the compiler nothing. The path may hold no quote, backslash or line
// break.
std::string embedBlobC(const std::string &name, const std::string &path);

} // namespace zbddc
