// runtime/device.h's DeviceReport as the dict zbddc.DeviceReport(**d) takes.
#pragma once

#include "runtime/device.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace zbddc::python {

inline nanobind::dict deviceReportDict(const DeviceReport &r) {
    namespace nb = nanobind;
    nb::dict d;
    d["kind"] = deviceKindName(r.kind);
    d["name"] = r.name;
    d["ordinal"] = r.ordinal < 0 ? nb::none() : nb::object(nb::int_(r.ordinal));
    d["arithmetic"] = r.arithmetic ? nb::object(nb::str(numericName(*r.arithmetic))) : nb::none();
    d["route"] = r.route;
    d["notes"] = r.notes;
    return d;
}

} // namespace zbddc::python
