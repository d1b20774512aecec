#include "backends/cpu/codegen.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cmath>
#include <limits>

namespace zbddc {

namespace {

using llvm::Value;

std::string fnName(const char *kind, size_t index) {
    return std::string("zbdd_") + kind + "_" + std::to_string(index);
}

// Builds the semiring's arithmetic on the representation in use; mirrors ir/interpret.cpp's Arith.
class Emitter {
  public:
    Emitter(const CodegenRequest &r, llvm::Module &m)
        : c_(*r.circuit), p_(*r.plan), r_(r), m_(m), b_(m.getContext()),
          dbl_(llvm::Type::getDoubleTy(m.getContext())),
          ptr_(llvm::PointerType::getUnqual(m.getContext())),
          log_(r.plan->numeric == Numeric::Log), ring_{r.plan->semiring} {}

    llvm::Function *declare(const std::string &name, int pointerArgs, bool withIndex = false) {
        std::vector<llvm::Type *> args(pointerArgs, ptr_);
        if (withIndex)
            args.push_back(b_.getInt64Ty());
        auto *type = llvm::FunctionType::get(b_.getVoidTy(), args, false);
        auto callee = m_.getOrInsertFunction(name, type);
        auto *f = llvm::cast<llvm::Function>(callee.getCallee());
        f->setDoesNotThrow();
        if (r_.hidden)
            f->setVisibility(llvm::GlobalValue::HiddenVisibility);
        for (int i = 0; i < pointerArgs; ++i)
            f->addParamAttr(i, llvm::Attribute::NoAlias);
        return f;
    }

    llvm::Function *define(const std::string &name, int pointerArgs, bool withIndex = false) {
        llvm::Function *f = declare(name, pointerArgs, withIndex);
        b_.SetInsertPoint(llvm::BasicBlock::Create(m_.getContext(), "entry", f));
        return f;
    }

    // One forward function: ops [first, end) of the plan. With `all`, every value is stored at
    // its position (for the backward pass); otherwise only slotted values are.
    void forwardFunction(size_t index, bool all) {
        llvm::Function *f = define(fnName(all ? "all" : "fwd", index), 2);
        Value *xin = f->getArg(0), *mem = f->getArg(1);
        local_.clear();
        const size_t first = index * p_.opsPerFunction;
        const size_t end = std::min(p_.ops.size(), first + p_.opsPerFunction);
        for (size_t i = first; i < end; ++i) {
            const NodeId id = p_.ops[i];
            Value *va = value(c_.a[id], xin, mem, all), *vb = value(c_.b[id], xin, mem, all);
            Value *v = nullptr;
            switch (c_.kind[id]) {
            case OpKind::Plus: v = plus(va, vb); break;
            case OpKind::Times: v = times(va, vb); break;
            default: v = plus(times(va, vb), value(c_.c[id], xin, mem, all)); break;
            }
            local_[id] = v;
            const uint32_t where = all ? static_cast<uint32_t>(i) : p_.slot[id];
            if (where != kNone)
                b_.CreateStore(v, at(mem, where));
        }
        b_.CreateRetVoid();
    }

    // One backward function: the reverse of ops [first, end), accumulating adjoints in memory
    // (values from zbdd_gen_forward_all). Mirrors inputAdjoints in ir/interpret.cpp.
    void backwardFunction(size_t index) {
        llvm::Function *f = define(fnName("bwd", index), 4);
        Value *xin = f->getArg(0), *vals = f->getArg(1), *adj = f->getArg(2),
              *inAdj = f->getArg(3);
        local_.clear();
        const size_t first = index * p_.opsPerFunction;
        const size_t end = std::min(p_.ops.size(), first + p_.opsPerFunction);
        auto operand = [&](NodeId id) -> Value * {
            return isOp(c_.kind[id]) ? b_.CreateLoad(dbl_, at(vals, p_.position[id]))
                                     : leaf(id, xin);
        };
        auto accumulate = [&](NodeId target, Value *contribution) {
            Value *where = nullptr;
            if (isOp(c_.kind[target]))
                where = at(adj, p_.position[target]);
            else if (c_.kind[target] == OpKind::Input)
                where = at(inAdj, c_.a[target]);
            else
                return; // constants have no adjoint
            b_.CreateStore(plus(b_.CreateLoad(dbl_, where), contribution), where);
        };
        for (size_t i = end; i-- > first;) {
            const NodeId id = p_.ops[i];
            Value *g = b_.CreateLoad(dbl_, at(adj, static_cast<uint32_t>(i)));
            const NodeId pa = c_.a[id], pb = c_.b[id];
            if (c_.kind[id] == OpKind::Plus) {
                accumulate(pa, g);
                accumulate(pb, g);
                continue;
            }
            accumulate(pa, times(g, operand(pb)));
            accumulate(pb, times(g, operand(pa)));
            if (c_.kind[id] == OpKind::MulAdd)
                accumulate(c_.c[id], g);
        }
        b_.CreateRetVoid();
    }

