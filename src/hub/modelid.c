/* gpusizer: the Hub model id grammar: validation, splitting into repo and
 * revision, and the slug that names an id's folder in the model cache. */
#include "modelid.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SEG_MAX 96

static bool seg_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-';
}

/* Validate one id segment [s, s+len). */
static gs_err check_segment(const char *id, const char *s, size_t len, gs_error *e)
{
	if (len == 0)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": empty segment (expected org/name)", id);
	if (len > SEG_MAX)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": a segment is longer than %d characters",
		               id, SEG_MAX);
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": \".\" and \"..\" are not allowed", id);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return gs_fail(e, GS_EUSAGE, "model id: control character (0x%02x) not allowed", c);
		if (!seg_char(c))
			return gs_fail(e, GS_EUSAGE,
			               "model id \"%s\": character '%c' not allowed (each segment is "
			               "[A-Za-z0-9._-])", id, c);
	}
	for (size_t i = 0; i + 1 < len; i++)
		if (s[i] == '-' && s[i + 1] == '-')
			return gs_fail(e, GS_EUSAGE, "model id \"%s\": \"--\" is not allowed (it separates org and "
				               "name in cache folder names)", id);
	return GS_OK;
}

gs_err gs_model_parse_id(const char *id, char *repo, size_t n_repo, char *rev, size_t n_rev,
                         gs_error *e)
{
	const char *at, *slash, *end;
	gs_err rc;

	if (id == NULL || id[0] == '\0')
		return gs_fail(e, GS_EUSAGE, "model id is empty (expected org/name)");
	for (const char *p = id; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return gs_fail(e, GS_EUSAGE, "model id: control character (0x%02x) not allowed",
			               (unsigned char)*p);
	if (id[0] == '/')
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": absolute paths are not model ids", id);
	at = strchr(id, '@');
	end = at ? at : id + strlen(id);
	slash = memchr(id, '/', (size_t)(end - id));
	if (slash != NULL) {
		if (memchr(slash + 1, '/', (size_t)(end - slash - 1)) != NULL)
			return gs_fail(e, GS_EUSAGE,
			               "model id \"%s\": at most one '/' (expected org/name)", id);
		rc = check_segment(id, id, (size_t)(slash - id), e);
		if (rc == GS_OK)
			rc = check_segment(id, slash + 1, (size_t)(end - slash - 1), e);
	} else {
		rc = check_segment(id, id, (size_t)(end - id), e);
	}
	if (rc != GS_OK)
		return rc;
	if ((size_t)(end - id) >= 4 && strncmp(end - 4, ".git", 4) == 0)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": must not end in .git", id);
	if ((size_t)(end - id) + 1 > n_repo)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": too long", id);
	memcpy(repo, id, (size_t)(end - id));
	repo[end - id] = '\0';
	if (rev != NULL && n_rev > 0)
		rev[0] = '\0';
	if (at != NULL) {
		const char *r = at + 1;
		size_t rl = strlen(r);
		if (rl == 0)
			return gs_fail(e, GS_EUSAGE, "model id \"%s\": empty revision after '@'", id);
		if (rl > 255 || rev == NULL || rl + 1 > n_rev)
			return gs_fail(e, GS_EUSAGE, "model id \"%s\": revision too long", id);
		for (size_t i = 0; i < rl; i++) {
			unsigned char c = (unsigned char)r[i];
			if (!seg_char(c) && c != '/')
				return gs_fail(e, GS_EUSAGE,
				               "model id \"%s\": character '%c' not allowed in a revision",
				               id, c);
		}
		if (strstr(r, "..") != NULL || r[0] == '/' || r[rl - 1] == '/' || strstr(r, "//"))
			return gs_fail(e, GS_EUSAGE, "model id \"%s\": malformed revision", id);
		memcpy(rev, r, rl + 1);
	}
	return GS_OK;
}

gs_err gs_model_slug(const char *id, char *slug, size_t n, gs_error *e)
{
	char repo[256], rev[256];
	gs_err rc = gs_model_parse_id(id, repo, sizeof repo, rev, sizeof rev, e);
	char *s = strchr(repo, '/');
	int w;

	if (rc != GS_OK)
		return rc;
	if (s != NULL)
		w = snprintf(slug, n, "%.*s--%s", (int)(s - repo), repo, s + 1);
	else
		w = snprintf(slug, n, "%s", repo);
	if (w < 0 || (size_t)w >= n)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": too long", id);
	return GS_OK;
}

void gs_model_slug_id(const char *slug, char *id, size_t n)
{
	const char *sep = strstr(slug, "--");

	if (sep != NULL)
		snprintf(id, n, "%.*s/%s", (int)(sep - slug), slug, sep + 2);
	else
		snprintf(id, n, "%s", slug);
}

gs_err gs_model_entry(const char *id, const char *default_rev, char *entry, size_t n,
                      gs_error *e)
{
	char repo[256], rev[256];
	const char *r;
	size_t o;
	gs_err rc = gs_model_parse_id(id, repo, sizeof repo, rev, sizeof rev, e);

	if (rc == GS_OK)
		rc = gs_model_slug(id, entry, n, e);
	if (rc != GS_OK)
		return rc;
	r = rev[0] ? rev : default_rev != NULL ? default_rev : "";
	if (r[0] == '\0' || strcmp(r, "main") == 0)
		return GS_OK;
	o = strlen(entry);
	if (o + 1 < n)
		entry[o++] = '@';
	for (; *r && o + 1 < n; r++) {
		if (*r == '/') {
			if (o + 3 >= n)
				break;
			memcpy(entry + o, "%2F", 3);
			o += 3;
		} else {
			entry[o++] = *r;
		}
	}
	if (*r != '\0' || o + 1 > n)
		return gs_fail(e, GS_EUSAGE, "model id \"%s\": too long", id);
	entry[o] = '\0';
	return GS_OK;
}

void gs_model_config_digest(const void *buf, size_t len, char out[17])
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

bool gs_model_config_matches(const char *recorded, const void *buf, size_t len)
{
	char got[17];

	if (recorded == NULL)
		return true;
	gs_model_config_digest(buf, len, got);
	return strcmp(got, recorded) == 0;
}
