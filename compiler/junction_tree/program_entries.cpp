#include "compiler/junction_tree/program_entries.h"

namespace zbddc {

ProgramEntries programEntries(const JunctionTreeProgram &jt) {
    ProgramEntries e;
    for (const Table &t : jt.program.tables) {
        const bool batched = isBatched(t, jt.batchVariable);
        (batched ? e.perCase : e.fixed) += batched ? t.entries() / jt.batch : t.entries();
    }
    return e;
}

} // namespace zbddc
