// `zbddc INPUT -o OUTPUT`: read a model, write it in the form the output's extension names.
#include "compiler/driver/commands.h"
#include "compiler/driver/output.h"
#include "compiler/frontends/load_model.h"
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/frontends/zdd/zdd_lower.h"

#include <iostream>

namespace zbddc::driver {

int compileCommand(const CompileOptions &o) {
    const std::string ext = fileExtension(o.output);
    if (ext != ".zdd" && ext != ".txt") {
        std::cerr << "zbddc: cannot write '" << o.output
                  << "': unknown output kind (use .zdd for a ZBDD, .txt for a circuit dump)\n";
        return 2;
    }
    auto zdd = o.model.load(o.input);
    if (!zdd)
        return reportError(zdd.error());
    Circuit circuit = lowerZdd(*zdd);
    if (Status s = verify(circuit); !s)
        return reportError(errorAt(o.input, 0, "invalid circuit: " + s.error().message));
    Status written = writeFileAtomically(o.output, [&](std::ostream &out) {
        if (ext == ".zdd")
            writeZdd(*zdd, out);
        else
            dump(circuit, out);
        return bool(out);
    });
    return written ? 0 : reportError(written.error());
}

} // namespace zbddc::driver
