/* gpusizer: `list`: the models in the model cache and the GPU classes in the
 * GPU directory, as text or JSON. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "config.h"
#include "err.h"
#include "gpu_file.h"
#include "modelid.h"
#include "opt.h"
#include "paths.h"
#include "settings.h"
#include "stacks.h"
#include "util.h"
#include "fileio.h"
#include "jw.h"

enum { OPT_MODELS_DIR = GS_OPT_OWN, OPT_GPUS_DIR };

static const gs_opt list_opts[] = {
	{ "models-dir", 0, "DIR", 0, OPT_MODELS_DIR, "the model cache to list (default: the checkout's\n"
	  "models/, else $GPUSIZER_HOME/models)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files (default: the installed gpus/)" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "one JSON document" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group list_groups[] = {
	{ "options", list_opts, NULL },
	{ "common (--quiet: ids only; --verbose: the files read)", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
};

const gs_opt_cmd gs_cmd_list = {
	"list",
	"gpusizer list models|gpus|settings|stacks [--models-dir DIR] [--gpus-dir DIR] [--json] [OPTIONS]",
	"models: every model in the model cache and the reference configs that come with\n"
	"gpusizer, with its architecture and parameter count (tallied from its config.json). gpus: every GPU class, with its usable and total\n"
	"memory in GiB (2^30 bytes) and whether it computes in bf16 and fp8. settings: every\n"
	"setting of a row (the settings table): its type, values, default, the methods it\n"
	"applies to, and the XLSX column that shows it. stacks: every stack profile, each\n"
	"setting it sets (with the versions and rows where it holds) and the code it follows.",
	list_groups,
	"Exit status: 0 ok, 2 usage, 3 a bad config.json or GPU file (named), 4 unreadable\n"
	"directory, 16 a directory named missing (--models-dir, --gpus-dir).\n",
};

typedef struct entry {
	char id[256];
	char path[4200];
	const char *source; /* "cache" or "reference" (the configs shipped with gpusizer) */
	gs_arch arch;
} entry;

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const entry *)a)->id, ((const entry *)b)->id);
}

/* Append the models of dir not listed yet (ids already in *out win: the
 * cache is read before the reference configs, as resolution does). */
static gs_err load_models(const char *dir, const char *source, entry **out, size_t *n, gs_error *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	entry *v = *out;
	size_t cnt = *n, cap = *n, first = *n;
	gs_err rc = GS_OK;

	if (d == NULL)
		return gs_fail(e, errno == ENOENT || errno == ENOTDIR ? GS_ENOFILE : GS_EIO,
		               "list: %s: cannot read the model cache (%s)", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		char cfg[4200];
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(cfg, sizeof cfg, "%s/%s/config.json", dir, de->d_name) >= (int)sizeof cfg ||
		    !gs_is_file(cfg))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 32;
			v = gs_xrealloc(v, cap * sizeof *v);
		}
		memset(&v[cnt], 0, sizeof v[cnt]);
		gs_model_slug_id(de->d_name, v[cnt].id, sizeof v[cnt].id);
		v[cnt].source = source;
		bool seen = false;
		for (size_t k = 0; k < first && !seen; k++)
			seen = strcmp(v[k].id, v[cnt].id) == 0;
		if (seen)
			continue;
		snprintf(v[cnt].path, sizeof v[cnt].path, "%s", cfg);
		if ((rc = gs_config_load(cfg, &v[cnt].arch, e)) != GS_OK)
			break;
		cnt++;
	}
	closedir(d);
	*out = v;
	*n = cnt;
	if (rc != GS_OK)
		return rc;
	if (cnt > 1)
		qsort(v, cnt, sizeof *v, cmp_entry);
	return GS_OK;
}

