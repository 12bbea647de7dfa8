/* gpusizer: `verify`: run one row on the local NVIDIA GPU through the
 * harness (tools/harness.py), sample the device memory through NVML, and
 * put measured beside predicted (out/verify/<row>.md/.json, the store). */
#define _POSIX_C_SOURCE 200809L
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "engine.h"
#include "err.h"
#include "gpu.h"
#include "measured.h"
#include "models.h"
#include "nvml.h"
#include "paths.h"
#include "settings.h"
#include "util.h"

extern char **environ;

#define HARNESS_OUT_MAX (16u << 20)  /* stdout of the harness */
#define HARNESS_ERR_KEEP 8192        /* stderr tail kept for messages */
#define SAMPLE_MS 20
#define MARKER "gpusizer-harness: measure-begin"
#define REAL_HARNESS_TAG "gpusizer-harness"

typedef struct vopts {
	gs_cli_row row;
	double tolerance;       /* percent */
	const char *harness;    /* NULL: GPUSIZER_HARNESS, then the default search */
	bool harness_given;     /* --harness or GPUSIZER_HARNESS */
	const char *python;
	const char *out_dir;
	int64_t warmup, steps, timeout_s;
	unsigned gpu_index;
	bool no_store, store_standin, dry_run, verbose, quiet, json;
	const char *store;
	const char *row_id, *sizing;
	const char *gpus_dir;
	char gpus_buf[4096];
	char *owned_model;      /* model id read from sizing.json (row.model_id points here) */
} vopts;

/* What the run measured, beside the harness's own JSON. */
typedef struct vrun {
	int status;             /* waitpid status */
	bool timed_out;
	char *out;              /* harness stdout, NUL-terminated */
	size_t out_len;
	char err[HARNESS_ERR_KEEP + 1]; /* stderr tail */
	bool marker;            /* saw the measure-begin line */
	bool proc_found;        /* NVML listed the harness process */
	uint64_t proc_peak;     /* max per-process used, from the marker on */
	uint64_t dev_peak;      /* max whole-device used, from the marker on */
	unsigned samples;
} vrun;

enum {
	OPT_ROW = GS_OPT_OWN, OPT_SIZING, OPT_TOLERANCE, OPT_WARMUP, OPT_STEPS, OPT_GPU_INDEX,
	OPT_PYTHON, OPT_HARNESS, OPT_TIMEOUT, OPT_OUT, OPT_GPUS_DIR, OPT_STORE, OPT_NO_STORE,
	OPT_STORE_STANDIN, OPT_DRY_RUN,
};

static const gs_opt verify_opts[] = {
	{ "row", 0, "ID", 0, OPT_ROW, "take model and settings from a report row (\"id\" in\nsizing.json)" },
	{ "sizing", 0, "FILE", 0, OPT_SIZING, "the report JSON for --row (default OUT/sizing.json)" },
	{ "tolerance", 0, "PCT", 0, OPT_TOLERANCE, "allowed |predicted - measured| / measured, percent (10)" },
	{ "warmup", 0, "N", 0, OPT_WARMUP, "warm-up steps; step 1 is the first of them (1)" },
	{ "steps", 0, "N", 0, OPT_STEPS, "measured steps after warm-up (2)" },
	{ "gpu-index", 0, "N", 0, OPT_GPU_INDEX, "NVML/PCI-order GPU index (0; sets CUDA_VISIBLE_DEVICES)" },
	{ "python", 0, "PATH", 0, OPT_PYTHON, "Python interpreter for the harness (python3)" },
	{ "harness", 0, "FILE", 0, OPT_HARNESS, "harness script (default: the installed harness.py,\n"
	  "tools/harness.py in a checkout; env GPUSIZER_HARNESS)" },
	{ "timeout", 0, "SEC", 0, OPT_TIMEOUT, "stop the harness after SEC seconds (3600)" },
	{ "out", 0, "DIR", 0, OPT_OUT, "output directory (out)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files, to name the local GPU's class\n"
	  "(default: the installed gpus/)" },
	{ "store", 0, "FILE", 0, OPT_STORE, "measurements store (measurements/verified.jsonl)" },
	{ "no-store", 0, NULL, 0, OPT_NO_STORE, "do not append the result to the store" },
	{ "store-standin", 0, NULL, 0, OPT_STORE_STANDIN, "tests only: store a stand-in harness's result\n"
	  "(needs --store)" },
	{ "dry-run", 0, NULL, 0, OPT_DRY_RUN, "print the prediction and the harness command as JSON;\nrun nothing" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "the comparison as one JSON object on stdout" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group verify_groups[] = {
	{ "model (as for estimate)", gs_cli_model_opts },
	{ "settings (as for estimate)", gs_cli_setting_opts },
	{ "verify options", verify_opts },
	{ "common (--verbose also passes the harness's stderr through)", gs_opt_common },
	{ NULL, NULL },
};

const gs_opt_cmd gs_cmd_verify = {
	"verify",
	"gpusizer verify MODEL [SETTINGS] [OPTIONS]\n"
	"       gpusizer verify --row ID [--sizing FILE] [OPTIONS]",
	"Run one row on the local NVIDIA GPU with the PyTorch harness (random weights from\n"
	"the model's config.json, no download), measure torch's peak allocated/reserved\n"
	"memory per phase and the device memory NVML reports for the process, and compare\n"
	"them with the prediction. Writes OUT/verify/<row>.md and .json and appends the\n"
	"result to measurements/verified.jsonl. Needs python3 with torch, transformers\n"
	"(and peft, bitsandbytes for LoRA/QLoRA) and an NVIDIA driver.",
	verify_groups,
	"Exit status: 0 within the tolerance (or an out-of-memory the prediction agrees\n"
	"with), 11 no NVIDIA driver or GPU, 12 outside the tolerance, 13 the harness failed\n"
	"or skipped the row (reason printed), 2 usage, 3 bad input, 4 I/O.\n"
	"\n"
	"Test hooks: GPUSIZER_NVML_LIB=FILE loads another NVML library; with --harness (or\n"
	"GPUSIZER_HARNESS), GPUSIZER_FAKE_GPU=\"name,total_bytes,driver,cuda\" skips NVML and\n"
	"describes a GPU (no device sampling; such results are never stored).\n",
};

/* ------------------------------------------------------------ arguments */

static gs_err parse_i64(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out,
                        gs_error *e)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end != '\0')
		return gs_fail(e, GS_EUSAGE, "verify: --%s: '%s' is not an integer", flag, v);
	if (x < lo || x > hi)
		return gs_fail(e, GS_EUSAGE, "verify: --%s: %lld is out of range [%lld, %lld]", flag, x,
		               (long long)lo, (long long)hi);
	*out = x;
	return GS_OK;
}

