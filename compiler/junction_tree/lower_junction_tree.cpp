#include "compiler/junction_tree/lower_junction_tree.h"

#include "compiler/junction_tree/factor_relevance.h"
#include "ir/table_over.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <tuple>

namespace zbddc {

namespace {

// What an op costs per entry walked besides one read per input (the loop, its odometer, its
// output), in input reads: where one case's message sums its variables out step by step or in
// one op (Lowering::eliminateOneByOne). On the VM's CPU executor (2026-12-08, one binary, the
// constant read at run time): 0 to 8 keep the steps' gain on Alchemy_11 and CSP_12 (PR 53 -> 10
// ms, 12 -> 5; 16 loses CSP_12's), where 0 and 4 cost ObjectDetection_21 and Grids_13 a fifth
// (their fused ops ⊗ most inputs in once a run of the block, levelledSum).
constexpr double kOpReadsPerEntry = 8;

bool holds(const std::vector<uint32_t> &sorted, uint32_t v) {
    return std::binary_search(sorted.begin(), sorted.end(), v);
}

class Lowering {
  public:
    Lowering(const FactorModel &model, const JunctionTree &tree,
             const JunctionTreeLowering &options)
        : model_(model), tree_(tree), opt_(options) {}

    JunctionTreeProgram run() {
        const uint32_t n = tree_.numCliques();
        out_.batchVariable = tree_.numVariables();
        out_.batch = sliced() ? 1 : opt_.batch;
        out_.logScale = model_.logScale;
        TensorProgram &p = out_.program;
        p.semiring = opt_.maxProduct ? Semiring::MaxProduct : Semiring::SumProduct;
        p.domainSizes = tree_.domainSizes;
        p.domainSizes.push_back(out_.batch);

        if (sliced()) {
            rowsSumToOne_ =
                opt_.rowsSumToOne.empty() ? factorRowsSumToOne(model_) : opt_.rowsSumToOne;
            rowSums_.assign(model_.factors.size(), kNoTable);
        }
        children_.resize(n);
        for (uint32_t c = 1; c < n; ++c)
            children_[tree_.parent[c]].push_back(c);
        addPotentials();
        addEvidence();
        up_.assign(n, {});
        down_.assign(n, {});

        for (uint32_t c : tree_.collectOrder)
            if (c != 0)
                up_[c] = message(collectInputs(c), separator(c), /*collect=*/true);
        if (n > 0)
            out_.normaliser = reduce(collectInputs(0), {});
        // One case, after collect: only proportions count (see proportionsOnly_).
        proportionsOnly_ = sliced();
        if (opt_.marginals) {
            belief_.assign(n, kNoTable);
            out_.marginalTable.assign(tree_.numVariables(), kNoTable);
            for (uint32_t c = 0; sliced() && c < n; ++c) // parents first: parent[c] < c
                distributeOutOf(c);
            for (uint32_t c = 1; !sliced() && c < n; ++c) { // parents first: parent[c] < c
                const uint32_t p = tree_.parent[c];
                if (useBelief(p)) {
                    // Hugin's division instead of one product per child: the parent's belief
                    // once, then per child its marginal over the separator times 1 / the
                    // child's own message (a 0 message gives 0: the belief holds that 0 too).
                    if (belief_[p] == kNoTable)
                        belief_[p] = reduce(allInputs(p), cliqueVars(p));
                    down_[c] = message({belief_[p], reciprocal(up_[c].front())}, separator(c),
                                       /*collect=*/false);
                } else {
                    std::vector<uint32_t> in = allInputs(p);
                    std::erase_if(in, [&](uint32_t t) {
                        return std::find(up_[c].begin(), up_[c].end(), t) != up_[c].end();
                    });
                    down_[c] = message(in, separator(c), /*collect=*/false);
                }
            }
            addMarginals();
            p.fetch = out_.marginalTable;
            p.fetch.push_back(out_.normaliser);
            p.fetch.insert(p.fetch.end(), out_.collectScales.begin(), out_.collectScales.end());
        } else if (!opt_.maxProduct) { // PR reads Z and the scales; MPE's traceback reads all
            p.fetch = out_.collectScales;
            p.fetch.push_back(out_.normaliser);
        }
        std::erase_if(p.fetch, [&](uint32_t t) { return t == kNoTable || p.tables[t].input; });
        std::sort(p.fetch.begin(), p.fetch.end());
        p.fetch.erase(std::unique(p.fetch.begin(), p.fetch.end()), p.fetch.end());
        computeLevels(p);
        return std::move(out_);
    }

  private:
    bool sliced() const { return !opt_.caseStates.empty(); }
    bool observed(uint32_t v) const { return sliced() && opt_.caseStates[v] != UINT32_MAX; }

