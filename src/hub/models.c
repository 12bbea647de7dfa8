/* gpusizer: the local model cache: resolving ids to config.json paths (the
 * cache first, then the reference configs that come with gpusizer, then the
 * huggingface_hub cache), and meta.json reading. Never fetches: resolve.c
 * adds fetching on demand. The id grammar is modelid.c's. */
#define _POSIX_C_SOURCE 200809L
#include "models.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <dirent.h>

#include <cjson/cJSON.h>

#include "modelid.h"
#include "paths.h"
#include "util.h"
#include "fileio.h"
#include "redact.h"

static gs_err put_path(char *out, size_t n, const char *path, gs_error *e)
{
	if (strlen(path) + 1 > n)
		return gs_fail(e, GS_EIO, "%s: path too long", path);
	memcpy(out, path, strlen(path) + 1);
	return GS_OK;
}

static bool is_hex_sha(const char *s)
{
	size_t n = strlen(s);
	if (n != 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* huggingface_hub cache root (HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME/hub,
 * XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub); false if none. */
static bool hf_cache_dir(char *buf, size_t n)
{
	const char *v;
	int w = -1;

	if ((v = getenv("HF_HUB_CACHE")) != NULL && v[0])
		w = snprintf(buf, n, "%s", v);
	else if ((v = getenv("HUGGINGFACE_HUB_CACHE")) != NULL && v[0])
		w = snprintf(buf, n, "%s", v);
	else if ((v = getenv("HF_HOME")) != NULL && v[0])
		w = snprintf(buf, n, "%s/hub", v);
	else if ((v = getenv("XDG_CACHE_HOME")) != NULL && v[0])
		w = snprintf(buf, n, "%s/huggingface/hub", v);
	else if ((v = getenv("HOME")) != NULL && v[0])
		w = snprintf(buf, n, "%s/.cache/huggingface/hub", v);
	return w > 0 && (size_t)w < n;
}

/* Look for config.json of repo at rev ("" = main) in the huggingface_hub cache. */
static bool hf_cache_lookup(const char *slug, const char *rev, char *out, size_t n)
{
	char root[2048], path[4096], sha[128];
	const char *r = rev[0] ? rev : "main";

	if (!hf_cache_dir(root, sizeof root))
		return false;
	if (is_hex_sha(r)) {
		memcpy(sha, r, 41); /* 40 hex digits and the NUL */
	} else {
		FILE *fp;
		size_t got;
		if (snprintf(path, sizeof path, "%s/models--%s/refs/%s", root, slug, r) >= (int)sizeof path)
			return false;
		fp = fopen(path, "rb");
		if (fp == NULL)
			return false;
		got = fread(sha, 1, sizeof sha - 1, fp);
		fclose(fp);
		sha[got] = '\0';
		while (got > 0 && (sha[got - 1] == '\n' || sha[got - 1] == '\r' || sha[got - 1] == ' '))
			sha[--got] = '\0';
		if (!is_hex_sha(sha))
			return false;
	}
	if (snprintf(path, sizeof path, "%s/models--%s/snapshots/%s/config.json", root, slug, sha) >=
	    (int)sizeof path)
		return false;
	if (!gs_is_file(path) || strlen(path) + 1 > n)
		return false;
	memcpy(out, path, strlen(path) + 1);
	return true;
}

/* Read meta.json's "sha" and "revision" (either may be absent). */
static void meta_rev(const char *meta_path, char *sha, size_t ns, char *revision, size_t nr)
{
	char *buf = NULL;
	cJSON *root;
	const cJSON *v;

	sha[0] = revision[0] = '\0';
	if (gs_read_file(meta_path, 1 << 22, &buf, NULL, NULL) != GS_OK)
		return;
	root = cJSON_Parse(buf);
	free(buf);
	if (root == NULL)
		return;
	v = cJSON_GetObjectItemCaseSensitive(root, "sha");
	if (cJSON_IsString(v))
		snprintf(sha, ns, "%s", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(root, "revision");
	if (cJSON_IsString(v))
		snprintf(revision, nr, "%s", v->valuestring);
	cJSON_Delete(root);
}

/* Whether the meta.json of entry dir/name belongs with the config.json
 * beside it: true when it records no check value ("files"."config.json".
 * "fnv1a64": a copied reference, an older fetch) or that of the file;
 * false when it records another (an update was killed between renaming
 * config.json and meta.json). No meta.json, or one that is not JSON, is
 * not a contradiction: true. */
static bool entry_consistent(const char *dir, const char *name)
{
	char path[4096];
	char *buf = NULL;
	size_t len = 0;
	cJSON *root;
	const cJSON *v;
	bool ok;

	if (snprintf(path, sizeof path, "%s/%s/meta.json", dir, name) >= (int)sizeof path ||
	    gs_read_file(path, 1 << 24, &buf, NULL, NULL) != GS_OK)
		return true;
	root = cJSON_Parse(buf);
	free(buf);
	buf = NULL;
	v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "files"),
		                                 "config.json"), "fnv1a64");
	if (!cJSON_IsString(v)) {
		cJSON_Delete(root);
		return true;
	}
	ok = snprintf(path, sizeof path, "%s/%s/config.json", dir, name) < (int)sizeof path &&
	     gs_read_file(path, 1 << 24, &buf, &len, NULL) == GS_OK &&
	     gs_model_config_matches(v->valuestring, buf, len);
	free(buf);
	cJSON_Delete(root);
	return ok;
}