/* One of verify's own options; GS_EUSAGE on a bad value. */
static gs_err verify_flag(vopts *o, const gs_opt *opt, const char *v, gs_error *e)
{
	int64_t x;
	gs_err rc = GS_OK;

	switch (opt->id) {
	case GS_OPT_QUIET: o->quiet = true; o->verbose = false; break;
	case GS_OPT_VERBOSE: o->verbose = true; o->quiet = false; break;
	case GS_OPT_JSON: o->json = true; break;
	case OPT_NO_STORE: o->no_store = true; break;
	case OPT_STORE_STANDIN: o->store_standin = true; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_TOLERANCE: {
		char *end;
		double t;
		errno = 0;
		t = strtod(v, &end);
		if (errno || end == v || *end != '\0' || !(t > 0) || t > 1000)
			return gs_opt_bad_value(&gs_cmd_verify, opt, v, "not a percentage in (0, 1000]", e);
		o->tolerance = t;
		break;
	}
	case OPT_HARNESS: o->harness = v; o->harness_given = true; break;
	case OPT_PYTHON: o->python = v; break;
	case OPT_OUT: o->out_dir = v; break;
	case OPT_WARMUP: rc = parse_i64(opt->name, v, 0, 1000, &o->warmup, e); break;
	case OPT_STEPS: rc = parse_i64(opt->name, v, 1, 1000, &o->steps, e); break;
	case OPT_GPU_INDEX:
		rc = parse_i64(opt->name, v, 0, 1023, &x, e);
		o->gpu_index = (unsigned)x;
		break;
	case OPT_STORE: o->store = v; break;
	case OPT_ROW: o->row_id = v; break;
	case OPT_SIZING: o->sizing = v; break;
	case OPT_GPUS_DIR: o->gpus_dir = v; break;
	case OPT_TIMEOUT: rc = parse_i64(opt->name, v, 1, 7 * 86400, &o->timeout_s, e); break;
	}
	return rc;
}

/* Settings from a report row: {"method": "full", "lora-r": 16, ...}. */
static gs_err apply_row(vopts *o, gs_error *e)
{
	char path[4096];
	char *buf = NULL;
	cJSON *root = NULL;
	const cJSON *rows, *row = NULL, *it, *model, *settings;
	gs_err rc = GS_OK;

	if (o->sizing)
		snprintf(path, sizeof path, "%s", o->sizing);
	else
		snprintf(path, sizeof path, "%s/sizing.json", o->out_dir);
	rc = gs_read_file(path, 256u << 20, &buf, NULL, e);
	if (rc != GS_OK)
		return rc == GS_ENOTFOUND
		               ? gs_fail(e, GS_EINPUT, "--row %s: %s not found (run gpusizer report first, "
		                         "or give --sizing FILE)", o->row_id, path)
		               : rc;
	root = cJSON_Parse(buf);
	free(buf);
	rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
	if (!cJSON_IsArray(rows)) {
		rc = gs_fail(e, GS_EINPUT, "%s: no \"rows\" array", path);
		goto out;
	}
	cJSON_ArrayForEach(it, rows)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
		if (cJSON_IsString(id) && strcmp(id->valuestring, o->row_id) == 0) {
			row = it;
			break;
		}
	}
	if (row == NULL) {
		rc = gs_fail(e, GS_EINPUT, "--row %s: no row with that \"id\" in %s", o->row_id, path);
		goto out;
	}
	model = cJSON_GetObjectItemCaseSensitive(row, "model");
	settings = cJSON_GetObjectItemCaseSensitive(row, "settings");
	if (!cJSON_IsString(model) || !cJSON_IsObject(settings)) {
		rc = gs_fail(e, GS_EINPUT, "%s: row %s: missing \"model\" or \"settings\"", path, o->row_id);
		goto out;
	}
	if (o->row.model_id || o->row.config_path) {
		rc = gs_fail(e, GS_EUSAGE, "--row takes the model from the report; do not also name one");
		goto out;
	}
	o->owned_model = gs_xstrdup(model->valuestring);
	if (strstr(o->owned_model, ".json") != NULL || strchr(o->owned_model, '/') == NULL ||
	    o->owned_model[0] == '/' || o->owned_model[0] == '.')
		o->row.config_path = o->owned_model; /* a config path in the report */
	else
		o->row.model_id = o->owned_model;
	cJSON_ArrayForEach(it, settings)
	{
		char val[GS_LORA_NAMES_MAX + 8];
		if (cJSON_IsString(it)) {
			if (!strcmp(it->string, "kv-dtype") && !strcmp(it->valuestring, "auto"))
				continue;
			snprintf(val, sizeof val, "%s", it->valuestring);
		} else if (cJSON_IsBool(it)) {
			snprintf(val, sizeof val, "%s", cJSON_IsTrue(it) ? "true" : "false");
		} else if (cJSON_IsNumber(it)) {
			double d = it->valuedouble;
			if (d == floor(d) && fabs(d) < 9e15)
				snprintf(val, sizeof val, "%.0f", d);
			else
				snprintf(val, sizeof val, "%.17g", d);
		} else {
			continue;
		}
		rc = gs_settings_set(&o->row.s, it->string, val, e);
		if (rc != GS_OK) {
			gs_error sub = *e;
			e->code = GS_OK;
			rc = gs_fail(e, GS_EINPUT, "%s: row %s: %s", path, o->row_id, sub.msg);
			goto out;
		}
	}
out:
	cJSON_Delete(root);
	return rc;
}

/* ------------------------------------------------------------ the GPU */

typedef struct vgpu {
	gs_gpu_info info;
	bool fake;              /* GPUSIZER_FAKE_GPU */
	char klass_id[48];      /* gpus/ id, "" if none matched */
	char klass_name[96];
	uint64_t usable;        /* class usable_bytes, else NVML total */
	bool usable_from_class;
} vgpu;

static gs_err fake_gpu(const char *spec, vgpu *g, gs_error *e)
{
	char buf[256], *f[4] = {0}, *p, *save = NULL;
	int n = 0;
	char *end;

	snprintf(buf, sizeof buf, "%s", spec);
	for (p = strtok_r(buf, ",", &save); p && n < 4; p = strtok_r(NULL, ",", &save))
		f[n++] = p;
	if (n != 4)
		return gs_fail(e, GS_EUSAGE, "GPUSIZER_FAKE_GPU: expected \"name,total_bytes,driver,cuda\"");
	memset(&g->info, 0, sizeof g->info);
	snprintf(g->info.name, sizeof g->info.name, "%s", f[0]);
	errno = 0;
	g->info.total_bytes = strtoull(f[1], &end, 10);
	if (errno || *end != '\0' || g->info.total_bytes == 0)
		return gs_fail(e, GS_EUSAGE, "GPUSIZER_FAKE_GPU: total_bytes '%s' is not a byte count", f[1]);
	g->info.free_bytes = g->info.total_bytes;
	g->info.count = 1;
	snprintf(g->info.driver, sizeof g->info.driver, "%s", f[2]);
	snprintf(g->info.cuda, sizeof g->info.cuda, "%s", f[3]);
	g->fake = true;
	return GS_OK;
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return false;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

/* Match the NVML name against the "name" of each gpus/ file (case-insensitive,
 * either containing the other; the longest class name wins). */
static void match_class(vgpu *g, const char *dir)
{
	gs_gpu *list = NULL;
	size_t n = 0, best_len = 0;
	gs_error e = {0};
	const gs_gpu *best;

	g->usable = g->info.total_bytes;
	if (gs_gpus_load(dir, &list, &n, &e) != GS_OK) {
		fprintf(stderr, "gpusizer: verify: GPU classes not read (%s); using the driver's total\n",
		        e.msg);
		return;
	}
	best = gs_gpu_find(list, n, g->info.name);
	if (best == NULL) {
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(list[i].name);
			if (len > best_len && contains_ci(g->info.name, list[i].name)) {
				best = &list[i];
				best_len = len;
			}
		}
	}
	if (best != NULL) {
		snprintf(g->klass_id, sizeof g->klass_id, "%s", best->id);
		snprintf(g->klass_name, sizeof g->klass_name, "%s", best->name);
		if (best->usable_bytes) {
			g->usable = best->usable_bytes;
			g->usable_from_class = true;
		}
	}
	free(list);
}

