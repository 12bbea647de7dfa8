/* gpusizer: the Hub model id grammar, "org/name[@rev]": validation,
 * splitting, and the cache folder name (slug) an id maps to. Pure: no
 * files, no JSON, no network; the model cache (models.h) and the Hub
 * client (hub.h) both build on it. */
#ifndef GS_MODELID_H
#define GS_MODELID_H

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

/* The id a slug stands for: "org--name" -> "org/name" (ids never hold
 * "--"), "name" as is; written to id (n bytes, truncated to fit). */
void gs_model_slug_id(const char *slug, char *id, size_t n);

#endif
