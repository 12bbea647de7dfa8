/* gpusizer: `estimate`: one configuration's peak memory, as a readable
 * breakdown or as one JSON object (the contract in gpusizer.1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "engine.h"
#include "gpu.h"
#include "paths.h"
#include "report.h"
#include "util.h"

static void usage(FILE *fp)
{
	fputs("usage: gpusizer estimate [MODEL | --config FILE | --params N --layers N --hidden N] [OPTIONS]\n"
	      "\n"
	      "Predict the peak GPU memory of one training step (or inference forward), per GPU,\n"
	      "with what is live at the peak: W weights, G gradients, O optimizer states,\n"
	      "A activations, B everything else (temporaries, allocator cache, CUDA context).\n"
	      "\n",
	      fp);
	gs_cli_row_usage(fp);
	fputs("output:\n"
	      "  --json                  one JSON object (fields in gpusizer(1))\n"
	      "  --gpus-dir DIR          GPU classes for the fits list (default gpus)\n"
	      "  -h, --help\n",
	      fp);
}

static double gib(uint64_t b)
{
	return (double)b / GS_GIB;
}

static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(fp, "\\u%04x", *p);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

/* A sweep row holding one estimate, for gs_row_verdict. */
static gs_row row_of(const gs_settings *s, const gs_estimate *x)
{
	gs_row row;

	memset(&row, 0, sizeof row);
	row.settings = *s;
	row.est = *x;
	return row;
}

static void print_json(FILE *fp, const char *model, const gs_arch *a, const gs_settings *s, const gs_estimate *x,
                       const gs_gpu *g, size_t ng)
{
	char label[256];

	gs_settings_label(s, label, sizeof label);
	fputs("{\"model\":", fp);
	json_str(fp, model);
	fputs(",\"model_type\":", fp);
	json_str(fp, a->model_type);
	fprintf(fp, ",\"formula\":\"%s\",\"recipe\":", gs_formula_name(x->formula));
	json_str(fp, x->recipe ? x->recipe : "");
	fprintf(fp,
	        ",\"params_total\":%" PRIu64 ",\"params_active\":%" PRIu64 ",\"params_trainable\":%" PRIu64
	        ",\"components\":{\"W\":%" PRIu64 ",\"G\":%" PRIu64 ",\"O\":%" PRIu64 ",\"A\":%" PRIu64 ",\"B\":%" PRIu64 "}"
	        ",\"bytes_per_param\":{\"W\":%.4f,\"G\":%.4f,\"O\":%.4f}"
	        ",\"allocated_bytes\":%" PRIu64 ",\"reserved_bytes\":%" PRIu64 ",\"device_bytes\":%" PRIu64
	        ",\"host_bytes\":%" PRIu64 ",\"peak_phase\":\"%s\",\"peak_step\":\"%s\",\"gpus\":%lld",
	        x->params_total, x->params_active, x->params_trainable, x->W, x->G, x->O, x->A, x->B, x->bpp_W, x->bpp_G,
	        x->bpp_O, x->allocated, x->reserved, x->device, x->host, gs_phase_name(x->peak_phase),
	        x->peak_step == 1 ? "first" : "steady", (long long)x->gpus);
	fputs(",\"settings\":", fp);
	json_str(fp, label);
	fputs(",\"warning\":", fp);
	json_str(fp, a->warning);
	fputs(",\"note\":", fp);
	json_str(fp, x->note);
	fputs(",\"fits\":[", fp);
	gs_row row = row_of(s, x);
	for (size_t i = 0; i < ng; i++) {
		double head;
		gs_verdict v = gs_row_verdict(&row, &g[i], &head);
		fprintf(fp, "%s{\"gpu\":", i ? "," : "");
		json_str(fp, g[i].id);
		fprintf(fp, ",\"verdict\":\"%s\",\"headroom\":%.4f}", gs_verdict_name(v), head);
	}
	fputs("]}\n", fp);
}