static void print_models(const entry *v, size_t n, const char *dir, bool json, bool quiet,
                         bool verbose)
{
	if (json) {
		fputs("{\"command\":\"list\",\"what\":\"models\",\"models_dir\":", stdout);
		gs_json_str(stdout, dir);
		fputs(",\"models\":[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n {\"id\":" : "\n {\"id\":", stdout);
			gs_json_str(stdout, v[i].id);
			fputs(",\"model_type\":", stdout);
			gs_json_str(stdout, v[i].arch.model_type);
			fputs(",\"source\":", stdout);
			gs_json_str(stdout, v[i].source);
			printf(",\"params_total\":%" PRIu64 ",\"params_active\":%" PRIu64
			       ",\"max_position_embeddings\":%" PRId64 ",\"config\":",
			       v[i].arch.params_total, v[i].arch.params_active, v[i].arch.max_pos);
			gs_json_str(stdout, v[i].path);
			fputc('}', stdout);
		}
		fputs(n ? "\n]}\n" : "]}\n", stdout);
		return;
	}
	if (quiet) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", v[i].id);
		return;
	}
	printf("%-40s %-14s %12s %10s  %s\n", "model", "type", "params (B)", "max ctx", "from");
	for (size_t i = 0; i < n; i++) {
		printf("%-40s %-14s %12.3f %10" PRId64 "  %s\n", v[i].id, v[i].arch.model_type,
		       (double)v[i].arch.params_total / 1e9, v[i].arch.max_pos, v[i].source);
		if (verbose)
			printf("  %s\n", v[i].path);
	}
	printf("%zu model%s (cache: %s)\n", n, n == 1 ? "" : "s", dir);
}

static void print_gpus(const gs_gpu *g, size_t n, const char *dir, bool json, bool quiet)
{
	if (json) {
		fputs("{\"command\":\"list\",\"what\":\"gpus\",\"gpus_dir\":", stdout);
		gs_json_str(stdout, dir);
		fputs(",\"gpus\":[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n {\"id\":" : "\n {\"id\":", stdout);
			gs_json_str(stdout, g[i].id);
			fputs(",\"name\":", stdout);
			gs_json_str(stdout, g[i].name);
			fputs(",\"class\":", stdout);
			gs_json_str(stdout, g[i].klass);
			printf(",\"usable_bytes\":%" PRIu64 ",\"total_bytes\":%" PRIu64 ",\"usable_gib\":%.2f,"
			       "\"bf16\":%s,\"fp8\":%s}",
			       g[i].usable_bytes, g[i].total_bytes, (double)g[i].usable_bytes / GS_GIB,
			       g[i].bf16 ? "true" : "false", g[i].fp8 ? "true" : "false");
		}
		fputs(n ? "\n]}\n" : "]}\n", stdout);
		return;
	}
	if (quiet) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", g[i].id);
		return;
	}
	printf("%-16s %-30s %-8s %11s %10s %5s %4s\n", "id", "name", "class", "usable GiB", "total GiB",
	       "bf16", "fp8");
	for (size_t i = 0; i < n; i++)
		printf("%-16s %-30s %-8s %11.1f %10.1f %5s %4s\n", g[i].id, g[i].name, g[i].klass,
		       (double)g[i].usable_bytes / GS_GIB, (double)g[i].total_bytes / GS_GIB,
		       g[i].bf16 ? "yes" : "no", g[i].fp8 ? "yes" : "no");
	printf("%zu GPU class%s in %s\n", n, n == 1 ? "" : "es", dir);
}

static const char *const type_names[] = { "enum", "boolean", "integer", "number", "text" };

/* The settings table, as the command line, the spec, the writers and the
 * row key read it. */