    // The constant 1 (a scalar input table): what a message is when every factor it would
    // multiply is barren.
    uint32_t one() {
        if (one_ == kNoTable) {
            one_ = addTable({}, false);
            out_.program.tables[one_].input = true;
            out_.program.tables[one_].values = {1.0};
        }
        return one_;
    }

    // The factor whose table `table` is (sliced or not), where that factor is a CPT of an
    // unobserved variable.
    uint32_t cptOf(uint32_t table) const {
        return table < cptOf_.size() ? cptOf_[table] : UINT32_MAX;
    }

    bool inScope(uint32_t table, uint32_t v) const {
        const auto &s = out_.program.tables[table].scope;
        return std::find(s.begin(), s.end(), v) != s.end();
    }

    // Madsen and Jensen 1999's barren variables, one product at a time: a CPT P(X | parents)
    // whose X is summed out here and read by no other input sums to 1 for every parent state,
    // so it leaves the product (and may leave its parents' CPTs barren in turn). Its parents are
    // still read elsewhere: their own CPTs lie on this side of the tree and keep them in scope.
    // A CPT whose rows do not sum to 1 exactly is replaced by its row sums instead (a Marginalize
    // over X): the answers stay those of the network as written. Sum-product only: a CPT's
    // maximum is not 1.
    void summariseBarren(std::vector<uint32_t> &inputs, const std::vector<uint32_t> &keep) {
        for (bool changed = true; changed;) {
            changed = false;
            for (size_t i = 0; i < inputs.size() && !changed; ++i) {
                const uint32_t f = cptOf(inputs[i]);
                if (f == UINT32_MAX)
                    continue;
                const uint32_t x = model_.factors[f].child;
                if (holds(keep, x))
                    continue;
                bool read = false;
                for (size_t j = 0; j < inputs.size() && !read; ++j)
                    read = j != i && inScope(inputs[j], x);
                if (read)
                    continue;
                if (rowsSumToOne_[f])
                    inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(i));
                else
                    inputs[i] = rowSums(inputs[i], f);
                changed = true;
            }
        }
    }

    // One case: the factors whose product, summed over everything but `keep`, is that of
    // `inputs`, each within `keep`: the constant 1 left out, barren CPTs dropped (sum-product),
    // the other variables eliminated.
    std::vector<uint32_t> factorsOver(std::vector<uint32_t> inputs,
                                      const std::vector<uint32_t> &keep) {
        std::erase(inputs, one_);
        if (!opt_.maxProduct)
            summariseBarren(inputs, keep);
        if (proportionsOnly_) { // groups of factors that sum to a number apart from `keep`
            std::vector<std::vector<uint32_t>> scopes;
            for (uint32_t t : inputs)
                scopes.push_back(scopeWithoutBatch(t));
            const std::vector<bool> linked = linkedToKept(scopes, keep);
            size_t i = 0;
            std::erase_if(inputs, [&](uint32_t) { return !linked[i++]; });
        }
        eliminateOneByOne(inputs, keep);
        return inputs;
    }