static void print_text(FILE *fp, const char *model, const gs_arch *a, const gs_settings *s, const gs_estimate *x,
                       const gs_gpu *g, size_t ng)
{
	char label[256];

	gs_settings_label(s, label, sizeof label);
	fprintf(fp, "model      %s (%s", model, a->model_type);
	if (a->generic)
		fputs(", sized as a generic decoder", fp);
	fprintf(fp, ")\nparams     %.3f B total", (double)x->params_total / 1e9);
	if (x->params_active != x->params_total)
		fprintf(fp, ", %.3f B active per token", (double)x->params_active / 1e9);
	fprintf(fp, ", %.3f M trainable\n", (double)x->params_trainable / 1e6);
	fprintf(fp, "settings   %s\n", label);
	fprintf(fp, "formula    %s\nrecipe     %s\n", gs_formula_name(x->formula), x->recipe ? x->recipe : "");
	if (a->warning[0])
		fprintf(fp, "warning    %s\n", a->warning);
	fprintf(fp, "\nper GPU at the peak (GiB = 2^30 bytes), %s of the %s step:\n", gs_phase_name(x->peak_phase),
	        x->peak_step == 1 ? "first" : "steady-state");
	fprintf(fp, "  W weights            %9.2f GiB   %.2f bytes/param\n", gib(x->W), x->bpp_W);
	fprintf(fp, "  G gradients          %9.2f GiB   %.2f bytes/trainable param\n", gib(x->G), x->bpp_G);
	fprintf(fp, "  O optimizer states   %9.2f GiB   %.2f bytes/trainable param\n", gib(x->O), x->bpp_O);
	fprintf(fp, "  A activations        %9.2f GiB\n", gib(x->A));
	fprintf(fp, "  B other              %9.2f GiB   temporaries, allocator cache, CUDA context\n", gib(x->B));
	fprintf(fp, "  allocated            %9.2f GiB   torch max_memory_allocated\n", gib(x->allocated));
	fprintf(fp, "  reserved             %9.2f GiB   torch max_memory_reserved\n", gib(x->reserved));
	fprintf(fp, "  device               %9.2f GiB   nvidia-smi; decides fits\n", gib(x->device));
	if (x->host)
		fprintf(fp, "  host (offload)       %9.2f GiB\n", gib(x->host));
	if (x->note[0])
		fprintf(fp, "note       %s\n", x->note);
	if (ng == 0)
		return;
	fputs("\nfits on:\n", fp);
	gs_row row = row_of(s, x);
	for (size_t i = 0; i < ng; i++) {
		double head;
		gs_verdict v = gs_row_verdict(&row, &g[i], &head);
		fprintf(fp, "  %-24s %-7s usable %6.1f GiB  %-13s", g[i].name, g[i].klass, gib(g[i].usable_bytes),
		        gs_verdict_name(v));
		if (v == GS_FITS || v == GS_TIGHT || v == GS_NO_FIT)
			fprintf(fp, " headroom %+.0f%%", head * 100);
		fputc('\n', fp);
	}
}

int cmd_estimate(int argc, char **argv)
{
	gs_cli_row r;
	gs_error e = {0};
	gs_arch a;
	gs_estimate x;
	gs_gpu *g = NULL;
	size_t ng = 0;
	bool json = false;
	char gpus_buf[4096];
	const char *gpus_dir = gpus_buf;
	bool gpus_dir_given = false;
	int rc;

	gs_cli_row_init(&r);
	gs_data_path(GS_DATA_GPUS, gpus_buf, sizeof gpus_buf);
	for (int i = 1; i < argc;) {
		int k = gs_cli_row_flag(&r, argc, argv, &i, &e);
		if (k < 0)
			goto fail;
		if (k > 0)
			continue;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			json = true;
			i++;
		} else if (!strcmp(argv[i], "--gpus-dir") && i + 1 < argc) {
			gpus_dir = argv[i + 1];
			gpus_dir_given = true;
			i += 2;
		} else if (!strncmp(argv[i], "--gpus-dir=", 11)) {
			gpus_dir = argv[i] + 11;
			gpus_dir_given = true;
			i++;
		} else {
			gs_fail(&e, GS_EUSAGE, "estimate: unknown option '%s' (try gpusizer estimate --help)", argv[i]);
			goto fail;
		}
	}
	if (gs_settings_check(&r.s, &e) != GS_OK)
		goto fail;
	if (gs_cli_row_arch(&r, &a, &e) != GS_OK)
		goto fail;
	if (gs_estimate_run(&a, &r.s, &x, &e) != GS_OK)
		goto fail;
	if (gs_gpus_load(gpus_dir, &g, &ng, &e) != GS_OK) {
		if (gpus_dir_given || e.code != GS_ENOTFOUND)
			goto fail;
		memset(&e, 0, sizeof e); /* no gpus/ here: no fits list */
		g = NULL;
		ng = 0;
	}
	const char *model = r.config_path ? r.config_path : r.model_id ? r.model_id : "manual";
	if (json)
		print_json(stdout, model, &a, &r.s, &x, g, ng);
	else
		print_text(stdout, model, &a, &r.s, &x, g, ng);
	free(g);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		gs_fail(&e, GS_EIO, "estimate: cannot write the output");
		gs_report_error(&e);
		return gs_exit_code(GS_EIO);
	}
	return 0;
fail:
	free(g);
	gs_report_error(&e);
	rc = gs_exit_code(e.code);
	if (e.code == GS_EUSAGE)
		fputs("try: gpusizer estimate --help\n", stderr);
	return rc;
}
