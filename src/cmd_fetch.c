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
#include "err.h"
#include "hub.h"
#include "models.h"
#include "paths.h"
#include "util.h"

static void usage(FILE *fp)
{
	fputs("usage: gpusizer fetch [--models-dir DIR] [--revision REV] [--offline] [--jobs N]\n"
	      "                      ID[@REV]...\n"
	      "  Stores config.json and meta.json (commit sha, ETags, parameter counts and\n"
	      "  where each came from) under DIR/<org>--<name>/ (default models/).\n"
	      "  --models-dir DIR  cache directory (default models)\n"
	      "  --revision REV    branch, tag or commit for ids without @REV (default main)\n"
	      "  --offline         never use the network (also HF_HUB_OFFLINE=1); report what\n"
	      "                    is missing\n"
	      "  --jobs N          requests in flight at once (default 16)\n"
	      "Environment: HF_TOKEN (or HF_TOKEN_PATH, HF_HOME/token), HF_ENDPOINT (mirror),\n"
	      "  GPUSIZER_TIMEOUT (s per request, default 60), GPUSIZER_RETRIES (default 5),\n"
	      "  GPUSIZER_MAX_RETRY_WAIT (s, default 60).\n",
	      fp);
}

/* "--name VALUE" or "--name=VALUE"; returns the value or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
	size_t n = strlen(name);
	*matched = false;
	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=') {
		*matched = true;
		return argv[*i] + n + 1;
	}
	if (argv[*i][n] != '\0')
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int cmd_fetch(int argc, char **argv)
{
	gs_hub_opts o;
	const char **ids;
	int n = 0;
	gs_hub_result *res;
	gs_error e = {0};
	gs_err rc;
	struct timespec t0;
	int ok = 0, unchanged = 0, failed = 0, nm = 0, reqs = 0;
	uint64_t bytes = 0;
	char models_buf[4096];

	memset(&o, 0, sizeof o);
	o.jobs = 16;
	gs_models_dir_default(models_buf, sizeof models_buf);
	o.models_dir = models_buf;
	ids = gs_xcalloc((size_t)(argc > 0 ? argc : 1), sizeof *ids);
	for (int i = 1; i < argc; i++) {
		const char *v;
		bool m;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			free(ids);
			return 0;
		}
		if (strcmp(argv[i], "--offline") == 0) {
			o.offline = true;
			continue;
		}
		v = opt_value(argc, argv, &i, "--models-dir", &m);
		if (m) {
			if (v == NULL || v[0] == '\0')
				goto missing;
			o.models_dir = v;
			continue;
		}
		v = opt_value(argc, argv, &i, "--revision", &m);
		if (m) {
			if (v == NULL || v[0] == '\0')
				goto missing;
			o.revision = v;
			continue;
		}
		v = opt_value(argc, argv, &i, "--jobs", &m);
		if (m) {
			char *end;
			long j;
			if (v == NULL)
				goto missing;
			errno = 0;
			j = strtol(v, &end, 10);
			if (errno || *end || j < 1 || j > 256) {
				fprintf(stderr, "gpusizer: fetch: --jobs wants a number from 1 to 256, not "
				        "\"%s\"\n", v);
				free(ids);
				return gs_exit_code(GS_EUSAGE);
			}
			o.jobs = (int)j;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			fprintf(stderr, "gpusizer: fetch: unknown option \"%s\"; try 'gpusizer fetch "
			        "--help'\n", argv[i]);
			free(ids);
			return gs_exit_code(GS_EUSAGE);
		}
		ids[n++] = argv[i];
		continue;
	missing:
		fprintf(stderr, "gpusizer: fetch: %s needs a value; try 'gpusizer fetch --help'\n",
		        argv[i]);
		free(ids);
		return gs_exit_code(GS_EUSAGE);
	}
	if (n == 0) {
		fputs("gpusizer: fetch: no model id given (e.g. gpusizer fetch openai-community/gpt2)\n",
		      stderr);
		free(ids);
		return gs_exit_code(GS_EUSAGE);
	}
	if (o.revision != NULL) {
		char repo[256], rev[256], probe[600];
		snprintf(probe, sizeof probe, "x/x@%s", o.revision);
		if (gs_model_parse_id(probe, repo, sizeof repo, rev, sizeof rev, &e) != GS_OK) {
			fprintf(stderr, "gpusizer: fetch: --revision \"%s\" is not a valid revision\n",
			        o.revision);
			free(ids);
			return gs_exit_code(GS_EUSAGE);
		}
	}
	o.progress = isatty(2);
	res = gs_xcalloc((size_t)n, sizeof *res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = gs_hub_fetch(&o, ids, n, res, &e);
	if (rc == GS_EUSAGE) {
		gs_report_error(&e);
		free(res);
		free(ids);
		return gs_exit_code(rc);
	}
	for (int i = 0; i < n; i++) {
		gs_hub_result *r = &res[i];
		reqs += r->requests;
		nm += r->not_modified;
		bytes += r->body_bytes;
		if (r->err.code != GS_OK) {
			failed++;
			gs_report_error(&r->err);
			printf("failed     %s (exit %d: %s)\n", ids[i], gs_exit_code(r->err.code),
			       gs_strerror(r->err.code));
			continue;
		}
		if (gs_offline(o.offline)) {
			ok++;
			printf("cached     %s\n", ids[i]);
			continue;
		}
		if (r->unchanged)
			unchanged++;
		else
			ok++;
		printf("%-10s %s sha %.12s", r->unchanged ? "unchanged" : "ok", ids[i],
		       r->sha[0] ? r->sha : "?");
		if (r->params_hub)
			printf(" params: hub %llu", (unsigned long long)r->params_hub);
		if (r->params_header)
			printf("%s headers %llu", r->params_hub ? "," : " params:",
			       (unsigned long long)r->params_header);
		if (r->params_config)
			printf("%s config %llu", r->params_hub || r->params_header ? "," : " params:",
			       (unsigned long long)r->params_config);
		printf("; %d requests (%d not modified), %llu body bytes\n", r->requests,
		       r->not_modified, (unsigned long long)r->body_bytes);
	}
	printf("fetch: %d model%s: %d ok, %d unchanged, %d failed; %d requests (%d not modified), "
	       "%llu body bytes, %.2f s\n", n, n == 1 ? "" : "s", ok, unchanged, failed, reqs, nm,
	       (unsigned long long)bytes, since(&t0));
	free(res);
	free(ids);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("gpusizer: fetch: write error on standard output\n", stderr);
		return gs_exit_code(rc != GS_OK ? rc : GS_EIO);
	}
	return gs_exit_code(rc);
}