/* ------------------------------------------------------------ harness */

static gs_err find_harness(vopts *o, char *path, size_t n, gs_error *e)
{

	if (o->harness) {
		if (!gs_is_file(o->harness))
			return gs_fail(e, GS_EUSAGE, "--harness %s: no such file", o->harness);
		snprintf(path, n, "%s", o->harness);
		return GS_OK;
	}
	gs_data_path(GS_DATA_HARNESS, path, n);
	if (gs_is_file(path))
		return GS_OK;
	return gs_fail(e, GS_EHARNESS, "cannot find the harness (%s): install gpusizer, set "
	               "GPUSIZER_DATA, or give --harness FILE", path);
}

typedef struct argvb {
	char **v;
	size_t n, cap;
} argvb;

static void argv_add(argvb *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = gs_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = gs_xstrdup(s);
	a->v[a->n] = NULL;
}

static void argv_addf(argvb *a, const char *flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void argv_addf(argvb *a, const char *flag, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	argv_add(a, flag);
	argv_add(a, buf);
}

static void argv_free(argvb *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

static void harness_argv(const vopts *o, const char *harness, const char *config, argvb *a)
{
	const gs_settings *s = &o->row.s;

	argv_add(a, o->python);
	argv_add(a, harness);
	argv_addf(a, "--config", "%s", config);
	argv_addf(a, "--method", "%s", gs_method_name(s->method));
	argv_addf(a, "--precision", "%s", gs_prec_name(gs_settings_precision(s)));
	argv_addf(a, "--adapter-dtype", "%s", gs_dtype_name(s->adapter_dtype));
	argv_addf(a, "--optimizer", "%s", gs_optim_name(s->optimizer));
	argv_addf(a, "--lora-r", "%" PRId64, s->lora_r);
	argv_addf(a, "--lora-targets", "%s", s->lora_targets);
	argv_addf(a, "--lora-dropout", "%.6g", s->lora_dropout);
	argv_addf(a, "--train-embeddings", "%s", s->train_embeddings ? "true" : "false");
	argv_addf(a, "--batch", "%" PRId64, s->batch);
	argv_addf(a, "--seq", "%" PRId64, s->seq);
	argv_addf(a, "--grad-accum", "%" PRId64, s->grad_accum);
	argv_addf(a, "--grad-ckpt", "%s", s->grad_ckpt ? "true" : "false");
	argv_addf(a, "--attn", "%s", gs_attn_name(s->attn));
	argv_addf(a, "--loss", "%s", gs_loss_name(s->loss));
	if (s->kv_dtype_set)
		argv_addf(a, "--kv-dtype", "%s", gs_dtype_name(s->kv_dtype));
	argv_addf(a, "--logits", "%s", gs_logits_name(s));
	argv_addf(a, "--warmup", "%" PRId64, o->warmup);
	argv_addf(a, "--steps", "%" PRId64, o->steps);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void keep_err(vrun *r, const char *buf, size_t n, bool verbose)
{
	size_t have = strlen(r->err);

	if (verbose)
		(void)!write(2, buf, n);
	if (have + n > HARNESS_ERR_KEEP) {
		size_t drop = have + n - HARNESS_ERR_KEEP;
		if (drop >= have) {
			buf += drop - have;
			n -= drop - have;
			have = 0;
			r->err[0] = '\0';
		} else {
			memmove(r->err, r->err + drop, have - drop + 1);
			have -= drop;
		}
	}
	memcpy(r->err + have, buf, n);
	r->err[have + n] = '\0';
}

static void sample(gs_nvml *nv, unsigned index, pid_t pid, vrun *r)
{
	uint64_t proc = 0, dev = 0;
	bool found = false;
	gs_error e = {0};

	if (nv == NULL || gs_nvml_sample(nv, index, pid, &proc, &found, &dev, &e) != GS_OK)
		return;
	r->samples++;
	if (!r->marker)
		return; /* model building: not part of the measured peak */
	if (found) {
		r->proc_found = true;
		if (proc > r->proc_peak)
			r->proc_peak = proc;
	}
	if (dev > r->dev_peak)
		r->dev_peak = dev;
}

/* Run the harness; stdout collected, stderr tail kept, NVML sampled every
 * SAMPLE_MS. GS_EHARNESS if it cannot be started. */
static gs_err run_harness(const vopts *o, char **argv, gs_nvml *nv, vrun *r, gs_error *e)
{
	int op[2] = {-1, -1}, ep[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t cap = 65536;
	bool out_open = true, err_open = true, killed = false;
	int64_t start = now_ms(), last = 0, kill_at = 0;
	char cuda_dev[16];
	int rc;

	memset(r, 0, sizeof *r);
	if (pipe(op) != 0 || pipe(ep) != 0) {
		if (op[0] >= 0)
			close(op[0]), close(op[1]);
		return gs_fail(e, GS_EHARNESS, "cannot create pipes: %s", strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(op[i], F_SETFD, FD_CLOEXEC);
		fcntl(ep[i], F_SETFD, FD_CLOEXEC);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, op[1], 1);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	snprintf(cuda_dev, sizeof cuda_dev, "%u", o->gpu_index);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1); /* NVML's order */
	setenv("CUDA_VISIBLE_DEVICES", cuda_dev, 1);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(op[1]);
	close(ep[1]);
	if (rc != 0) {
		close(op[0]);
		close(ep[0]);
		return gs_fail(e, GS_EHARNESS, "cannot run %s: %s (give --python PATH)", argv[0],
		               strerror(rc));
	}
	r->out = gs_xmalloc(cap + 1);
	while (out_open || err_open) {
		struct pollfd pf[2];
		int nf = 0, t;
		int64_t now;

		if (out_open)
			pf[nf++] = (struct pollfd){.fd = op[0], .events = POLLIN};
		if (err_open)
			pf[nf++] = (struct pollfd){.fd = ep[0], .events = POLLIN};
		t = poll(pf, (nfds_t)nf, SAMPLE_MS);
		if (t < 0 && errno != EINTR)
			break;
		for (int i = 0; t > 0 && i < nf; i++) {
			char buf[65536];
			ssize_t got;
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pf[i].fd, buf, sizeof buf);
			if (got <= 0) {
				if (got < 0 && errno == EINTR)
					continue;
				if (pf[i].fd == op[0])
					out_open = false;
				else
					err_open = false;
				continue;
			}
			if (pf[i].fd == op[0]) {
				if (r->out_len + (size_t)got > HARNESS_OUT_MAX)
					continue; /* drop the excess; parsing will fail on it */
				while (r->out_len + (size_t)got > cap) {
					cap *= 2;
					r->out = gs_xrealloc(r->out, cap + 1);
				}
				memcpy(r->out + r->out_len, buf, (size_t)got);
				r->out_len += (size_t)got;
			} else {
				if (!r->marker) {
					/* search this chunk, with the end of the last one */
					size_t had = strlen(r->err), tail = had < 64 ? had : 64;
					char *scan = gs_xmalloc(tail + (size_t)got + 1);
					memcpy(scan, r->err + had - tail, tail);
					memcpy(scan + tail, buf, (size_t)got);
					scan[tail + (size_t)got] = '\0';
					if (strstr(scan, MARKER) != NULL) {
						r->marker = true;
						r->proc_peak = r->dev_peak = 0;
					}
					free(scan);
				}
				keep_err(r, buf, (size_t)got, o->verbose);
			}
		}
		now = now_ms();
		if (now - last >= SAMPLE_MS) {
			sample(nv, o->gpu_index, pid, r);
			last = now;
		}
		if (!killed && now - start > o->timeout_s * 1000) {
			kill(pid, SIGTERM);
			killed = true;
			r->timed_out = true;
			kill_at = now + 5000;
		} else if (killed && kill_at && now > kill_at) {
			kill(pid, SIGKILL);
			kill_at = 0;
		}
	}
	close(op[0]);
	close(ep[0]);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	r->out[r->out_len] = '\0';
	return GS_OK;
}

/* ------------------------------------------------------------ results */

static uint64_t jbytes(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 1.8e19)
		return 0;
	return (uint64_t)v->valuedouble;
}

static double err_pct(uint64_t pred, uint64_t meas)
{
	return meas ? ((double)pred - (double)meas) * 100.0 / (double)meas : 0.0;
}

static void slugify(char *dst, size_t n, const char *src)
{
	size_t k = 0;
	bool dash = false;

	for (; *src && k + 1 < n; src++) {
		char c = *src;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		          c == '.' || c == '_';
		if (ok) {
			dst[k++] = c;
			dash = false;
		} else if (!dash && k > 0) {
			dst[k++] = '-';
			dash = true;
		}
	}
	while (k > 0 && dst[k - 1] == '-')
		k--;
	dst[k] = '\0';
}

static void settings_json(cJSON *o, const gs_settings *s)
{
	cJSON_AddStringToObject(o, "method", gs_method_name(s->method));
	cJSON_AddStringToObject(o, "precision", gs_prec_name(gs_settings_precision(s)));
	cJSON_AddStringToObject(o, "adapter-dtype", gs_dtype_name(s->adapter_dtype));
	cJSON_AddStringToObject(o, "optimizer", gs_optim_name(s->optimizer));
	cJSON_AddNumberToObject(o, "lora-r", (double)s->lora_r);
	cJSON_AddStringToObject(o, "lora-targets", s->lora_targets);
	cJSON_AddNumberToObject(o, "lora-dropout", s->lora_dropout);
	cJSON_AddBoolToObject(o, "train-embeddings", s->train_embeddings);
	cJSON_AddNumberToObject(o, "batch", (double)s->batch);
	cJSON_AddNumberToObject(o, "seq", (double)s->seq);
	cJSON_AddNumberToObject(o, "grad-accum", (double)s->grad_accum);
	cJSON_AddBoolToObject(o, "grad-ckpt", s->grad_ckpt);
	cJSON_AddStringToObject(o, "attn", gs_attn_name(s->attn));
	cJSON_AddStringToObject(o, "loss", gs_loss_name(s->loss));
	cJSON_AddNumberToObject(o, "gpus", (double)s->gpus);
	cJSON_AddStringToObject(o, "sharding", gs_shard_name(s->sharding));
	cJSON_AddNumberToObject(o, "tp", (double)s->tp);
	cJSON_AddStringToObject(o, "offload", gs_offload_name(s->offload));
	cJSON_AddStringToObject(o, "kv-dtype", s->kv_dtype_set ? gs_dtype_name(s->kv_dtype) : "auto");
	cJSON_AddStringToObject(o, "logits", gs_logits_name(s));
	cJSON_AddNumberToObject(o, "cuda-context", (double)s->cuda_context_mib);
	cJSON_AddStringToObject(o, "formula", gs_formula_name(s->formula));
}

static void add_bytes_or_null(cJSON *o, const char *k, uint64_t v, bool have)
{
	if (have)
		cJSON_AddNumberToObject(o, k, (double)v);
	else
		cJSON_AddNullToObject(o, k);
}

static void machine_json(cJSON *o)
{
	struct utsname u;
	FILE *fp;
	char line[512];
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (uname(&u) == 0) {
		cJSON_AddStringToObject(o, "os", u.sysname);
		cJSON_AddStringToObject(o, "kernel", u.release);
		cJSON_AddStringToObject(o, "arch", u.machine);
	}
	fp = fopen("/proc/cpuinfo", "r");
	if (fp) {
		while (fgets(line, sizeof line, fp)) {
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				if (c) {
					c++;
					while (*c == ' ' || *c == '\t')
						c++;
					c[strcspn(c, "\n")] = '\0';
					cJSON_AddStringToObject(o, "cpu", c);
				}
				break;
			}
		}
		fclose(fp);
	}
	if (pages > 0 && psz > 0)
		cJSON_AddNumberToObject(o, "host_memory_bytes", (double)pages * (double)psz);
}

static void iso_date(char *buf, size_t n)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *command_line(int argc, char **argv)
{
	size_t cap = 64, len = 0;
	char *s = gs_xmalloc(cap);

	len = (size_t)snprintf(s, cap, "gpusizer verify");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool quote = a[0] == '\0' || strpbrk(a, " \t\"'$\\*?;&|<>()`") != NULL;
		size_t need = len + strlen(a) * 4 + 4;
		if (need > cap) {
			cap = need * 2;
			s = gs_xrealloc(s, cap);
		}
		s[len++] = ' ';
		if (quote)
			s[len++] = '\'';
		for (; *a; a++) {
			if (quote && *a == '\'') {
				memcpy(s + len, "'\\''", 4);
				len += 4;
			} else {
				s[len++] = *a;
			}
		}
		if (quote)
			s[len++] = '\'';
		s[len] = '\0';
	}
	return s;
}

