/* Unit tests: the measurements store (append, load, lookup, text) and the
 * NVML loader's no-driver path. No GPU involved. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "measured.h"
#include "nvml.h"
#include "util.h"

int main(void)
{
	char dir[] = "/tmp/gs_test_measured.XXXXXX";
	char path[256], text[256];
	gs_measured_store st = {0};
	gs_error e = {0};
	const gs_measured *m;
	gs_nvml *nv = NULL;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/sub/verified.jsonl", dir);

	CHECK(gs_measured_load(path, &st, &e) == GS_OK && st.n == 0, "measured: missing store is empty");
	CHECK(gs_measured_append(path,
	                         "{\"model\":\"org/m\",\"label\":\"full bf16 adamw b1 s512 sdpa\","
	                         "\"gpu\":{\"name\":\"NVIDIA GeForce RTX 4090\",\"class\":\"rtx-4090\"},"
	                         "\"status\":\"ok\",\"measured\":{\"allocated\":10737418240,"
	                         "\"reserved\":11811160064,\"device\":12025908428},"
	                         "\"predicted\":{\"allocated\":10200547328,\"reserved\":11000000000,"
	                         "\"device\":12348030976}}",
	                         &e) == GS_OK,
	      "measured: append creates directory and file");
	CHECK(gs_measured_append(path,
	                         "{\"model\":\"org/m\",\"label\":\"full bf16 adamw b8 s8192 sdpa\","
	                         "\"gpu\":{\"name\":\"NVIDIA H100 80GB HBM3\"},\"status\":\"oom\","
	                         "\"measured\":{\"allocated\":null},\"predicted\":{\"device\":"
	                         "107374182400}}",
	                         &e) == GS_OK,
	      "measured: second append");
	CHECK(gs_measured_append(path, "{\"model\":\"x\",\n\"label\":\"y\"}", &e) == GS_EINTERNAL,
	      "measured: a record with a newline is refused");
	e = (gs_error){0};
	CHECK(gs_measured_append(path, "[1,2]", &e) == GS_EINTERNAL, "measured: non-object refused");
	e = (gs_error){0};
	CHECK(gs_measured_load(path, &st, &e) == GS_OK && st.n == 2, "measured: load two records");
	m = gs_measured_find(&st, "org/m", "full bf16 adamw b1 s512 sdpa");
	CHECK(m != NULL && m->device == 12025908428ULL && !m->oom, "measured: find by model + label");
	CHECK(gs_measured_find(&st, "org/m", "full bf16 adamw b2 s512 sdpa") == NULL,
	      "measured: other label not found");
	if (m) {
		uint64_t now[3] = {10737418240ULL / 2, 6ULL << 30, 13ULL << 30};
		gs_measured_kind k = GS_MK_DEVICE;
		uint64_t b = 0;

		gs_measured_text(m, GS_MK_DEVICE, NULL, text, sizeof text);
		CHECK(strcmp(text, "measured 11.2 GiB on RTX 4090, predicted 11.5 GiB") == 0,
		      "measured: text device with stored prediction (got '%s')", text);
		gs_measured_text(m, GS_MK_ALLOCATED, now, text, sizeof text);
		CHECK(strcmp(text, "measured 10.0 GiB on RTX 4090, predicted 5.0 GiB") == 0,
		      "measured: text allocated with caller's prediction (got '%s')", text);
		gs_measured_text(m, GS_MK_DEVICE, now, text, sizeof text);
		CHECK(strcmp(text, "measured 11.2 GiB on RTX 4090, predicted 13.0 GiB") == 0,
		      "measured: text device with today's prediction (got '%s')", text);
		CHECK(gs_measured_figure(m, GS_MK_RESERVED, &k, &b) && k == GS_MK_RESERVED &&
		      b == 11811160064ULL, "measured: figure of the kind asked for");
	}
	m = gs_measured_find(&st, "org/m", "full bf16 adamw b8 s8192 sdpa");
	if (m) {
		gs_measured_kind k;
		uint64_t b;

		gs_measured_text(m, GS_MK_DEVICE, NULL, text, sizeof text);
		CHECK(strcmp(text, "out of memory on H100 80GB HBM3 (measured), predicted 100.0 GiB") == 0,
		      "measured: text for an out-of-memory record (got '%s')", text);
		CHECK(!gs_measured_figure(m, GS_MK_DEVICE, &k, &b), "measured: an out-of-memory record has no figure");
	} else {
		CHECK(0, "measured: oom record found");
	}
	gs_measured_free(&st);

	/* No device reading (no NVML process figure): the next figure is shown,
	 * named, against today's prediction of the same kind. */
	{
		char p2[300];
		uint64_t now[3] = {3ULL << 30, 4ULL << 30, 6ULL << 30};

		snprintf(p2, sizeof p2, "%s/reserved.jsonl", dir);
		CHECK(gs_measured_append(p2,
		                         "{\"model\":\"org/m\",\"label\":\"lora\",\"gpu\":{\"name\":"
		                         "\"NVIDIA L4\"},\"status\":\"ok\",\"measured\":{\"allocated\":"
		                         "3221225472,\"reserved\":4831838208,\"device\":null},"
		                         "\"predicted\":{\"reserved\":1}}",
		                         &e) == GS_OK &&
		          gs_measured_load(p2, &st, &e) == GS_OK && st.n == 1,
		      "measured: a record without a device figure loads");
		if (st.n == 1) {
			gs_measured_text(&st.rec[0], GS_MK_DEVICE, now, text, sizeof text);
			CHECK(strcmp(text, "measured 4.5 GiB reserved on L4, predicted 4.0 GiB") == 0,
			      "measured: falls back to reserved, compared with reserved (got '%s')", text);
		}
		gs_measured_free(&st);
		unlink(p2);
	}

	/* A bad line names file and line. */
	{
		char bad[300];
		FILE *fp;
		snprintf(bad, sizeof bad, "%s/bad.jsonl", dir);
		fp = fopen(bad, "w");
		if (fp) {
			fputs("{\"model\":\"a\",\"label\":\"b\"}\n\nnot json\n", fp);
			fclose(fp);
		}
		e = (gs_error){0};
		CHECK(gs_measured_load(bad, &st, &e) == GS_EINPUT && strstr(e.msg, "bad.jsonl:3") != NULL,
		      "measured: bad line -> GS_EINPUT naming path:line (%s)", e.msg);
		unlink(bad);
	}

	/* NVML: a missing library is GS_ENOGPU with the clear message. */
	setenv("GPUSIZER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	e = (gs_error){0};
	CHECK(gs_nvml_open(&nv, &e) == GS_ENOGPU && nv == NULL &&
	          strstr(e.msg, "no NVIDIA driver found") != NULL &&
	          strstr(e.msg, "verify needs a local NVIDIA GPU") != NULL,
	      "nvml: missing library -> GS_ENOGPU (%s)", e.msg);
	gs_nvml_close(NULL);

	unlink(path);
	snprintf(path, sizeof path, "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
	CHECK_DONE();
}
