#include "ir/schedule.h"
#include "support/name_table.h"

#include <ostream>
#include <sstream>

namespace zbddc {

const char *phaseName(Phase p) {
    constexpr Named<Phase> kNames[] = {
        {Phase::Host, "host"}, {Phase::Grid, "grid"}, {Phase::SingleBlock, "single-block"}};
    return nameIn(kNames, p);
}

uint32_t leafCount(std::span<const uint32_t> code) {
    uint32_t n = 0;
    for (uint32_t step : code)
        n += isLoadStep(step);
    return n;
}

std::string templateText(const Schedule &s, uint32_t t) {
    static const char *const kText[] = {"F", "X", "*", "+"};
    std::string text;
    for (uint32_t step : s.typeTemplate(t)) {
        if (!text.empty())
            text += ' ';
        text += step < 4 ? kText[step] : "?";
    }
    return text;
}

namespace {

constexpr uint32_t kNoLevel = 0xffffffffu;

// A prefix array: size n + 1, starts at 0, never decreases, ends at `total`.
bool isPrefix(const std::vector<uint32_t> &p, size_t n, size_t total) {
    if (p.size() != n + 1 || p.front() != 0 || p.back() != total)
        return false;
    for (size_t i = 0; i + 1 < p.size(); ++i)
        if (p[i] > p[i + 1])
            return false;
    return true;
}

std::string num(size_t v) {
    return std::to_string(v);
}

Status verifyTypes(const Schedule &s) {
    if (s.typeCodeBegin.size() != s.numTypes() + 1 ||
        !isPrefix(s.typeCodeBegin, s.numTypes(), s.typeCode.size()))
        return error("schedule: type catalogue ranges are inconsistent");
    for (uint32_t t = 0; t < s.numTypes(); ++t) {
        int depth = 0;
        for (uint32_t step : s.typeTemplate(t)) {
            if (step > static_cast<uint32_t>(TemplateStep::Plus))
                return error("schedule: type " + num(t) + " has an unknown template step");
            depth += isLoadStep(step) ? 1 : -1;
            if (depth < 1)
                return error("schedule: type " + num(t) + " template pops an empty stack");
        }
        if (depth != 1)
            return error("schedule: type " + num(t) + " template does not leave one value");
    }
    return Ok{};
}

Status verifyRanges(const Schedule &s) {
    const uint32_t ops = s.numOps(), levels = s.numLevels();
    if (s.opOut.size() != ops || !isPrefix(s.opOperandBegin, ops, s.operands.size()))
        return error("schedule: op arrays disagree in size");
    if (!isPrefix(s.levelOpBegin, levels, ops) || s.levelThreads.size() != levels)
        return error("schedule: level ranges are inconsistent");
    if (!isPrefix(s.levelGroupBegin, levels, s.numGroups()) ||
        !isPrefix(s.groupOpBegin, s.numGroups(), ops))
        return error("schedule: group ranges are inconsistent");
    if (!isPrefix(s.levelBlockBegin, levels, s.numBlocks()) ||
        !isPrefix(s.blockOpBegin, s.numBlocks(), ops) ||
        !isPrefix(s.blockLoadBegin, s.numBlocks(), s.blockLoads.size()))
        return error("schedule: block ranges are inconsistent");
    for (uint32_t l = 0; l < levels; ++l) {
        if (s.levelPhase[l] >= kPhases)
            return error("schedule: level " + num(l) + " has an unknown phase");
        for (uint32_t g = s.levelGroupBegin[l]; g < s.levelGroupBegin[l + 1]; ++g)
            if (s.groupOpBegin[g] < s.levelOpBegin[l] ||
                s.groupOpBegin[g + 1] > s.levelOpBegin[l + 1])
                return error("schedule: group " + num(g) + " crosses its level's bounds");
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b)
            if (s.blockOpBegin[b] < s.levelOpBegin[l] ||
                s.blockOpBegin[b + 1] > s.levelOpBegin[l + 1])
                return error("schedule: block " + num(b) + " crosses its level's bounds");
    }
    for (uint32_t g = 0; g < s.numGroups(); ++g) {
        if (s.groupType[g] >= s.numTypes())
            return error("schedule: group " + num(g) + " has an unknown type");
        for (uint32_t i = s.groupOpBegin[g]; i < s.groupOpBegin[g + 1]; ++i)
            if (s.opType[i] != s.groupType[g])
                return error("schedule: op " + num(i) + " differs in type from its group");
    }
    for (uint32_t b = 0; b < s.numBlocks(); ++b)
        for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i)
            if (s.opType[i] != s.opType[s.blockOpBegin[b]])
                return error("schedule: block " + num(b) + " mixes op types");
    return Ok{};
}