    // Madsen and Jensen 1999's lazy propagation keeps a clique's potential as its list of factors
    // and sums a message's variables out one at a time (Dechter 1999's buckets): each step
    // multiplies only the factors that hold its variable. One fused op walks the product of
    // the inputs that hold those variables instead; where the steps, chosen greedily by the
    // smallest table they walk, cost less than half of that, they are taken, else that one op.
    // An op costs its entries walked times its inputs plus kOpReadsPerEntry: a Markov network's
    // clique holds many small factors (Alchemy_11: 432 in one message, each read per entry of
    // the fused op, where the steps read a few each). `inputs` becomes the factors left, all
    // within `keep`.
    void eliminateOneByOne(std::vector<uint32_t> &inputs, const std::vector<uint32_t> &keep) {
        std::vector<std::vector<uint32_t>> scopes;
        for (uint32_t t : inputs)
            scopes.push_back(scopeWithoutBatch(t));
        const std::vector<uint32_t> all = unionOf(scopes);
        std::vector<uint32_t> eliminated;
        for (uint32_t v : all)
            if (!holds(keep, v))
                eliminated.push_back(v);
        if (eliminated.empty())
            return;
        // The inputs that hold an eliminated variable, and the product they walk fused.
        std::vector<uint32_t> bucket, rest, fusedScope;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const bool read = std::any_of(eliminated.begin(), eliminated.end(),
                                          [&](uint32_t v) { return holds(scopes[i], v); });
            (read ? bucket : rest).push_back(inputs[i]);
            if (read)
                fusedScope.insert(fusedScope.end(), scopes[i].begin(), scopes[i].end());
        }
        sortUnique(fusedScope);
        auto fused = [&] { // one op over the bucket; the other inputs pass as they are
            std::vector<uint32_t> kept;
            for (uint32_t v : fusedScope)
                if (holds(keep, v))
                    kept.push_back(v);
            // Max-product's traceback walks the fused op's eliminated joint values once per
            // case (water's root: 589,824 of them), so the last ones go one Marginalize each.
            if (opt_.maxProduct && eliminated.size() > 1)
                rest.push_back(maximiseInSteps(bucket, kept, eliminated, false));
            else
                rest.push_back(emit(TensorOpKind::EliminateBucket, bucket, eliminated, kept));
            inputs = std::move(rest);
        };
        if (eliminated.size() == 1)
            return fused();
        // Dry run on the scopes alone: the order and its cost.
        std::vector<uint32_t> order;
        double stepsCost = 0;
        for (std::vector<uint32_t> left = eliminated; !left.empty();) {
            size_t best = 0;
            double bestCost = 0;
            for (size_t i = 0; i < left.size(); ++i) {
                const double c = tree_.entries(bucketScope(scopes, left[i]));
                if (i == 0 || c < bestCost)
                    best = i, bestCost = c;
            }
            const uint32_t v = left[best];
            left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
            order.push_back(v);
            const auto reads = std::count_if(scopes.begin(), scopes.end(),
                                             [&](const auto &s) { return holds(s, v); });
            stepsCost += bestCost * (kOpReadsPerEntry + static_cast<double>(reads));
            std::vector<uint32_t> merged = bucketScope(scopes, v);
            std::erase(merged, v);
            std::erase_if(scopes, [&](const auto &s) { return holds(s, v); });
            scopes.push_back(std::move(merged));
        }
        if (2 * stepsCost >=
            tree_.entries(fusedScope) * (kOpReadsPerEntry + static_cast<double>(bucket.size())))
            return fused();
        for (uint32_t v : order) {
            std::vector<uint32_t> bucket, rest;
            for (uint32_t t : inputs)
                (inScope(t, v) ? bucket : rest).push_back(t);
            std::vector<uint32_t> kept = unionScope(bucket);
            std::erase(kept, v);
            rest.push_back(emit(TensorOpKind::EliminateBucket, bucket, {v}, kept));
            inputs = std::move(rest);
        }
    }

    static void sortUnique(std::vector<uint32_t> &vars) {
        std::sort(vars.begin(), vars.end());
        vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    }

    static std::vector<uint32_t> unionOf(const std::vector<std::vector<uint32_t>> &scopes) {
        std::vector<uint32_t> all;
        for (const auto &s : scopes)
            all.insert(all.end(), s.begin(), s.end());
        sortUnique(all);
        return all;
    }

    // The union of the scopes that hold v (each ascending).
    static std::vector<uint32_t> bucketScope(const std::vector<std::vector<uint32_t>> &scopes,
                                             uint32_t v) {
        std::vector<uint32_t> all;
        for (const auto &s : scopes)
            if (holds(s, v))
                all.insert(all.end(), s.begin(), s.end());
        sortUnique(all);
        return all;
    }

    // Σ over its child of factor f's (sliced) CPT `table`, made once per lowering.
    uint32_t rowSums(uint32_t table, uint32_t f) {
        const uint32_t x = model_.factors[f].child;
        if (rowSums_[f] == kNoTable) {
            std::vector<uint32_t> rest = out_.program.tables[table].scope;
            std::erase(rest, x);
            rowSums_[f] = addTable(rest, false);
            out_.program.ops.push_back({TensorOpKind::Marginalize, {table}, rowSums_[f], {x}, {}});
        }
        return rowSums_[f];
    }

    // A table over `vars` (ascending, without the case) and, with `batched`, the case.
    uint32_t addTable(const std::vector<uint32_t> &vars, bool batched) {
        return addBatchedTable(out_.program, vars, batched, out_.batchVariable, opt_.batchFastest);
    }

    // An op of one case over tables without the case: its output, a new table over `outVars`
    // (ascending), or the output of the same op made before where proportionsOnly_ (distribute
    // messages to several children and marginals repeat the same steps; collect never does).
    uint32_t emit(TensorOpKind kind, std::vector<uint32_t> inputs, std::vector<uint32_t> vars,
                  const std::vector<uint32_t> &outVars) {
        if (!proportionsOnly_) {
            const uint32_t out = addTable(outVars, false);
            out_.program.ops.push_back({kind, std::move(inputs), out, std::move(vars), {}});
            return out;
        }
        std::vector<uint32_t> sortedInputs = inputs;
        std::sort(sortedInputs.begin(), sortedInputs.end());
        auto key = std::make_tuple(kind, std::move(sortedInputs), vars);
        if (auto it = made_.find(key); it != made_.end())
            return it->second;
        const uint32_t out = addTable(outVars, false);
        out_.program.ops.push_back({kind, std::move(inputs), out, std::move(vars), {}});
        made_.emplace(std::move(key), out);
        return out;
    }

