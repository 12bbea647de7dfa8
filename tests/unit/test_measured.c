/* Unit tests: the measurements store (append, load, lookup, text), the
 * record written and read back field for field, and the NVML loader's
 * no-driver path. No GPU involved. */
#define _POSIX_C_SOURCE 200809L
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "measured.h"
#include "nvml.h"
#include "util.h"

/* A record with every field set, each to a value of its own. */
static void full_record(gs_measured *m)
{
	memset(m, 0, sizeof *m);
	m->schema = 1;
	strcpy(m->date, "2026-01-02T03:04:05Z");
	strcpy(m->gpusizer, "0.1.0");
	strcpy(m->row, "org--m__full-bf16-adamw-b1-s512-sdpa");
	m->model = strdup("org/m");
	m->config = strdup("models/org--m/config.json");
	strcpy(m->label, "full bf16 adamw b1 s512 sdpa");
	strcpy(m->status, "ok");
	strcpy(m->verdict, "within");
	m->tolerance_pct = 12.25;
	m->command = strdup("gpusizer verify org/m --seq 512 --out '/tmp/a b'");
	{
		static const char *const set[][2] = {
			{ "method", "full" }, { "precision", "bf16" }, { "lora-targets", "q_proj,v_proj" },
			{ "train-embeddings", "true" }, { "batch", "2" }, { "seq", "512" },
			{ "grad-accum", "3" }, { "grad-ckpt", "true" }, { "attn", "eager" },
			{ "loss", "chunked" }, { "compile", "true" }, { "trainable-fraction", "0.25" },
		};
		gs_error se = { 0 };
		gs_settings_default(&m->settings);
		for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
			gs_settings_set(&m->settings, set[i][0], set[i][1], &se);
		m->have_settings = true;
		gs_settings_key(&m->settings, m->key, sizeof m->key);
	}
	m->have_uname = true;
	strcpy(m->os, "Linux");
	strcpy(m->kernel, "6.1.0");
	strcpy(m->arch, "x86_64");
	m->cpu = strdup("AMD EPYC \"quoted\" \\ cpu");
	m->have_host_memory = true;
	m->host_memory_bytes = 137438953472ULL;
	strcpy(m->gpu_name, "NVIDIA GeForce RTX 4090");
	strcpy(m->gpu_class, "rtx-4090");
	m->gpu_index = 3;
	m->gpu_total_bytes = 25757220864ULL;
	m->gpu_free_bytes_at_start = 25000000000ULL;
	m->gpu_usable_bytes = 24000000000ULL;
	strcpy(m->gpu_usable_from, "gpus class");
	strcpy(m->gpu_driver, "550.54.14");
	strcpy(m->gpu_cuda, "12.4");
	m->gpu_fake = true;
	strcpy(m->pred_formula, "detailed");
	m->pred_recipe = strdup("bf16: pure 16-bit");
	m->pred_allocated = 10200547328ULL;
	m->pred_reserved = 11000000000ULL;
	m->pred_device = 12348030976ULL;
	m->pred_W = 1;
	m->pred_G = 2;
	m->pred_O = 3;
	m->pred_A = 4;
	m->pred_B = 5;
	strcpy(m->pred_peak_phase, "backward");
	m->pred_peak_step = 2;
	m->pred_params_total = 494032768ULL;
	m->pred_params_trainable = 494032767ULL;
	m->allocated = 10737418240ULL;
	m->reserved = 11811160064ULL;
	m->device = 12025908428ULL;
	strcpy(m->device_method, "nvml-process");
	m->nvml_samples = 17;
	m->device_peak_including_other_processes = 12466310348ULL;
	m->have_figures = true;
	m->cmp_allocated.predicted = 10200547328ULL;
	m->cmp_allocated.measured = 10737418240ULL;
	m->cmp_allocated.have = true;
	m->cmp_allocated.error_pct = -5;
	m->cmp_allocated.within = true;
	m->cmp_reserved.predicted = 11000000000ULL;
	m->cmp_reserved.measured = 11811160064ULL;
	m->cmp_reserved.have = true;
	m->cmp_reserved.error_pct = -6.87;
	m->cmp_device.predicted = 12348030976ULL;
	m->cmp_device.measured = 12025908428ULL;
	m->cmp_device.have = true;
	m->cmp_device.error_pct = 2.68;
	m->cmp_device.within = true;
	m->have_cmp_W = true;
	m->cmp_W.predicted = 3;
	m->cmp_W.measured = 4;
	m->cmp_W.error_pct = -25;
	m->have_cmp_O = true;
	m->cmp_O.predicted = 5;
	m->cmp_O.measured = 6;
	m->cmp_O.error_pct = -16.67;
	m->harness_result = strdup("{\"harness\":\"gpusizer-harness\",\"status\":\"ok\",\"steps\":[{\"step\":1}]}");
	m->harness_path = strdup("/usr/share/gpusizer/harness.py");
	m->oom = false;
}