/* Whether a cached entry's meta.json matches the revision asked for: any
 * entry when none is asked for; "main" (the default revision) also when the
 * entry records "main" or no revision (fetched without one, or the committed
 * reference configs); else the recorded revision or a sha prefix (>= 7).
 * A meta.json that does not belong with its config.json matches nothing. */
static bool rev_matches(const char *dir, const char *slug, const char *rev)
{
	char mpath[4096], sha[128], revision[256];

	if (rev[0] == '\0')
		return true;
	if (!entry_consistent(dir, slug))
		return false;
	if (snprintf(mpath, sizeof mpath, "%s/%s/meta.json", dir, slug) >= (int)sizeof mpath)
		return false;
	meta_rev(mpath, sha, sizeof sha, revision, sizeof revision);
	if (strcmp(revision, rev) == 0)
		return true;
	if (strcmp(rev, "main") == 0 && revision[0] == '\0')
		return true;
	return strlen(rev) >= 7 && strncmp(sha, rev, strlen(rev)) == 0;
}

/* The reference configs directory when it exists and is not dir itself. */
static bool shipped_other_than(const char *dir, char *buf, size_t n)
{
	return gs_models_dir_shipped(buf, n) && strcmp(buf, dir) != 0;
}

/* Looks in dir for a folder named like slug in another case ("org--name",
 * or "models--org--name" with hf); writes the id it stands for to out. */
static bool case_match(const char *dir, const char *slug, bool hf, char *out, size_t n)
{
	DIR *d = dir[0] ? opendir(dir) : NULL;
	struct dirent *de;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		char path[4096];
		if (hf) {
			if (strncmp(name, "models--", 8) != 0)
				continue;
			name += 8;
		}
		if (strcasecmp(name, slug) != 0 || strcmp(name, slug) == 0)
			continue;
		if (!hf && (snprintf(path, sizeof path, "%s/%s/config.json", dir, de->d_name) >= (int)sizeof path ||
		            !gs_is_file(path)))
			continue;
		gs_model_slug_id(name, out, n);
		found = true;
	}
	closedir(d);
	return found;
}

/* A cached id that differs from slug's only in case, in the cache, the
 * reference configs or the huggingface_hub cache; false when none. */
