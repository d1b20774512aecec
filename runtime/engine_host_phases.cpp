#include "runtime/engine_host_phases.h"

#include <span>
#include <utility>
#include <vector>

namespace zbddc {

namespace {

// Vectors side by side: row i of the result is row i of each block in turn (a block is
// batch × width values; a block of no values repeats `fill` width times).
struct Columns {
    std::span<const double> values;
    size_t width = 0;
    size_t first = 0; // the block's columns are [first, first + width) of rows `stride` wide
    size_t stride = 0;
    double fill = 0;
};

std::vector<double> sideBySide(size_t batch, std::initializer_list<Columns> blocks) {
    size_t width = 0;
    for (const Columns &b : blocks)
        width += b.width;
    std::vector<double> rows;
    rows.reserve(batch * width);
    for (size_t i = 0; i < batch; ++i)
        for (const Columns &b : blocks) {
            if (b.values.empty()) {
                rows.insert(rows.end(), b.width, b.fill);
                continue;
            }
            const double *row = b.values.data() + i * b.stride + b.first;
            rows.insert(rows.end(), row, row + b.width);
        }
    return rows;
}

class HostPhaseEngine final : public Engine {
  public:
    HostPhaseEngine(std::unique_ptr<HostPhaseCircuits> parts, Semiring s)
        : parts_(std::move(parts)), ops_{s},
          inputs_(parts_->post.numInputs() - parts_->preValues - parts_->deviceValues) {}

    std::string note() const override {
        return std::to_string(parts_->preLevels) + "+" + std::to_string(parts_->postLevels) +
               " levels on the host's JIT";
    }

    Status make(const EngineMaker &host, const EngineMaker &device) {
        if (parts_->preLevels > 0) {
            auto pre = host(parts_->pre);
            if (!pre)
                return pre.error();
            pre_ = std::move(*pre);
        }
        auto dev = device(parts_->device);
        if (!dev)
            return dev.error();
        device_ = std::move(*dev);
        auto post = host(parts_->post);
        if (!post)
            return post.error();
        post_ = std::move(*post);
        return Ok{};
    }

    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        auto in = postInputs(x, batch);
        if (!in)
            return in.error();
        return post_->evaluate(in->post, batch);
    }

    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        auto pass = forwardBackward(x, batch, output);
        if (!pass)
            return pass.error();
        return std::move(pass->adjoints);
    }

    // Forward through the three parts, then backward from `output` through post, the device
    // (seeded with post's adjoints of V) and pre (seeded with both parts' adjoints of P).
    Result<PassValues> forwardBackward(std::span<const double> x, size_t batch,
                                       size_t output) override {
        auto in = postInputs(x, batch);
        if (!in)
            return in.error();
        auto post = post_->forwardBackward(in->post, batch, output);
        if (!post)
            return post.error();
        const size_t n = inputs_, p = parts_->preValues, v = parts_->deviceValues;
        const std::vector<double> &postAdj = post->adjoints;
        // Where the device keeps its forward values, only the seed weights go in and the
        // backward pass runs alone; elsewhere both passes run again.
        const std::vector<double> weights = sideBySide(batch, {{postAdj, v, n + p, n + p + v}});
        auto kept = device_->adjointsAfterEvaluate(weights, n + p, v, batch, v);
        auto deviceAdj =
            kept ? std::move(*kept)
                 : device_->adjoints(sideBySide(batch, {{x, n, 0, n},
                                                        {in->post, p, n, n + p + v},
                                                        {postAdj, v, n + p, n + p + v}}),
                                     batch, v);
        if (!deviceAdj)
            return deviceAdj.error();
        std::vector<double> adj(batch * n);
        for (size_t i = 0; i < batch; ++i)
            for (size_t j = 0; j < n; ++j)
                adj[i * n + j] =
                    ops_.plus(postAdj[i * (n + p + v) + j], (*deviceAdj)[i * (n + p + v) + j]);
        if (pre_) {
            std::vector<double> preIn = sideBySide(batch, {{x, n, 0, n}, {{}, p}});
            for (size_t i = 0; i < batch; ++i)
                for (size_t k = 0; k < p; ++k)
                    preIn[i * (n + p) + n + k] = ops_.plus(postAdj[i * (n + p + v) + n + k],
                                                           (*deviceAdj)[i * (n + p + v) + n + k]);
            auto preAdj = pre_->adjoints(preIn, batch, p);
            if (!preAdj)
                return preAdj.error();
            for (size_t i = 0; i < batch; ++i)
                for (size_t j = 0; j < n; ++j)
                    adj[i * n + j] = ops_.plus(adj[i * n + j], (*preAdj)[i * (n + p) + j]);
        }
        return PassValues{std::move(post->outputs), std::move(adj)};
    }

  private:
    struct PostInputs {
        std::vector<double> post; // batch × (x, P, V)
    };
    // The forward pass of pre and the device: post's inputs. The weights of the seeds are One
    // (any value: the forward pass does not read the seed).
    Result<PostInputs> postInputs(std::span<const double> x, size_t batch) {
        const size_t n = inputs_, p = parts_->preValues, v = parts_->deviceValues;
        if (x.size() != batch * n)
            return error("expected " + std::to_string(batch * n) + " input values, got " +
                         std::to_string(x.size()));
        std::vector<double> preOut;
        if (pre_) {
            auto out =
                pre_->evaluate(sideBySide(batch, {{x, n, 0, n}, {{}, p, 0, 0, ops_.one()}}), batch);
            if (!out)
                return out.error();
            preOut = std::move(*out);
        }
        const std::vector<double> deviceIn =
            sideBySide(batch, {{x, n, 0, n}, {preOut, p, 0, p + 1}, {{}, v, 0, 0, ops_.one()}});
        auto deviceOut = device_->evaluate(deviceIn, batch);
        if (!deviceOut)
            return deviceOut.error();
        return PostInputs{
            sideBySide(batch, {{x, n, 0, n}, {preOut, p, 0, p + 1}, {*deviceOut, v, 0, v + 1}})};
    }

    std::unique_ptr<HostPhaseCircuits> parts_;
    SemiringOps ops_;
    size_t inputs_; // the whole circuit's
    std::unique_ptr<Engine> pre_, device_, post_;
};

} // namespace

Result<std::unique_ptr<Engine>> hostPhaseEngine(HostPhaseCircuits parts, Semiring semiring,
                                                Numeric numeric, const EngineMaker &host,
                                                const EngineMaker &device) {
    if (numeric != Numeric::Float64)
        return error("host phases run in float64 only, not " + std::string(numericName(numeric)));
    if (!parts.hasHostLevels())
        return error("no host levels to run");
    auto engine = std::make_unique<HostPhaseEngine>(
        std::make_unique<HostPhaseCircuits>(std::move(parts)), semiring);
    if (Status made = engine->make(host, device); !made)
        return made.error();
    return std::unique_ptr<Engine>(std::move(engine));
}

} // namespace zbddc