    bool batched(uint32_t table) const {
        return isBatched(out_.program.tables[table], out_.batchVariable);
    }

    std::vector<uint32_t> scopeWithoutBatch(uint32_t table) const {
        std::vector<uint32_t> s = out_.program.tables[table].scope;
        std::erase(s, out_.batchVariable);
        std::sort(s.begin(), s.end());
        return s;
    }

    std::vector<uint32_t> separator(uint32_t c) const {
        auto s = tree_.separator(c);
        return {s.begin(), s.end()};
    }

    // ⊕ over everything but `keep` (and the case) of ⊗ `inputs`: an EliminateBucket, a Join when
    // nothing is eliminated, or the input itself when there is one and nothing to do.
    uint32_t reduce(std::vector<uint32_t> inputs, const std::vector<uint32_t> &keep) {
        if (sliced()) { // the factors left, joined (none: the constant 1)
            inputs = factorsOver(std::move(inputs), keep);
            if (inputs.empty())
                return one();
        }
        std::vector<uint32_t> all;
        bool anyBatched = false;
        for (uint32_t t : inputs) {
            const std::vector<uint32_t> s = scopeWithoutBatch(t);
            all.insert(all.end(), s.begin(), s.end());
            anyBatched |= batched(t);
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        std::vector<uint32_t> kept, eliminated;
        for (uint32_t v : all)
            (holds(keep, v) ? kept : eliminated).push_back(v);
        if (eliminated.empty() && inputs.size() == 1)
            return inputs[0];
        if (opt_.maxProduct && eliminated.size() > 1)
            return maximiseInSteps(std::move(inputs), kept, eliminated, anyBatched);
        if (sliced())
            return emit(eliminated.empty() ? TensorOpKind::Join : TensorOpKind::EliminateBucket,
                        std::move(inputs), std::move(eliminated), kept);
        const uint32_t t = addTable(kept, anyBatched);
        out_.program.ops.push_back(
            {eliminated.empty() ? TensorOpKind::Join : TensorOpKind::EliminateBucket,
             inputs,
             t,
             eliminated,
             {}});
        return t;
    }

    // Max-product's VALUE phase enumerates, per case, the joint values of each op's eliminated
    // variables (one warp per op and case on the GPU): a root clique of water's 4.4·10^5 entries
    // is walked once per case there, where the collect walked it once for the whole batch (one
    // case's sliced tree likewise, on the host). So
    // the fused op eliminates only some of them, its output kept over the others while it holds
    // no more entries than the tree's largest separator (no table larger than the messages
    // already are), and those others are maximised out one Marginalize each: the traceback then
    // enumerates the first op's few joint values and then one variable's states at a time.
    uint32_t maximiseInSteps(std::vector<uint32_t> inputs, const std::vector<uint32_t> &kept,
                             std::vector<uint32_t> eliminated, bool batched) {
        if (stepBudget_ == 0) {
            stepBudget_ = 1;
            for (uint32_t c = 1; c < tree_.numCliques(); ++c)
                stepBudget_ = std::max(stepBudget_, tree_.entries(tree_.separator(c)));
        }
        std::stable_sort(eliminated.begin(), eliminated.end(), [&](uint32_t a, uint32_t b) {
            return tree_.domainSizes[a] > tree_.domainSizes[b];
        });
        std::vector<uint32_t> late;
        double entries = tree_.entries(kept);
        for (size_t i = 0; i + 1 < eliminated.size(); ++i) // the fused op keeps at least one
            if (entries * tree_.domainSizes[eliminated[i]] <= stepBudget_) {
                entries *= tree_.domainSizes[eliminated[i]];
                late.push_back(eliminated[i]);
            }
        std::vector<uint32_t> early;
        for (uint32_t v : eliminated)
            if (std::find(late.begin(), late.end(), v) == late.end())
                early.push_back(v);
        std::sort(early.begin(), early.end());
        std::vector<uint32_t> scope = kept;
        scope.insert(scope.end(), late.begin(), late.end());
        std::sort(scope.begin(), scope.end());
        uint32_t t = addTable(scope, batched);
        out_.program.ops.push_back({TensorOpKind::EliminateBucket, std::move(inputs), t,
                                    std::move(early), {}});
        for (uint32_t v : late) {
            std::erase(scope, v);
            const uint32_t next = addTable(scope, batched);
            out_.program.ops.push_back({TensorOpKind::Marginalize, {t}, next, {v}, {}});
            t = next;
        }
        return t;
    }

    // Whether clique p distributes through its materialised belief (one product, then a division
    // per child) rather than one product per child without that child's message: O(children)
    // reads of the clique instead of O(children²), as on pathfinder's hub. The belief is written
    // and read back whole, so it must win by half (fused products stay in cache).
    bool useBelief(uint32_t p) const {
        const size_t k = children_[p].size();
        // One case's messages are lists of factors: nothing to divide by.
        if (k == 0 || sliced() || opt_.belief == JunctionTreeLowering::Belief::Never)
            return false;
        if (opt_.belief == JunctionTreeLowering::Belief::Always)
            return true;
        const double clique = tree_.entries(tree_.clique(p));
        const double inputs = static_cast<double>(allInputs(p).size());
        const double perChild = clique * (inputs - 2), belief = clique * (inputs + 2 * k);
        return 2 * belief < perChild * k;
    }

    // A message over `keep`, as the list of tables its readers multiply. The batched tree's is
    // one table and its InverseMax scale. One case's (sliced) is Madsen and Jensen 1999's lazy
    // message: the factors left once the other variables are summed out, each not multiplied
    // with the others, those made here rescaled to a maximum of 1 in place (a Join with the
    // scale: the CPU executor multiplies one-entry inputs into a reader's sums, after the
    // products, which several small factors could underflow). Collect's scales give log P(e).
    std::vector<uint32_t> message(std::vector<uint32_t> inputs, const std::vector<uint32_t> &keep,
                                  bool collect) {
        if (!sliced()) {
            const uint32_t t = reduce(std::move(inputs), keep), scale = inverseMax(t);
            if (collect)
                out_.collectScales.push_back(scale);
            return {t, scale};
        }
        const uint32_t made = static_cast<uint32_t>(out_.program.tables.size());
        std::vector<uint32_t> list = factorsOver(std::move(inputs), keep);
        // Numbers (CPTs all observed, factors summed whole) would pile up unscaled on the way
        // to the root and underflow there: joined here into one, which is scaled below.
        std::vector<uint32_t> numbers;
        std::erase_if(list, [&](uint32_t t) {
            const bool number = out_.program.tables[t].scope.empty();
            if (number)
                numbers.push_back(t);
            return number;
        });
        // One number passed on as it came would not be scaled here: a case's tree hangs its
        // components' numbers side by side under the root (evidence_tree.h).
        if (numbers.size() == 1 && numbers[0] >= made)
            list.push_back(numbers[0]);
        else if (!numbers.empty())
            list.push_back(emit(TensorOpKind::Join, numbers, {}, {}));
        if (!collect && list.size() > 2 && entriesOf(list) <= storedEntries(list))
            list = {emit(TensorOpKind::Join, list, {}, unionScope(list))};
        for (uint32_t &f : list) {
            if (auto it = scaledOf_.find(f); it != scaledOf_.end()) { // an op shared, scaled
                f = it->second;
                continue;
            }
            if (f < made)
                continue;
            const uint32_t scale = inverseMax(f);
            if (collect)
                out_.collectScales.push_back(scale);
            const uint32_t scaled = emit(TensorOpKind::Join, {f, scale}, {}, scopeWithoutBatch(f));
            scaledOf_.emplace(f, scaled);
            f = scaled;
        }
        return list;
    }

    // 1 / t entry by entry (1 where t is 0).
    uint32_t reciprocal(uint32_t t) {
        if (t == one_)
            return t;
        const uint32_t out = addTable(scopeWithoutBatch(t), batched(t));
        out_.program.ops.push_back({TensorOpKind::InverseMax, {t}, out, {}, {}});
        return out;
    }

    std::vector<uint32_t> cliqueVars(uint32_t c) const {
        auto s = tree_.clique(c);
        return {s.begin(), s.end()};
    }

    // 1 / max over each case of `message`: its readers multiply it in.
    uint32_t inverseMax(uint32_t message) {
        if (message == one_)
            return message;
        if (sliced())
            return emit(TensorOpKind::InverseMax, {message}, scopeWithoutBatch(message), {});
        const uint32_t t = addTable({}, batched(message));
        out_.program.ops.push_back(
            {TensorOpKind::InverseMax, {message}, t, scopeWithoutBatch(message), {}});
        return t;
    }

    // Each factor as an input table; a clique holding several multiplies them once (a Join, no
    // case).
    void addPotentials() {
        const uint32_t n = tree_.numCliques();
        std::vector<std::vector<uint32_t>> cpts(n);
        for (uint32_t f = 0; f < model_.factors.size(); ++f) {
            const Factor &factor = model_.factors[f];
            Table t = tableOver(factor.scope, tree_.domainSizes);
            t.input = true;
            t.values = factor.table;
            out_.program.tables.push_back(std::move(t));
            out_.factorTable.push_back(static_cast<uint32_t>(out_.program.tables.size() - 1));
            const uint32_t id = sliceByCase(out_.factorTable.back());
            if (factor.child != kNoChild && !observed(factor.child)) {
                cptOf_.resize(id + 1, UINT32_MAX);
                cptOf_[id] = f;
            }
            cpts[tree_.factorClique[f]].push_back(id);
        }
        potential_.resize(n);
        for (uint32_t c = 0; c < n; ++c)
            if (cpts[c].size() > 1 && !sliced()) // one case: the join would cost a clique's walk
                potential_[c] = {reduce(cpts[c], cliqueVars(c))};
            else
                potential_[c] = cpts[c];
    }

    // The CPT `table` with the case's observed variables fixed (itself when it holds none).
    uint32_t sliceByCase(uint32_t table) {
        TensorOp slice{TensorOpKind::SliceEvidence, {table}, 0, {}, {}};
        std::vector<uint32_t> rest;
        for (uint32_t v : out_.program.tables[table].scope)
            if (observed(v)) {
                slice.vars.push_back(v);
                slice.values.push_back(opt_.caseStates[v]);
            } else {
                rest.push_back(v);
            }
        if (slice.vars.empty())
            return table;
        // addTable sorts nothing: the slice keeps the CPT's layout (parents, then the child).
        const uint32_t out = addTable(rest, false);
        slice.output = out;
        out_.program.ops.push_back(std::move(slice));
        return out;
    }

    void addEvidence() {
        out_.evidenceTable.assign(tree_.numVariables(), kNoTable);
        if (sliced())
            return;
        for (uint32_t v : opt_.observed) {
            if (out_.evidenceTable[v] != kNoTable)
                continue;
            const uint32_t t = addTable({v}, true);
            Table &tab = out_.program.tables[t];
            tab.input = true;
            tab.values.assign(tab.entries(), 1.0);
            out_.evidenceTable[v] = t;
            potential_[tree_.variableClique[v]].push_back(t);
        }
    }

    std::vector<uint32_t> collectInputs(uint32_t c) const {
        std::vector<uint32_t> in = potential_[c];
        for (uint32_t k : children_[c])
            in.insert(in.end(), up_[k].begin(), up_[k].end());
        return in;
    }

    std::vector<uint32_t> allInputs(uint32_t c) const {
        std::vector<uint32_t> in = collectInputs(c);
        in.insert(in.end(), down_[c].begin(), down_[c].end());
        return in;
    }

    // Each variable's marginal from the smallest place that holds it: the two messages of a
    // separator, or (where no separator holds it) every input of its clique.
    void addMarginals() {
        const uint32_t nv = tree_.numVariables();
        std::vector<double> bestCost(nv, 0);
        std::vector<std::vector<uint32_t>> bestInputs(nv);
        for (uint32_t v = 0; v < nv; ++v) {
            const uint32_t c = tree_.variableClique[v];
            bestInputs[v] =
                belief_[c] != kNoTable ? std::vector<uint32_t>{belief_[c]} : allInputs(c);
            bestCost[v] = entriesOf(bestInputs[v]);
        }
        for (uint32_t c = 1; c < tree_.numCliques(); ++c) {
            std::vector<uint32_t> in = up_[c];
            in.insert(in.end(), down_[c].begin(), down_[c].end());
            const std::vector<uint32_t> vars = unionScope(in);
            const double cost = tree_.entries(vars);
            for (uint32_t v : vars)
                if (cost < bestCost[v]) {
                    bestCost[v] = cost;
                    bestInputs[v] = in;
                }
        }
        if (sliced())
            joinShared(bestInputs);
        for (uint32_t v = 0; v < nv; ++v)
            if (!observed(v) && out_.marginalTable[v] == kNoTable) // not made by outOf
                out_.marginalTable[v] = reduce(bestInputs[v], {v});
    }

    // One case's marginals that sum the same several factors (the two lazy messages of a
    // separator): their product joined once, each marginal then a sum over that one table, in
    // place of each walking every factor again (DBN_12: 21 marginals over 41 factors of 2^21
    // entries). Only where the product is no larger than the factors it replaces.
    void joinShared(std::vector<std::vector<uint32_t>> &bestInputs) {
        std::map<std::vector<uint32_t>, std::vector<uint32_t>> readers; // inputs -> variables
        for (uint32_t v = 0; v < bestInputs.size(); ++v)
            if (!observed(v) && out_.marginalTable[v] == kNoTable && bestInputs[v].size() > 1)
                readers[bestInputs[v]].push_back(v);
        for (const auto &[inputs, vars] : readers) {
            if (vars.size() < 2 || entriesOf(inputs) > storedEntries(inputs))
                continue;
            const std::vector<uint32_t> joined{reduce(inputs, unionScope(inputs))};
            for (uint32_t v : vars)
                bestInputs[v] = joined;
        }
    }

    // What one case's clique sends out after collect: a message to each child (the sum onto
    // its separator of everything but the child's own message) and the marginal of each
    // variable no separator holds (the sum onto it of everything the clique receives).
    struct Target {
        std::vector<uint32_t> group; // the target's own factors, left out of its sum
        std::vector<uint32_t> keep;  // what its sum keeps
        uint32_t child = kNoClique;  // a message to this child, or
        uint32_t variable = 0;       // the marginal of this variable
        uint32_t divisor = kNoTable; // 1 / its own factors, where the context holds them
    };

    void distributeOutOf(uint32_t p) {
        if (inSeparator_.empty()) {
            inSeparator_.assign(tree_.numVariables(), false);
            for (uint32_t v : tree_.separatorVars)
                inSeparator_[v] = true;
        }
        std::vector<Target> targets;
        for (uint32_t c : children_[p])
            targets.push_back({up_[c], separator(c), c});
        for (uint32_t v : tree_.clique(p))
            if (!observed(v) && !inSeparator_[v])
                targets.push_back({{}, {v}, kNoClique, v});
        if (targets.empty())
            return;
        std::vector<uint32_t> context = potential_[p];
        context.insert(context.end(), down_[p].begin(), down_[p].end());
        std::vector<uint32_t> all = context; // the belief's inputs: the children's messages too
        for (const Target &t : targets)
            all.insert(all.end(), t.group.begin(), t.group.end());
        if (beliefPays(targets.size(), all)) {
            // The clique's belief once; each half's sum then reads that one table, and a child's
            // message is divided by its own (Jensen et al. 1990's update; 1 where it is 0, where
            // the belief is 0 too).
            for (Target &t : targets) {
                std::erase(t.group, one_);
                if (!t.group.empty())
                    t.divisor = reciprocal(t.group.size() == 1 ? t.group[0]
                                                               : emit(TensorOpKind::Join, t.group,
                                                                      {}, unionScope(t.group)));
                t.group.clear();
            }
            context = {reduce(all, unionScope(all))};
        }
        outOf(targets, std::move(context));
    }

    // Whether the belief route of distributeOutOf costs under a quarter of outOf's halving, each
    // of whose ⌈log2 k⌉ levels sums the clique's whole product of inputs twice where the
    // belief's levels read one table (Alchemy_11: 41 inputs over 2^20 entries at every level).
    // A quarter, not a half: on the VM (2026-12-08, one binary, the factor read at run time) a
    // half took Segmentation_11 and _14 through the belief 10-15% slower, a quarter leaves them
    // as they were and keeps Alchemy_11's MAR 252 -> 77-92 ms and DBN_11's 465 -> 380. Not for a
    // belief of more than kMostBeliefEntries, which outOf never holds. `belief` Always or Never
    // decides instead (tests take both).
    static constexpr double kMostBeliefEntries = double(1 << 24);
    bool beliefPays(size_t targets, const std::vector<uint32_t> &all) const {
        if (targets < 2 || opt_.belief == JunctionTreeLowering::Belief::Never)
            return false;
        if (opt_.belief == JunctionTreeLowering::Belief::Always)
            return true;
        const double entries = entriesOf(all);
        if (entries > kMostBeliefEntries)
            return false;
        const double levels = std::ceil(std::log2(static_cast<double>(targets)));
        const double inputs = static_cast<double>(all.size());
        const double halving = entries * (kOpReadsPerEntry + inputs) * 2 * levels;
        const double belief =
            entries * (kOpReadsPerEntry + inputs) + entries * (kOpReadsPerEntry + 1) * 2 * levels;
        return 4 * belief < halving;
    }

    // Each target's sum over `context` and the other targets' groups. Halving the targets, each
    // half receives the other half's groups summed onto its own variables once: a clique with
    // k targets costs O(k log k) sums instead of Shafer and Shenoy 1990's k, each over all the
    // others (Shenoy 1997's binary join trees share the work likewise, by reshaping the tree).
    void outOf(std::span<const Target> targets, std::vector<uint32_t> context) {
        if (targets.size() == 1) {
            const Target &t = targets[0];
            if (t.divisor != kNoTable)
                context.push_back(t.divisor);
            if (t.child != kNoClique)
                down_[t.child] = message(std::move(context), t.keep, /*collect=*/false);
            else
                out_.marginalTable[t.variable] = reduce(std::move(context), t.keep);
            return;
        }
        const std::span<const Target> a = targets.first(targets.size() / 2),
                                      b = targets.subspan(targets.size() / 2);
        for (const auto &[mine, others] : {std::pair{a, b}, std::pair{b, a}}) {
            std::vector<uint32_t> in = context;
            std::vector<std::vector<uint32_t>> keeps;
            for (const Target &t : others)
                in.insert(in.end(), t.group.begin(), t.group.end());
            for (const Target &t : mine)
                keeps.push_back(t.keep);
            outOf(mine, message(std::move(in), unionOf(keeps), /*collect=*/false));
        }
    }

    // The entries the tables hold between them, and the union of their scopes.
    double storedEntries(const std::vector<uint32_t> &tables) const {
        double stored = 0;
        for (uint32_t t : tables)
            stored += static_cast<double>(out_.program.tables[t].entries());
        return stored;
    }
    std::vector<uint32_t> unionScope(const std::vector<uint32_t> &tables) const {
        std::vector<uint32_t> all;
        for (uint32_t t : tables) {
            const std::vector<uint32_t> &s = out_.program.tables[t].scope;
            all.insert(all.end(), s.begin(), s.end());
        }
        std::erase(all, out_.batchVariable);
        sortUnique(all);
        return all;
    }

    double entriesOf(const std::vector<uint32_t> &inputs) const {
        return tree_.entries(unionScope(inputs));
    }

    const FactorModel &model_;
    const JunctionTree &tree_;
    const JunctionTreeLowering &opt_;
    JunctionTreeProgram out_;
    std::vector<std::vector<uint32_t>> children_, potential_;
    std::vector<std::vector<uint32_t>> up_, down_; // messages (see message)
    std::vector<uint32_t> belief_; // per clique with many children: its materialised belief
    std::vector<uint32_t> cptOf_;  // by table id: see cptOf
    uint32_t one_ = kNoTable;
    std::vector<uint8_t> rowsSumToOne_; // by factor (sliced)
    std::vector<uint32_t> rowSums_;     // by factor: its CPT's row sums once made (sliced)
    // One case after its collect pass: what is computed from here on (distribute messages and
    // marginals, each normalised alone) counts only up to a constant factor, so groups of factors
    // that sum to a number are left out (linkedToKept) and equal ops are made once (emit).
    bool proportionsOnly_ = false;
    std::vector<bool> inSeparator_; // by variable (one case's marginals, distributeOutOf)
    double stepBudget_ = 0;         // maximiseInSteps' largest table: the largest separator's
    // emit's ops by (kind, inputs, vars), and each message factor's rescaled table.
    std::map<std::tuple<TensorOpKind, std::vector<uint32_t>, std::vector<uint32_t>>, uint32_t>
        made_;
    std::map<uint32_t, uint32_t> scaledOf_;
};

} // namespace

