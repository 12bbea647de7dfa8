/* gpusizer: fault points for the tests, compiled only into the test build.
 *
 * As SQLite's sqlite3FaultSim: the code names each place where a test may
 * make an operation fail, or the process die, with gs_fault("point"). The
 * test build (-DGS_TESTING: make check's $(BUILD)/test/gpusizer, which the
 * fault tests run) reads $GPUSIZER_FAULT there; every other build, the
 * installed binary included, compiles each call to the constant 0, so it
 * carries no hook and reads no variable.
 *
 * GPUSIZER_FAULT is a comma-separated list of POINT=ACTION[@K]: at the K-th
 * call (default 1) of gs_fault(POINT), ACTION "kill" raises SIGKILL (no
 * clean-up runs, as a crash or the OOM killer), and "fail" makes that call
 * return 1, the caller then failing its operation with EIO. The points:
 *   outdir-rename         each rename of a report's install (outdir.c: 1
 *                         the journal, then the files, last the journal
 *                         marked done)
 *   fetch-config-renamed  fetch, between the renames of config.json and
 *                         meta.json (hub.c)
 */
#ifndef GS_FAULT_H
#define GS_FAULT_H

#ifdef GS_TESTING
int gs_fault_at(const char *point);
#define gs_fault(point) gs_fault_at(point)
#else
#define gs_fault(point) 0
#endif

#endif
