/* gpusizer: running the verify harness (tools/harness.py): its command
 * line from the settings, the settings it cannot run, the run itself
 * (stdout collected, the tail of stderr kept, the GPU's memory sampled
 * through NVML from the harness's measure-begin marker on, a timeout), and
 * its one JSON result, checked and read into plain figures. */
#ifndef GS_HARNESS_H
#define GS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "nvml.h"
#include "settings.h"

#define GS_HARNESS_TAG "gpusizer-harness"  /* "harness" in the real harness's results */
#define GS_HARNESS_MARKER "gpusizer-harness: measure-begin" /* on its stderr */
#define GS_HARNESS_OUT_MAX (16u << 20)      /* stdout of the harness kept */
#define GS_HARNESS_ERR_KEEP 8192            /* stderr tail kept for messages */
#define GS_HARNESS_SAMPLE_MS 20             /* NVML sampling period */
#define GS_HARNESS_GRACE_MS 5000            /* SIGTERM to SIGKILL when stopping it */

/* A NULL-terminated argument vector that owns its strings. Start with
 * { 0 }; gs_argv_free frees it (and accepts a zeroed one). Allocation
 * failure exits. */
typedef struct gs_argv {
	char **v;
	size_t n, cap;
} gs_argv;

void gs_argv_add(gs_argv *a, const char *s);
void gs_argv_free(gs_argv *a);

/*
 * The harness's command line: python, the harness script, --config, then
 * --NAME VALUE for every GS_SF_HARNESS setting of the settings table (a
 * derived one not given is left out), then --warmup and --steps. Appended
 * to a.
 */
void gs_harness_args(const gs_settings *s, const char *python, const char *harness,
                     const char *config, int64_t warmup, int64_t steps, gs_argv *a);

/*
 * The settings the harness does not reproduce, so verify refuses them
 * rather than compare a prediction with a run made another way: the
 * option to name ("--compile", "--precision nf4-torchao", ...), or NULL
 * when the harness runs s: a changed GS_SF_NO_HARNESS setting of the
 * settings table, then the precisions the harness cannot load. The text is
 * static, valid until the next call.
 */
const char *gs_harness_refusal(const gs_settings *s);

/* The harness script: given (--harness or GPUSIZER_HARNESS; NULL for the
 * default) must be a file (GS_EUSAGE); the default is harness.py of the
 * data root (paths.h: $GPUSIZER_DATA, the installed share/gpusizer, or the
 * checkout beside the executable), never one found through the current
 * directory (GS_EHARNESS when there is no data root, or no harness in it).
 * Writes the path to path. */
gs_err gs_harness_find(const char *given, char *path, size_t n, gs_error *e);

/* How to run it. */
typedef struct gs_harness_opts {
	gs_nvml *nv;             /* NULL: no sampling (GPUSIZER_FAKE_GPU) */
	unsigned gpu_index;      /* sampled; CUDA_VISIBLE_DEVICES (PCI order) */
	uint64_t used_at_start;  /* device memory in use before the run */
	int64_t timeout_s;       /* SIGTERM after this, SIGKILL GS_HARNESS_GRACE_MS later */
	bool verbose;            /* pass the harness's stderr through */
} gs_harness_opts;

/* One phase of one step, in the order the phases run. */
typedef struct gs_harness_phase {
	int step;
	bool warmup;
	char *name;              /* owned */
	uint64_t allocated, reserved;
} gs_harness_phase;

typedef struct gs_harness_version {
	char *name, *value;      /* owned */
} gs_harness_version;

/* The result of a run whose harness printed "ok" or "oom". Byte figures
 * are 0 when missing. Free with gs_harness_result_free. */
typedef struct gs_harness_result {
	char *json;              /* the harness's JSON object, printed unformatted (owned) */
	char *tag;               /* its "harness", NULL when not a string (owned) */
	char status[4];          /* "ok" or "oom" */
	bool oom;
	uint64_t peak_allocated, peak_reserved;   /* "peak" (never 0 allocated when ok) */
	uint64_t load_allocated;                  /* "load"."allocated": after model setup */
	bool has_steps;                           /* "steps" is an array */
	size_t nsteps;                            /* its length */
	uint64_t step1_end_allocated;             /* its first step's "end_allocated" */
	gs_harness_phase *phases;                 /* every step's phases, in run order */
	size_t nphases;
	bool has_versions;                        /* "versions" is an object */
	gs_harness_version *versions;             /* its string members, in order */
	size_t nversions;
	/* From the NVML sampling (none with opts.nv NULL). */
	unsigned samples;        /* NVML readings taken */
	uint64_t device;         /* the harness's device memory peak; 0 = not measured */
	const char *device_method; /* static: "nvml-process", "nvml-device-minus-start", or NULL */
	uint64_t device_peak;    /* the whole device's peak, other processes included */
} gs_harness_result;

/*
 * Run argv (argv[0] the interpreter, argv[1] the harness) and read its
 * result into *r. The harness runs in a process group of its own, dies
 * with verify (PR_SET_PDEATHSIG on Linux), and nothing of its group is
 * left when this returns: past o->timeout_s, or when SIGINT, SIGTERM or
 * SIGHUP reaches verify meanwhile (those not ignored are caught for the
 * run, their old handlers restored after), the group gets SIGTERM, then
 * SIGKILL GS_HARNESS_GRACE_MS later or at a second signal.
 * GS_EHARNESS, with what happened, when it cannot be started, is stopped
 * (gs_harness_signal() then names the signal), times out, prints no JSON
 * object (whole stdout or its last line), skips the row (its reason), has
 * a status other than ok or oom, exits non-zero after a result, or says
 * "ok" without "peak"."allocated". *r is freed again on failure.
 */
gs_err gs_harness_run(char **argv, const gs_harness_opts *o, gs_harness_result *r, gs_error *e);

/* The stop signal the last gs_harness_run caught (SIGINT, SIGTERM or
 * SIGHUP), 0 when none: the caller cleans up, then ends by it. */
int gs_harness_signal(void);

void gs_harness_result_free(gs_harness_result *r); /* accepts a zeroed one */

#endif
