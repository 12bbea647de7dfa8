/* gpusizer: `fetch`: fetch model configs and exact parameter counts from the
 * Hugging Face Hub (or a mirror) into the model cache. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "numfmt.h"
#include "err.h"
#include "hub.h"
#include "modelid.h"
#include "opt.h"
#include "paths.h"
#include "resolve.h"
#include "util.h"
#include "jw.h"

enum { OPT_MODELS_DIR = GS_OPT_OWN, OPT_REVISION, OPT_OFFLINE, OPT_JOBS, OPT_DEADLINE };

static const gs_opt fetch_opts[] = {
	{ "models-dir", 0, "DIR", 0, OPT_MODELS_DIR, "the model cache (default: the checkout's models/,\n"
	  "else $GPUSIZER_HOME/models)" },
	{ "revision", 0, "REV", 0, OPT_REVISION, "branch, tag or commit for ids without @REV (main)" },
	{ "offline", 0, NULL, 0, OPT_OFFLINE, "never use the network (also HF_HUB_OFFLINE=1,\n"
	  "GPUSIZER_OFFLINE=1): report what is cached; not cached: exit 10" },
	{ "jobs", 0, "N", 0, OPT_JOBS, "requests in flight at once, 1-256 (16)" },
	{ "deadline", 0, "SECONDS", 0, OPT_DEADLINE, "stop the whole fetch after SECONDS (600;\n"
	  "0: no limit): models not done by then fail, exit 6,\n"
	  "their cache entries unchanged" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "one JSON document: every model's status and exit reason" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group fetch_groups[] = {
	{ "options", fetch_opts, NULL },
	{ "common", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
};

const gs_opt_cmd gs_cmd_fetch = {
	"fetch",
	"gpusizer fetch [OPTIONS] ID[@REV]...",
	"Store config.json and meta.json (commit sha, ETags, parameter counts and where each\n"
	"came from) under DIR/<org>--<name>/, or DIR/<org>--<name>@REV/ for a revision other\n"
	"than main. A refresh that brings nothing new leaves both files as they were.",
	fetch_groups,
	"Environment: HF_TOKEN (or HF_TOKEN_PATH, HF_HOME/token), HF_ENDPOINT (mirror),\n"
	"GPUSIZER_TIMEOUT (s per request, default 60), GPUSIZER_RETRIES (default 5; a host\n"
	"that cannot be resolved or connected to: at most 1),\n"
	"GPUSIZER_MAX_RETRY_WAIT (s, default 60), GPUSIZER_LOCK_WAIT (s to wait for a cache\n"
	"entry another run is updating, default 600). A config.json gpusizer cannot size is\n"
	"not stored. Tokens and HF_ENDPOINT credentials are never printed or stored.\n"
	"Exit status: the worst model's: 0 ok, 2 usage, 3 config.json cannot be sized,\n"
	"4 write failed, 6 network (also a broken response, the deadline), 7 gated,\n"
	"8 private or token refused, 9 not found, 10 offline and not cached, 15 cache entry\n"
	"locked by another run.\n",
};

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void json_model(FILE *fp, const char *id, const gs_hub_result *r, const char *status, bool first)
{
	fputs(first ? "\n {\"id\":" : ",\n {\"id\":", fp);
	gs_json_str(fp, id);
	fputs(",\"status\":", fp);
	gs_json_str(fp, status);
	fprintf(fp, ",\"exit\":%d,\"reason\":", gs_exit_code(r->err.code));
	if (r->err.code != GS_OK)
		gs_json_str(fp, r->err.msg[0] ? r->err.msg : gs_strerror(r->err.code));
	else
		fputs("null", fp);
	fputs(",\"sha\":", fp);
	if (r->sha[0])
		gs_json_str(fp, r->sha);
	else
		fputs("null", fp);
	fprintf(fp, ",\"params\":{\"hub\":%llu,\"headers\":%llu,\"config\":%llu},\"requests\":%d,"
	        "\"not_modified\":%d,\"body_bytes\":%llu}",
	        (unsigned long long)r->params_hub, (unsigned long long)r->params_header,
	        (unsigned long long)r->params_config, r->requests, r->not_modified,
	        (unsigned long long)r->body_bytes);
}

static void text_model(FILE *fp, const char *id, const gs_hub_result *r, const char *status)
{
	if (r->err.code != GS_OK) {
		fprintf(fp, "failed     %s (exit %d: %s)\n", id, gs_exit_code(r->err.code),
		        gs_strerror(r->err.code));
		return;
	}
	if (strcmp(status, "cached") == 0) {
		fprintf(fp, "cached     %s\n", id);
		return;
	}
	fprintf(fp, "%-10s %s sha %.12s", status, id, r->sha[0] ? r->sha : "?");
	if (r->params_hub)
		fprintf(fp, " params: hub %llu", (unsigned long long)r->params_hub);
	if (r->params_header)
		fprintf(fp, "%s headers %llu", r->params_hub ? "," : " params:",
		        (unsigned long long)r->params_header);
	if (r->params_config)
		fprintf(fp, "%s config %llu", r->params_hub || r->params_header ? "," : " params:",
		        (unsigned long long)r->params_config);
	fprintf(fp, "; %d requests (%d not modified), %llu body bytes\n", r->requests, r->not_modified,
	        (unsigned long long)r->body_bytes);
}

/* What the command line asks for: the hub options and the ids (into argv). */
typedef struct fetch_args {
	gs_hub_opts o;
	const char **ids;
	int n;
	char models_buf[4096];
	bool json, quiet, verbose;
} fetch_args;

