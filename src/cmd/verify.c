/* gpusizer: `verify`: run one row on the local NVIDIA GPU through the
 * harness (harness.c: tools/harness.py, NVML sampling), compare measured
 * with predicted (verify/compare.c), and keep the result: the record (measured.c)
 * as out/verify/<row>.json and a line of the store, and the page
 * out/verify/<row>.md from templates/verify.md.tmpl. */
#define _POSIX_C_SOURCE 200809L
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "numfmt.h"
#include "cmd.h"
#include "engine.h"
#include "err.h"
#include "fileio.h"
#include "gpu_file.h"
#include "harness.h"
#include "mdesc.h"
#include "measured.h"
#include "models.h"
#include "nvml.h"
#include "outdir.h"
#include "paths.h"
#include "mdgen.h"
#include "settings.h"
#include "template.h"
#include "util.h"
#include "compare.h"

#define PAGE_TEMPLATE "verify.md.tmpl"

typedef struct vopts {
	gs_cli_row row;
	double tolerance;       /* percent */
	const char *harness;    /* NULL: GPUSIZER_HARNESS, then the default search */
	bool harness_given;     /* --harness or GPUSIZER_HARNESS */
	const char *python;
	const char *out_dir;
	int64_t warmup, steps, timeout_s;
	unsigned gpu_index;
	bool no_store, store_standin, dry_run, verbose, quiet, json, force;
	const char *store;
	const char *row_id, *sizing;
	const char *gpus_dir;
	char gpus_buf[4096];
	char *owned_model;      /* model id read from sizing.json (row.model_id points here) */
} vopts;

enum {
	OPT_ROW = GS_OPT_OWN, OPT_SIZING, OPT_TOLERANCE, OPT_WARMUP, OPT_STEPS, OPT_GPU_INDEX,
	OPT_PYTHON, OPT_HARNESS, OPT_TIMEOUT, OPT_OUT, OPT_GPUS_DIR, OPT_STORE, OPT_NO_STORE,
	OPT_STORE_STANDIN, OPT_DRY_RUN, OPT_FORCE,
};

