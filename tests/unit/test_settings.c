/* gpusizer tests: the settings table, the label and the canonical row key.
 * Core only: links settings.c, arch.c, engine.c and err.c. */
#include <stdlib.h>

#include "arch.h"
#include "check.h"
#include "engine.h"
#include "settings.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned draw(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

/* A value text for setting d, from a small set so that draws often agree. */
static const char *draw_value(const gs_setting *d, char *buf, size_t n)
{
	static const char *const targets[] = { "qv", "attn", "all-linear", "q_proj,v_proj" };
	static const char *const stacks[] = { "hf,trl", "unsloth", "hf@4.32,peft,deepspeed", "liger" };
	double c[5];
	size_t k = 0;

	switch (d->type) {
	case GS_ST_ENUM: {
		size_t nv = 0;
		while (d->values[nv] != NULL)
			nv++;
		return d->values[draw((unsigned)nv)];
	}
	case GS_ST_BOOL:
		if (d->values != NULL)
			return d->values[draw(2)];
		return draw(2) ? "true" : "false";
	case GS_ST_TEXT:
		return strcmp(d->name, "stack") == 0 ? stacks[draw(4)] : targets[draw(4)];
	case GS_ST_INT: {
		double def = d->def ? atof(d->def) : d->lo;
		double cand[] = { d->lo, d->lo + 1, def, def * 2, 4 };
		for (size_t i = 0; i < 5; i++)
			if (cand[i] >= d->lo && cand[i] <= d->hi)
				c[k++] = cand[i];
		snprintf(buf, n, "%lld", (long long)c[draw((unsigned)k)]);
		return buf;
	}
	case GS_ST_REAL: {
		double cand[] = { d->lo, d->hi / 2, d->def ? atof(d->def) : d->hi };
		snprintf(buf, n, "%.10g", cand[draw(3)]);
		return buf;
	}
	}
	return "";
}

/* Draw setting d into s: a value, or (for a derived one) sometimes none. */
static void draw_setting(const gs_setting *d, gs_settings *s)
{
	char buf[64];
	gs_error e = { 0 };

	if ((d->def == NULL) && draw(3) == 0) {
		gs_settings fresh;
		gs_settings_default(&fresh);
		/* back to "not given": copy the field and its flag from the defaults */
		memcpy((char *)s + d->off, (char *)&fresh + d->off,
		       d->type == GS_ST_REAL ? sizeof(double) : sizeof(int));
		if (d->set_off)
			*((bool *)((char *)s + d->set_off)) = false;
		return;
	}
	if (gs_settings_set(s, d->name, draw_value(d, buf, sizeof buf), &e) != GS_OK) {
		printf("FAIL draw %s: %s\n", d->name, e.msg);
		check_failed++;
	}
}

static void draw_settings(gs_settings *s)
{
	const gs_setting *t = gs_settings_table();

	gs_settings_default(s);
	for (size_t i = 0; i < gs_settings_count(); i++)
		draw_setting(&t[i], s);
}

/* Every applicable setting of a and b has the same value text. */
static bool same_settings(const gs_settings *a, const gs_settings *b)
{
	const gs_setting *t = gs_settings_table();

	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value va, vb;
		bool aa = gs_setting_applies(&t[i], a), ab = gs_setting_applies(&t[i], b);
		if (aa != ab)
			return false;
		if (!aa)
			continue;
		gs_setting_get(&t[i], a, &va);
		gs_setting_get(&t[i], b, &vb);
		if (strcmp(va.text, vb.text) != 0)
			return false;
	}
	return true;
}

static bool same_estimate(const gs_estimate *x, const gs_estimate *y)
{
	return x->device == y->device && x->allocated == y->allocated && x->reserved == y->reserved &&
	       x->W == y->W && x->G == y->G && x->O == y->O && x->A == y->A && x->B == y->B &&
	       x->host == y->host && x->peak_phase == y->peak_phase && x->peak_step == y->peak_step;
}