/* a and b hold the same record: every owned string equal, and every other
 * byte (with the pointers set aside). */
static bool same_record(const gs_measured *a, const gs_measured *b)
{
	gs_measured x = *a, y = *b;
	char **px[] = { &x.model, &x.config, &x.command, &x.cpu, &x.pred_recipe, &x.harness_result,
	                &x.harness_path };
	char **py[] = { &y.model, &y.config, &y.command, &y.cpu, &y.pred_recipe, &y.harness_result,
	                &y.harness_path };

	for (size_t i = 0; i < sizeof px / sizeof px[0]; i++) {
		if ((*px[i] == NULL) != (*py[i] == NULL) || (*px[i] && strcmp(*px[i], *py[i]) != 0)) {
			printf("  string %zu differs: '%s' / '%s'\n", i, *px[i] ? *px[i] : "(null)",
			       *py[i] ? *py[i] : "(null)");
			return false;
		}
		*px[i] = *py[i] = NULL;
	}
	/* who chose the settings is not recorded: what a record names reads
	 * back as given (gs_settings_from_json) */
	x.settings.given = y.settings.given = 0;
	for (size_t i = 0; i < sizeof x; i++)
		if (((const unsigned char *)&x)[i] != ((const unsigned char *)&y)[i]) {
			printf("  byte %zu differs\n", i);
			return false;
		}
	return true;
}

/* The keys of object j, in order, joined with ','. */
static void keys_of(const cJSON *j, char *buf, size_t n)
{
	const cJSON *it;
	size_t k = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, j)
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", k ? "," : "", it->string);
}

/* The record written by gs_measured_format is read back by
 * gs_measured_parse field for field, under the names verify has always
 * written (the order of the keys included). */
