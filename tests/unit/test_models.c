/* Model ids and slugs (modelid.c), resolving ids and paths and meta.json
 * reading (models.c), resolve-or-fetch offline (resolve.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "modelid.h"
#include "models.h"
#include "resolve.h"
#include "util.h"
#include "fileio.h"

int main(void)
{
	char repo[256], rev[256], slug[256], path[4096], dir[] = "/tmp/gs_models_XXXXXX";
	gs_error e;
	gs_model_meta m;
	static const char *const bad[] = {"", "../x", "a/../b", "/etc/passwd", "a//b", "a/b/c", "org/",
	                                  "/a", "a\tb/c", "a b/c", "a/b@", "a/b@x..y", "a/b@/x",
	                                  "a/b.git", "a--b/c", "a/.", "a/b;rm", "a/b\n"};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		e = (gs_error){0};
		CHECK(gs_model_parse_id(bad[i], repo, sizeof repo, rev, sizeof rev, &e) == GS_EUSAGE &&
		      e.msg[0], "models: id #%zu rejected: %s", i, e.msg);
	}
	e = (gs_error){0};
	CHECK(gs_model_parse_id("Qwen/Qwen2.5-0.5B@refs/pr/1", repo, sizeof repo, rev, sizeof rev, &e) == GS_OK &&
	      strcmp(repo, "Qwen/Qwen2.5-0.5B") == 0 && strcmp(rev, "refs/pr/1") == 0, "models: id with @rev");
	CHECK(gs_model_slug("openai-community/gpt2@abc1234", slug, sizeof slug, &e) == GS_OK &&
	      strcmp(slug, "openai-community--gpt2") == 0, "models: slug drops the revision");
	CHECK(gs_model_slug("gpt2", slug, sizeof slug, &e) == GS_OK && strcmp(slug, "gpt2") == 0,
	      "models: namespace-less slug");
	gs_model_slug_id("openai-community--gpt2", repo, sizeof repo);
	CHECK(strcmp(repo, "openai-community/gpt2") == 0, "models: slug back to its id");
	gs_model_slug_id("gpt2", repo, sizeof repo);
	CHECK(strcmp(repo, "gpt2") == 0, "models: namespace-less slug back to its id");

	/* resolve: the committed cache, a path, a missing model, the HF cache */
	e = (gs_error){0};
	CHECK(gs_model_resolve("models", "openai-community/gpt2", path, sizeof path, &e) == GS_OK &&
	      strcmp(path, "models/openai-community--gpt2/config.json") == 0, "models: resolve cached id (%s)", e.msg);
	CHECK(gs_model_resolve(NULL, "models/openai-community--gpt2/config.json", path, sizeof path, &e) == GS_OK,
	      "models: resolve a config path");
	e = (gs_error){0};
	CHECK(gs_model_resolve("models", "nobody/nothing", path, sizeof path, &e) == GS_ENOTFOUND &&
	      strstr(e.msg, "nobody/nothing"), "models: missing id named: %s", e.msg);
	e = (gs_error){0};
	CHECK(gs_model_ensure("models", "nobody/nothing", true, path, sizeof path, &e) == GS_EOFFLINE &&
	      strstr(e.msg, "gpusizer fetch"), "models: ensure offline names the fetch command: %s", e.msg);
	{
		/* fetch offline: the cache's answer, no request */
		const char *ids[] = {"openai-community/gpt2", "nobody/nothing", "openai-community/gpt2"};
		gs_hub_result res[3];
		gs_hub_opts o = {0};
		o.models_dir = "models";
		o.offline = true;
		e = (gs_error){0};
		CHECK(gs_models_fetch(&o, ids, 3, res, &e) == GS_EOFFLINE && res[0].err.code == GS_OK &&
		      res[1].err.code == GS_EOFFLINE && res[2].err.code == GS_OK &&
		      res[0].requests + res[1].requests == 0 && strstr(e.msg, "nobody/nothing"),
		      "models: fetch offline answers from the cache: %s", e.msg);
		e = (gs_error){0};
		CHECK(gs_hub_fetch(&o, ids, 1, res, &e) == GS_EOFFLINE,
		      "models: the Hub client alone, offline, has no cache to look in: %s", e.msg);
	}
	e = (gs_error){0};
	CHECK(gs_model_resolve("models", "../../etc", path, sizeof path, &e) == GS_EUSAGE,
	      "models: traversal rejected: %s", e.msg);

	CHECK(mkdtemp(dir) != NULL, "models: temp dir");
	setenv("HF_HUB_CACHE", dir, 1);
	snprintf(path, sizeof path, "%s/models--hf--m/snapshots/%s", dir,
	         "0123456789abcdef0123456789abcdef01234567");
	gs_mkdirs(path, &e);
	strcat(path, "/config.json");
	gs_write_file_atomic(path, "{}", 2, &e);
	snprintf(path, sizeof path, "%s/models--hf--m/refs", dir);
	gs_mkdirs(path, &e);
	strcat(path, "/main");
	gs_write_file_atomic(path, "0123456789abcdef0123456789abcdef01234567\n", 41, &e);
	e = (gs_error){0};
	CHECK(gs_model_resolve("models", "hf/m", path, sizeof path, &e) == GS_OK && strstr(path, "snapshots/0123"),
	      "models: huggingface_hub cache used via refs/main (%s)", e.msg);
	CHECK(gs_model_resolve("models", "hf/m@0123456789abcdef0123456789abcdef01234567", path, sizeof path, &e) == GS_OK,
	      "models: huggingface_hub cache by sha");

	e = (gs_error){0};
	CHECK(gs_model_meta_load("models", "openai-community/gpt2", &m, &e) == GS_OK &&
	      m.hub_safetensors_total == 137022720 && m.param_source[0], "models: meta.json read (%s)", e.msg);
	e = (gs_error){0};
	CHECK(gs_model_meta_load("models", "nobody/nothing", &m, &e) == GS_ENOFILE, "models: no meta.json: GS_ENOFILE (a local file)");
	{
		char cmd[200];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0, "models: cleanup");
	}
	CHECK_DONE();
}
