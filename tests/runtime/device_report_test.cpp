// runtime/device.h: the device enum's names both ways, and the report's label, the words the
// command line prints as "device", built from its fields alone.
#include "runtime/device.h"
#include "runtime/model.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"

using namespace zbddc;

TEST_CASE("every device kind's name parses back to it; other names do not", "[device]") {
    for (DeviceKind d : {DeviceKind::Auto, DeviceKind::Cpu, DeviceKind::Cuda, DeviceKind::Reference,
                         DeviceKind::Split})
        CHECK(parseDeviceKind(deviceKindName(d)) == d);
    CHECK_FALSE(parseDeviceKind("gpu"));
    CHECK_FALSE(parseDeviceKind(""));
}

TEST_CASE("a device report's label: the kind, a GPU's name, the notes in parentheses", "[device]") {
    CHECK(DeviceReport{}.label() == "cpu");
    DeviceReport gpu(DeviceKind::Cuda, "NVIDIA H100 80GB HBM3 (sm_90)");
    gpu.ordinal = 1;
    CHECK(gpu.label() == "cuda: NVIDIA H100 80GB HBM3 (sm_90)");
    gpu.addNote("float64");
    gpu.addNote("");
    gpu.addNote("cases split over 2 devices");
    CHECK(gpu.notes == "float64; cases split over 2 devices");
    CHECK(gpu.label() ==
          "cuda: NVIDIA H100 80GB HBM3 (sm_90) (float64; cases split over 2 devices)");
    // A split names its GPU in its notes: the name is data, not said twice.
    CHECK(DeviceReport(DeviceKind::Split, "H100", "all 3 ops on the host").label() ==
          "split (all 3 ops on the host)");
}

TEST_CASE("a model's answers report where they ran as data, and the label says the same",
          "[device]") {
    // x0 * x1: one product, evaluated on the reference evaluator and the CPU.
    Circuit c;
    c.addInputInfo({});
    c.addInputInfo({});
    c.addOutput(c.addTimes(c.addInput(0), c.addInput(1)));
    for (DeviceKind kind : {DeviceKind::Reference, DeviceKind::Cpu}) {
        DeviceOptions o;
        o.device = kind;
        Model m = Model::fromCircuit(c, o);
        const DeviceReport r = m.report(Numeric::Log, "traced back");
        CHECK(r.kind == kind);
        CHECK(r.arithmetic == Numeric::Log);
        CHECK(r.ordinal == -1);
        CHECK(r.name.empty());
        CHECK(r.notes.find("log; traced back") != std::string::npos);
        CHECK(m.describe(Numeric::Log, "traced back") == r.label());
    }
}
