#include "compiler/mlf/mlf_compile.h"

#include "compiler/mlf/mlf_possible.h"

#include "compiler/zbdd/zbdd.h"

#include <algorithm>
#include <map>

namespace zbddc {

namespace {
// ZBDD variables of the network in the chosen order: λ of (variable, state) and, per CPT, one θ
// per distinct parameter value other than 0 and 1 (Minato et al. 2007: equal parameters within a
// CPT share a variable; 1 needs no variable; 0 removes the term).
struct MlfVariables {
    std::vector<std::vector<uint32_t>> lambda;           // [variable][state] -> ZBDD var
    std::vector<std::map<double, uint32_t>> theta;       // [variable] value -> ZBDD var
    std::vector<InputInfo> info;                         // ZBDD var -> meaning
    std::vector<uint32_t> cptOrder;                      // CPTs by θ group, top first
};

MlfVariables assignVariables(const BayesNet &net, const std::vector<MlfBlock> &blocks) {
    MlfVariables m;
    m.lambda.resize(net.variables.size());
    m.theta.resize(net.variables.size());
    for (const MlfBlock &b : blocks) {
        const BnVariable &var = net.variables[b.variable];
        if (!b.theta) {
            for (uint32_t s = 0; s < var.states.size(); ++s) {
                m.lambda[b.variable].push_back(static_cast<uint32_t>(m.info.size()));
                InputInfo in;
                in.kind = InputKind::Indicator;
                in.variable = b.variable;
                in.state = s;
                m.info.push_back(in);
            }
            continue;
        }
        m.cptOrder.push_back(b.variable);
        for (double p : var.cpt) {
            if (p == 0.0 || p == 1.0 || m.theta[b.variable].count(p))
                continue;
            m.theta[b.variable][p] = static_cast<uint32_t>(m.info.size());
            InputInfo in;
            in.kind = InputKind::Parameter;
            in.value = p;
            in.name = "theta(" + var.name + ")";
            m.info.push_back(in);
        }
    }
    return m;
}

// The family of one CPT: {λ_x, λ_u..., θ_{x|u}} for every entry with a nonzero parameter whose
// states are all possible.
Result<ZbddRef> cptFamily(ZbddManager &zb, const BayesNet &net, const MlfVariables &m, uint32_t v,
                          const std::vector<std::vector<char>> &possible) {
    const BnVariable &var = net.variables[v];
    const size_t k = var.states.size(), rows = net.rowCount(v);
    std::vector<uint32_t> state(var.parents.size(), 0), set;
    ZbddRef family = kZbddEmpty;
    for (size_t r = 0; r < rows; ++r) {
        bool rowPossible = true;
        for (size_t i = 0; i < var.parents.size() && rowPossible; ++i)
            rowPossible = possible[var.parents[i]][state[i]];
        for (size_t x = 0; x < k && rowPossible; ++x) {
            const double p = var.cpt[r * k + x];
            if (p == 0.0 || !possible[v][x])
                continue;
            set.clear();
            set.push_back(m.lambda[v][x]);
            for (size_t i = 0; i < var.parents.size(); ++i)
                set.push_back(m.lambda[var.parents[i]][state[i]]);
            if (p != 1.0)
                set.push_back(m.theta[v].at(p));
            std::sort(set.begin(), set.end(), std::greater<>()); // build bottom-up
            ZbddRef term = kZbddBase;
            for (uint32_t zv : set) { // each below the next: change() makes one node
                auto t = zb.change(term, zv);
                if (!t)
                    return t.error();
                term = *t;
            }
            auto u = zb.unite(family, term);
            if (!u)
                return u.error();
            family = *u;
        }
        for (size_t i = var.parents.size(); i-- > 0;) { // next row: last parent fastest
            if (++state[i] < net.variables[var.parents[i]].states.size())
                break;
            state[i] = 0;
        }
    }
    return family;
}

std::string cptContext(const BayesNet &net, uint32_t v, size_t index, size_t count) {
    return " while multiplying the CPT of '" + net.variables[v].name + "' (" +
           std::to_string(index + 1) + " of " + std::to_string(count) + ")";
}

// One family at a time into the running product, from the bottom of the order up (the first
// schedule: Minato et al. 2007 multiply the CPTs one by one).
Result<ZbddRef> multiplySequential(ZbddManager &zb, const BayesNet &net, const MlfVariables &m,
                                   const std::vector<std::vector<char>> &possible,
                                   const MlfOptions &options) {
    const size_t count = m.cptOrder.size();
    ZbddRef f = kZbddBase;
    size_t liveAfterGc = zb.liveNodes();
    for (size_t i = 0; i < count; ++i) {
        const uint32_t v = m.cptOrder[count - 1 - i];
        auto family = cptFamily(zb, net, m, v, possible);
        Result<ZbddRef> product = family ? zb.joinExclusive(f, *family) : family;
        if (!product)
            return error(product.error().message + cptContext(net, v, i, count));
        f = *product;
        if (options.progress)
            options.progress(i, count, v, zb.countNodes(f));
        if (options.steps)
            options.steps(i + 1, count);
        if (zb.liveNodes() > 2 * liveAfterGc + 4096) { // compact between products
            zb.collectGarbage({&f, 1});
            liveAfterGc = zb.liveNodes();
        }
    }
    return f;
}

// A balanced product tree over the families in order: neighbours first, then neighbouring
// products. Each partial product covers a contiguous stretch of the order, so its variables are
// local and (unlike a long running product) it is never joined with one small family at a time:
// the sequential schedule costs one pass over the whole running product per CPT, which on
// networks with 1000 CPTs (munin) is most of the compile time.
Result<ZbddRef> multiplyBalanced(ZbddManager &zb, const BayesNet &net, const MlfVariables &m,
                                 const std::vector<std::vector<char>> &possible,
                                 const MlfOptions &options) {
    const size_t count = m.cptOrder.size();
    std::vector<ZbddRef> layer;
    size_t liveAfterGc = zb.liveNodes();
    for (size_t i = 0; i < count; ++i) {
        auto family = cptFamily(zb, net, m, m.cptOrder[i], possible);
        if (!family)
            return error(family.error().message + cptContext(net, m.cptOrder[i], i, count));
        layer.push_back(*family);
        if (zb.liveNodes() > 2 * liveAfterGc + 4096) {
            zb.collectGarbage(layer);
            liveAfterGc = zb.liveNodes();
        }
    }
    if (layer.empty())
        return kZbddBase;
    size_t done = 0;
    while (layer.size() > 1) {
        std::vector<ZbddRef> next;
        for (size_t i = 0; i < layer.size(); i += 2) {
            if (i + 1 == layer.size()) {
                next.push_back(layer[i]);
                continue;
            }
            auto product = zb.joinExclusive(layer[i], layer[i + 1]);
            if (!product)
                return error(product.error().message + " in the balanced product (" +
                             std::to_string(layer.size()) + " partial products left)");
            next.push_back(*product);
            if (options.progress)
                options.progress(done, count - 1, m.cptOrder[i], zb.countNodes(*product));
            if (options.steps)
                options.steps(done + 1, count - 1);
            ++done;
            if (zb.liveNodes() > 2 * liveAfterGc + 4096) {
                std::vector<ZbddRef> roots = next;
                roots.insert(roots.end(), layer.begin() + i + 2, layer.end());
                zb.collectGarbage(roots);
                std::copy(roots.begin(), roots.begin() + next.size(), next.begin());
                std::copy(roots.begin() + next.size(), roots.end(), layer.begin() + i + 2);
                liveAfterGc = zb.liveNodes();
            }
        }
        layer = std::move(next);
    }
    return layer.front();
}

ZddModel exportModel(const ZbddManager &zb, ZbddRef root, const BayesNet &net, MlfVariables &&m) {
    ZddModel model;
    for (const BnVariable &v : net.variables)
        model.variables.push_back({v.name, v.states});
    model.vars = std::move(m.info);
    // Arena indices already put children before parents; keep that order for the reachable ones.
    std::vector<ZbddRef> reachable;
    std::vector<char> seen(root + 1, 0);
    std::vector<ZbddRef> stack{root};
    while (!stack.empty()) {
        const ZbddRef f = stack.back();
        stack.pop_back();
        if (ZbddManager::isTerminal(f) || seen[f])
            continue;
        seen[f] = 1;
        reachable.push_back(f);
        stack.push_back(zb.lo(f));
        stack.push_back(zb.hi(f));
    }
    std::sort(reachable.begin(), reachable.end());
    std::vector<uint32_t> id(root + 1, 0);
    id[kZbddBase] = kZddBase;
    for (size_t i = 0; i < reachable.size(); ++i) {
        const ZbddRef f = reachable[i];
        id[f] = ZddModel::idOf(i);
        model.nodes.push_back({zb.var(f), id[zb.lo(f)], id[zb.hi(f)]});
    }
    model.roots.push_back(root <= kZbddBase ? root : id[root]);
    model.rootNames.push_back("pr");
    return model;
}
} // namespace

Result<ZddModel> compileMlf(const BayesNet &net, const MlfOptions &options, MlfStats *stats) {
    const std::vector<uint32_t> order = options.variableOrder.empty()
                                            ? mlfVariableOrder(net, options.ordering)
                                            : options.variableOrder;
    MlfVariables m =
        assignVariables(net, mlfBlocks(net, order, options.ordering, options.thetaAtBottom));
    ZbddManager zb(static_cast<uint32_t>(m.info.size()), options.nodeLimit);
    for (uint32_t zv = 0; zv < m.info.size(); ++zv)
        if (m.info[zv].kind == InputKind::Indicator)
            zb.setGroup(zv, m.info[zv].variable); // one state per variable in a term

    const std::vector<std::vector<char>> possible = possibleStates(net);
    auto product = options.schedule == MlfSchedule::Balanced
                       ? multiplyBalanced(zb, net, m, possible, options)
                       : multiplySequential(zb, net, m, possible, options);
    if (!product)
        return product.error();
    const ZbddRef f = *product;
    if (stats) {
        stats->zbddVars = m.info.size();
        stats->indicators = stats->parameters = 0;
        for (const InputInfo &in : m.info)
            ++(in.kind == InputKind::Indicator ? stats->indicators : stats->parameters);
        stats->nodes = zb.countNodes(f);
        stats->peakNodes = zb.peakNodes();
        stats->terms = zb.countSets(f);
    }
    return exportModel(zb, f, net, std::move(m));
}

} // namespace zbddc