static bool did_you_mean(const char *models_dir, const char *slug, char *out, size_t n)
{
	char dir[4096];

	if (case_match(models_dir, slug, false, out, n))
		return true;
	if (shipped_other_than(models_dir, dir, sizeof dir) && case_match(dir, slug, false, out, n))
		return true;
	return hf_cache_dir(dir, sizeof dir) && case_match(dir, slug, true, out, n);
}

/* The cache entry of slug for rev in dir, if there is one: the revision's
 * own entry (gs_model_entry: "org--name@rev") when rev is neither "" nor
 * "main", else (or when that has none) the folder named slug if its
 * meta.json matches rev (rev_matches: how `fetch` stored pinned revisions
 * before they had entries of their own). The entry's folder name goes to
 * name (n bytes). */
static bool find_entry(const char *dir, const char *id, const char *slug, const char *rev,
                       char *name, size_t n)
{
	char entry[300], path[4096];

	if (rev[0] != '\0' && strcmp(rev, "main") != 0 &&
	    gs_model_entry(id, NULL, entry, sizeof entry, NULL) == GS_OK &&
	    snprintf(path, sizeof path, "%s/%s/config.json", dir, entry) < (int)sizeof path &&
	    gs_is_file(path) && rev_matches(dir, entry, rev)) {
		snprintf(name, n, "%s", entry);
		return true;
	}
	if (snprintf(path, sizeof path, "%s/%s/config.json", dir, slug) < (int)sizeof path &&
	    gs_is_file(path) && rev_matches(dir, slug, rev)) {
		snprintf(name, n, "%s", slug);
		return true;
	}
	return false;
}

gs_err gs_model_resolve(const char *models_dir, const char *id, char *config_path, size_t n,
                        gs_error *e)
{
	char repo[256], rev[256], slug[256], path[4096], dflt[4096], shipped[4096], hint[700] = "";
	char other[300], name[300];
	gs_err rc;
	size_t il;

	if (models_dir == NULL) {
		gs_models_dir_default(dflt, sizeof dflt);
		models_dir = dflt;
	}
	if (id == NULL || id[0] == '\0')
		return gs_fail(e, GS_EUSAGE, "model id is empty (expected org/name or a config.json path)");
	il = strlen(id);
	/* A path: ends in .json, or an existing file, or a directory with config.json. */
	if ((il > 5 && strcmp(id + il - 5, ".json") == 0) || gs_is_file(id)) {
		if (!gs_is_file(id))
			return gs_fail(e, GS_ENOFILE, "%s: no such config file", id);
		return put_path(config_path, n, id, e);
	}
	if (gs_is_dir(id) && snprintf(path, sizeof path, "%s/config.json", id) < (int)sizeof path &&
	    gs_is_file(path))
		return put_path(config_path, n, path, e);

	rc = gs_model_parse_id(id, repo, sizeof repo, rev, sizeof rev, e);
	if (rc == GS_OK)
		rc = gs_model_slug(id, slug, sizeof slug, e);
	if (rc != GS_OK)
		return rc;
	if (snprintf(path, sizeof path, "%s/%s/config.json", models_dir, slug) >= (int)sizeof path)
		return gs_fail(e, GS_EUSAGE, "%s: models dir path too long", models_dir);
	if (find_entry(models_dir, id, slug, rev, name, sizeof name) &&
	    snprintf(path, sizeof path, "%s/%s/config.json", models_dir, name) < (int)sizeof path)
		return put_path(config_path, n, path, e);
	/* The read-only reference configs installed with gpusizer. */
	if (shipped_other_than(models_dir, shipped, sizeof shipped) &&
	    find_entry(shipped, id, slug, rev, name, sizeof name) &&
	    snprintf(path, sizeof path, "%s/%s/config.json", shipped, name) < (int)sizeof path)
		return put_path(config_path, n, path, e);
	if (hf_cache_lookup(slug, rev, path, sizeof path))
		return put_path(config_path, n, path, e);
	if (did_you_mean(models_dir, slug, other, sizeof other))
		snprintf(hint, sizeof hint, ": did you mean %s%s%s? (model ids are case-sensitive)", other,
		         rev[0] ? "@" : "", rev);
	if (!shipped_other_than(models_dir, shipped, sizeof shipped))
		shipped[0] = '\0';
	return gs_fail(e, GS_ENOTFOUND,
	               "model %s%s%s is not cached in %s/%s (nor in %s%s%sthe huggingface_hub cache)%s",
	               repo, rev[0] ? " at revision " : "", rev, models_dir, slug,
	               shipped[0] ? "the reference configs in " : "", shipped, shipped[0] ? ", nor in " : "",
	               hint);
}