static void test_round_trip(void)
{
	gs_measured m, back;
	gs_error e = {0};
	char *line, *pretty, *again, keys[1024];
	cJSON *j;

	full_record(&m);
	line = gs_measured_format(&m, false);
	CHECK(line != NULL && strchr(line, '\n') == NULL, "record: one line for the store");
	CHECK(gs_measured_parse(line, &back, &e) == GS_OK, "record: parses (%s)", e.msg);
	CHECK(same_record(&m, &back), "record: read back field for field (all fields set)");
	{
		uint64_t named = gs_setting_bit("method") | gs_setting_bit("seq") | gs_setting_bit("stack");
		CHECK((back.settings.given & named) == named,
		      "record: the settings read back count as given (no stack moves them)");
	}
	pretty = gs_measured_format(&m, true);
	again = gs_measured_format(&back, true);
	CHECK(pretty[strlen(pretty) - 1] == '\n' && strcmp(pretty, again) == 0,
	      "record: the pretty .json of the record read back is the same text");
	j = cJSON_Parse(line);
	keys_of(j, keys, sizeof keys);
	CHECK(!strcmp(keys, "schema,date,gpusizer,row,model,config,label,status,verdict,tolerance_pct,"
	                    "command,settings,machine,gpu,predicted,measured,comparison,harness_result,"
	                    "harness_path"), "record: top-level keys in order (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "settings"), keys, sizeof keys);
	{
		char want[1024];
		size_t k = 0;
		for (size_t i = 0; i < gs_settings_count(); i++)
			k += (size_t)snprintf(want + k, sizeof want - k, "%s%s", i ? "," : "",
			                      gs_settings_table()[i].name);
		CHECK(!strcmp(keys, want), "record: settings keys are the settings table's, in order (%s)", keys);
	}
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "machine"), keys, sizeof keys);
	CHECK(!strcmp(keys, "os,kernel,arch,cpu,host_memory_bytes"), "record: machine keys (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "gpu"), keys, sizeof keys);
	CHECK(!strcmp(keys, "name,class,index,total_bytes,free_bytes_at_start,usable_bytes,usable_from,"
	                    "driver,cuda,fake"), "record: gpu keys (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "predicted"), keys, sizeof keys);
	CHECK(!strcmp(keys, "formula,recipe,allocated,reserved,device,W,G,O,A,B,peak_phase,peak_step,"
	                    "params_total,params_trainable"), "record: predicted keys (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "measured"), keys, sizeof keys);
	CHECK(!strcmp(keys, "allocated,reserved,device,device_method,nvml_samples,"
	                    "device_peak_including_other_processes"), "record: measured keys (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(j, "comparison"), keys, sizeof keys);
	CHECK(!strcmp(keys, "allocated,reserved,device,W,O"), "record: comparison keys (%s)", keys);
	keys_of(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "comparison"),
	                                         "reserved"), keys, sizeof keys);
	CHECK(!strcmp(keys, "predicted,measured,error_pct,within"), "record: a figure's keys (%s)", keys);
	CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "harness_result")),
	      "record: harness_result is the harness's object, not a string");
	cJSON_Delete(j);
	free(line);
	free(pretty);
	free(again);
	gs_measured_clear(&back);

	/* An out-of-memory run on a GPU of no class: nulls and left-out fields. */
	m.have_uname = m.have_host_memory = false;
	memset(m.os, 0, sizeof m.os); /* (all of each array: records compare byte for byte) */
	memset(m.kernel, 0, sizeof m.kernel);
	memset(m.arch, 0, sizeof m.arch);
	m.host_memory_bytes = 0;
	free(m.cpu);
	m.cpu = NULL;
	memset(m.gpu_class, 0, sizeof m.gpu_class);
	m.gpu_fake = false;
	memset(m.status, 0, sizeof m.status);
	memset(m.verdict, 0, sizeof m.verdict);
	strcpy(m.status, "oom");
	strcpy(m.verdict, "oom-agrees");
	m.oom = true;
	m.allocated = m.reserved = m.device = 0;
	memset(m.device_method, 0, sizeof m.device_method);
	m.device_peak_including_other_processes = 0;
	m.have_figures = m.have_cmp_W = m.have_cmp_O = false;
	memset(&m.cmp_allocated, 0, sizeof m.cmp_allocated);
	memset(&m.cmp_reserved, 0, sizeof m.cmp_reserved);
	memset(&m.cmp_device, 0, sizeof m.cmp_device);
	memset(&m.cmp_W, 0, sizeof m.cmp_W);
	memset(&m.cmp_O, 0, sizeof m.cmp_O);
	line = gs_measured_format(&m, false);
	CHECK(strstr(line, "\"machine\":{}") && strstr(line, "\"class\":null") && !strstr(line, "\"fake\"") &&
	      strstr(line, "\"measured\":{\"allocated\":null,\"reserved\":null,\"device\":null,"
	                   "\"device_method\":null,\"nvml_samples\":17,"
	                   "\"device_peak_including_other_processes\":null}") &&
	      strstr(line, "\"comparison\":{}"), "record: absent figures as null, absent parts left out");
	CHECK(gs_measured_parse(line, &back, &e) == GS_OK && same_record(&m, &back) && back.oom,
	      "record: an out-of-memory record read back field for field");
	free(line);
	gs_measured_clear(&back);

	/* A figure not measured: its measured, error and within are null. */
	m.have_figures = true;
	m.cmp_device.predicted = 7;
	line = gs_measured_format(&m, false);
	CHECK(strstr(line, "\"device\":{\"predicted\":7,\"measured\":null,\"error_pct\":null,"
	                   "\"within\":null}") != NULL, "record: a figure not measured");
	CHECK(gs_measured_parse(line, &back, &e) == GS_OK && same_record(&m, &back),
	      "record: a figure not measured read back");
	free(line);
	gs_measured_clear(&back);
	gs_measured_clear(&m);

	/* Lenient reading: wrong types read as absent; only model and label are required. */
	CHECK(gs_measured_parse("{\"model\":\"a\",\"label\":\"b\",\"schema\":\"x\",\"gpu\":[1],"
	                        "\"measured\":{\"allocated\":-1,\"device\":1e30},\"tolerance_pct\":1e999}",
	                        &back, &e) == GS_OK &&
	          back.schema == 0 && back.gpu_name[0] == '\0' && back.allocated == 0 && back.device == 0 &&
	          back.tolerance_pct == 0 && back.harness_result == NULL && !strcmp(back.model, "a"),
	      "record: wrong types read as absent");
	gs_measured_clear(&back);
	/* "auto" stands for a derived setting not given (kv-dtype); for any
	 * other setting it is a value like another. */
	CHECK(gs_measured_parse("{\"model\":\"a\",\"label\":\"b\",\"settings\":{\"method\":\"lora\","
	                        "\"lora-targets\":\"auto\",\"kv-dtype\":\"auto\"}}", &back, &e) == GS_OK &&
	          back.have_settings && !strcmp(back.settings.lora_targets, "auto") && !back.settings.kv_dtype_set,
	      "record: \"auto\" is a module name for lora-targets, the compute dtype for kv-dtype");
	gs_measured_clear(&back);
	e = (gs_error){0};
	CHECK(gs_measured_parse("{\"label\":\"b\"}", &back, &e) == GS_EINPUT &&
	          strstr(e.msg, "missing string \"model\" or \"label\"") != NULL,
	      "record: no model -> GS_EINPUT (%s)", e.msg);
	gs_measured_clear(&back);
}

