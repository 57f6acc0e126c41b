// A shared library that exports no RankOne entry point.
extern "C" int some_unrelated_function() { return 42; }
