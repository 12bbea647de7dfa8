/* gpusizer: GPU classes from gpus/<id>.json (one file per GPU), validated.
 * See docs/spec.md, "GPU files". */
#define _POSIX_C_SOURCE 200809L
#include "gpu_file.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "constants.h"
#include "jsoncheck.h"
#include "jsonget.h"
#include "redact.h"
#include "util.h"
#include "fileio.h"

#define GPU_FILE_MAX (256 * 1024)
/* GS_GPU_TFLOPS_MAX and GS_GPU_GBS_MAX (constants.h) as messages say them. */
#define TFLOPS_MAX_TEXT "1,000,000"
#define GBS_MAX_TEXT "1,000,000"
_Static_assert((long long)GS_GPU_TFLOPS_MAX == 1000000 && (long long)GS_GPU_GBS_MAX == 1000000, "update TFLOPS_MAX_TEXT and GBS_MAX_TEXT");

static const char *const known_fields[] = {
	"name", "class", "total_bytes", "total_mib", "usable_bytes", "usable_mib", "bf16", "fp8",
	"bandwidth_gbs", "bf16_tflops", "segment", "architecture", "fp8_tflops", "interconnect",
	"link_gbs", "pcie_gen", "pcie_lanes", "price_usd_per_hour", "price_date", "sources", "notes",
	"fp4", "fp4_tflops", "unified_memory", NULL,
};

/* Figures that need an entry in "sources" when present. */
static const char *const sourced_fields[] = {
	"total_bytes", "total_mib", "usable_bytes", "usable_mib", "bf16", "fp8",
	"bandwidth_gbs", "bf16_tflops", "architecture", "fp8_tflops", "interconnect", "link_gbs",
	"pcie_gen", "pcie_lanes", "price_usd_per_hour", "fp4", "fp4_tflops", "unified_memory", NULL,
};

/* The GPU-to-GPU links a file may name ("none": only the host link). */
static const char *const links[] = {
	"none", "nvlink-bridge", "nvlink2", "nvlink3", "nvlink4", "nvlink5", "infinity-fabric", NULL,
};

static bool known(const char *k)
{
	for (int i = 0; known_fields[i] != NULL; i++)
		if (strcmp(known_fields[i], k) == 0)
			return true;
	return false;
}