    void entry(const std::string &metadata) {
        const size_t n = p_.numFunctions();
        auto callAll = [&](const char *kind, int args, bool reverse) {
            llvm::Function *self = b_.GetInsertBlock()->getParent();
            std::vector<Value *> argv;
            for (int i = 0; i < args; ++i)
                argv.push_back(self->getArg(i));
            for (size_t k = 0; k < n; ++k)
                b_.CreateCall(declare(fnName(kind, reverse ? n - 1 - k : k), args), argv);
        };
        auto writeOutputs = [&](llvm::Function *f, bool all) {
            Value *xin = f->getArg(0), *mem = f->getArg(1), *out = f->getArg(2);
            for (size_t o = 0; o < c_.numOutputs(); ++o) {
                const NodeId id = c_.outputs[o];
                Value *v = !isOp(c_.kind[id]) ? leaf(id, xin)
                           : b_.CreateLoad(dbl_, at(mem, all ? p_.position[id] : p_.slot[id]));
                b_.CreateStore(v, at(out, static_cast<uint32_t>(o)));
            }
            b_.CreateRetVoid();
        };
        llvm::Function *fwd = define("zbdd_gen_forward", 3);
        callAll("fwd", 2, false);
        writeOutputs(fwd, false);
        if (r_.backward) {
            llvm::Function *fa = define("zbdd_gen_forward_all", 3);
            callAll("all", 2, false);
            writeOutputs(fa, true);
            define("zbdd_gen_backward", 4);
            callAll("bwd", 4, true);
            b_.CreateRetVoid();
            seedFunction();
        }
        const uint64_t info[kInfoCount] = {
            kGenVersion, c_.numInputs(), c_.numOutputs(), p_.numSlots, p_.ops.size(),
            static_cast<uint64_t>(p_.semiring), static_cast<uint64_t>(p_.numeric), r_.backward};
        auto *infoInit = llvm::ConstantDataArray::get(m_.getContext(), llvm::ArrayRef(info));
        global("zbdd_gen_info", infoInit);
        global("zbdd_gen_metadata", llvm::ConstantDataArray::getString(m_.getContext(), metadata));
    }

  private:
    void global(const char *name, llvm::Constant *init) {
        auto *g = new llvm::GlobalVariable(m_, init->getType(), true,
                                           llvm::GlobalValue::ExternalLinkage, init, name);
        if (r_.hidden)
            g->setVisibility(llvm::GlobalValue::HiddenVisibility);
    }

    // zbdd_gen_seed: the adjoint of output k is the semiring's one.
    void seedFunction() {
        llvm::Function *f = define("zbdd_gen_seed", 2, true);
        llvm::BasicBlock *done = llvm::BasicBlock::Create(m_.getContext(), "done", f);
        llvm::SwitchInst *sw = b_.CreateSwitch(f->getArg(2), done, c_.numOutputs());
        for (size_t o = 0; o < c_.numOutputs(); ++o) {
            const NodeId id = c_.outputs[o];
            auto *bb = llvm::BasicBlock::Create(m_.getContext(), "out", f);
            sw->addCase(b_.getInt64(o), bb);
            b_.SetInsertPoint(bb);
            if (isOp(c_.kind[id]))
                b_.CreateStore(one(), at(f->getArg(0), p_.position[id]));
            else if (c_.kind[id] == OpKind::Input)
                b_.CreateStore(one(), at(f->getArg(1), c_.a[id]));
            b_.CreateBr(done);
        }
        b_.SetInsertPoint(done);
        b_.CreateRetVoid();
    }

    Value *at(Value *base, uint32_t index) { return b_.CreateConstInBoundsGEP1_64(dbl_, base, index); }

