// The pipeline library's front door: model files, targets, routes and the Session
// (docs/architecture.md shows each route as its list of calls).
#pragma once

#include "pipeline/cases.h"
#include "pipeline/json_results.h"
#include "pipeline/model_file.h"
#include "pipeline/order_choice.h"
#include "pipeline/route.h"
#include "pipeline/route_choice.h"
#include "pipeline/session.h"
#include "pipeline/target.h"
#include "pipeline/uai_results.h"