/* A number option's value into o (--deadline, --jobs); GS_EUSAGE naming it. */
static gs_err number_opt(fetch_args *a, const gs_opt *opt, const char *val, gs_error *e)
{
	char *end;

	errno = 0;
	if (opt->id == OPT_DEADLINE) {
		double d = strtod(val, &end);
		if (errno || end == val || *end || !(d >= 0 && d <= 1e7))
			return gs_opt_bad_value(&gs_cmd_fetch, opt, val, "a number of seconds from 0 (no limit) "
			                        "to 10000000", e);
		a->o.deadline_s = d > 0 ? d : -1;
		return GS_OK;
	}
	int64_t j = 0;
	if (!gs_parse_i64(val, SIZE_MAX, &j) || j < 1 || j > 256)
		return gs_opt_bad_value(&gs_cmd_fetch, opt, val, "a number from 1 to 256", e);
	a->o.jobs = (int)j;
	return GS_OK;
}

/* The options into a. Returns 1 to go on, 0 when done (--help printed),
 * -1 on a usage error (in e). */
static int parse_args(fetch_args *a, int argc, char **argv, gs_error *e)
{
	gs_opt_iter it;
	const gs_opt *opt;
	const char *val;
	int k;

	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_fetch, &it, &opt, &val, e)) > 0) {
		if (k == 2) {
			a->ids[a->n++] = val;
			continue;
		}
		switch (opt->id) {
		case GS_OPT_HELP: gs_opt_usage(&gs_cmd_fetch, stdout); return 0;
		case GS_OPT_QUIET: a->quiet = true; a->verbose = false; break;
		case GS_OPT_VERBOSE: a->verbose = true; a->quiet = false; break;
		case GS_OPT_JSON: a->json = true; break;
		case OPT_OFFLINE: a->o.offline = true; break;
		case OPT_MODELS_DIR: a->o.models_dir = val; break;
		case OPT_REVISION: a->o.revision = val; break;
		case OPT_DEADLINE:
		case OPT_JOBS:
			if (number_opt(a, opt, val, e) != GS_OK)
				return -1;
			break;
		}
	}
	if (k < 0)
		return -1;
	if (a->n == 0) {
		gs_fail(e, GS_EUSAGE, "fetch: no model id given (e.g. gpusizer fetch openai-community/gpt2)");
		return -1;
	}
	if (a->o.revision != NULL) {
		char repo[256], rev[256], probe[600];
		gs_error sub = { 0 };
		snprintf(probe, sizeof probe, "x/x@%s", a->o.revision);
		if (gs_model_parse_id(probe, repo, sizeof repo, rev, sizeof rev, &sub) != GS_OK) {
			gs_fail(e, GS_EUSAGE, "fetch: --revision '%s' is not a valid revision", a->o.revision);
			return -1;
		}
	}
	return 1;
}