// Slots: each operand is readable when the op runs, each write lands in a computed slot and no
// level both reads and writes one slot (its ops run in parallel).
Status verifySlots(const Schedule &s) {
    const uint32_t base = s.computedBase();
    if (base > s.numSlots)
        return error("schedule: fewer slots than constants and inputs");
    std::vector<uint32_t> writtenAt(s.numSlots, kNoLevel);
    std::vector<uint32_t> readAt(s.numSlots, kNoLevel);
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b) {
            for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i) {
                const uint32_t t = s.opType[i];
                if (t >= s.numTypes() ||
                    s.opOperandBegin[i + 1] - s.opOperandBegin[i] != s.typeArity(t))
                    return error("schedule: op " + num(i) + " has the wrong number of operands");
                uint32_t k = s.opOperandBegin[i];
                for (uint32_t step : s.typeTemplate(t)) {
                    if (!isLoadStep(step))
                        continue;
                    uint32_t slot = s.operands[k++];
                    if (step == static_cast<uint32_t>(TemplateStep::LoadX) && s.blockPreloads(b)) {
                        if (slot >= s.blockLoadBegin[b + 1] - s.blockLoadBegin[b])
                            return error("schedule: op " + num(i) +
                                         " reads past its block's preload");
                        slot = s.blockLoads[s.blockLoadBegin[b] + slot];
                    }
                    if (slot >= s.numSlots)
                        return error("schedule: op " + num(i) + " reads slot " + num(slot) +
                                     " out of range");
                    if (slot >= base && (writtenAt[slot] == kNoLevel || writtenAt[slot] >= l))
                        return error("schedule: op " + num(i) + " in level " + num(l) +
                                     " reads slot " + num(slot) +
                                     " before an earlier level writes it");
                    readAt[slot] = l;
                }
            }
        }
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i) {
            const uint32_t out = s.opOut[i];
            if (out < base || out >= s.numSlots)
                return error("schedule: op " + num(i) + " writes slot " + num(out) +
                             " outside the computed range");
            if (writtenAt[out] == l)
                return error("schedule: slot " + num(out) + " is written twice in level " + num(l));
            if (readAt[out] == l)
                return error("schedule: slot " + num(out) + " is read and written in level " +
                             num(l));
            writtenAt[out] = l;
        }
    }
    for (uint32_t o : s.outputs)
        if (o >= s.numSlots || (o >= base && writtenAt[o] == kNoLevel))
            return error("schedule: an output names slot " + num(o) + ", which nothing writes");
    return Ok{};
}

} // namespace

Status verify(const Schedule &s) {
    if (s.levelPhase.size() + 1 != s.levelOpBegin.size())
        return error("schedule: level arrays disagree in size");
    if (s.groupOpBegin.size() != s.numGroups() + 1 ||
        s.blockLoadBegin.size() != s.blockOpBegin.size())
        return error("schedule: group or block arrays disagree in size");
    if (s.outputNames.size() != s.outputs.size())
        return error("schedule: outputs and their names disagree in size");
    if (Status st = verifyTypes(s); !st)
        return st;
    if (Status st = verifyRanges(s); !st)
        return st;
    return verifySlots(s);
}

void dump(const Schedule &s, std::ostream &out) {
    out << "schedule " << semiringName(s.semiring) << ": " << s.numOps() << " ops, "
        << s.numLevels() << " levels, " << s.numSlots << " slots (inputs at " << s.inputBase()
        << ", computed from " << s.computedBase() << ")\n";
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        out << "type " << t << " " << s.typeName[t] << ": " << templateText(s, t) << "\n";
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        out << "level " << l << " " << phaseName(static_cast<Phase>(s.levelPhase[l])) << " threads "
            << s.levelThreads[l] << "\n";
        for (uint32_t b = s.levelBlockBegin[l]; b < s.levelBlockBegin[l + 1]; ++b) {
            out << "  block " << b;
            if (s.blockPreloads(b)) {
                out << " preload";
                for (uint32_t k = s.blockLoadBegin[b]; k < s.blockLoadBegin[b + 1]; ++k)
                    out << " " << s.blockLoads[k];
            }
            out << "\n";
            for (uint32_t i = s.blockOpBegin[b]; i < s.blockOpBegin[b + 1]; ++i) {
                out << "    v" << s.opOut[i] << " = " << s.typeName[s.opType[i]] << "(";
                for (uint32_t k = s.opOperandBegin[i]; k < s.opOperandBegin[i + 1]; ++k)
                    out << (k == s.opOperandBegin[i] ? "" : ", ") << s.operands[k];
                out << ")\n";
            }
        }
    }
    for (size_t o = 0; o < s.outputs.size(); ++o)
        out << "output " << s.outputNames[o] << " = v" << s.outputs[o] << "\n";
}

} // namespace zbddc
