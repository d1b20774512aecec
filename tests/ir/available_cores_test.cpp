// Thread counts follow the cores a process may run on, not the machine's: a DPOP rank that mpirun
// binds to one core must not start a thread per hardware thread on it.
#include "support/threads.h"

#include "tests/catch.hpp"

#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

using namespace zbddc;

TEST_CASE("threadsOrCores counts the cores this process may run on", "[threads]") {
    CHECK(availableCores() >= 1);
    CHECK(threadsOrCores(3) == 3);
    CHECK(threadsOrCores(0) == availableCores());
#ifdef __linux__
    cpu_set_t before;
    REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
    int first = 0;
    while (!CPU_ISSET(first, &before))
        ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    const unsigned bound = threadsOrCores(0);
    REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
    CHECK(bound == 1);
    CHECK(availableCores() == static_cast<unsigned>(CPU_COUNT(&before)));
#endif
}
