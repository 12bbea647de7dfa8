/* gpusizer: the Hub model id grammar, "org/name[@rev]": validation,
 * splitting, the cache folder name (slug, entry) an id maps to and the
 * check value that ties an entry's two files together. Pure: no
 * files, no JSON, no network; the model cache (models.h) and the Hub
 * client (hub.h) both build on it. */
#ifndef GS_MODELID_H
#define GS_MODELID_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/*
 * Split and validate an id: repo ("org/name", n_repo bytes) and revision
 * ("" when none, n_rev bytes). Each segment must be 1-96 characters of
 * [A-Za-z0-9._-], not "." or "..", with at most one '/'; the revision may
 * hold [A-Za-z0-9._/-] (branch, tag, sha). GS_EUSAGE with the reason.
 */
gs_err gs_model_parse_id(const char *id, char *repo, size_t n_repo, char *rev, size_t n_rev,
                         gs_error *e);

/* Slug "org--name" for an id ("name" for a namespace-less id); any "@rev"
 * is dropped. Validates the id (GS_EUSAGE). slug gets n bytes. */
gs_err gs_model_slug(const char *id, char *slug, size_t n, gs_error *e);

/*
 * The cache folder of an id at a revision: its slug, and for a revision
 * other than "main" also "@" and the revision with each '/' written "%2F"
 * ("org--name@v1.0", "org--name@refs%2Fpr%2F1"), so that each revision
 * fetched has its own entry. rev is the id's own "@rev" when it has one,
 * else default_rev (NULL or "" = main). Validates the id (GS_EUSAGE).
 * entry gets n bytes.
 */
gs_err gs_model_entry(const char *id, const char *default_rev, char *entry, size_t n,
                      gs_error *e);

/* The check value a cache entry's meta.json records for its config.json
 * ("files"."config.json"."fnv1a64"): 64-bit FNV-1a of the bytes as 16
 * lower-case hex digits (out: 17 bytes). meta.json is renamed into place
 * after config.json, so a reader that finds a different value knows the
 * two files are not from the same fetch. */
void gs_model_config_digest(const void *buf, size_t len, char out[17]);

/* Whether a config.json (len bytes at buf) belongs with a meta.json that
 * records the check value recorded (NULL when it records none, as copied
 * references and older fetches do: nothing contradicts, true). */
bool gs_model_config_matches(const char *recorded, const void *buf, size_t len);

/* The id a slug stands for: "org--name" -> "org/name" (ids never hold
 * "--"), "name" as is; written to id (n bytes, truncated to fit). */
void gs_model_slug_id(const char *slug, char *id, size_t n);

#endif