/* The row key of a few settings over the defaults (static buffer). */
static const char *key_of(const char *method, const char *prec, int batch, int seq, const char *attn)
{
	static char key[GS_KEY_MAX];
	char b[32], q[32];
	gs_settings s;
	gs_error e = { 0 };

	gs_settings_default(&s);
	snprintf(b, sizeof b, "%d", batch);
	snprintf(q, sizeof q, "%d", seq);
	gs_settings_set(&s, "method", method, &e);
	gs_settings_set(&s, "precision", prec, &e);
	gs_settings_set(&s, "batch", b, &e);
	gs_settings_set(&s, "seq", q, &e);
	if (attn)
		gs_settings_set(&s, "attn", attn, &e);
	gs_settings_key(&s, key, sizeof key);
	return key;
}

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
	                         "\"settings\":{\"method\":\"full\",\"precision\":\"bf16\",\"seq\":512},"
	                         "\"gpu\":{\"name\":\"NVIDIA GeForce RTX 4090\",\"class\":\"rtx-4090\"},"
	                         "\"status\":\"ok\",\"measured\":{\"allocated\":10737418240,"
	                         "\"reserved\":11811160064,\"device\":12025908428},"
	                         "\"predicted\":{\"allocated\":10200547328,\"reserved\":11000000000,"
	                         "\"device\":12348030976}}",
	                         &e) == GS_OK,
	      "measured: append creates directory and file");
	CHECK(gs_measured_append(path,
	                         "{\"model\":\"org/m\",\"label\":\"full bf16 adamw b8 s8192 sdpa\","
	                         "\"settings\":{\"method\":\"full\",\"precision\":\"bf16\",\"batch\":8,"
	                         "\"seq\":8192},"
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
	m = gs_measured_find(&st, "org/m", key_of("full", "bf16", 1, 512, NULL));
	CHECK(m != NULL && m->device == 12025908428ULL && !m->oom, "measured: find by model + row key");
	CHECK(gs_measured_find(&st, "org/m", key_of("full", "bf16", 2, 512, NULL)) == NULL,
	      "measured: another row's key not found");
	CHECK(gs_measured_find(&st, "org/m", key_of("full", "bf16", 1, 512, "eager")) == NULL,
	      "measured: a setting outside the label counts (the label is the same, the key is not)");
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
	m = gs_measured_find(&st, "org/m", key_of("full", "bf16", 8, 8192, NULL));
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
		snprintf(p2, sizeof p2, "%s/reserved.jsonl%s", dir, GS_MEASURED_LOCK_SUFFIX);
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

	test_round_trip();

	/* NVML: a missing library is GS_ENOGPU with the clear message. */
	setenv("GPUSIZER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	e = (gs_error){0};
	CHECK(gs_nvml_open(&nv, &e) == GS_ENOGPU && nv == NULL &&
	          strstr(e.msg, "no NVIDIA driver found") != NULL &&
	          strstr(e.msg, "verify needs a local NVIDIA GPU") != NULL,
	      "nvml: missing library -> GS_ENOGPU (%s)", e.msg);
	gs_nvml_close(NULL);

	unlink(path);
	snprintf(path, sizeof path, "%s/sub/verified.jsonl%s", dir, GS_MEASURED_LOCK_SUFFIX);
	unlink(path);
	snprintf(path, sizeof path, "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
	CHECK_DONE();
}