Result<JunctionTreeProgram> lowerJunctionTree(const FactorModel &model, const JunctionTree &tree,
                                              const JunctionTreeLowering &options) {
    const size_t nv = model.numVariables();
    if (tree.numVariables() != nv || tree.factorClique.size() != model.factors.size())
        return error("internal error: the junction tree is not this model's");
    if (options.batch == 0)
        return error("a batch needs at least one case");
    if (!options.caseStates.empty()) {
        if (options.caseStates.size() != nv)
            return error("the case's evidence does not match the model's variables");
        for (uint32_t v = 0; v < nv; ++v)
            if (options.caseStates[v] != UINT32_MAX &&
                options.caseStates[v] >= model.domainSizes[v])
                return error("observed state outside variable " + std::to_string(v) + "'s domain");
        if (!options.rowsSumToOne.empty() && options.rowsSumToOne.size() != model.factors.size())
            return error("internal error: rowsSumToOne is not per factor of the model");
    }
    for (uint32_t v : options.observed)
        if (v >= nv)
            return error("observed variable " + std::to_string(v) + " is not in the model");
    JunctionTreeProgram lowered = Lowering(model, tree, options).run();
    if (Status s = lowered.program.verify(); !s)
        return error("internal error: junction-tree program: " + s.error().message);
    return lowered;
}

Result<JunctionTreeProgram> lowerJunctionTree(const BayesNet &net, const JunctionTree &tree,
                                              const JunctionTreeLowering &options) {
    return lowerJunctionTree(factorModelOf(net), tree, options);
}

} // namespace zbddc