typedef struct cmpline {
	const char *name;
	uint64_t pred, meas;
	bool have;
	double err;
	bool within;
} cmpline;

static void gib(char *buf, size_t n, uint64_t b, bool have)
{
	if (have)
		snprintf(buf, n, "%.2f", (double)b / GS_GIB);
	else
		snprintf(buf, n, "not measured");
}

/* Harness phases in the order they run; the table lists unknown ones last. */
static const char *const phase_order[] = {"forward", "backward", "optimizer", "prefill", "decode"};
#define N_PHASES (sizeof phase_order / sizeof phase_order[0])

static size_t phase_rank(const char *name)
{
	for (size_t i = 0; i < N_PHASES; i++)
		if (strcmp(name, phase_order[i]) == 0)
			return i;
	return N_PHASES;
}

/* The Markdown report. */
static char *render_md(const cJSON *rec, const cmpline *c, int nc, const cmpline *comp, int ncomp,
                       const char *verdict_text)
{
	size_t cap = 16384, len = 0;
	char *s = gs_xmalloc(cap);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(rec, "harness_result");
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(res, "steps");
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(rec, "gpu");
	const cJSON *pred = cJSON_GetObjectItemCaseSensitive(rec, "predicted");
	const cJSON *vers = cJSON_GetObjectItemCaseSensitive(res, "versions");
	const cJSON *it;
	char a[32], b[32];

#define MD(...)                                                                                   \
	do {                                                                                      \
		int k_ = snprintf(s + len, cap - len, __VA_ARGS__);                               \
		if (k_ >= 0 && (size_t)k_ >= cap - len) {                                         \
			cap = (cap + (size_t)k_) * 2;                                             \
			s = gs_xrealloc(s, cap);                                                  \
			k_ = snprintf(s + len, cap - len, __VA_ARGS__);                           \
		}                                                                                 \
		if (k_ > 0)                                                                       \
			len += (size_t)k_;                                                        \
	} while (0)
#define JS(o, k) (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, k))                          \
	                  ? cJSON_GetObjectItemCaseSensitive(o, k)->valuestring                   \
	                  : "unknown")

	MD("# Verify: %s, %s\n\n", JS(rec, "model"), JS(rec, "label"));
	MD("Measured on **%s** (%.2f GiB total, driver %s, CUDA %s%s%s%s), %s. "
	   "GiB = 2^30 bytes.\n\n",
	   JS(gpu, "name"), (double)jbytes(gpu, "total_bytes") / GS_GIB, JS(gpu, "driver"),
	   JS(gpu, "cuda"), cJSON_IsString(cJSON_GetObjectItemCaseSensitive(gpu, "class")) ? "; class " : "",
	   cJSON_IsString(cJSON_GetObjectItemCaseSensitive(gpu, "class")) ? JS(gpu, "class") : "",
	   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(gpu, "fake")) ? "; FAKE GPU (test hook)" : "",
	   JS(rec, "date"));
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(res, "harness")) ||
	    strcmp(JS(res, "harness"), REAL_HARNESS_TAG) != 0)
		MD("> **Stand-in harness** (%s): these figures are fixed test data, not a "
		   "measurement.\n\n", JS(res, "harness"));
	MD("**Result: %s**\n\n", verdict_text);
	MD("Recipe: %s. Predicted peak in phase %s of step %d.\n\n", JS(pred, "recipe"),
	   JS(pred, "peak_phase"), (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(pred, "peak_step")));
	if (nc > 0) {
		MD("| figure | predicted GiB | measured GiB | error | within %.3g%% |\n", cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(rec, "tolerance_pct")));
		MD("|---|---:|---:|---:|---|\n");
		for (int i = 0; i < nc; i++) {
			gib(a, sizeof a, c[i].pred, true);
			gib(b, sizeof b, c[i].meas, c[i].have);
			if (c[i].have)
				MD("| %s | %s | %s | %+.1f%% | %s |\n", c[i].name, a, b, c[i].err, c[i].within ? "yes" : "**no**");
			else
				MD("| %s | %s | %s | | |\n", c[i].name, a, b);
		}
		MD("\nallocated = torch max_memory_allocated; reserved = max_memory_reserved; device = "
		   "NVML used memory of the harness process (%s), which includes the CUDA context.\n\n",
		   JS(cJSON_GetObjectItemCaseSensitive(rec, "measured"), "device_method"));
	}
	if (ncomp > 0) {
		MD("## Components (informational)\n\n| component | predicted GiB | measured GiB | error | "
		   "how measured |\n|---|---:|---:|---:|---|\n");
		for (int i = 0; i < ncomp; i++) {
			gib(a, sizeof a, comp[i].pred, true);
			gib(b, sizeof b, comp[i].meas, comp[i].have);
			MD("| %s | %s | %s | %+.1f%% | %s |\n", comp[i].name, a, b, comp[i].err,
			   i == 0 ? "allocated after model setup" : "resident after step 1 minus that");
		}
		MD("\n");
	}
	if (cJSON_IsArray(steps) && cJSON_GetArraySize(steps) > 0) {
		MD("## Measured per step and phase\n\n| step | phase | allocated GiB | reserved GiB |\n"
		   "|---:|---|---:|---:|\n");
		cJSON_ArrayForEach(it, steps)
		{
			const cJSON *ph = cJSON_GetObjectItemCaseSensitive(it, "phases"), *p;
			int stepno = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "step"));
			bool warm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "warmup"));
			/* in the order they run (the harness writes its keys sorted) */
			for (size_t r = 0; r <= N_PHASES; r++)
				cJSON_ArrayForEach(p, ph)
				{
					if (phase_rank(p->string) != r)
						continue;
					gib(a, sizeof a, jbytes(p, "allocated"), true);
					gib(b, sizeof b, jbytes(p, "reserved"), true);
					MD("| %d%s | %s | %s | %s |\n", stepno, warm ? " (warm-up)" : "", p->string, a,
					   b);
				}
		}
		if (strcmp(JS(cJSON_GetObjectItemCaseSensitive(rec, "settings"), "method"), "inference") == 0)
			MD("\n\"prefill\" is the prompt's forward pass (it fills the KV cache); \"decode\" "
			   "the tokens generated after it.\n\n");
		else
			MD("\n\"forward\" includes the loss. Step 1 creates the optimizer states.\n\n");
	}
	if (cJSON_IsObject(vers)) {
		MD("## Versions\n\n");
		cJSON_ArrayForEach(it, vers)
		{
			if (cJSON_IsString(it))
				MD("- %s %s\n", it->string, it->valuestring);
		}
		MD("\n");
	}
	MD("Command: `%s`\n", JS(rec, "command"));
