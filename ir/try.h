// Returns the error of a failed Status from the enclosing function (one returning a Result).
#pragma once

#include "ir/result.h"

#define ZBDDC_TRY(expr)                                                                            \
    do {                                                                                           \
        if (::zbddc::Status st_ = (expr); !st_)                                                    \
            return st_.error();                                                                    \
    } while (0)
