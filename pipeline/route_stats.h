// A model's shape on a route, measured before any table is allocated: the junction tree's
// cliques and separators, bucket elimination's tables, loopy BP's factor graph and GPU design.
// Facts, not text: the command line prints them as lines or as one JSON object.
#pragma once

#include "pipeline/model_file.h"
#include "pipeline/order_choice.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

struct Fact {
    std::string key;   // the JSON key; "" where only the text says it
    std::string label; // the text line's label; "" where only the JSON says it
    std::string json;  // the value as JSON
    std::string text;  // the value as the text line shows it
};

struct RouteStats {
    std::string route; // the JSON's "route": junction-tree, bucket-elimination, lbp
    std::string title; // the text's "route:" line
    bool namesModel = true; // the JSON starts with the model's file
    std::vector<Fact> facts;
};

// The junction tree of a network or a cost network over the order `order` asks (default: the
// search).
Result<RouteStats> junctionTreeStats(ModelFile &model, const OrderOptions &order);
// Bucket elimination of a cost network over its order (default: min-fill).
Result<RouteStats> eliminationStats(ModelFile &model, const OrderOptions &order);
// Loopy BP's factor graph, and the GPU design for one instance and for 2,000.
Result<RouteStats> loopyStats(ModelFile &model);
// The shape on `route` ("jt", "lbp"; "" a cost network's bucket elimination), as `zbddc stats`
// prints it.
Result<RouteStats> routeStats(ModelFile &model, std::string_view route, const OrderOptions &order);

} // namespace zbddc::pipeline
