// `zbddc INPUT --emit=cu -o model.cu` and `--emit=ptx -o model.ptx`: the CUDA backend's kernel
// source (generated from the circuit's schedule for one lane, as runtime/cuda_circuit.h builds
// it) and its PTX from NVRTC, for inspection and for studies. No GPU is needed; PTX is for sm_90
// (Hopper).
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "runtime/cuda_circuit.h"
#endif

#include <iostream>

namespace zbddc::cli {

int compileCudaOutput(const CompileOptions &o, const Circuit &circuit) {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    cuda::CudaOptions options;
    if (!o.semiring.empty())
        options.semiring = parseSemiring(o.semiring);
    options.logSpace = o.numeric == "log";
    auto text = emitCircuitCuda(circuit, options, o.emit == "ptx");
    if (!text)
        return reportError(errorAt(o.input, 0, text.error().message));
    Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
        out << *text;
        return bool(out);
    });
    return written ? 0 : reportError(written.error());
#else
    (void)circuit;
    std::cerr << "zbddc: --emit=" << o.emit
              << " needs the CUDA backend, which this build lacks (NVRTC was not found)\n";
    return 2;
#endif
}

} // namespace zbddc::cli