#undef MD
#undef JS
	return s;
}

/* ------------------------------------------------------------ main */

/* verify --json: the comparison, the verdict and where the record went. */
static void print_json_summary(const cJSON *rec, const char *row, const cmpline *c, int nc,
                               const char *verdict_text, const char *out_dir, const char *store_text)
{
	cJSON *d = cJSON_CreateObject(), *arr;
	char path[4200], *txt;
	const char *keys[] = { "model", "label", "status", "verdict", "tolerance_pct", "gpu", "date" };

	cJSON_AddStringToObject(d, "command", "verify");
	cJSON_AddStringToObject(d, "row", row);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, keys[i]);
		if (v != NULL)
			cJSON_AddItemToObject(d, keys[i], cJSON_Duplicate(v, true));
	}
	arr = cJSON_AddArrayToObject(d, "comparison");
	for (int i = 0; i < nc; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "figure", c[i].name);
		cJSON_AddNumberToObject(x, "predicted_bytes", (double)c[i].pred);
		if (c[i].have) {
			cJSON_AddNumberToObject(x, "measured_bytes", (double)c[i].meas);
			cJSON_AddNumberToObject(x, "error_pct", c[i].err);
			cJSON_AddBoolToObject(x, "within", c[i].within);
		} else {
			cJSON_AddNullToObject(x, "measured_bytes");
			cJSON_AddNullToObject(x, "error_pct");
			cJSON_AddNullToObject(x, "within");
		}
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddStringToObject(d, "result", verdict_text);
	snprintf(path, sizeof path, "%s/verify/%s.md", out_dir, row);
	cJSON_AddStringToObject(d, "report", path);
	cJSON_AddBoolToObject(d, "stored", store_text[0] != '\0');
	txt = cJSON_PrintUnformatted(d);
	if (txt != NULL)
		printf("%s\n", txt);
	free(txt);
	cJSON_Delete(d);
}