static uint64_t json_u64(const cJSON *o)
{
	if (cJSON_IsNumber(o) && o->valuedouble >= 0 && o->valuedouble < 1.8e19)
		return (uint64_t)o->valuedouble;
	return 0;
}

gs_err gs_model_meta_load(const char *models_dir, const char *id, gs_model_meta *m, gs_error *e)
{
	char slug[256], path[4096], dflt[4096], shipped[4096], repo[256], rev[256], name[300];
	char *buf = NULL;
	cJSON *root;
	const cJSON *params, *v;
	gs_err rc;

	memset(m, 0, sizeof *m);
	if (models_dir == NULL) {
		gs_models_dir_default(dflt, sizeof dflt);
		models_dir = dflt;
	}
	rc = gs_model_slug(id, slug, sizeof slug, e);
	if (rc == GS_OK)
		rc = gs_model_parse_id(id, repo, sizeof repo, rev, sizeof rev, e);
	if (rc != GS_OK)
		return rc;
	/* The meta.json beside the config.json that resolve picks: the cache's,
	 * else that of the reference configs installed with gpusizer. */
	if (!find_entry(models_dir, id, slug, rev, name, sizeof name)) {
		if (shipped_other_than(models_dir, shipped, sizeof shipped) &&
		    find_entry(shipped, id, slug, rev, name, sizeof name))
			models_dir = shipped;
		else
			snprintf(name, sizeof name, "%s", slug);
	}
	if (snprintf(path, sizeof path, "%s/%s/meta.json", models_dir, name) >= (int)sizeof path)
		return gs_fail(e, GS_EUSAGE, "%s: models dir path too long", models_dir);
	if (!entry_consistent(models_dir, name))
		return gs_fail(e, GS_ENOTFOUND, "%s: does not belong with the config.json beside it (an "
		               "update was interrupted); run `gpusizer fetch %s`", path, id);
	rc = gs_read_file(path, 1 << 24, &buf, NULL, e);
	if (rc != GS_OK)
		return rc;
	root = cJSON_Parse(buf);
	free(buf);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "%s: not a JSON object", path);
	}
	/* shown on pages and in cells: a field holding a control character
	 * (a hand-edited or foreign meta.json) is left out */
	v = cJSON_GetObjectItemCaseSensitive(root, "sha");
	if (cJSON_IsString(v) && !gs_has_control(v->valuestring))
		snprintf(m->sha, sizeof m->sha, "%s", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(root, "param_source");
	if (cJSON_IsString(v) && !gs_has_control(v->valuestring))
		snprintf(m->param_source, sizeof m->param_source, "%s", v->valuestring);
	params = cJSON_GetObjectItemCaseSensitive(root, "params");
	v = cJSON_GetObjectItemCaseSensitive(params, "hub_safetensors");
	m->hub_safetensors_total = json_u64(cJSON_GetObjectItemCaseSensitive(v, "total"));
	v = cJSON_GetObjectItemCaseSensitive(params, "header");
	m->header_total = json_u64(cJSON_GetObjectItemCaseSensitive(v, "total"));
	cJSON_Delete(root);
	return GS_OK;
}
