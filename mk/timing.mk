# The time model (src/timing.c, issue 17): its unit test, linked with the
# sizing core and the time model only (timing.c reads a gs_gpu's fields but
# calls nothing of gpu.c):
#   make build/tests/test_timing && build/tests/test_timing
#   TESTS=timing make check
test_timing_OBJ = arch engine settings err redact timing