static void test_table(void)
{
	const gs_setting *t = gs_settings_table();
	size_t n = gs_settings_count(), bad_def = 0, dup = 0, bad_enum = 0;
	gs_settings s;

	CHECK(n > 0 && n <= 64, "settings table has %zu rows (the CLI builds at most 64 options)", n);
	gs_settings_default(&s);
	for (size_t i = 0; i < n; i++) {
		gs_settings x = s;
		gs_error e = { 0 };
		gs_setting_value v;
		if (t[i].def != NULL) {
			gs_setting_get(&t[i], &s, &v);
			if (gs_settings_set(&x, t[i].name, t[i].def, &e) != GS_OK || strcmp(v.text, t[i].def) != 0) {
				printf("  %s: default '%s' reads back as '%s' (%s)\n", t[i].name, t[i].def, v.text, e.msg);
				bad_def++;
			}
		}
		for (size_t j = 0; j < i; j++)
			dup += strcmp(t[i].name, t[j].name) == 0;
		if (t[i].type == GS_ST_ENUM && (t[i].values == NULL || t[i].values[0] == NULL))
			bad_enum++;
		if (t[i].help == NULL || t[i].title == NULL || t[i].methods == 0 || t[i].width <= 0)
			bad_enum++;
	}
	CHECK(bad_def == 0, "every default parses and is what gs_settings_default sets");
	CHECK(dup == 0, "setting names are unique");
	CHECK(bad_enum == 0, "every setting has values (enums), help, an XLSX title and width, methods");
	CHECK(gs_setting_find("state-dict-load") != NULL && gs_setting_find("no-such") == NULL,
	      "gs_setting_find finds by name");
}