int cmd_verify(int argc, char **argv)
{
	vopts o;
	gs_error e = {0};
	gs_err rc = GS_OK;
	gs_arch arch;
	gs_estimate est;
	vgpu g;
	gs_nvml *nv = NULL;
	char harness[4096], config[4096], label[256], mslug[200], lslug[256], row[480];
	char path[4096], date[32];
	argvb hv = {0};
	vrun run = {0};
	gs_opt_iter it;
	const gs_opt *opt;
	const char *val;
	int k;
	cJSON *res = NULL, *rec = NULL;
	char *cmd = NULL, *line = NULL, *md = NULL;
	const char *fake = getenv("GPUSIZER_FAKE_GPU");
	const char *status = "";
	bool real_harness, oom = false, within = true;
	cmpline c[3], comp[2];
	int nc = 0, ncomp = 0;
	char verdict_text[512], store_text[300] = "";
	const char *verdict = "within";

	memset(&o, 0, sizeof o);
	memset(&g, 0, sizeof g);
	memset(&est, 0, sizeof est);
	memset(&arch, 0, sizeof arch);
	gs_cli_row_init(&o.row);
	o.tolerance = 10.0;
	o.python = "python3";
	o.out_dir = "out";
	o.warmup = 1;
	o.steps = 2;
	o.timeout_s = 3600;
	gs_data_path(GS_DATA_GPUS, o.gpus_buf, sizeof o.gpus_buf);
	o.gpus_dir = o.gpus_buf;
	o.harness = getenv("GPUSIZER_HARNESS");
	if (o.harness && !*o.harness)
		o.harness = NULL;
	o.harness_given = o.harness != NULL;

	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_verify, &it, &opt, &val, &e)) > 0) {
		int m = gs_cli_row_apply(&o.row, &gs_cmd_verify, k == 2 ? NULL : opt, val, &e);
		if (m == 0 && opt->id == GS_OPT_HELP) {
			gs_opt_usage(&gs_cmd_verify, stdout);
			return 0;
		}
		if (m < 0 || (m == 0 && verify_flag(&o, opt, val, &e) != GS_OK)) {
			k = -1;
			break;
		}
	}
	if (k < 0) {
		rc = e.code ? e.code : GS_EUSAGE;
		goto out;
	}
	if (o.row_id && (rc = apply_row(&o, &e)) != GS_OK)
		goto out;
	if ((rc = gs_settings_check(&o.row.s, &e)) != GS_OK)
		goto out;
	if (o.row.s.gpus != 1 || o.row.s.tp != 1 || o.row.s.sharding != GS_SH_DDP ||
	    o.row.s.offload != GS_OFF_NONE) {
		rc = gs_fail(&e, GS_EUSAGE, "verify measures one GPU without sharding or offload "
		             "(drop --gpus/--tp/--sharding/--offload)");
		goto out;
	}
	{
		/* Settings the harness does not reproduce: refuse rather than
		 * compare a prediction with a run made another way. */
		gs_prec vp = gs_settings_precision(&o.row.s);
		const char *what = o.row.s.compile                ? "--compile"
		                   : o.row.s.optimizer_in_bwd     ? "--optimizer-in-bwd"
		                   : o.row.s.full_state_dict_load ? "--state-dict-load full"
		                   : vp == GS_P_NF4_TORCHAO       ? "--precision nf4-torchao"
		                   : vp == GS_P_NF4_LITGPT        ? "--precision nf4-litgpt"
		                   : vp == GS_P_NF4_DQ_LITGPT     ? "--precision nf4-dq-litgpt"
		                   : (o.row.s.method != GS_FULL && (vp == GS_P_AMP_BF16 || vp == GS_P_AMP_FP16))
		                       ? "an amp precision with lora or inference"
		                       : NULL;
		if (what != NULL) {
			rc = gs_fail(&e, GS_EUSAGE, "verify: the harness does not run %s yet; estimate predicts it, "
			             "but there is nothing to measure it with", what);
			goto out;
		}
	}
	if (o.store_standin && !o.store) {
		rc = gs_fail(&e, GS_EUSAGE, "--store-standin needs --store FILE (never the committed store)");
		goto out;
	}
	if (o.row.model_id == NULL && o.row.config_path == NULL) {
		rc = gs_fail(&e, GS_EUSAGE, "verify needs a model (a model id or --config FILE): the "
		             "harness builds the model from its config.json");
		goto out;
	}

	/* The GPU first: without one there is nothing to do. */
	if (!o.dry_run) {
		if (fake && *fake && o.harness_given) {
			if ((rc = fake_gpu(fake, &g, &e)) != GS_OK)
				goto out;
		} else {
			if ((rc = gs_nvml_open(&nv, &e)) != GS_OK)
				goto out;
			if ((rc = gs_nvml_gpu(nv, o.gpu_index, &g.info, &e)) != GS_OK)
				goto out;
		}
		match_class(&g, o.gpus_dir);
	}

	/* The prediction. */
	if ((rc = gs_cli_row_arch(&o.row, &arch, &e)) != GS_OK)
		goto out;
	if (o.row.config_path) {
		snprintf(config, sizeof config, "%s", o.row.config_path);
	} else if ((rc = gs_model_resolve(o.row.models_dir, o.row.model_id, config, sizeof config, &e)) !=
	           GS_OK) {
		goto out;
	}
	if ((rc = gs_estimate_run(&arch, &o.row.s, &est, &e)) != GS_OK)
		goto out;
	gs_settings_label(&o.row.s, label, sizeof label);
	if (o.row.model_id) {
		if ((rc = gs_model_slug(o.row.model_id, mslug, sizeof mslug, &e)) != GS_OK)
			goto out;
	} else {
		char tmp[4096], *p;
		snprintf(tmp, sizeof tmp, "%s", config);
		p = strrchr(tmp, '/');
		if (p && !strcmp(p + 1, "config.json")) {
			*p = '\0';
			p = strrchr(tmp, '/');
		}
		slugify(mslug, sizeof mslug, p ? p + 1 : tmp);
	}
	slugify(lslug, sizeof lslug, label);
	snprintf(row, sizeof row, "%s__%s", mslug, lslug);

	if ((rc = find_harness(&o, harness, sizeof harness, &e)) != GS_OK)
		goto out;
	harness_argv(&o, harness, config, &hv);

	if (o.dry_run) {
		cJSON *d = cJSON_CreateObject(), *p = cJSON_AddObjectToObject(d, "predicted"),
		      *av = cJSON_AddArrayToObject(d, "harness_argv");
		char *txt;
		cJSON_AddStringToObject(d, "row", row);
		cJSON_AddStringToObject(d, "label", label);
		cJSON_AddStringToObject(d, "config", config);
		cJSON_AddNumberToObject(p, "allocated", (double)est.allocated);
		cJSON_AddNumberToObject(p, "reserved", (double)est.reserved);
		cJSON_AddNumberToObject(p, "device", (double)est.device);
		cJSON_AddStringToObject(p, "peak_phase", gs_phase_name(est.peak_phase));
		for (size_t i = 0; i < hv.n; i++)
			cJSON_AddItemToArray(av, cJSON_CreateString(hv.v[i]));
		txt = cJSON_Print(d);
		printf("%s\n", txt);
		free(txt);
		cJSON_Delete(d);
		goto out;
	}

	if (!o.quiet)
		fprintf(stderr, "gpusizer: verify: %s: running the harness on %s (GPU %u)...\n", row,
		        g.info.name, o.gpu_index);
	if ((rc = run_harness(&o, hv.v, nv, &run, &e)) != GS_OK)
		goto out;

	/* Parse the one JSON object (whole stdout, else its last line). */
	res = cJSON_Parse(run.out);
	if (!cJSON_IsObject(res)) {
		char *last = run.out_len ? run.out + run.out_len : NULL;
		cJSON_Delete(res);
		res = NULL;
		if (last) {
			while (last > run.out && (last[-1] == '\n' || last[-1] == '\r' || last[-1] == ' '))
				*--last = '\0';
			while (last > run.out && last[-1] != '\n')
				last--;
			res = cJSON_Parse(last);
			if (!cJSON_IsObject(res)) {
				cJSON_Delete(res);
				res = NULL;
			}
		}
	}
	if (run.timed_out) {
		rc = gs_fail(&e, GS_EHARNESS, "harness stopped after --timeout %" PRId64 " s", o.timeout_s);
		goto out;
	}
	if (res == NULL && run.out_len == 0 && WIFEXITED(run.status) && WEXITSTATUS(run.status) == 127) {
		rc = gs_fail(&e, GS_EHARNESS, "cannot run %s %s (exit status 127: command not found; "
		             "give --python PATH)", hv.v[0], hv.v[1]);
		goto out;
	}
	if (res == NULL) {
		char head[301];
		snprintf(head, sizeof head, "%s", run.out);
		for (char *p = head; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		rc = gs_fail(&e, GS_EHARNESS,
		             "harness printed no JSON result (exit status %d%s); stdout: \"%s\"; stderr "
		             "ends: %s",
		             WIFEXITED(run.status) ? WEXITSTATUS(run.status) : 128 + WTERMSIG(run.status),
		             WIFSIGNALED(run.status) ? ", killed by a signal" : "", head,
		             run.err[0] ? run.err + (strlen(run.err) > 600 ? strlen(run.err) - 600 : 0)
		                        : "(nothing)");
		goto out;
	}
	{
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "status");
		const cJSON *tag = cJSON_GetObjectItemCaseSensitive(res, "harness");
		status = cJSON_IsString(st) ? st->valuestring : "";
		real_harness = cJSON_IsString(tag) && !strcmp(tag->valuestring, REAL_HARNESS_TAG) && !g.fake;
	}
	if (!strcmp(status, "skipped")) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(res, "reason");
		rc = gs_fail(&e, GS_EHARNESS, "harness skipped this row: %s",
		             cJSON_IsString(why) ? why->valuestring : "(no reason given)");
		goto out;
	}
	if (strcmp(status, "ok") != 0 && strcmp(status, "oom") != 0) {
		rc = gs_fail(&e, GS_EHARNESS, "harness result has status \"%s\" (expected ok, oom or "
		             "skipped)", status);
		goto out;
	}
	if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
		rc = gs_fail(&e, GS_EHARNESS, "harness exited with status %d after printing a result",
		             WIFEXITED(run.status) ? WEXITSTATUS(run.status) : 128 + WTERMSIG(run.status));
		goto out;
	}
	oom = !strcmp(status, "oom");

	/* Compare. */
	{
		const cJSON *peak = cJSON_GetObjectItemCaseSensitive(res, "peak");
		const cJSON *load = cJSON_GetObjectItemCaseSensitive(res, "load");
		const cJSON *steps = cJSON_GetObjectItemCaseSensitive(res, "steps");
		uint64_t dev = 0;
		const char *dev_method = NULL;

		if (run.proc_found && run.proc_peak) {
			dev = run.proc_peak;
			dev_method = "nvml-process";
		} else if (run.dev_peak > g.info.used_bytes && nv != NULL) {
			dev = run.dev_peak - g.info.used_bytes;
			dev_method = "nvml-device-minus-start";
		}
		if (!oom) {
			if (!cJSON_IsObject(peak) || jbytes(peak, "allocated") == 0) {
				rc = gs_fail(&e, GS_EHARNESS, "harness result \"ok\" without \"peak\".\"allocated\"");
				goto out;
			}
			c[nc++] = (cmpline){"allocated", est.allocated, jbytes(peak, "allocated"), true, 0, true};
			c[nc++] = (cmpline){"reserved", est.reserved, jbytes(peak, "reserved"),
			                    jbytes(peak, "reserved") > 0, 0, true};
			c[nc++] = (cmpline){"device", est.device, dev, dev > 0, 0, true};
			for (int i = 0; i < nc; i++) {
				if (!c[i].have)
					continue;
				c[i].err = err_pct(c[i].pred, c[i].meas);
				c[i].within = fabs(c[i].err) <= o.tolerance;
				within = within && c[i].within;
			}
			if (cJSON_IsObject(load) && jbytes(load, "allocated")) {
				uint64_t w = jbytes(load, "allocated");
				comp[ncomp++] = (cmpline){"W (weights, buffers)", est.W, w, true, err_pct(est.W, w), true};
				if (o.row.s.method != GS_INFER && cJSON_IsArray(steps)) {
					uint64_t end1 = jbytes(cJSON_GetArrayItem(steps, 0), "end_allocated");
					if (end1 > w && est.O)
						comp[ncomp++] = (cmpline){"O (optimizer states)", est.O, end1 - w, true,
						                          err_pct(est.O, end1 - w), true};
				}
			}
			verdict = within ? "within" : "outside";
			snprintf(verdict_text, sizeof verdict_text, "%s the %.3g%% tolerance",
			         within ? "within" : "OUTSIDE", o.tolerance);
		} else {
			bool predicted_fits = est.device <= g.usable;
			within = !predicted_fits;
			verdict = within ? "oom-agrees" : "oom-disagrees";
			snprintf(verdict_text, sizeof verdict_text,
			         "out of memory on the GPU; predicted %.2f GiB against %.2f GiB usable%s: %s",
			         (double)est.device / GS_GIB, (double)g.usable / GS_GIB,
			         g.usable_from_class ? "" : " (driver total)",
			         within ? "the prediction agrees (does not fit)"
			                : "the prediction said it fits (disagrees)");
		}

		/* The record: report .json and store line. */
		rec = cJSON_CreateObject();
		cJSON_AddNumberToObject(rec, "schema", 1);
		iso_date(date, sizeof date);
		cJSON_AddStringToObject(rec, "date", date);
		cJSON_AddStringToObject(rec, "gpusizer", GS_VERSION);
		cJSON_AddStringToObject(rec, "row", row);
		cJSON_AddStringToObject(rec, "model", o.row.model_id ? o.row.model_id : config);
		cJSON_AddStringToObject(rec, "config", config);
		cJSON_AddStringToObject(rec, "label", label);
		cJSON_AddStringToObject(rec, "status", status);
		cJSON_AddStringToObject(rec, "verdict", verdict);
		cJSON_AddNumberToObject(rec, "tolerance_pct", o.tolerance);
		cmd = command_line(argc, argv);
		cJSON_AddStringToObject(rec, "command", cmd);
		settings_json(cJSON_AddObjectToObject(rec, "settings"), &o.row.s);
		{
			cJSON *m = cJSON_AddObjectToObject(rec, "machine");
			machine_json(m);
		}
		{
			cJSON *gj = cJSON_AddObjectToObject(rec, "gpu");
			cJSON_AddStringToObject(gj, "name", g.info.name);
			if (g.klass_id[0])
				cJSON_AddStringToObject(gj, "class", g.klass_id);
			else
				cJSON_AddNullToObject(gj, "class");
			cJSON_AddNumberToObject(gj, "index", g.info.index);
			cJSON_AddNumberToObject(gj, "total_bytes", (double)g.info.total_bytes);
			cJSON_AddNumberToObject(gj, "free_bytes_at_start", (double)g.info.free_bytes);
			cJSON_AddNumberToObject(gj, "usable_bytes", (double)g.usable);
			cJSON_AddStringToObject(gj, "usable_from", g.usable_from_class ? "gpus class" : "driver total");
			cJSON_AddStringToObject(gj, "driver", g.info.driver);
			cJSON_AddStringToObject(gj, "cuda", g.info.cuda);
			if (g.fake)
				cJSON_AddTrueToObject(gj, "fake");
		}
		{
			cJSON *p = cJSON_AddObjectToObject(rec, "predicted");
			cJSON_AddStringToObject(p, "formula", gs_formula_name(est.formula));
			cJSON_AddStringToObject(p, "recipe", est.recipe ? est.recipe : "");
			cJSON_AddNumberToObject(p, "allocated", (double)est.allocated);
			cJSON_AddNumberToObject(p, "reserved", (double)est.reserved);
			cJSON_AddNumberToObject(p, "device", (double)est.device);
			cJSON_AddNumberToObject(p, "W", (double)est.W);
			cJSON_AddNumberToObject(p, "G", (double)est.G);
			cJSON_AddNumberToObject(p, "O", (double)est.O);
			cJSON_AddNumberToObject(p, "A", (double)est.A);
			cJSON_AddNumberToObject(p, "B", (double)est.B);
			cJSON_AddStringToObject(p, "peak_phase", gs_phase_name(est.peak_phase));
			cJSON_AddNumberToObject(p, "peak_step", est.peak_step);
			cJSON_AddNumberToObject(p, "params_total", (double)est.params_total);
			cJSON_AddNumberToObject(p, "params_trainable", (double)est.params_trainable);
		}
		{
			cJSON *m = cJSON_AddObjectToObject(rec, "measured");
			add_bytes_or_null(m, "allocated", oom ? 0 : jbytes(peak, "allocated"), !oom);
			add_bytes_or_null(m, "reserved", oom ? 0 : jbytes(peak, "reserved"),
			                  !oom && jbytes(peak, "reserved") > 0);
			add_bytes_or_null(m, "device", dev, !oom && dev > 0);
			if (dev_method && !oom)
				cJSON_AddStringToObject(m, "device_method", dev_method);
			else
				cJSON_AddNullToObject(m, "device_method");
			cJSON_AddNumberToObject(m, "nvml_samples", run.samples);
			add_bytes_or_null(m, "device_peak_including_other_processes", run.dev_peak,
			                  run.dev_peak > 0);
		}
		{
			cJSON *cj = cJSON_AddObjectToObject(rec, "comparison");
			for (int i = 0; i < nc; i++) {
				cJSON *x = cJSON_AddObjectToObject(cj, c[i].name);
				cJSON_AddNumberToObject(x, "predicted", (double)c[i].pred);
				add_bytes_or_null(x, "measured", c[i].meas, c[i].have);
				if (c[i].have) {
					cJSON_AddNumberToObject(x, "error_pct", round(c[i].err * 100) / 100);
					cJSON_AddBoolToObject(x, "within", c[i].within);
				} else {
					cJSON_AddNullToObject(x, "error_pct");
					cJSON_AddNullToObject(x, "within");
				}
			}
			for (int i = 0; i < ncomp; i++) {
				cJSON *x = cJSON_AddObjectToObject(cj, i == 0 ? "W" : "O");
				cJSON_AddNumberToObject(x, "predicted", (double)comp[i].pred);
				cJSON_AddNumberToObject(x, "measured", (double)comp[i].meas);
				cJSON_AddNumberToObject(x, "error_pct", round(comp[i].err * 100) / 100);
			}
		}
		cJSON_AddItemToObject(rec, "harness_result", cJSON_Duplicate(res, true));
		cJSON_AddStringToObject(rec, "harness_path", harness);
	}

	/* Write out/verify/<row>.json and .md. */
	snprintf(path, sizeof path, "%s/verify", o.out_dir);
	if ((rc = gs_mkdirs(path, &e)) != GS_OK)
		goto out;
	md = render_md(rec, c, nc, comp, ncomp, verdict_text);
	{
		char *pretty = cJSON_Print(rec);
		size_t plen = strlen(pretty);
		pretty = gs_xrealloc(pretty, plen + 2);
		pretty[plen] = '\n';
		pretty[plen + 1] = '\0';
		snprintf(path, sizeof path, "%s/verify/%s.json", o.out_dir, row);
		rc = gs_write_file_atomic(path, pretty, plen + 1, &e);
		free(pretty);
		if (rc != GS_OK)
			goto out;
	}
	snprintf(path, sizeof path, "%s/verify/%s.md", o.out_dir, row);
	if ((rc = gs_write_file_atomic(path, md, strlen(md), &e)) != GS_OK)
		goto out;

	/* The store. */
	if (o.no_store) {
		if (!o.quiet)
			fprintf(stderr, "gpusizer: verify: not stored (--no-store)\n");
	} else if (!real_harness && !o.store_standin) {
		if (!o.quiet)
			fprintf(stderr, "gpusizer: verify: stand-in harness or fake GPU: result not stored\n");
	} else {
		line = cJSON_PrintUnformatted(rec);
		if ((rc = gs_measured_append(o.store, line, &e)) != GS_OK)
			goto out;
		if (!o.quiet)
			fprintf(stderr, "gpusizer: verify: appended to %s\n",
			        o.store ? o.store : GS_MEASURED_STORE_DEFAULT);
		{
			/* Read it back as reports will: the text they show beside the row. */
			gs_measured_store st = {0};
			const gs_measured *m;
			char text[256];
			if (gs_measured_load(o.store, &st, &e) != GS_OK) {
				rc = e.code;
				goto out;
			}
			m = gs_measured_find(&st, o.row.model_id ? o.row.model_id : config, label);
			if (m != NULL) {
				gs_measured_text(m, GS_MK_DEVICE, NULL, text, sizeof text);
				snprintf(store_text, sizeof store_text, "  store: %s\n", text);
			}
			gs_measured_free(&st);
		}
	}

	/* Summary on stdout. */
	if (o.json) {
		print_json_summary(rec, row, c, nc, verdict_text, o.out_dir, store_text);
		goto done;
	}
	printf("%s\n", row);
	for (int i = 0; i < nc; i++) {
		char a[32], b[32];
		gib(a, sizeof a, c[i].pred, true);
		gib(b, sizeof b, c[i].meas, c[i].have);
		if (c[i].have)
			printf("  %-9s predicted %8s GiB  measured %8s GiB  error %+6.1f%%  %s\n", c[i].name, a, b,
			       c[i].err, c[i].within ? "ok" : "OUTSIDE");
		else
			printf("  %-9s predicted %8s GiB  measured %s\n", c[i].name, a, b);
	}
	printf("  result: %s\n", verdict_text);
	printf("  report: %s/verify/%s.md\n%s", o.out_dir, row, store_text);
done:
	rc = within ? GS_OK : GS_ETOLERANCE;
	if (!within)
		gs_fail(&e, GS_ETOLERANCE, "verify: %s: %s", row, verdict_text);

out:
	if (rc != GS_OK) {
		if (e.code == GS_OK)
			e.code = rc;
		gs_report_error(&e);
	}
	free(md);
	free(line);
	free(cmd);
	free(run.out);
	cJSON_Delete(rec);
	cJSON_Delete(res);
	argv_free(&hv);
	gs_nvml_close(nv);
	free(o.owned_model);
	return gs_exit_code(rc);
}