/* Every model's outcome (its error on stderr), then the totals; text or
 * one JSON document. rc: the fetch's. */
static void print_results(const fetch_args *a, gs_hub_result *res, double secs, gs_err rc)
{
	int ok = 0, unchanged = 0, failed = 0, nm = 0, reqs = 0, n = a->n;
	uint64_t bytes = 0;

	if (a->json) {
		fputs("{\"command\":\"fetch\",\"models_dir\":", stdout);
		gs_json_str(stdout, a->o.models_dir);
		fputs(",\"models\":[", stdout);
	}
	for (int i = 0; i < n; i++) {
		gs_hub_result *r = &res[i];
		const char *status = r->err.code != GS_OK ? "failed" : a->o.offline ? "cached"
		                     : r->unchanged ? "unchanged" : "ok";
		reqs += r->requests;
		nm += r->not_modified;
		bytes += r->body_bytes;
		if (r->err.code != GS_OK) {
			failed++;
			gs_report_error(&r->err);
		} else if (r->unchanged && !a->o.offline) {
			unchanged++;
		} else {
			ok++;
		}
		if (a->json)
			json_model(stdout, a->ids[i], r, status, i == 0);
		else if (!a->quiet || r->err.code != GS_OK)
			text_model(stdout, a->ids[i], r, status);
	}
	if (a->json)
		printf("\n],\"ok\":%d,\"unchanged\":%d,\"failed\":%d,\"requests\":%d,\"not_modified\":%d,"
		       "\"body_bytes\":%llu,\"seconds\":%.2f,\"exit\":%d}\n", ok, unchanged, failed, reqs, nm,
		       (unsigned long long)bytes, secs, gs_exit_code(rc));
	else
		printf("fetch: %d model%s: %d ok, %d unchanged, %d failed; %d requests (%d not modified), "
		       "%llu body bytes, %.2f s\n", n, n == 1 ? "" : "s", ok, unchanged, failed, reqs, nm,
		       (unsigned long long)bytes, secs);
}

int cmd_fetch(int argc, char **argv)
{
	static fetch_args a;
	gs_hub_result *res;
	gs_error e = { 0 };
	struct timespec t0;
	gs_err rc;
	int k;

	memset(&a, 0, sizeof a);
	a.o.jobs = 16;
	gs_models_dir_default(a.models_buf, sizeof a.models_buf);
	a.o.models_dir = a.models_buf;
	a.ids = gs_xcalloc((size_t)(argc > 0 ? argc : 1), sizeof *a.ids);
	k = parse_args(&a, argc, argv, &e);
	if (k <= 0) {
		free(a.ids);
		return k < 0 ? gs_cmd_usage_error(&e) : 0;
	}
	a.o.offline = gs_offline(a.o.offline);
	a.o.progress = !a.quiet && (a.verbose || isatty(2));
	res = gs_xcalloc((size_t)a.n, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = gs_models_fetch(&a.o, a.ids, a.n, res, &e);
	if (rc == GS_EUSAGE) {
		gs_report_error(&e);
		free(res);
		free(a.ids);
		return gs_exit_code(rc);
	}
	print_results(&a, res, since(&t0), rc);
	free(res);
	free(a.ids);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("gpusizer: fetch: write error on standard output\n", stderr);
		return gs_exit_code(rc != GS_OK ? rc : GS_EIO);
	}
	return gs_exit_code(rc);
}