static void test_label(void)
{
	static const struct {
		const char *sets[8][2];
		const char *label;
	} cases[] = {
		{ { { NULL, NULL } }, "full amp-bf16 adamw b1 s2048 sdpa" },
		{ { { "method", "lora" }, { "grad-ckpt", "true" }, { "grad-accum", "4" }, { NULL, NULL } },
		  "lora bf16 adamw r16 qv b1 s2048 ckpt sdpa ga4" },
		{ { { "method", "qlora" }, { "compile", "true" }, { "optimizer-in-bwd", "true" },
		    { "loss", "chunked" }, { NULL, NULL } },
		  "qlora nf4 adamw r16 qv b1 s2048 sdpa compile opt-in-bwd chunked-loss" },
		{ { { "gpus", "4" }, { "sharding", "zero3" }, { "state-dict-load", "full" },
		    { "offload", "params" }, { NULL, NULL } },
		  "full amp-bf16 adamw b1 s2048 sdpa 4xzero3 full-load offload-params" },
		{ { { "gpus", "4" }, { "tp", "2" }, { NULL, NULL } }, "full amp-bf16 adamw b1 s2048 sdpa 4xddp tp2" },
		{ { { "method", "inference" }, { "logits", "all" }, { "grad-ckpt", "true" }, { "batch", "8" },
		    { NULL, NULL } },
		  "inference bf16 b8 s2048 sdpa logits-all" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gs_settings s;
		gs_error e = { 0 };
		char label[256];

		gs_settings_default(&s);
		for (size_t k = 0; cases[i].sets[k][0] != NULL; k++)
			if (gs_settings_set(&s, cases[i].sets[k][0], cases[i].sets[k][1], &e) != GS_OK)
				printf("  set %s: %s\n", cases[i].sets[k][0], e.msg);
		gs_settings_label(&s, label, sizeof label);
		CHECK(strcmp(label, cases[i].label) == 0, "label '%s'", cases[i].label);
		if (strcmp(label, cases[i].label) != 0)
			printf("  got '%s'\n", label);
	}
}

/* Different applicable settings never share a key; equal ones always do. */
static void test_key_property(void)
{
	size_t pairs = 0, equal = 0, wrong = 0, full = 0;
	char ka[GS_KEY_MAX], kb[GS_KEY_MAX];

	for (int it = 0; it < 20000; it++) {
		gs_settings a, b;
		const gs_setting *t = gs_settings_table();

		draw_settings(&a);
		b = a;
		for (size_t i = 0; i < gs_settings_count(); i++)
			if (draw(8) == 0)
				draw_setting(&t[i], &b);
		size_t na = gs_settings_key(&a, ka, sizeof ka), nb = gs_settings_key(&b, kb, sizeof kb);
		full += na >= sizeof ka || nb >= sizeof kb;
		bool same_key = strcmp(ka, kb) == 0, same = same_settings(&a, &b);
		equal += same;
		pairs++;
		if (same_key != same) {
			if (wrong++ < 3)
				printf("  key %s\n  vs  %s: settings %s\n", ka, kb, same ? "equal" : "differ");
		}
	}
	CHECK(full == 0, "keys fit GS_KEY_MAX");
	CHECK(wrong == 0 && equal > 100 && equal < pairs, "%zu random pairs (%zu with equal settings): keys equal exactly when settings are",
	      pairs, equal);
}

/* Keys agree only when the estimates do: a setting that does not apply to
 * a method (so is not in its key) must not change that method's estimate. */
static void test_key_engine(void)
{
	gs_arch arch;
	gs_error e = { 0 };
	size_t runs = 0, wrong = 0;

	if (gs_arch_manual(&arch, 0, 4, 256, 4, 2, 688, 1000, &e) != GS_OK) {
		CHECK(0, "manual arch: %s", e.msg);
		return;
	}
	for (int it = 0; it < 8000; it++) {
		gs_settings a, b;
		gs_estimate xa, xb;
		gs_error ea = { 0 }, eb = { 0 };
		const gs_setting *t = gs_settings_table();
		char ka[GS_KEY_MAX], kb[GS_KEY_MAX];

		draw_settings(&a);
		/* the parallel layouts (pp, vpp, ep) refuse most random GPU
		 * counts: kept in a quarter of the draws, so that enough pass */
		if (draw(4) != 0)
			a.pp = a.vpp = a.ep = 1;
		/* The key names the engine's estimate; the seeds' formulas
		 * (cookbook, rule-of-thumb) are other people's rules, which read
		 * settings a method does not use. */
		a.formula = GS_F_DETAILED;
		if (gs_settings_check(&a, &ea) != GS_OK)
			continue;
		b = a;
		for (size_t i = 0; i < gs_settings_count(); i++)
			if (!gs_setting_applies(&t[i], &a) && draw(2))
				draw_setting(&t[i], &b);
		b.formula = GS_F_DETAILED;
		if (gs_settings_check(&b, &eb) != GS_OK)
			continue;
		gs_settings_key(&a, ka, sizeof ka);
		gs_settings_key(&b, kb, sizeof kb);
		if (strcmp(ka, kb) != 0) {
			wrong++;
			continue;
		}
		gs_err ra = gs_estimate_run(&arch, &a, &xa, &ea), rb = gs_estimate_run(&arch, &b, &xb, &eb);
		runs++;
		if (ra != rb || (ra == GS_OK && !same_estimate(&xa, &xb))) {
			if (wrong++ < 3) {
				printf("  key %s: %llu vs %llu bytes; differ in:", ka, (unsigned long long)xa.device,
				       (unsigned long long)xb.device);
				for (size_t i = 0; i < gs_settings_count(); i++) {
					gs_setting_value va, vb;
					gs_setting_get(&t[i], &a, &va);
					gs_setting_get(&t[i], &b, &vb);
					if (strcmp(va.text, vb.text) != 0)
						printf(" %s", t[i].name);
				}
				printf("\n");
			}
		}
	}
	CHECK(wrong == 0 && runs > 500, "%zu pairs differing only in settings outside their key: same estimate", runs);
}

static void test_key_text(void)
{
	static const char head[] = "method=full;stack=hf,trl;precision=amp-bf16;compute-dtype=auto;optimizer=adamw;";
	gs_settings s;
	char k[GS_KEY_MAX];

	gs_settings_default(&s);
	gs_settings_key(&s, k, sizeof k);
	CHECK(strncmp(k, head, sizeof head - 1) == 0 &&
	      strstr(k, "lora-r") == NULL && strstr(k, "kv-dtype") == NULL,
	      "the default key names the full-method settings only");
	CHECK(gs_key_hash("m", "a") != gs_key_hash("m", "b") && gs_key_hash("ma", "") != gs_key_hash("m", "a"),
	      "the key hash separates the model from the key");
}

static void test_equal_except(void)
{
	gs_settings a, b;
	gs_error e = { 0 };

	gs_settings_default(&a);
	b = a;
	gs_settings_set(&b, "seq", "4096", &e);
	CHECK(gs_settings_equal_except(&a, &b, "seq") && !gs_settings_equal_except(&a, &b, NULL),
	      "equal except seq: rows that differ in context only");
	gs_settings_set(&b, "compile", "true", &e);
	CHECK(!gs_settings_equal_except(&a, &b, "seq"), "equal except seq: compile counts too");
	b = a;
	gs_settings_set(&b, "lora-r", "64", &e);
	CHECK(gs_settings_equal_except(&a, &b, NULL), "a setting the method ignores does not count");
}


/* The axes: the table's swept rows, whose order is the sweep's nesting
 * (1 .. n, each once, the method outermost as the sweep's counting
 * assumes), each with its spec key and report option (distinct), the
 * per-method list on precision alone and the GPU layouts on gpus, the
 * innermost (an answer's rows of one configuration arrive together, what
 * src/report/report.c keeps one run of at a time); every
 * axis is a setting the spec may not fix under "settings" (GS_SF_SWEPT). */
static void test_axes(void)
{
	const gs_setting *t = gs_settings_table(), *d;
	size_t n = gs_settings_count(), axes = 0, k, bad = 0, dup = 0;

	for (size_t i = 0; i < n; i++) {
		if (t[i].axis.order <= 0)
			continue;
		axes++;
		if (!(t[i].flags & GS_SF_SWEPT) || t[i].axis.spec_key == NULL || t[i].axis.option == NULL ||
		    t[i].axis.arg == NULL || t[i].axis.help == NULL || t[i].methods == 0)
			bad++;
		for (size_t j = 0; j < i; j++)
			if (t[j].axis.order > 0 &&
			    (t[j].axis.order == t[i].axis.order || strcmp(t[j].axis.spec_key, t[i].axis.spec_key) == 0 ||
			     strcmp(t[j].axis.option, t[i].axis.option) == 0))
				dup++;
	}
	for (k = 0; (d = gs_settings_axis(k)) != NULL; k++)
		bad += d->axis.order != (int)k + 1 || gs_settings_axis_option(d->axis.option) != d;
	CHECK(axes == k && axes >= 10 && axes <= GS_AXES_MAX && bad == 0 && dup == 0,
	      "axes: %zu swept rows, orders 1 to %zu, spec keys and options distinct (at most %d)", axes, k,
	      GS_AXES_MAX);
	d = gs_settings_axis(0);
	CHECK(d != NULL && strcmp(d->name, "method") == 0 && d->methods == GS_M_ALL,
	      "axes: the method is the outermost, swept for every method");
	d = gs_setting_find("precision");
	CHECK(d->axis.flags == GS_AXF_PER_METHOD && gs_setting_find("gpus")->axis.flags == GS_AXF_COUNTS &&
	      gs_settings_axis(k - 1) == gs_setting_find("gpus"),
	      "axes: precision has the per-method lists, the GPU layouts are the innermost");
	CHECK(gs_setting_find("optimizer")->methods == GS_M_TRAIN &&
	      gs_setting_find("lora-r")->methods == GS_M_ADAPTER && gs_settings_axis_option("batches") ==
	      gs_setting_find("batch") && gs_settings_axis_option("batch") == NULL,
	      "axes: the methods mask says where an axis is swept; the option names it");
}

int main(void)
{
	test_equal_except();
	test_table();
	test_axes();
	test_label();
	test_key_text();
	test_key_property();
	test_key_engine();
	CHECK_DONE();
}
