#include "bench/harness.h"

int main(int argc, char **argv) { return zbddc::bench::runBenchmarks(argc, argv); }
