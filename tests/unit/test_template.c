/* Unit tests: the template engine (template.c) and escaping (mdesc.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "err.h"
#include "mdesc.h"
#include "template.h"

/* Render text registered as "t" with data; returns the output (static) or
 * NULL on error (message in *e). */
static gs_tbuf out;
static const char *render(gs_tmpl_env *env, const char *text, const gs_tval *data, gs_error *e)
{
	memset(e, 0, sizeof *e);
	gs_tbuf_reset(&out);
	if (gs_tmpl_env_add(env, "t", text, e) != GS_OK)
		return NULL;
	if (gs_tmpl_render(env, "t", data, &out, e) != GS_OK)
		return NULL;
	return out.p ? out.p : "";
}

static int eq(const char *got, const char *want)
{
	if (got && strcmp(got, want) == 0)
		return 1;
	printf("  got  [%s]\n  want [%s]\n", got ? got : "(error)", want);
	return 0;
}

static int err_has(const gs_error *e, gs_err code, const char *needle)
{
	if (e->code == code && strstr(e->msg, needle))
		return 1;
	printf("  error %d [%s], want %d containing [%s]\n", e->code, e->msg, code, needle);
	return 0;
}

static void md(const char *in, const char *want, const char *name)
{
	gs_tbuf b = { 0 };
	gs_md_escape(&b, in);
	CHECK(eq(b.p ? b.p : "", want), "md escape: %s", name);
	gs_tbuf_free(&b);
}

static int always_stopped(void)
{
	return 1;
}

static int stop_calls;
static int stop_after_calls(void)
{
	return ++stop_calls >= 100;
}

