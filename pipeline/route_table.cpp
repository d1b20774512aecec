#include "pipeline/route.h"

namespace zbddc::pipeline {

Status Route::save(const std::string &path, const SaveOptions &) {
    return error("this route (or library) compiles into no library: cannot write '" + path + "'");
}

Status Route::emit(const std::string &stage, std::ostream &, const SaveOptions &) {
    return error("this route has no stage '" + stage + "' to emit");
}

void Route::noteFallback(DeviceKind asked, DeviceKind ran, const std::string &why) {
    if ((asked != DeviceKind::Cuda && asked != DeviceKind::Split) || ran == asked || fellBack_)
        return;
    notes.push_back(why);
    fellBack_ = true;
}

std::span<const RouteKind> routeTable() {
    static const RouteKind *const entries[] = {&kMlfRoute, &kJunctionTreeRoute,
                                               &kEliminationRoute, &kLoopyRoute};
    static const std::vector<RouteKind> table = [] {
        std::vector<RouteKind> t;
        for (const RouteKind *e : entries)
            t.push_back(*e);
        return t;
    }();
    return table;
}

const RouteKind *findRoute(std::string_view name) {
    for (const RouteKind *e : {&kMlfRoute, &kJunctionTreeRoute, &kEliminationRoute, &kLoopyRoute})
        if (e->name == name)
            return e;
    return nullptr;
}

} // namespace zbddc::pipeline
