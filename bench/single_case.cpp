// A batch of one, warm: per network, MAR of one evidence case at a time on a model already built
// and compiled, on each device and both routes (the MLF circuit through runTask, the junction tree
// through JunctionTreeModel::run with one case). The command line's one-case time also pays for
// building the model and, on a GPU, the CUDA context and module loads; this is what an API user
// who keeps the model pays per query. Median over K cases (Fast-BNI's workload: forward-sampled,
// 20% observed), after one warm-up case per device.
//
//   single_case [--cases K] [--devices cpu,cuda] NET.bif...
#include "bench/best_of.h"
#include "bench/circuit_cases.h"
#include "bench/comma_list.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "pipeline/load_model.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/sample_evidence.h"
#include "runtime/tasks.h"
#include "runtime/tensor/tensor_executor.h"
#include "support/gpu_settings.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

using namespace zbddc;

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    size_t count = 50;
    std::vector<std::string> devices{"cpu", "cuda"}, networks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cases" && i + 1 < argc)
            count = std::stoul(argv[++i]);
        else if (arg == "--devices" && i + 1 < argc)
            devices = bench::commaList(argv[++i]);
        else
            networks.push_back(arg);
    }
    std::printf("| network | device | MLF MAR µs, one case | junction tree MAR µs, one case | "
                "MLF ran on | tree ran on |\n");
    std::printf("|---|---|---:|---:|---|---|\n");
    for (const std::string &path : networks) {
        const auto sampled = bench::sampleNetwork(path, count);
        if (!sampled)
            continue;
        const BayesNet *net = &sampled->net;
        const Circuit *circuit = &sampled->circuit;
        const std::vector<Evidence> &cases = sampled->cases, &circuitCases = sampled->circuitCases;
        auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
        for (const std::string &device : devices) {
            DeviceOptions o;
            o.device = device == "cuda" ? DeviceKind::Cuda : DeviceKind::Cpu;
            Model model = Model::fromCircuit(*circuit, o);
            std::string ranOn;
            const double mlf = bench::medianMicros(count, [&](size_t c) {
                auto r = runTask(model, Task::Mar, circuitCases[c]);
                if (r)
                    ranOn = r->device.label();
                return r.ok(); // forward-sampled evidence is always possible
            });
            double jt = NAN;
            std::string treeRanOn;
            if (tree) {
                JunctionTreeOptions options;
                options.executor = device;
                options.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // docs/cli.md
                JunctionTreeModel model(*net, *tree, options);
                jt = bench::medianMicros(count, [&](size_t c) {
                    auto r = model.run(Task::Mar, std::span(cases).subspan(c, 1));
                    if (!r.empty() && r[0])
                        treeRanOn = r[0]->device.label();
                    return !r.empty() && r[0].ok();
                });
            }
            const std::string name = std::filesystem::path(path).stem().string();
            std::printf("| %s | %s | %.1f | %.1f | %s | %s |\n", name.c_str(), device.c_str(), mlf,
                        jt, ranOn.c_str(), treeRanOn.c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}