int main(void)
{
	gs_tmpl_env *env = gs_tmpl_env_new("tmpl-dir", NULL);
	gs_tval *d = gs_tv_map(), *list, *m, *inner;
	gs_error e;
	char buf[64];
	int i;

	gs_tv_set_str(d, "name", "a|b <script> x");
	gs_tv_set_num(d, "n", 42);
	gs_tv_set_num(d, "x", 2.5);
	gs_tv_set_bool(d, "yes", true);
	gs_tv_set_bool(d, "no", false);
	gs_tv_set_str(d, "empty", "");
	m = gs_tv_set(d, "m", gs_tv_map());
	inner = gs_tv_set(m, "inner", gs_tv_map());
	gs_tv_set_str(inner, "v", "deep");
	list = gs_tv_set(d, "items", gs_tv_list());
	for (i = 0; i < 3; i++) {
		gs_tval *it = gs_tv_push(list, gs_tv_map());
		snprintf(buf, sizeof buf, "i%d", i);
		gs_tv_set_str(it, "id", buf);
		gs_tv_set_num(it, "k", i);
	}
	gs_tv_set(d, "none", gs_tv_list());

	/* Variables and escaping. */
	CHECK(eq(render(env, "hi {{ name }}!", d, &e), "hi a\\|b &lt;script&gt; x!"),
	      "variable escaped by default");
	CHECK(eq(render(env, "{{& name }}", d, &e), "a|b <script> x"), "raw variable");
	CHECK(eq(render(env, "{{n}} {{ x }} {{yes}} {{no}}", d, &e), "42 2.50 true false"),
	      "numbers and bools");
	CHECK(eq(render(env, "{{ m.inner.v }}", d, &e), "deep"), "dotted path");
	CHECK(eq(render(env, "{{& \"{{\" }}x", d, &e), "{{x"), "literal");
	CHECK(eq(render(env, "a { b } {x} }}", d, &e), "a { b } {x} }}"), "lone braces are text");

	/* Loops. */
	CHECK(eq(render(env, "{% for it in items %}{{it.id}}={{ it.k }}{% if not loop.last %},{% endif %}{% endfor %}",
	                d, &e),
	         "i0=0,i1=1,i2=2"),
	      "for loop with loop.last");
	CHECK(eq(render(env, "{% for it in items %}{{loop.index}}/{{loop.length}}{% if loop.first %}F{% endif %} {% endfor %}",
	                d, &e),
	         "1/3F 2/3 3/3 "),
	      "loop.index, loop.length, loop.first");
	CHECK(eq(render(env, "[{% for it in none %}x{% endfor %}]", d, &e), "[]"), "empty list");
	CHECK(eq(render(env, "{% for a in items %}{% for b in items %}{{a.k}}{{b.k}} {% endfor %}{% endfor %}",
	                d, &e),
	         "00 01 02 10 11 12 20 21 22 "),
	      "nested loops see outer variable");
	CHECK(eq(render(env, "| a |\n{% for it in items %}\n| {{ it.id }} |\n{% endfor %}\nend\n", d, &e),
	         "| a |\n| i0 |\n| i1 |\n| i2 |\nend\n"),
	      "block tags alone on a line take the line");
	CHECK(eq(render(env, "x\n  {# a comment\n spanning lines #}  \ny {# inline #}z\n", d, &e),
	         "x\ny z\n"),
	      "comments");

	/* Conditionals. */
	CHECK(eq(render(env, "{% if yes %}A{% else %}B{% endif %}{% if no %}C{% elif empty %}D{% elif n %}E{% else %}F{% endif %}",
	                d, &e),
	         "AE"),
	      "if/elif/else");
	CHECK(eq(render(env, "{% if not empty %}1{% endif %}{% if none %}2{% endif %}{% if items %}3{% endif %}{% if m %}4{% endif %}",
	                d, &e),
	         "134"),
	      "truthiness: empty string/list false, map true");

	/* Includes. */
	CHECK(gs_tmpl_env_add(env, "partials/p.tmpl", "<{{ it.id }}>", &e) == GS_OK, "add partial");
	CHECK(eq(render(env, "{% for it in items %}{% include \"partials/p.tmpl\" %}{% endfor %}", d, &e),
	         "<i0><i1><i2>"),
	      "include sees loop variables");
	{
		/* A file on disk, loaded on first use. */
		char dir[] = "/tmp/gs-tmpl-XXXXXX";
		char path[256];
		FILE *fp;
		gs_tmpl_env *fenv;
		CHECK(mkdtemp(dir) != NULL, "mkdtemp");
		snprintf(path, sizeof path, "%s/file.tmpl", dir);
		fp = fopen(path, "w");
		fputs("from file: {{ n }}\n{% bogus %}\n", fp);
		fclose(fp);
		fenv = gs_tmpl_env_new(dir, NULL);
		gs_tbuf_reset(&out);
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(fenv, "file.tmpl", d, &out, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "/file.tmpl:2: unknown tag 'bogus'"),
		      "error names the template file and line: %s", e.msg);
		fp = fopen(path, "w");
		fputs("from file: {{ n }}\n", fp);
		fclose(fp);
		gs_tmpl_env_free(fenv);
		fenv = gs_tmpl_env_new(dir, NULL);
		gs_tbuf_reset(&out);
		CHECK(gs_tmpl_render(fenv, "file.tmpl", d, &out, &e) == GS_OK &&
		              eq(out.p, "from file: 42\n"),
		      "template read from the directory");
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(fenv, "missing.tmpl", d, &out, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "missing.tmpl"),
		      "missing template: %s", e.msg);
		gs_tmpl_env_free(fenv);
		unlink(path);
		rmdir(dir);
	}

	/* Errors name the template and the line. */
	CHECK(render(env, "line1\nline2 {{ nosuch }}\n", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "tmpl-dir/t:2: unknown variable 'nosuch'"),
	      "unknown variable is an error with file:line: %s", e.msg);
	CHECK(render(env, "{% if nosuch %}x{% endif %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "unknown variable 'nosuch'"),
	      "unknown variable in if is an error");
	CHECK(render(env, "{{ m.inner.nope }}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "unknown variable 'm.inner.nope'"),
	      "unknown nested key is an error");
	CHECK(render(env, "{{ items }}", d, &e) == NULL && err_has(&e, GS_ETEMPLATE, "is a list"),
	      "printing a list is an error");
	CHECK(render(env, "{% for x in name %}{% endfor %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "not a list"),
	      "for over a string is an error");
	CHECK(render(env, "a\n\n{% for x in items %}\nno end\n", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "t:3: {% for %} without {% endfor %}"),
	      "unclosed for: %s", e.msg);
	CHECK(render(env, "{% if yes %}\n{% endfor %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "t:2: expected {% endif %}, got 'endfor'"),
	      "mismatched end: %s", e.msg);
	CHECK(render(env, "x\n{% endif %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "t:2: unexpected tag 'endif'"),
	      "stray end tag");
	CHECK(render(env, "{% fro x in y %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "t:1: unknown tag 'fro'"),
	      "unknown tag");
	CHECK(render(env, "\n\n{{ name ", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "t:3: unclosed '{{' tag"),
	      "unclosed variable tag");
	CHECK(render(env, "{{ a b }}", d, &e) == NULL && err_has(&e, GS_ETEMPLATE, "bad variable"),
	      "bad variable syntax");
	CHECK(render(env, "{% include \"../etc/passwd\" %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "bad template name"),
	      "include outside the template directory refused");
	CHECK(render(env, "\n{% include \"partials/none.tmpl\" %}", d, &e) == NULL &&
	              err_has(&e, GS_ETEMPLATE, "tmpl-dir/t:2: include \"partials/none.tmpl\""),
	      "missing include names the including file and line: %s", e.msg);

	/* Include depth limit: a self-including template and a long chain. */
	CHECK(gs_tmpl_env_add(env, "loop.tmpl", "x{% include \"loop.tmpl\" %}", &e) == GS_OK,
	      "add self-including template");
	gs_tbuf_reset(&out);
	memset(&e, 0, sizeof e);
	CHECK(gs_tmpl_render(env, "loop.tmpl", d, &out, &e) == GS_ETEMPLATE &&
	              err_has(&e, GS_ETEMPLATE, "includes nested deeper than 16"),
	      "recursive include stops at the depth limit: %s", e.msg);
	for (i = 0; i < GS_TMPL_MAX_DEPTH; i++) {
		char name[32], text[64];
		snprintf(name, sizeof name, "c%d", i);
		snprintf(text, sizeof text, "%d{%% include \"c%d\" %%}", i, i + 1);
		gs_tmpl_env_add(env, name, text, &e);
	}
	snprintf(buf, sizeof buf, "c%d", GS_TMPL_MAX_DEPTH);
	gs_tmpl_env_add(env, buf, "end", &e);
	gs_tbuf_reset(&out);
	memset(&e, 0, sizeof e);
	CHECK(gs_tmpl_render(env, "c0", d, &out, &e) == GS_OK &&
	              eq(out.p, "0123456789101112131415end"),
	      "a chain of exactly %d includes renders", GS_TMPL_MAX_DEPTH);
	{
		/* Issue 16 item 12: a tree of 6 includes per template, 14 deep
		 * (6^14 renders, ran for minutes): refused at the include budget,
		 * the message naming the template, the line and the chain. */
		for (i = 0; i < 14; i++) {
			char name[32], text[256];
			snprintf(name, sizeof name, "fan%d", i);
			snprintf(text, sizeof text, "%s", "");
			for (int k = 0; k < 6; k++)
				snprintf(text + strlen(text), sizeof text - strlen(text),
				         "{%% include \"fan%d\" %%}\n", i + 1);
			gs_tmpl_env_add(env, name, text, &e);
		}
		gs_tmpl_env_add(env, "fan14", "leaf", &e);
		gs_tbuf_reset(&out);
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(env, "fan0", d, &out, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "more than 4096 includes in one page") &&
		              err_has(&e, GS_ETEMPLATE, "(included from fan") &&
		              err_has(&e, GS_ETEMPLATE, "< fan0:"),
		      "limits.template_fanout: 6 includes x 14 deep refused at %d includes: %s",
		      GS_TMPL_MAX_INCLUDES, e.msg);
		/* The chain in the depth message too. */
		gs_tbuf_reset(&out);
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(env, "loop.tmpl", d, &out, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "(included from loop.tmpl:1 < "),
		      "limits.template_depth_chain: the depth error names the include chain: %.120s", e.msg);
		/* Exactly the budget renders: 4096 includes of a leaf. */
		gs_tbuf many = { 0 };
		for (i = 0; i < GS_TMPL_MAX_INCLUDES; i++)
			gs_tbuf_puts(&many, "{% include \"fan14\" %}");
		gs_tmpl_env_add(env, "many", many.p, &e);
		gs_tbuf_reset(&out);
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(env, "many", d, &out, &e) == GS_OK && out.len == 4 * GS_TMPL_MAX_INCLUDES,
		      "limits.template_budget_exact: %d includes render (%s)", GS_TMPL_MAX_INCLUDES, e.msg);
		gs_tbuf_free(&many);
	}
	{
		/* The stop hook: a render polls it and fails "rendering stopped". */
		gs_tmpl_set_stop(always_stopped);
		gs_tbuf_reset(&out);
		memset(&e, 0, sizeof e);
		CHECK(gs_tmpl_render(env, "fan0", d, &out, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "tmpl-dir/fan0:1: rendering stopped"),
		      "limits.template_stop_hook: a stopped render fails at once: %s", e.msg);
		gs_tmpl_set_stop(stop_after_calls);
		stop_calls = 0;
		memset(&e, 0, sizeof e);
		gs_tbuf_reset(&out);
		CHECK(gs_tmpl_render(env, "many", d, &out, &e) == GS_ETEMPLATE && stop_calls == 100 &&
		              err_has(&e, GS_ETEMPLATE, "rendering stopped"),
		      "limits.template_stop_polled: a signal mid-render stops it (%d polls): %s", stop_calls,
		      e.msg);
		gs_tmpl_set_stop(NULL);
		memset(&e, 0, sizeof e);
		gs_tbuf_reset(&out);
		CHECK(gs_tmpl_render(env, "c0", d, &out, &e) == GS_OK, "no stop hook: renders again");
	}
	{
		/* Nested blocks past the nesting limit: an error, not a stack overflow. */
		gs_tbuf deep = { 0 };
		for (i = 0; i < 10000; i++)
			gs_tbuf_puts(&deep, "{% if yes %}");
		CHECK(render(env, deep.p, d, &e) == NULL && err_has(&e, GS_ETEMPLATE, "nested deeper"),
		      "deep nesting refused");
		gs_tbuf_free(&deep);
	}

	{
		/* A capped output buffer: rendering past its cap is an error naming
		 * the cap, and the buffer holds no more than the cap. */
		gs_tbuf small;
		gs_tbuf_init_max(&small, 16);
		memset(&e, 0, sizeof e);
		gs_tmpl_env_add(env, "long", "0123456789{{ name }}0123456789", &e);
		CHECK(gs_tmpl_render(env, "long", d, &small, &e) == GS_ETEMPLATE &&
		              err_has(&e, GS_ETEMPLATE, "long: output larger than 16 bytes") && small.too_big &&
		              small.len <= 16,
		      "render into a capped buffer: an error naming the buffer's cap");
		gs_tbuf_free(&small);
	}

	/* Markdown escaping of names from outside. */
	md("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B", "ordinary id unchanged");
	md("a|b", "a\\|b", "pipe");
	md("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "html tags");
	md("line1\nline2\r\tx", "line1 line2  x", "newlines and tabs");
	md("=HYPERLINK(\"x\")", "\\=HYPERLINK(\"x\")", "leading =");
	md("- item", "\\- item", "leading -");
	md("# head", "\\# head", "leading #");
	md("C# model #", "C\\# model \\#", "# anywhere (a heading's closing sequence)");
	md("12. x", "12\\. x", "ordered-list marker");
	md("1.5B", "1.5B", "a decimal is not a list marker");
	md("a_b*c`d[e](f)~\\", "a\\_b\\*c\\`d\\[e\\](f)\\~\\\\", "markdown specials");
	md("A & B", "A &amp; B", "ampersand");
	md("Ünïcödé €𝄞", "Ünïcödé €𝄞", "utf-8 passes");
	md("a\xfd\x87" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82",
	   "a\xef\xbf\xbd\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	   "d\xef\xbf\xbd\xef\xbf\xbd",
	   "invalid utf-8 (stray, overlong, surrogate, truncated) becomes U+FFFD");
	{
		gs_tbuf b = { 0 };
		gs_xml_escape(&b, "<a href=\"x\">'&'</a>");
		CHECK(eq(b.p, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"), "xml escape");
		gs_tbuf_reset(&b);
		gs_xml_escape(&b, "\xff" "\x01" "é");
		CHECK(eq(b.p, "\xef\xbf\xbd é"), "xml escape: invalid utf-8 and control bytes");
		gs_tbuf_free(&b);
	}

	/* Numbers. */
	CHECK(eq(gs_fmt_fixed(buf, sizeof buf, 1.005, 1), "1.0"), "fixed 1 decimal");
	CHECK(eq(gs_fmt_fixed(buf, sizeof buf, -0.004, 2), "0.00"), "no negative zero");
	CHECK(eq(gs_fmt_fixed(buf, sizeof buf, -12.345, 1), "-12.3"), "negative");
	CHECK(eq(gs_fmt_fixed(buf, sizeof buf, 0.0 / 0.0, 2), "n/a"), "nan");
	CHECK(eq(gs_fmt_gib(buf, sizeof buf, 0), "0.00"), "gib zero");
	CHECK(eq(gs_fmt_gib(buf, sizeof buf, UINT64_C(1) << 30), "1.00"), "gib one");
	CHECK(eq(gs_fmt_gib(buf, sizeof buf, (UINT64_C(3) << 30) - 1), "3.00"), "gib rounds up");
	CHECK(eq(gs_fmt_gib(buf, sizeof buf, UINT64_C(16060000000)), "14.96"), "gib 16.06 GB");
	CHECK(eq(gs_fmt_gib(buf, sizeof buf, UINT64_MAX), "17179869184.00"), "gib max");

	gs_tv_free(d);
	gs_tmpl_env_free(env);
	gs_tbuf_free(&out);
	CHECK_DONE();
}