static const gs_opt verify_opts[] = {
	{ "row", 0, "ID", 0, OPT_ROW, "take model and settings from a report row (\"id\" in\nsizing.json)" },
	{ "sizing", 0, "FILE", 0, OPT_SIZING, "the report JSON for --row, plain or gzip\n(default OUT/sizing.json, else OUT/sizing.json.gz)" },
	{ "tolerance", 0, "PCT", 0, OPT_TOLERANCE, "allowed |predicted - measured| / measured, percent (10)" },
	{ "warmup", 0, "N", 0, OPT_WARMUP, "warm-up steps; step 1 is the first of them (1)" },
	{ "steps", 0, "N", 0, OPT_STEPS, "measured steps after warm-up (2)" },
	{ "gpu-index", 0, "N", 0, OPT_GPU_INDEX, "NVML/PCI-order GPU index (0; sets CUDA_VISIBLE_DEVICES)" },
	{ "python", 0, "PATH", 0, OPT_PYTHON, "Python interpreter for the harness (python3)" },
	{ "harness", 0, "FILE", 0, OPT_HARNESS, "harness script (default: the installed harness.py,\n"
	  "tools/harness.py of the checkout the binary is in, never\n"
	  "the current directory's; env GPUSIZER_HARNESS)" },
	{ "timeout", 0, "SEC", 0, OPT_TIMEOUT, "stop the harness after SEC seconds (3600)" },
	{ "out", 0, "DIR", 0, OPT_OUT, "output directory (out); the pages go in DIR/verify,\n"
	  "installed as report installs DIR (never through a symbolic\n"
	  "link; DIR/verify/.gpusizer-manifest lists them)" },
	{ "force", 0, NULL, 0, OPT_FORCE, "replace a file at the row's page or record path that\n"
	  "gpusizer did not write, or that was changed since" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files, to name the local GPU's class\n"
	  "(default: the installed gpus/)" },
	{ "store", 0, "FILE", 0, OPT_STORE, "measurements store (measurements/verified.jsonl; locked\n"
	  "through FILE.lock beside it while appending)" },
	{ "no-store", 0, NULL, 0, OPT_NO_STORE, "do not append the result to the store" },
	{ "store-standin", 0, NULL, 0, OPT_STORE_STANDIN, "tests only: store a stand-in harness's result\n"
	  "(needs --store)" },
	{ "dry-run", 0, NULL, 0, OPT_DRY_RUN, "print the prediction and the harness command as JSON;\nrun nothing" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "the comparison as one JSON object on stdout" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group verify_groups[] = {
	{ "model (as for estimate)", gs_cli_model_opts, NULL },
	{ "settings (as for estimate)", NULL, gs_cli_setting_opts },
	{ "verify options", verify_opts, NULL },
	{ "common (--verbose also passes the harness's stderr through)", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
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
	"or skipped the row (reason printed), 2 usage, 3 bad input, 4 I/O, 15 the store\n"
	"stayed locked past GPUSIZER_LOCK_WAIT, 16 a local file missing (--config, the GPU\n"
	"directory). The store is checked before the run; if\n"
	"the append still fails, the record is printed on stderr. SIGINT, SIGTERM or SIGHUP\n"
	"stops the harness's whole process group (SIGKILL 5 s later) and then verify.\n"
	"\n"
	"Test hooks: GPUSIZER_NVML_LIB=FILE loads another NVML library; with --harness (or\n"
	"GPUSIZER_HARNESS), GPUSIZER_FAKE_GPU=\"name,total_bytes,driver,cuda\" skips NVML and\n"
	"describes a GPU (no device sampling; such results are never stored).\n",
};

/* ------------------------------------------------------------ arguments */

static gs_err parse_i64(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out,
                        gs_error *e)
{
	int64_t x;

	if (!gs_parse_i64(v, SIZE_MAX, &x))
		return gs_fail(e, GS_EUSAGE, "verify: --%s: '%s' is not an integer", flag, v);
	if (x < lo || x > hi)
		return gs_fail(e, GS_EUSAGE, "verify: --%s: %lld is out of range [%lld, %lld]", flag,
		               (long long)x, (long long)lo, (long long)hi);
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
	case OPT_FORCE: o->force = true; break;
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
	{
		gs_error first = { 0 }, second = { 0 }, *pe = &first;
		rc = gs_read_file_gz(path, 256u << 20, &buf, NULL, pe);
		/* A report may hold the document gzip-compressed only (json.gz). */
		if (rc == GS_ENOFILE && !o->sizing && strlen(path) + 3 < sizeof path) {
			strcat(path, ".gz");
			rc = gs_read_file_gz(path, 256u << 20, &buf, NULL, &second);
			if (rc == GS_ENOFILE)
				path[strlen(path) - 3] = '\0';
			else
				pe = &second;
		}
		if (rc != GS_OK && rc != GS_ENOFILE)
			return gs_fail(e, rc, "%s", pe->msg);
	}
	if (rc != GS_OK)
		return rc == GS_ENOFILE
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
	if ((rc = gs_settings_from_json(settings, &o->row.s, e)) != GS_OK) {
		gs_error sub = *e;
		e->code = GS_OK;
		rc = gs_fail(e, GS_EINPUT, "%s: row %s: %s", path, o->row_id, sub.msg);
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


/* ------------------------------------------------------------ names */

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


/* ------------------------------------------------------------ the row */

/* Settings verify can measure, and what it needs to. */
static gs_err check_row(vopts *o, gs_error *e)
{
	const gs_settings *s = &o->row.s;
	const char *what;
	gs_err rc;

	if (o->row_id && (rc = apply_row(o, e)) != GS_OK)
		return rc;
	if ((rc = gs_cli_row_check(&o->row, e)) != GS_OK)
		return rc;
	if (s->gpus != 1 || s->tp != 1 || s->sharding != GS_SH_DDP || s->offload != GS_OFF_NONE) {
		char note[400];
		gs_cli_row_ddp_note(&o->row, note, sizeof note);
		return gs_fail(e, GS_EUSAGE, "verify measures one GPU without sharding or offload "
		               "(drop --gpus/--tp/--sharding/--offload)%s%s", note[0] ? "; " : "", note);
	}
	/* Refuse rather than compare a prediction with a run made another way. */
	what = gs_harness_refusal(s);
	if (what != NULL)
		return gs_fail(e, GS_EUSAGE, "verify: the harness does not run %s yet; estimate predicts it, "
		               "but there is nothing to measure it with", what);
	if (o->store_standin && !o->store)
		return gs_fail(e, GS_EUSAGE, "--store-standin needs --store FILE (never the committed store)");
	if (o->row.model_id == NULL && o->row.config_path == NULL)
		return gs_fail(e, GS_EUSAGE, "verify needs a model (a model id or --config FILE): the "
		               "harness builds the model from its config.json");
	return GS_OK;
}

/* The GPU: GPUSIZER_FAKE_GPU (with an explicit harness), else NVML's. */
static gs_err open_gpu(const vopts *o, vgpu *g, gs_nvml **nv, gs_error *e)
{
	const char *fake = getenv("GPUSIZER_FAKE_GPU");
	gs_err rc;

	if (fake && *fake && o->harness_given) {
		if ((rc = fake_gpu(fake, g, e)) != GS_OK)
			return rc;
	} else {
		if ((rc = gs_nvml_open(nv, e)) != GS_OK)
			return rc;
		if ((rc = gs_nvml_gpu(*nv, o->gpu_index, &g->info, e)) != GS_OK)
			return rc;
	}
	match_class(g, o->gpus_dir);
	return GS_OK;
}

/* The prediction and the names of the row. */
typedef struct vpred {
	gs_arch arch;
	gs_estimate est;
	char config[4096];      /* the config.json the harness builds the model from */
	char label[256];        /* gs_settings_label */
	char row[480];          /* MODELSLUG__LABELSLUG-HASH: the page's file name (HASH: 12 hex
	                           digits of the model and the row key, as the report row id) */
} vpred;

static gs_err predict(vopts *o, vpred *p, gs_error *e)
{
	char mslug[200], lslug[256], key[GS_KEY_MAX];
	gs_err rc;

	if ((rc = gs_cli_row_arch(&o->row, &p->arch, e)) != GS_OK)
		return rc;
	if (o->row.config_path)
		snprintf(p->config, sizeof p->config, "%s", o->row.config_path);
	else if ((rc = gs_model_resolve(o->row.models_dir, o->row.model_id, p->config,
	                                sizeof p->config, e)) != GS_OK)
		return rc;
	if ((rc = gs_estimate_run(&p->arch, &o->row.s, &p->est, e)) != GS_OK)
		return rc;
	gs_settings_label(&o->row.s, p->label, sizeof p->label);
	if (o->row.model_id) {
		if ((rc = gs_model_slug(o->row.model_id, mslug, sizeof mslug, e)) != GS_OK)
			return rc;
	} else {
		char tmp[4096], *s;
		snprintf(tmp, sizeof tmp, "%s", p->config);
		s = strrchr(tmp, '/');
		if (s && !strcmp(s + 1, "config.json")) {
			*s = '\0';
			s = strrchr(tmp, '/');
		}
		slugify(mslug, sizeof mslug, s ? s + 1 : tmp);
	}
	slugify(lslug, sizeof lslug, p->label);
	gs_settings_key(&o->row.s, key, sizeof key);
	snprintf(p->row, sizeof p->row, "%.200s__%.250s-%012llx", mslug, lslug,
	         (unsigned long long)(gs_key_hash(o->row.model_id ? o->row.model_id : p->config, key) >> 16));
	return GS_OK;
}

/* verify --dry-run: the prediction and the harness command as JSON. */
static void print_dry_run(const vpred *p, const gs_argv *hv)
{
	cJSON *d = cJSON_CreateObject(), *pj = cJSON_AddObjectToObject(d, "predicted"),
	      *av = cJSON_AddArrayToObject(d, "harness_argv");
	char *txt;

	cJSON_AddStringToObject(d, "row", p->row);
	cJSON_AddStringToObject(d, "label", p->label);
	cJSON_AddStringToObject(d, "config", p->config);
	cJSON_AddNumberToObject(pj, "allocated", (double)p->est.allocated);
	cJSON_AddNumberToObject(pj, "reserved", (double)p->est.reserved);
	cJSON_AddNumberToObject(pj, "device", (double)p->est.device);
	cJSON_AddStringToObject(pj, "peak_phase", gs_phase_name(p->est.peak_phase));
	for (size_t i = 0; i < hv->n; i++)
		cJSON_AddItemToArray(av, cJSON_CreateString(hv->v[i]));
	txt = cJSON_Print(d);
	printf("%s\n", txt);
	free(txt);
	cJSON_Delete(d);
}

/* ------------------------------------------------------------ the record */

/* The host: uname, the CPU's model name, the memory. */
static void record_machine(gs_measured *m)
{
	struct utsname u;
	FILE *fp;
	char line[512];
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (uname(&u) == 0) {
		m->have_uname = true;
		snprintf(m->os, sizeof m->os, "%s", u.sysname);
		snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
		snprintf(m->arch, sizeof m->arch, "%s", u.machine);
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
					m->cpu = gs_xstrdup(c);
				}
				break;
			}
		}
		fclose(fp);
	}
	if (pages > 0 && psz > 0) {
		m->have_host_memory = true;
		m->host_memory_bytes = (uint64_t)((double)pages * (double)psz);
	}
}

static void record_gpu(gs_measured *m, const vgpu *g)
{
	snprintf(m->gpu_name, sizeof m->gpu_name, "%s", g->info.name);
	snprintf(m->gpu_class, sizeof m->gpu_class, "%s", g->klass_id);
	m->gpu_index = g->info.index;
	m->gpu_total_bytes = g->info.total_bytes;
	m->gpu_free_bytes_at_start = g->info.free_bytes;
	m->gpu_usable_bytes = g->usable;
	snprintf(m->gpu_usable_from, sizeof m->gpu_usable_from, "%s",
	         g->usable_from_class ? "gpus class" : "driver total");
	snprintf(m->gpu_driver, sizeof m->gpu_driver, "%s", g->info.driver);
	snprintf(m->gpu_cuda, sizeof m->gpu_cuda, "%s", g->info.cuda);
	m->gpu_fake = g->fake;
}

static void record_predicted(gs_measured *m, const gs_estimate *est)
{
	snprintf(m->pred_formula, sizeof m->pred_formula, "%s", gs_formula_name(est->formula));
	m->pred_recipe = gs_xstrdup(est->recipe ? est->recipe : "");
	m->pred_allocated = est->allocated;
	m->pred_reserved = est->reserved;
	m->pred_device = est->device;
	m->pred_W = est->W;
	m->pred_G = est->G;
	m->pred_O = est->O;
	m->pred_A = est->A;
	m->pred_B = est->B;
	snprintf(m->pred_peak_phase, sizeof m->pred_peak_phase, "%s", gs_phase_name(est->peak_phase));
	m->pred_peak_step = est->peak_step;
	m->pred_params_total = est->params_total;
	m->pred_params_trainable = est->params_trainable;
}

/* What was measured (an out-of-memory run: no figures) and the comparison. */
static void record_measured(gs_measured *m, const gs_harness_result *h, const gs_verify *v)
{
	gs_measured_cmp *cmp[3] = { &m->cmp_allocated, &m->cmp_reserved, &m->cmp_device };
	gs_measured_part *part[2] = { &m->cmp_W, &m->cmp_O };
	bool *have_part[2] = { &m->have_cmp_W, &m->have_cmp_O };

	m->allocated = h->oom ? 0 : h->peak_allocated;
	m->reserved = h->oom ? 0 : h->peak_reserved;
	m->device = h->oom ? 0 : h->device;
	snprintf(m->device_method, sizeof m->device_method, "%s",
	         h->device_method && !h->oom ? h->device_method : "");
	m->nvml_samples = h->samples;
	m->device_peak_including_other_processes = h->device_peak;
	m->have_figures = v->nfig == 3;
	for (size_t i = 0; i < v->nfig && i < 3; i++) {
		const gs_verify_line *l = &v->fig[i];
		*cmp[i] = (gs_measured_cmp){ l->pred, l->meas, l->have, round(l->err * 100) / 100, l->within };
	}
	for (size_t i = 0; i < v->ncomp && i < 2; i++) {
		const gs_verify_line *l = &v->comp[i];
		*part[i] = (gs_measured_part){ l->pred, l->meas, round(l->err * 100) / 100 };
		*have_part[i] = true;
	}
}

/* The whole record of this run. */
static void record_fill(gs_measured *m, const vopts *o, const vpred *p, const vgpu *g,
                        const char *harness, const gs_harness_result *h, const gs_verify *v,
                        int argc, char **argv)
{
	memset(m, 0, sizeof *m);
	m->schema = GS_MEASURED_SCHEMA;
	iso_date(m->date, sizeof m->date);
	snprintf(m->gpusizer, sizeof m->gpusizer, "%s", GS_VERSION);
	snprintf(m->row, sizeof m->row, "%s", p->row);
	m->model = gs_xstrdup(o->row.model_id ? o->row.model_id : p->config);
	m->config = gs_xstrdup(p->config);
	snprintf(m->label, sizeof m->label, "%s", p->label);
	snprintf(m->status, sizeof m->status, "%s", h->status);
	snprintf(m->verdict, sizeof m->verdict, "%s", v->verdict);
	m->tolerance_pct = o->tolerance;
	m->command = command_line(argc, argv);
	m->settings = o->row.s;
	m->have_settings = true;
	gs_settings_key(&m->settings, m->key, sizeof m->key);
	record_machine(m);
	record_gpu(m, g);
	record_predicted(m, &p->est);
	record_measured(m, h, v);
	m->harness_result = gs_xstrdup(h->json);
	m->harness_path = gs_xstrdup(harness);
	m->oom = h->oom;
}

/* ------------------------------------------------------------ the page */

/* s as a Markdown code span: control bytes as spaces, fenced with one
 * more backtick than its longest run of them (padded with a space when it
 * starts or ends with one). The caller frees it. */
static char *md_code_span(const char *s)
{
	gs_tbuf b = {0};
	size_t run = 0, longest = 0, len = strlen(s);
	bool pad;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = len > 0 && (s[0] == '`' || s[len - 1] == '`' || (s[0] == ' ' && s[len - 1] == ' '));
	for (size_t i = 0; i <= longest; i++)
		gs_tbuf_putc(&b, '`');
	if (pad)
		gs_tbuf_putc(&b, ' ');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		gs_tbuf_putc(&b, *p < 0x20 || *p == 0x7f ? ' ' : (char)*p);
	if (pad)
		gs_tbuf_putc(&b, ' ');
	for (size_t i = 0; i <= longest; i++)
		gs_tbuf_putc(&b, '`');
	return b.p;
}

static void set_gib(gs_tval *map, const char *key, uint64_t bytes, bool have)
{
	char buf[32];
	gs_tv_set_str(map, key, gs_verify_gib(buf, sizeof buf, bytes, have));
}

static void set_fmt(gs_tval *map, const char *key, const char *fmt, double v)
	__attribute__((format(printf, 3, 0)));
static void set_fmt(gs_tval *map, const char *key, const char *fmt, double v)
{
	char buf[64];
	snprintf(buf, sizeof buf, fmt, v);
	gs_tv_set_str(map, key, buf);
}

/* The compared figures and the components. */
static void page_lines(gs_tval *d, const gs_verify *v)
{
	gs_tval *figs = gs_tv_set(d, "figures", gs_tv_list());
	gs_tval *comps = gs_tv_set(d, "components", gs_tv_list());

	for (size_t i = 0; i < v->nfig; i++) {
		const gs_verify_line *l = &v->fig[i];
		gs_tval *x = gs_tv_push(figs, gs_tv_map());
		gs_tv_set_str(x, "name", l->name);
		gs_tv_set_bool(x, "have", l->have);
		set_gib(x, "predicted", l->pred, true);
		set_gib(x, "measured", l->meas, l->have);
		set_fmt(x, "error", "%+.1f%%", l->err);
		gs_tv_set_bool(x, "within", l->within);
	}
	for (size_t i = 0; i < v->ncomp; i++) {
		const gs_verify_line *l = &v->comp[i];
		gs_tval *x = gs_tv_push(comps, gs_tv_map());
		gs_tv_set_str(x, "name", l->name);
		set_gib(x, "predicted", l->pred, true);
		set_gib(x, "measured", l->meas, true);
		set_fmt(x, "error", "%+.1f%%", l->err);
		gs_tv_set_str(x, "how", l->how);
	}
}

/* What the harness reported per step and phase, and its versions. */
static void page_harness(gs_tval *d, const gs_harness_result *h)
{
	gs_tval *rows = gs_tv_set(d, "phases", gs_tv_list());
	gs_tval *vers = gs_tv_set(d, "versions", gs_tv_list());

	gs_tv_set_bool(d, "standin", h->tag == NULL || strcmp(h->tag, GS_HARNESS_TAG) != 0);
	gs_tv_set_str(d, "harness", h->tag ? h->tag : "unknown");
	gs_tv_set_bool(d, "steps", h->nsteps > 0);
	for (size_t i = 0; i < h->nphases; i++) {
		const gs_harness_phase *p = &h->phases[i];
		gs_tval *x = gs_tv_push(rows, gs_tv_map());
		set_fmt(x, "step", "%.0f", p->step);
		gs_tv_set_bool(x, "warmup", p->warmup);
		gs_tv_set_str(x, "name", p->name);
		set_gib(x, "allocated", p->allocated, true);
		set_gib(x, "reserved", p->reserved, true);
	}
	gs_tv_set_bool(d, "has_versions", h->has_versions);
	for (size_t i = 0; i < h->nversions; i++) {
		gs_tval *x = gs_tv_push(vers, gs_tv_map());
		gs_tv_set_str(x, "name", h->versions[i].name);
		gs_tv_set_str(x, "value", h->versions[i].value);
	}
}

/* The data of templates/verify.md.tmpl (see templates/README.md). */
static gs_tval *page_data(const gs_measured *m, const gs_verify *v, const gs_harness_result *h)
{
	gs_tval *d = gs_tv_map(), *g = gs_tv_set(d, "gpu", gs_tv_map());
	char *code = md_code_span(m->command ? m->command : "");

	gs_tv_set_str(d, "model", m->model);
	gs_tv_set_str(d, "label", m->label);
	gs_tv_set_str(d, "date", m->date);
	gs_tv_set_str(g, "name", m->gpu_name);
	set_gib(g, "total_gib", m->gpu_total_bytes, true);
	gs_tv_set_str(g, "driver", m->gpu_driver);
	gs_tv_set_str(g, "cuda", m->gpu_cuda);
	gs_tv_set_str(g, "class", m->gpu_class);
	gs_tv_set_bool(g, "fake", m->gpu_fake);
	gs_tv_set_str(d, "result", v->text);
	gs_tv_set_str(d, "recipe", m->pred_recipe);
	gs_tv_set_str(d, "peak_phase", m->pred_peak_phase);
	set_fmt(d, "peak_step", "%.0f", m->pred_peak_step);
	set_fmt(d, "tolerance", "%.3g", m->tolerance_pct);
	gs_tv_set_str(d, "device_method", m->device_method[0] ? m->device_method : "unknown");
	gs_tv_set_bool(d, "inference", m->settings.method == GS_INFER);
	gs_tv_set_str(d, "command_code", code);
	free(code);
	page_lines(d, v);
	page_harness(d, h);
	return d;
}

/* The page's template, read and parsed before the run so that a missing
 * or broken one stops verify before it spends the GPU's time. */
static gs_err page_env(gs_tmpl_env **env, gs_error *e)
{
	char dir[4096], path[4200];
	char *text = NULL;
	gs_error re = {0};
	gs_err rc;

	gs_mdgen_templates_dir(dir, sizeof dir);
	*env = gs_tmpl_env_new(dir, gs_md_escape);
	snprintf(path, sizeof path, "%s/%s", dir, PAGE_TEMPLATE);
	if (gs_read_file(path, GS_TMPL_MAX_SIZE, &text, NULL, &re) != GS_OK)
		return gs_fail(e, GS_ETEMPLATE, "template %s: %s", PAGE_TEMPLATE, re.msg);
	rc = gs_tmpl_env_add(*env, PAGE_TEMPLATE, text, e);
	free(text);
	return rc;
}

/* out/verify/<row>.json (the record) and .md (the page), installed by the
 * output directory's transaction (outdir.h) into out/verify: the pages of
 * earlier rows stay, nothing is written through a symbolic link, and a
 * file in the way that gpusizer did not write stops it (--force). */
static gs_err write_reports(const vopts *o, const gs_measured *m, const gs_verify *v,
                            const gs_harness_result *h, gs_tmpl_env *env, gs_error *e)
{
	gs_outdir_opts oo = { .sub = "verify", .keep_others = true, .force = o->force };
	gs_outdir od;
	char path[4096];
	gs_tbuf md = {0};
	gs_tval *data = NULL;
	char *json = NULL;
	gs_err rc;

	if ((rc = gs_outdir_begin(&od, o->out_dir, &oo, e)) != GS_OK)
		goto out;
	data = page_data(m, v, h);
	if ((rc = gs_tmpl_render(env, PAGE_TEMPLATE, data, &md, e)) != GS_OK)
		goto out;
	json = gs_measured_format(m, true);
	if ((rc = gs_path_join(path, sizeof path, od.tmp, m->row, ".json", e)) != GS_OK ||
	    (rc = gs_write_file_atomic(path, json, strlen(json), e)) != GS_OK ||
	    (rc = gs_path_join(path, sizeof path, od.tmp, m->row, ".md", e)) != GS_OK ||
	    (rc = gs_write_file_atomic(path, md.p ? md.p : "", md.len, e)) != GS_OK)
		goto out;
	rc = gs_outdir_commit(&od, e);
out:
	gs_outdir_abort(&od);
	free(json);
	gs_tv_free(data);
	gs_tbuf_free(&md);
	gs_outdir_reraise(); /* a signal while it wrote: verify ends by it */
	return rc;
}

/* ------------------------------------------------------------ the store */

/* Whether this run's record goes to the store: not with --no-store, nor
 * for a stand-in harness's or a fake GPU's result without --store-standin
 * (real: the harness said it is the real one and the GPU is NVML's). */
static bool will_store(const vopts *o, bool real)
{
	return !o->no_store && (real || o->store_standin);
}

/* Before the run: the store can take the record (gs_measured_check), so
 * that a measurement is not made only to be refused. Skipped when it will
 * not be stored (as far as known before the run: a fake GPU's result is
 * not, a stand-in's is known only from its result). */
static gs_err store_precheck(const vopts *o, const vgpu *g, gs_error *e)
{
	if (!will_store(o, !g->fake))
		return GS_OK;
	return gs_measured_check(o->store, e);
}

/* Append the record (a real run, or a stand-in with --store-standin) and
 * read it back as reports will: the text they show beside the row, in
 * text ("" when not stored). When the append fails, the record is printed
 * on stderr as the store line, so that the measurement is not lost. */
static gs_err store_record(const vopts *o, const gs_measured *m, bool real, char *text, size_t n,
                           gs_error *e)
{
	const char *store = o->store ? o->store : GS_MEASURED_STORE_DEFAULT;
	gs_measured_store st = {0};
	gs_error le = {0};
	const gs_measured *back;
	char *line, shown[256];
	gs_err rc;

	text[0] = '\0';
	if (!will_store(o, real)) {
		if (!o->quiet)
			fprintf(stderr, "gpusizer: verify: %s\n", o->no_store ? "not stored (--no-store)"
			        : "stand-in harness or fake GPU: result not stored");
		return GS_OK;
	}
	line = gs_measured_format(m, false);
	rc = gs_measured_append(store, line, e);
	if (rc != GS_OK) {
		fprintf(stderr, "gpusizer: verify: the record was NOT appended to %s (the reason "
		        "follows); it is in %s/verify/%s.json, and this is its store line:\n%s\n",
		        store, o->out_dir, m->row, line);
		free(line);
		return rc;
	}
	free(line);
	if (!o->quiet)
		fprintf(stderr, "gpusizer: verify: appended to %s\n", store);
	/* Read back as reports read it; the record is stored whatever this says. */
	if (gs_measured_load(store, &st, &le) != GS_OK) {
		fprintf(stderr, "gpusizer: verify: warning: %s\n", le.msg);
		return GS_OK;
	}
	if (st.warning[0] && !o->quiet)
		fprintf(stderr, "gpusizer: verify: warning: %s\n", st.warning);
	back = gs_measured_find(&st, m->model, m->key);
	if (back != NULL) {
		gs_measured_text(back, GS_MK_DEVICE, NULL, shown, sizeof shown);
		snprintf(text, n, "  store: %s\n", shown);
	}
	gs_measured_free(&st);
	return GS_OK;
}

/* ------------------------------------------------------------ stdout */

/* verify --json: the comparison, the verdict and where the record went
 * (out_dir NULL: the page was not written, "report" is null). */
static void print_json_summary(const gs_measured *m, const gs_verify *v, const char *out_dir,
                               const char *store_text)
{
	cJSON *rec = gs_measured_to_json(m), *d = cJSON_CreateObject(), *arr;
	char path[4200], *txt;
	const char *keys[] = { "model", "label", "status", "verdict", "tolerance_pct", "gpu", "date" };

	cJSON_AddStringToObject(d, "command", "verify");
	cJSON_AddStringToObject(d, "row", m->row);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(rec, keys[i]);
		if (x != NULL)
			cJSON_AddItemToObject(d, keys[i], cJSON_Duplicate(x, true));
	}
	arr = cJSON_AddArrayToObject(d, "comparison");
	for (size_t i = 0; i < v->nfig; i++) {
		const gs_verify_line *l = &v->fig[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "figure", l->name);
		cJSON_AddNumberToObject(x, "predicted_bytes", (double)l->pred);
		if (l->have) {
			cJSON_AddNumberToObject(x, "measured_bytes", (double)l->meas);
			cJSON_AddNumberToObject(x, "error_pct", l->err);
			cJSON_AddBoolToObject(x, "within", l->within);
		} else {
			cJSON_AddNullToObject(x, "measured_bytes");
			cJSON_AddNullToObject(x, "error_pct");
			cJSON_AddNullToObject(x, "within");
		}
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddStringToObject(d, "result", v->text);
	if (out_dir != NULL) {
		snprintf(path, sizeof path, "%s/verify/%s.md", out_dir, m->row);
		cJSON_AddStringToObject(d, "report", path);
	} else {
		cJSON_AddNullToObject(d, "report"); /* not written: the error follows */
	}
	cJSON_AddBoolToObject(d, "stored", store_text[0] != '\0');
	txt = cJSON_PrintUnformatted(d);
	if (txt != NULL)
		printf("%s\n", txt);
	free(txt);
	cJSON_Delete(d);
	cJSON_Delete(rec);
}

/* The comparison as text, one line a figure. */
static void print_summary(const char *row, const gs_verify *v, const char *out_dir,
                          const char *store_text)
{
	printf("%s\n", row);
	for (size_t i = 0; i < v->nfig; i++) {
		const gs_verify_line *l = &v->fig[i];
		char a[32], b[32];
		gs_verify_gib(a, sizeof a, l->pred, true);
		gs_verify_gib(b, sizeof b, l->meas, l->have);
		if (l->have)
			printf("  %-9s predicted %8s GiB  measured %8s GiB  error %+6.1f%%  %s\n", l->name, a, b,
			       l->err, l->within ? "ok" : "OUTSIDE");
		else
			printf("  %-9s predicted %8s GiB  measured %s\n", l->name, a, b);
	}
	printf("  result: %s\n", v->text);
	if (out_dir != NULL)
		printf("  report: %s/verify/%s.md\n%s", out_dir, row, store_text);
	else
		printf("  report: not written (the reason follows)\n%s", store_text);
}

/* ------------------------------------------------------------ main */

/* Options into *o (its defaults first); *help for -h/--help. */
static gs_err parse_options(int argc, char **argv, vopts *o, bool *help, gs_error *e)
{
	gs_opt_iter it;
	const gs_opt *opt;
	const char *val;
	int k;

	memset(o, 0, sizeof *o);
	gs_cli_row_init(&o->row);
	o->tolerance = 10.0;
	o->python = "python3";
	o->out_dir = "out";
	o->warmup = 1;
	o->steps = 2;
	o->timeout_s = 3600;
	gs_data_path(GS_DATA_GPUS, o->gpus_buf, sizeof o->gpus_buf);
	o->gpus_dir = o->gpus_buf;
	o->harness = getenv("GPUSIZER_HARNESS");
	if (o->harness && !*o->harness)
		o->harness = NULL;
	o->harness_given = o->harness != NULL;

	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_verify, &it, &opt, &val, e)) > 0) {
		int m = gs_cli_row_apply(&o->row, &gs_cmd_verify, k == 2 ? NULL : opt, val, e);
		if (m == 0 && opt->id == GS_OPT_HELP) {
			*help = true;
			return GS_OK;
		}
		if (m < 0 || (m == 0 && verify_flag(o, opt, val, e) != GS_OK)) {
			k = -1;
			break;
		}
	}
	return k < 0 ? (e->code ? e->code : GS_EUSAGE) : GS_OK;
}