static bool valid_id(const char *s)
{
	if (*s == '\0' || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

/* "YYYY-MM-DD", month 01-12, day 01-31. */
static bool valid_date(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return false;
	int m = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
	return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

/* The file as a JSON object (*text and *root the caller's to free):
 * readable, well-formed UTF-8, no key twice, a valid id from its name, no
 * unknown field. */
static gs_err read_root(const char *path, const char *stem, gs_gpu *g, char **text, cJSON **root, gs_error *e)
{
	const cJSON *it;
	gs_err rc = gs_read_file(path, GPU_FILE_MAX, text, NULL, e);

	if (rc != GS_OK) {
		if (rc == GS_EINPUT && e != NULL)
			e->code = GS_EGPUFILE;
		return rc == GS_EINPUT ? GS_EGPUFILE : rc;
	}
	*root = cJSON_Parse(*text);
	if (*root == NULL && gs_json_depth_check(*text, strlen(*text), path, GS_EGPUFILE, e) != GS_OK)
		return GS_EGPUFILE;
	if (*root == NULL || !cJSON_IsObject(*root))
		return gs_fail(e, GS_EGPUFILE, "%s: not a JSON object", path);
	/* UTF-8 and no key twice, as configs and specs (cJSON keeps the first). */
	rc = gs_json_check(*text, strlen(*text), path, GS_EGPUFILE, e);
	if (rc != GS_OK)
		return rc;
	if (strlen(stem) >= sizeof g->id || !valid_id(stem))
		return gs_fail(e, GS_EGPUFILE, "%s: file name: use letters, digits, '-', '_', '.' (at most %zu)",
		               path, sizeof g->id - 1);
	memcpy(g->id, stem, strlen(stem) + 1);
	cJSON_ArrayForEach(it, *root)
	{
		if (!known(it->string))
			return gs_fail(e, GS_EGPUFILE, "%s: unknown field \"%s\"", path, it->string);
	}
	return GS_OK;
}

/* The class's figures: name, class, memory, formats, speed, segment and
 * architecture (into jg's first error). */
static void read_figures(gs_jget *jg, const cJSON *root, gs_gpu *g)
{
	gs_jget_strcpy(jg, root, "name", g->name, sizeof g->name, true);
	gs_jget_strcpy(jg, root, "class", g->klass, sizeof g->klass, true);
	g->total_bytes = gs_jget_bytes(jg, root, "total", true);
	g->usable_bytes = gs_jget_bytes(jg, root, "usable", true);
	g->bf16 = gs_jget_bool(jg, root, "bf16", false, true);
	g->fp8 = gs_jget_bool(jg, root, "fp8", false, true);
	g->bandwidth_gbs = gs_jget_num(jg, root, "bandwidth_gbs", DBL_TRUE_MIN, GS_GPU_GBS_MAX,
	                               "a positive number of GB/s, at most " GBS_MAX_TEXT, 0, true);
	g->bf16_tflops = gs_jget_num(jg, root, "bf16_tflops", DBL_TRUE_MIN, GS_GPU_TFLOPS_MAX,
	                             "a positive number of TFLOPS, at most " TFLOPS_MAX_TEXT, 0, true);
	if (jg->rc == GS_OK && g->usable_bytes > g->total_bytes)
		gs_jget_fail(jg, GS_EGPUFILE, "usable", "larger than the total");
	gs_jget_str(jg, root, "notes", false);
	if (jg->rc == GS_OK) {
		const char *seg = gs_jget_str(jg, root, "segment", false);
		if (seg != NULL && (g->segment = gs_segment_parse(seg)) == GS_SEG_MAX)
			gs_jget_fail(jg, GS_EGPUFILE, "segment", "expected \"consumer\", \"workstation\" or \"datacenter\"");
	}
	if (jg->rc == GS_OK) {
		const char *ua = gs_jget_str(jg, root, "architecture", false);
		if (ua != NULL && (g->uarch = gs_uarch_parse(ua)) == GS_UARCH_MAX)
			gs_jget_fail(jg, GS_EGPUFILE, "architecture", "expected \"volta\", \"turing\", \"ampere\", "
			             "\"ada\", \"hopper\", \"blackwell\", \"cdna3\" or \"cdna4\"");
	}
	g->fp8_tflops = gs_jget_num(jg, root, "fp8_tflops", DBL_TRUE_MIN, GS_GPU_TFLOPS_MAX,
	                            "a positive number of TFLOPS, at most " TFLOPS_MAX_TEXT " (or null)", 0, false);
	if (jg->rc == GS_OK && g->fp8_tflops > 0 && !g->fp8)
		gs_jget_fail(jg, GS_EGPUFILE, "fp8_tflops", "given but \"fp8\" is false");
	g->fp4 = gs_jget_bool(jg, root, "fp4", false, false);
	g->fp4_tflops = gs_jget_num(jg, root, "fp4_tflops", DBL_TRUE_MIN, GS_GPU_TFLOPS_MAX,
	                            "a positive number of TFLOPS, at most " TFLOPS_MAX_TEXT " (or null)", 0, false);
	if (jg->rc == GS_OK && g->fp4_tflops > 0 && !g->fp4)
		gs_jget_fail(jg, GS_EGPUFILE, "fp4_tflops", "given but \"fp4\" is not true (a GPU without fp4 "
		             "tensor math has no fp4 TFLOPS)");
	g->unified_memory = gs_jget_bool(jg, root, "unified_memory", false, false);
}

/* The links: the GPU-to-GPU interconnect and its bandwidth, the PCIe host
 * link. */
static void read_links(gs_jget *jg, const cJSON *root, gs_gpu *g)
{
	if (jg->rc == GS_OK) {
		const char *ic = gs_jget_str(jg, root, "interconnect", false);
		bool hit = false;
		for (int i = 0; ic != NULL && links[i] != NULL; i++)
			hit = hit || strcmp(ic, links[i]) == 0;
		if (ic != NULL && !hit)
			gs_jget_fail(jg, GS_EGPUFILE, "interconnect",
			             "expected \"none\", \"nvlink-bridge\", \"nvlink2\" ... \"nvlink5\" or "
			             "\"infinity-fabric\"");
		else if (ic != NULL)
			memcpy(g->interconnect, ic, strlen(ic) + 1);
	}
	g->link_gbs = gs_jget_num(jg, root, "link_gbs", DBL_TRUE_MIN, GS_GPU_GBS_MAX,
	                          "a positive number of GB/s, at most " GBS_MAX_TEXT " (or null)", 0, false);
	if (jg->rc == GS_OK && g->link_gbs > 0 && (g->interconnect[0] == '\0' ||
	                                           strcmp(g->interconnect, "none") == 0))
		gs_jget_fail(jg, GS_EGPUFILE, "link_gbs", "given without a GPU-to-GPU \"interconnect\"");
	if (jg->rc == GS_OK && g->link_gbs <= 0 && g->interconnect[0] != '\0' &&
	    strcmp(g->interconnect, "none") != 0)
		gs_jget_fail(jg, GS_EGPUFILE, "link_gbs", "missing (must be a positive number: the %s bandwidth)",
		             g->interconnect);
	g->pcie_gen = (int)gs_jget_int(jg, root, "pcie_gen", 1, 6, 0, false);
	g->pcie_lanes = (int)gs_jget_int(jg, root, "pcie_lanes", 1, 16, 0, false);
	if (jg->rc == GS_OK && g->pcie_lanes != 0 && (g->pcie_lanes & (g->pcie_lanes - 1)) != 0)
		gs_jget_fail(jg, GS_EGPUFILE, "pcie_lanes", "must be 1, 2, 4, 8 or 16 (got %d)", g->pcie_lanes);
}

/* The price: a quote names its day, and a day names a price. */
static void read_price(gs_jget *jg, const cJSON *root, gs_gpu *g)
{
	g->price_usd_hour = gs_jget_pos(jg, root, "price_usd_per_hour", 0, false);
	if (jg->rc == GS_OK && g->price_usd_hour >= GS_PRICE_MAX_USD_HOUR)
		gs_jget_fail(jg, GS_EGPUFILE, "price_usd_per_hour", "%g USD an hour is not a GPU's rent (at most %g)",
		             g->price_usd_hour, (double)GS_PRICE_MAX_USD_HOUR);
	if (jg->rc == GS_OK) {
		const char *day = gs_jget_str(jg, root, "price_date", false);
		if (day != NULL && !valid_date(day))
			gs_jget_fail(jg, GS_EGPUFILE, "price_date", "expected a day, YYYY-MM-DD (got \"%.40s\")", day);
		else if (day != NULL && !(g->price_usd_hour > 0))
			gs_jget_fail(jg, GS_EGPUFILE, "price_date", "given without \"price_usd_per_hour\"");
		else if (day == NULL && g->price_usd_hour > 0)
			gs_jget_fail(jg, GS_EGPUFILE, "price_date", "missing (a price names the day it was quoted)");
		else if (day != NULL)
			memcpy(g->price_date, day, 11);
	}
}

/* "sources": a non-empty string for every figure the file gives, kept as
 * a short summary "field: source; ..." (truncated) in g->source. */
static gs_err read_sources(const char *path, const cJSON *root, gs_gpu *g, gs_error *e)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "sources"), *it;
	size_t used = 0;

	if (src == NULL || !cJSON_IsObject(src))
		return gs_fail(e, GS_EGPUFILE, "%s: field \"sources\": expected an object naming a source for every figure",
		               path);
	cJSON_ArrayForEach(it, src)
	{
		if (!cJSON_IsString(it) || it->valuestring[0] == '\0' || gs_has_control(it->valuestring))
			return gs_fail(e, GS_EGPUFILE, "%s: field \"sources.%s\": expected a non-empty string "
			               "without control characters", path, it->string);
	}
	for (int i = 0; sourced_fields[i] != NULL; i++) {
		const char *f = sourced_fields[i];
		if (cJSON_GetObjectItemCaseSensitive(root, f) == NULL)
			continue;
		it = cJSON_GetObjectItemCaseSensitive(src, f);
		if (it == NULL)
			return gs_fail(e, GS_EGPUFILE, "%s: field \"sources.%s\": missing (every figure needs a source)",
			               path, f);
		if (used + 4 < sizeof g->source) {
			int n = snprintf(g->source + used, sizeof g->source - used, "%s%s: %s", used ? "; " : "", f,
			                 it->valuestring);
			used = n < 0 ? used : used + (size_t)n;
			if (used >= sizeof g->source)
				used = sizeof g->source - 1;
		}
	}
	return GS_OK;
}

/* One GPU file, in stages: the JSON, the figures, the links, the price,
 * the sources; the first error names the file and the field. */
static gs_err parse_one(const char *path, const char *stem, gs_gpu *g, gs_error *e)
{
	char *text = NULL;
	cJSON *root = NULL;
	gs_jget jg = { path, "", GS_EGPUFILE, e, GS_OK };
	gs_err rc;

	memset(g, 0, sizeof *g);
	rc = read_root(path, stem, g, &text, &root, e);
	if (rc == GS_OK) {
		read_figures(&jg, root, g);
		read_links(&jg, root, g);
		read_price(&jg, root, g);
		rc = jg.rc;
	}
	if (rc == GS_OK)
		rc = read_sources(path, root, g, e);
	cJSON_Delete(root);
	free(text);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_gpu(const void *a, const void *b)
{
	const gs_gpu *x = a, *y = b;

	if (x->usable_bytes != y->usable_bytes)
		return x->usable_bytes < y->usable_bytes ? -1 : 1;
	return strcmp(x->id, y->id);
}

gs_err gs_gpus_load(const char *dir, gs_gpu **out, size_t *n, gs_error *e)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0;
	gs_gpu *g = NULL;
	gs_err rc = GS_OK;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (d == NULL)
		return gs_fail(e, errno == ENOENT || errno == ENOTDIR ? GS_ENOFILE : GS_EGPUFILE,
		               "%s: cannot read the GPU directory (%s)", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (nn == cap) {
			cap = cap ? cap * 2 : 32;
			names = gs_xrealloc(names, cap * sizeof *names);
		}
		names[nn++] = gs_xstrdup(de->d_name);
	}
	closedir(d);
	if (nn == 0) {
		rc = gs_fail(e, GS_EGPUFILE, "%s: no GPU files (*.json)", dir);
		goto out;
	}
	qsort(names, nn, sizeof *names, cmp_name);
	g = gs_xcalloc(nn, sizeof *g);
	for (size_t i = 0; i < nn; i++) {
		char path[4096], stem[256];
		size_t len = strlen(names[i]) - 5;
		if (len >= sizeof stem ||
		    gs_path_join(path, sizeof path, dir, names[i], NULL, NULL) != GS_OK) {
			rc = gs_fail(e, GS_EGPUFILE, "%s/%s: path too long", dir, names[i]);
			goto out;
		}
		memcpy(stem, names[i], len);
		stem[len] = '\0';
		if ((rc = parse_one(path, stem, &g[i], e)) != GS_OK)
			goto out;
	}
	qsort(g, nn, sizeof *g, cmp_gpu);
	*out = g;
	*n = nn;
	g = NULL;
out:
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	free(g);
	return rc;
}

/* Whether id holds s (its first len bytes) from byte at, ASCII case folded. */
static bool holds_at(const char *id, const char *s, size_t len, bool prefix)
{
	size_t il = strlen(id);

	for (size_t at = 0; at + len <= il; at++) {
		if (strncasecmp(id + at, s, len) == 0)
			return true;
		if (prefix)
			break;
	}
	return false;
}

char *gs_gpus_suggest(const gs_gpu *g, size_t ng, const char *id, size_t len, char *buf, size_t n)
{
	size_t hit[GS_GPU_SUGGEST_MAX], k = 0, used;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	/* the first rule that names any: a prefix, a part, a near miss (the
	 * nearest first: rules 2 to 4 are 0, 1 and 2 edits) */
	for (int rule = 0; rule < 5 && k == 0 && len > 0; rule++)
		for (size_t i = 0; i < ng && k < GS_GPU_SUGGEST_MAX; i++)
			if (rule == 0 ? holds_at(g[i].id, id, len, true)
			    : rule == 1 ? len >= 3 && holds_at(g[i].id, id, len, false)
			                : gs_edit_distance(id, len, g[i].id, true) <= (size_t)(rule - 2))
				hit[k++] = i;
	if (k == 0)
		return buf;
	used = (size_t)snprintf(buf, n, ": did you mean ");
	for (size_t j = 0; j < k && used < n; j++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", j ? ", " : "", g[hit[j]].id);
	if (used < n)
		snprintf(buf + used, n - used, "?");
	return buf;
}

gs_err gs_gpus_select(gs_gpu *g, size_t *ng, const char *csv, const char *dir, const char *cmd,
                      gs_error *e)
{
	gs_gpu *all = gs_xmalloc((*ng ? *ng : 1) * sizeof *all);
	size_t n = 0, nall = *ng;
	const char *p = csv;

	memcpy(all, g, nall * sizeof *all);
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const gs_gpu *hit = NULL;
		for (size_t i = 0; i < nall && hit == NULL; i++)
			if (strlen(all[i].id) == len && strncmp(all[i].id, p, len) == 0)
				hit = &all[i];
		if (hit == NULL) {
			char near[256];
			gs_gpus_suggest(all, nall, p, len, near, sizeof near);
			free(all);
			return gs_fail(e, GS_EUSAGE, "%s: --gpu: unknown GPU class \"%.*s\"%s (no %s/%.*s.json; "
			               "see gpusizer list gpus)", cmd, (int)len, p, near, dir, (int)len, p);
		}
		g[n++] = *hit;
		p += len + (end != NULL);
	}
	free(all);
	*ng = n;
	return GS_OK;
}

gs_err gs_gpus_price(gs_gpu *g, size_t ng, const char *spec, const char *cmd, gs_error *e)
{
	const char *p = spec;

	if (*p == '\0')
		return gs_fail(e, GS_EUSAGE, "%s: --price: expected ID=USD[,ID=USD...] (e.g. h100-sxm=2.49)", cmd);
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		char num[32];
		gs_gpu *hit = NULL;
		size_t idlen = eq ? (size_t)(eq - p) : len, nlen = eq ? len - idlen - 1 : 0;
		for (size_t i = 0; i < ng && hit == NULL; i++)
			if (strlen(g[i].id) == idlen && strncmp(g[i].id, p, idlen) == 0)
				hit = &g[i];
		if (eq == NULL || idlen == 0)
			return gs_fail(e, GS_EUSAGE, "%s: --price: \"%.*s\": expected ID=USD (a GPU id, '=', dollars "
			               "an hour)", cmd, (int)len, p);
		if (hit == NULL) {
			char near[256];
			return gs_fail(e, GS_EUSAGE, "%s: --price: unknown GPU class \"%.*s\"%s (see gpusizer list "
			               "gpus)", cmd, (int)idlen, p, gs_gpus_suggest(g, ng, p, idlen, near, sizeof near));
		}
		double v = -1;
		if (nlen > 0 && nlen < sizeof num) {
			char *stop = NULL;
			memcpy(num, eq + 1, nlen);
			num[nlen] = '\0';
			v = strtod(num, &stop);
			if (stop == num || *stop != '\0')
				v = -1;
		}
		if (!(v > 0) || v >= GS_PRICE_MAX_USD_HOUR)
			return gs_fail(e, GS_EUSAGE, "%s: --price: %.*s: expected a positive price in USD an hour, "
			               "below %g (got \"%.*s\")", cmd, (int)idlen, p, (double)GS_PRICE_MAX_USD_HOUR,
			               (int)nlen, eq + 1);
		hit->price_usd_hour = v;
		hit->price_date[0] = '\0';
		hit->price_cli = true;
		p += len + (end != NULL);
	}
	return GS_OK;
}
