# The time model (src/timing.c, issue 17): its unit test, linked with the
# sizing core, the time model (timing.c reads a gs_gpu's fields but calls
# nothing of gpu.c) and verdict.c, the serving capacity, with what it calls:
#   make build/tests/test_timing && build/tests/test_timing
#   TESTS=timing make check
test_timing_OBJ = arch engine settings err redact timing verdict measured fileio util numfmt