static void print_settings(bool json, bool quiet)
{
	const gs_setting *t = gs_settings_table();
	size_t n = gs_settings_count();

	if (json) {
		fputs("{\"command\":\"list\",\"what\":\"settings\",\"settings\":[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n {\"name\":" : "\n {\"name\":", stdout);
			gs_json_str(stdout, t[i].name);
			printf(",\"type\":\"%s\",\"values\":", type_names[t[i].type]);
			if (t[i].values == NULL) {
				fputs("null", stdout);
			} else {
				for (size_t k = 0; t[i].values[k] != NULL; k++) {
					fputs(k ? "," : "[", stdout);
					gs_json_str(stdout, t[i].values[k]);
				}
				fputc(']', stdout);
			}
			if (t[i].type == GS_ST_INT || t[i].type == GS_ST_REAL)
				printf(",\"min\":%.10g,\"max\":%.10g", t[i].lo, t[i].hi);
			fputs(",\"default\":", stdout);
			if (t[i].def != NULL)
				gs_json_str(stdout, t[i].def);
			else
				fputs("null", stdout);
			fputs(",\"methods\":[", stdout);
			for (int m = 0, first = 1; m < GS_METHOD_MAX; m++)
				if (t[i].methods & GS_M(m)) {
					fputs(first ? "" : ",", stdout);
					gs_json_str(stdout, gs_method_name((gs_method)m));
					first = 0;
				}
			printf("],\"swept\":%s,\"harness\":%s,\"xlsx_column\":",
			       t[i].flags & GS_SF_SWEPT ? "true" : "false",
			       t[i].flags & GS_SF_HARNESS ? "true" : "false");
			gs_json_str(stdout, t[i].title);
			fputs(",\"help\":", stdout);
			gs_json_str(stdout, t[i].help);
			fputs(",\"axis\":", stdout);
			if (t[i].axis.order > 0) {
				printf("{\"order\":%d,\"spec_key\":", t[i].axis.order);
				gs_json_str(stdout, t[i].axis.spec_key);
				fputs(",\"option\":", stdout);
				gs_json_str(stdout, t[i].axis.option);
				printf(",\"per_method\":%s,\"gpu_layouts\":%s}",
				       t[i].axis.flags & GS_AXF_PER_METHOD ? "true" : "false",
				       t[i].axis.flags & GS_AXF_COUNTS ? "true" : "false");
			} else {
				fputs("null", stdout);
			}
			fputc('}', stdout);
		}
		fputs("\n]}\n", stdout);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char methods[64] = "";
		if (quiet) {
			printf("%s\n", t[i].name);
			continue;
		}
		if (t[i].methods == GS_M_ALL)
			snprintf(methods, sizeof methods, "all");
		else
			for (int m = 0; m < GS_METHOD_MAX; m++)
				if (t[i].methods & GS_M(m))
					snprintf(methods + strlen(methods), sizeof methods - strlen(methods), "%s%s",
					         methods[0] ? "," : "", gs_method_name((gs_method)m));
		printf("%-19s %-8s default %-9s methods %-17s %s\n", t[i].name, type_names[t[i].type],
		       t[i].def ? t[i].def : "(derived)", methods, t[i].help);
	}
	if (!quiet)
		printf("%zu settings\n", n);
}

/* A choice's versions and condition, "[4.32, 4.54) full fine-tuning". */
static void set_scope(const gs_stack_set *x, char *buf, size_t n)
{
	const char *w = gs_stack_when_text(x->when);
	int k = 0;

	buf[0] = '\0';
	if (x->since != NULL || x->until != NULL)
		k = snprintf(buf, n, "%s%s%s%s", x->since ? ">= " : "", x->since ? x->since : "",
		             x->since && x->until ? ", < " : x->until ? "< " : "", x->until ? x->until : "");
	if (k >= 0 && (size_t)k < n && w[0])
		snprintf(buf + k, n - (size_t)k, "%s%s", k ? "; " : "", w);
}

/* The stack profiles (stacks.h): each one's choices and their sources. */
static void print_stacks(bool json, bool quiet)
{
	size_t n;
	const gs_stack *t = gs_stacks(&n);

	if (json) {
		fputs("{\"command\":\"list\",\"what\":\"stacks\",\"stacks\":[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n {\"name\":" : "\n {\"name\":", stdout);
			gs_json_str(stdout, t[i].name);
			fputs(",\"what\":", stdout);
			gs_json_str(stdout, t[i].what);
			fputs(",\"version\":", stdout);
			gs_json_str(stdout, t[i].version);
			printf(",\"modifier\":%s,\"base\":", t[i].modifier ? "true" : "false");
			if (t[i].base)
				gs_json_str(stdout, t[i].base);
			else
				fputs("null", stdout);
			fputs(",\"sets\":[", stdout);
			for (size_t k = 0; k < t[i].n_sets; k++) {
				const gs_stack_set *x = &t[i].sets[k];
				fputs(k ? ",{\"setting\":" : "{\"setting\":", stdout);
				gs_json_str(stdout, x->setting);
				fputs(",\"value\":", stdout);
				gs_json_str(stdout, x->value);
				fputs(",\"since\":", stdout);
				if (x->since)
					gs_json_str(stdout, x->since);
				else
					fputs("null", stdout);
				fputs(",\"until\":", stdout);
				if (x->until)
					gs_json_str(stdout, x->until);
				else
					fputs("null", stdout);
				fputs(",\"when\":", stdout);
				gs_json_str(stdout, gs_stack_when_text(x->when));
				printf(",\"weak\":%s,\"source\":", x->weak ? "true" : "false");
				gs_json_str(stdout, x->source);
				fputc('}', stdout);
			}
			fputs("]}", stdout);
		}
		fputs("\n]}\n", stdout);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (quiet) {
			printf("%s\n", t[i].name);
			continue;
		}
		printf("%s (%s; read at %s%s%s)\n", t[i].name, t[i].what, t[i].version, t[i].base ? "; over " : "",
		       t[i].base ? t[i].base : "");
		for (size_t k = 0; k < t[i].n_sets; k++) {
			const gs_stack_set *x = &t[i].sets[k];
			char scope[128];
			set_scope(x, scope, sizeof scope);
			printf("  %s %s%s%s%s%s\n      %s\n", x->setting, x->value, scope[0] ? "  [" : "", scope,
			       scope[0] ? "]" : "", x->weak ? " (unless an earlier stack chose it)" : "", x->source);
		}
	}
	if (!quiet)
		printf("%zu stacks: --stack NAME[@VERSION][,NAME...], later ones win, a flag beside it wins over all "
		       "(default hf,trl)\n", n);
}

