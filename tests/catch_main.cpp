// Catch2 v2's main; with v3 the tests link Catch2::Catch2WithMain instead and this file is unused.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
