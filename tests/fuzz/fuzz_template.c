/* libFuzzer target: template text -> gs_tmpl_env_add + gs_tmpl_render
 * (src/template.c) against a fixed data tree. The input up to the first NUL
 * is the template "main"; the rest (if any) is registered as
 * "partials/p.tmpl" so {% include %} is exercised without touching files
 * (the environment's directory does not exist). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gs_tval *make_data(void)
{
	gs_tval *root = gs_tv_map(), *list = gs_tv_list(), *m;
	gs_tv_set_str(root, "name", "org/model|<script>\n=x");
	gs_tv_set_num(root, "n", 3.25);
	gs_tv_set_num(root, "zero", 0);
	gs_tv_set_bool(root, "yes", true);
	gs_tv_set_str(root, "empty", "");
	for (int i = 0; i < 3; i++) {
		m = gs_tv_map();
		gs_tv_set_num(m, "i", i);
		gs_tv_set_str(m, "s", i ? "b*" : "a_");
		gs_tv_push(list, m);
	}
	gs_tv_set(root, "rows", list);
	m = gs_tv_map();
	gs_tv_set(m, "inner", gs_tv_list());
	gs_tv_set_str(m, "leaf", "|");
	gs_tv_set(root, "m", m);
	return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gs_tval *tree;
	char *text = malloc(size + 1);
	const char *part;
	gs_tmpl_env *env;
	gs_tbuf out;
	gs_error e;

	if (text == NULL)
		return 0;
	if (tree == NULL)
		tree = make_data(); /* kept for the process: built once */
	memcpy(text, data, size);
	text[size] = '\0';
	part = text + strlen(text);
	part = part < text + size ? part + 1 : NULL;
	memset(&e, 0, sizeof e);
	gs_tbuf_init(&out);
	env = gs_tmpl_env_new("/nonexistent-gpusizer-fuzz", NULL);
	if (part == NULL || gs_tmpl_env_add(env, "partials/p.tmpl", part, &e) == GS_OK) {
		if (gs_tmpl_env_add(env, "main", text, &e) == GS_OK)
			(void)gs_tmpl_render(env, "main", tree, &out, &e);
	}
	gs_tmpl_env_free(env);
	gs_tbuf_free(&out);
	free(text);
	return 0;
}