int cmd_list(int argc, char **argv)
{
	gs_error e = { 0 };
	gs_opt_iter it;
	const gs_opt *o;
	const char *val, *what = NULL;
	char models_buf[4096], gpus_buf[4096];
	const char *models_dir = models_buf, *gpus_dir = gpus_buf;
	bool json = false, quiet = false, verbose = false, models_dir_given = false;
	gs_err rc;
	int k;

	gs_models_dir_default(models_buf, sizeof models_buf);
	gs_data_path(GS_DATA_GPUS, gpus_buf, sizeof gpus_buf);
	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_list, &it, &o, &val, &e)) > 0) {
		if (k == 2) {
			if (what != NULL) {
				gs_fail(&e, GS_EUSAGE, "list: one of models, gpus, settings or stacks, not '%s' and '%s'", what, val);
				return gs_cmd_usage_error(&e);
			}
			what = val;
			continue;
		}
		switch (o->id) {
		case GS_OPT_HELP:
			gs_opt_usage(&gs_cmd_list, stdout);
			return 0;
		case GS_OPT_QUIET: quiet = true; verbose = false; break;
		case GS_OPT_VERBOSE: verbose = true; quiet = false; break;
		case GS_OPT_JSON: json = true; break;
		case OPT_MODELS_DIR: models_dir = val; models_dir_given = true; break;
		case OPT_GPUS_DIR: gpus_dir = val; break;
		}
	}
	if (k < 0)
		return gs_cmd_usage_error(&e);
	if (what != NULL && strcmp(what, "settings") == 0) {
		print_settings(json, quiet);
	} else if (what != NULL && strcmp(what, "stacks") == 0) {
		print_stacks(json, quiet);
	} else if (what == NULL || (strcmp(what, "models") != 0 && strcmp(what, "gpus") != 0)) {
		gs_fail(&e, GS_EUSAGE, "list: say what to list: 'gpusizer list models', 'gpusizer list gpus', 'gpusizer list settings' or 'gpusizer list stacks'%s%s%s",
		        what ? " (not '" : "", what ? what : "", what ? "')" : "");
		return gs_cmd_usage_error(&e);
	} else if (strcmp(what, "models") == 0) {
		entry *v = NULL;
		size_t n = 0;
		char shipped[4096];
		/* The cache (a missing one is empty), then, unless --models-dir
		 * named one, the reference configs that come with gpusizer. */
		rc = load_models(models_dir, "cache", &v, &n, &e);
		if (rc == GS_ENOFILE && !models_dir_given) {
			memset(&e, 0, sizeof e);
			rc = GS_OK;
		}
		if (rc == GS_OK && !models_dir_given && gs_models_dir_shipped(shipped, sizeof shipped) &&
		    strcmp(shipped, models_dir) != 0)
			rc = load_models(shipped, "reference", &v, &n, &e);
		if (rc != GS_OK) {
			free(v);
			gs_report_error(&e);
			return gs_exit_code(rc);
		}
		if (verbose)
			fprintf(stderr, "gpusizer: list: model cache %s\n", models_dir);
		print_models(v, n, models_dir, json, quiet, verbose);
		free(v);
	} else {
		gs_gpu *g;
		size_t n;
		if ((rc = gs_gpus_load(gpus_dir, &g, &n, &e)) != GS_OK) {
			gs_report_error(&e);
			return gs_exit_code(rc);
		}
		if (verbose)
			fprintf(stderr, "gpusizer: list: GPU classes %s\n", gpus_dir);
		print_gpus(g, n, gpus_dir, json, quiet);
		free(g);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("gpusizer: list: write error on standard output\n", stderr);
		return gs_exit_code(GS_EIO);
	}
	return 0;
}