    Value *constant(double v) { return llvm::ConstantFP::get(dbl_, v); }
    Value *zero() {
        return constant(log_ ? -std::numeric_limits<double>::infinity() : ring_.zero());
    }
    Value *one() { return constant(log_ ? 0.0 : ring_.one()); }

    // Leaves are rematerialised in every function that reads them: inputs are loads, constants
    // immediates, so they never need slots.
    Value *leaf(NodeId id, Value *xin) {
        switch (c_.kind[id]) {
        case OpKind::Input: return b_.CreateLoad(dbl_, at(xin, c_.a[id]));
        case OpKind::Zero: return zero();
        case OpKind::One: return one();
        default: {
            const double k = c_.constants[c_.a[id]];
            return constant(log_ ? std::log(k) : k);
        }
        }
    }

    Value *value(NodeId id, Value *xin, Value *mem, bool all) {
        if (auto it = local_.find(id); it != local_.end())
            return it->second;
        Value *v = !isOp(c_.kind[id]) ? leaf(id, xin)
                   : b_.CreateLoad(dbl_, at(mem, all ? p_.position[id] : p_.slot[id]));
        local_[id] = v;
        return v;
    }

    // std::max / std::min exactly: max(p, q) = p < q ? q : p, min(p, q) = q < p ? q : p.
    Value *maxOf(Value *p, Value *q) { return b_.CreateSelect(b_.CreateFCmpOLT(p, q), q, p); }
    Value *minOf(Value *p, Value *q) { return b_.CreateSelect(b_.CreateFCmpOLT(q, p), q, p); }

    Value *plus(Value *p, Value *q) {
        if (log_) {
            if (ring_.kind != Semiring::SumProduct)
                return maxOf(p, q);
            // log-add-exp: hi + log1p(exp(lo - hi)); -inf when both are -inf.
            Value *hi = maxOf(p, q), *lo = minOf(p, q);
            Value *e = b_.CreateCall(libm("exp"), {b_.CreateFSub(lo, hi)});
            Value *sum = b_.CreateFAdd(hi, b_.CreateCall(libm("log1p"), {e}));
            return b_.CreateSelect(b_.CreateFCmpOEQ(hi, zero()), hi, sum);
        }
        switch (ring_.kind) {
        case Semiring::SumProduct: return b_.CreateFAdd(p, q);
        case Semiring::MaxProduct:
        case Semiring::MaxSum: return maxOf(p, q);
        case Semiring::MinSum: return minOf(p, q);
        case Semiring::MinSumInt64: break; // refused by verify(Circuit)
        }
        return nullptr;
    }

    Value *times(Value *p, Value *q) {
        const bool additive = log_ || ring_.kind == Semiring::MaxSum || ring_.kind == Semiring::MinSum;
        return additive ? b_.CreateFAdd(p, q) : b_.CreateFMul(p, q);
    }

    llvm::FunctionCallee libm(const char *name) {
        auto callee = m_.getOrInsertFunction(name, dbl_, dbl_);
        llvm::cast<llvm::Function>(callee.getCallee())->setDoesNotThrow();
        return callee;
    }

    const Circuit &c_;
    const CpuPlan &p_;
    const CodegenRequest &r_;
    llvm::Module &m_;
    llvm::IRBuilder<> b_;
    llvm::Type *dbl_;
    llvm::PointerType *ptr_;
    bool log_;
    SemiringOps ring_;
    llvm::DenseMap<NodeId, Value *> local_; // values available in the current function
};

} // namespace

std::unique_ptr<llvm::Module> buildFunctionsModule(const CodegenRequest &r, size_t first,
                                                   size_t end, llvm::LLVMContext &context) {
    auto m = std::make_unique<llvm::Module>("zbdd_part_" + std::to_string(first), context);
    Emitter e(r, *m);
    for (size_t k = first; k < end; ++k) {
        e.forwardFunction(k, false);
        if (r.backward) {
            e.forwardFunction(k, true);
            e.backwardFunction(k);
        }
    }
    return m;
}

std::unique_ptr<llvm::Module> buildEntryModule(const CodegenRequest &r, const std::string &metadata,
                                                llvm::LLVMContext &context) {
    auto m = std::make_unique<llvm::Module>("zbdd_entry", context);
    Emitter(r, *m).entry(metadata);
    return m;
}

} // namespace zbddc