/* What the run measured against the prediction. */
static void compare(const vopts *o, const vpred *p, const vgpu *g, const gs_harness_result *h,
                    gs_verify *v)
{
	gs_verify_in in = {
		.est = &p->est,
		.tolerance_pct = o->tolerance,
		.oom = h->oom,
		.allocated = h->peak_allocated,
		.reserved = h->peak_reserved,
		.device = h->device,
		.load_allocated = h->load_allocated,
		.step1_end_allocated = o->row.s.method != GS_INFER ? h->step1_end_allocated : 0,
		.usable = g->usable,
		.usable_from_class = g->usable_from_class,
	};

	gs_verify_compare(&in, v);
}

int cmd_verify(int argc, char **argv)
{
	vopts o;
	vgpu g = {0};
	vpred p = {0};
	gs_nvml *nv = NULL;
	gs_argv hv = {0};
	gs_harness_result h = {0};
	gs_harness_opts ho;
	gs_verify v;
	gs_measured rec = {0};
	gs_tmpl_env *env = NULL;
	char harness[4096], store_text[300] = "";
	bool help = false, real;
	gs_error e = {0}, pe = {0};
	gs_err rc, prc;

	if ((rc = parse_options(argc, argv, &o, &help, &e)) != GS_OK || help) {
		if (help)
			gs_opt_usage(&gs_cmd_verify, stdout);
		goto out;
	}
	if ((rc = check_row(&o, &e)) != GS_OK)
		goto out;
	/* The GPU first: without one there is nothing to do. */
	if (!o.dry_run && (rc = open_gpu(&o, &g, &nv, &e)) != GS_OK)
		goto out;
	if ((rc = predict(&o, &p, &e)) != GS_OK ||
	    (rc = gs_harness_find(o.harness, harness, sizeof harness, &e)) != GS_OK)
		goto out;
	gs_harness_args(&o.row.s, o.python, harness, p.config, o.warmup, o.steps, &hv);
	if (o.dry_run) {
		print_dry_run(&p, &hv);
		goto out;
	}
	if ((rc = page_env(&env, &e)) != GS_OK || (rc = store_precheck(&o, &g, &e)) != GS_OK)
		goto out;

	if (!o.quiet)
		fprintf(stderr, "gpusizer: verify: %s: running the harness on %s (GPU %u)...\n", p.row,
		        g.info.name, o.gpu_index);
	ho = (gs_harness_opts){ nv, o.gpu_index, g.info.used_bytes, o.timeout_s, o.verbose };
	if ((rc = gs_harness_run(hv.v, &ho, &h, &e)) != GS_OK)
		goto out;
	compare(&o, &p, &g, &h, &v);
	record_fill(&rec, &o, &p, &g, harness, &h, &v, argc, argv);
	/* The pages first; a page that cannot be written (a file in the way,
	 * a full disk) does not cost the measurement: the record is stored
	 * all the same, and the page's error decides the exit status after. */
	prc = write_reports(&o, &rec, &v, &h, env, &pe);
	real = h.tag != NULL && !strcmp(h.tag, GS_HARNESS_TAG) && !g.fake;
	/* A store that fails now still gets the comparison printed; its error
	 * (the record was not kept) decides the exit status. */
	rc = store_record(&o, &rec, real, store_text, sizeof store_text, &e);
	if (o.json)
		print_json_summary(&rec, &v, prc == GS_OK ? o.out_dir : NULL, store_text);
	else
		print_summary(p.row, &v, prc == GS_OK ? o.out_dir : NULL, store_text);
	if (prc != GS_OK && rc == GS_OK) {
		rc = prc;
		e = pe;
	} else if (prc != GS_OK) {
		gs_report_error(&pe); /* and the store's below */
	}
	if (rc == GS_OK && !v.within)
		rc = gs_fail(&e, GS_ETOLERANCE, "verify: %s: %s", p.row, v.text);

out:
	if (rc != GS_OK) {
		if (e.code == GS_OK)
			e.code = rc;
		gs_report_error(&e);
	}
	gs_measured_clear(&rec);
	gs_harness_result_free(&h);
	gs_tmpl_env_free(env);
	gs_argv_free(&hv);
	gs_nvml_close(nv);
	free(o.owned_model);
	if (gs_harness_signal() != 0) {
		/* Stopped by a signal while the harness ran: end by it, as if the
		 * harness had not been there (the shell sees 128 + the signal). */
		fflush(NULL);
		signal(gs_harness_signal(), SIG_DFL);
		raise(gs_harness_signal());
	}
	return gs_exit_code(rc);
}
