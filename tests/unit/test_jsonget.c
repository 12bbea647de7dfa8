/* Unit tests: the typed cJSON getters (jsonget.c). */
#include <cJSON.h>
#include <float.h>
#include <string.h>

#include "check.h"
#include "jsonget.h"

static const char doc[] =
	"{\"n\": 12, \"zero\": 0, \"neg\": -3, \"half\": 2.5, \"big\": 1e300, \"huge\": 1e16,"
	" \"s\": \"text\", \"empty\": \"\", \"t\": true, \"f\": false, \"nul\": null, \"arr\": [1],"
	" \"p\": 0.5, \"total_mib\": 24, \"usable_bytes\": 1000, \"both_mib\": 1, \"both_bytes\": 2,"
	" \"frac_mib\": 1.5, \"over_mib\": 9e15}";

static gs_error e;

/* A fresh reader for "f.json" (GS_ECONFIG). */
static gs_jget fresh(void)
{
	gs_jget g = { "f.json", "", GS_ECONFIG, &e, GS_OK };

	memset(&e, 0, sizeof e);
	return g;
}

/* The reader failed with exactly msg. */
static int failed(const gs_jget *g, const char *msg)
{
	if (g->rc == GS_ECONFIG && e.code == GS_ECONFIG && strcmp(e.msg, msg) == 0)
		return 1;
	printf("  rc %d, message [%s], want [%s]\n", g->rc, e.msg, msg);
	return 0;
}

int main(void)
{
	cJSON *root = cJSON_Parse(doc);
	gs_jget g;
	char buf[8], got[64];
	const char *s;

	CHECK(root != NULL, "jsonget: the test document parses");

	/* items: null is absent */
	CHECK(gs_jget_item(root, "n") != NULL && gs_jget_item(root, "nul") == NULL &&
	          gs_jget_item(root, "nope") == NULL && gs_jget_item(NULL, "n") == NULL,
	      "jsonget item: present, null, absent, no object");
	gs_json_describe(gs_jget_item(root, "half"), got, sizeof got);
	CHECK(strcmp(got, "2.5") == 0, "jsonget describe: a number (%s)", got);
	gs_json_describe(gs_jget_item(root, "s"), got, sizeof got);
	CHECK(strcmp(got, "\"text\"") == 0, "jsonget describe: a string quoted (%s)", got);
	gs_json_describe(gs_jget_item(root, "arr"), got, sizeof got);
	CHECK(strcmp(got, "an array") == 0, "jsonget describe: an array (%s)", got);

	/* integers */
	g = fresh();
	CHECK(gs_jget_int(&g, root, "n", 1, GS_JSON_INT_MAX, 7, true) == 12 && g.rc == GS_OK,
	      "jsonget int: a positive integer");
	CHECK(gs_jget_int(&g, root, "zero", 0, GS_JSON_INT_MAX, 7, true) == 0 && g.rc == GS_OK,
	      "jsonget int: 0 with min 0");
	CHECK(gs_jget_int(&g, root, "nope", 1, GS_JSON_INT_MAX, 7, false) == 7 &&
	          gs_jget_int(&g, root, "nul", 1, GS_JSON_INT_MAX, 7, false) == 7 && g.rc == GS_OK,
	      "jsonget int: absent or null and optional gives the default");
	g = fresh();
	CHECK(gs_jget_int(&g, root, "nope", 1, GS_JSON_INT_MAX, 0, true) == 1 &&
	          failed(&g, "f.json: field \"nope\": missing (must be a positive integer)"),
	      "jsonget int: required and absent");
	g = fresh();
	gs_jget_int(&g, root, "nul", 0, GS_JSON_INT_MAX, 0, true);
	CHECK(failed(&g, "f.json: field \"nul\": must be a non-negative integer (got null)"),
	      "jsonget int: required and null");
	g = fresh();
	gs_jget_int(&g, root, "zero", 1, GS_JSON_INT_MAX, 0, true);
	CHECK(failed(&g, "f.json: field \"zero\": must be a positive integer (got 0)"), "jsonget int: below min");
	g = fresh();
	gs_jget_int(&g, root, "half", -5, GS_JSON_INT_MAX, 0, true);
	CHECK(failed(&g, "f.json: field \"half\": must be an integer (got 2.5)"), "jsonget int: not whole");
	g = fresh();
	gs_jget_int(&g, root, "s", 1, GS_JSON_INT_MAX, 0, true);
	CHECK(failed(&g, "f.json: field \"s\": must be a positive integer (got \"text\")"),
	      "jsonget int: a string");
	g = fresh();
	gs_jget_int(&g, root, "huge", 1, GS_JSON_INT_MAX, 0, true);
	CHECK(failed(&g, "f.json: field \"huge\": must be a positive integer below 2^53 (got 10000000000000000: too large)"),
	      "jsonget int: past 2^53");
	g = fresh();
	gs_jget_int(&g, root, "n", 1, 10, 0, true);
	CHECK(failed(&g, "f.json: field \"n\": must be an integer from 1 to 10 (got 12)"), "jsonget int: past a max");
	CHECK(gs_jget_int(&g, root, "n", 1, GS_JSON_INT_MAX, 5, true) == 5, "jsonget int: sticky: after a failure the default");
	CHECK(strstr(e.msg, "from 1 to 10") != NULL, "jsonget: the first error wins");

	/* prefix and code */
	g = fresh();
	g.pfx = "text_config.";
	g.code = GS_EGPUFILE;
	gs_jget_bool(&g, root, "n", false, true);
	CHECK(g.rc == GS_EGPUFILE && strcmp(e.msg, "f.json: field \"text_config.n\": must be true or false (got 12)") == 0,
	      "jsonget: the prefix and the code (%s)", e.msg);
	g = fresh();
	gs_jget_fail(&g, GS_EOVERFLOW, "k", "too large: %d", 3);
	CHECK(g.rc == GS_EOVERFLOW && strcmp(e.msg, "f.json: field \"k\": too large: 3") == 0,
	      "jsonget fail: any code, printf detail");

	/* booleans and strings */
	g = fresh();
	CHECK(gs_jget_bool(&g, root, "t", false, true) && !gs_jget_bool(&g, root, "f", true, true) &&
	          gs_jget_bool(&g, root, "nope", true, false) && g.rc == GS_OK,
	      "jsonget bool: true, false, default");
	g = fresh();
	gs_jget_bool(&g, root, "nope", false, true);
	CHECK(failed(&g, "f.json: field \"nope\": missing (must be true or false)"), "jsonget bool: required");
	g = fresh();
	s = gs_jget_str(&g, root, "s", true);
	CHECK(s != NULL && strcmp(s, "text") == 0 && gs_jget_str(&g, root, "empty", true) != NULL &&
	          gs_jget_str(&g, root, "nope", false) == NULL && g.rc == GS_OK,
	      "jsonget str: borrowed, empty allowed, optional");
	g = fresh();
	CHECK(gs_jget_str(&g, root, "arr", false) == NULL && failed(&g, "f.json: field \"arr\": must be a string (got an array)"),
	      "jsonget str: wrong type");
	g = fresh();
	strcpy(buf, "keep");
	CHECK(gs_jget_strcpy(&g, root, "s", buf, sizeof buf, true) && strcmp(buf, "text") == 0, "jsonget strcpy: copied");
	CHECK(!gs_jget_strcpy(&g, root, "nope", buf, sizeof buf, false) && strcmp(buf, "text") == 0 && g.rc == GS_OK,
	      "jsonget strcpy: optional and absent leaves dst");
	g = fresh();
	CHECK(!gs_jget_strcpy(&g, root, "empty", buf, sizeof buf, true) &&
	          failed(&g, "f.json: field \"empty\": must be a non-empty string (got \"\")"),
	      "jsonget strcpy: empty refused");
	g = fresh();
	CHECK(!gs_jget_strcpy(&g, root, "s", buf, 4, true) && failed(&g, "f.json: field \"s\": longer than 3 bytes") &&
	          strcmp(buf, "text") == 0,
	      "jsonget strcpy: too long refused, dst kept");

	/* numbers */
	g = fresh();
	CHECK(gs_jget_pos(&g, root, "half", 1, true) == 2.5 && gs_jget_pos(&g, root, "nul", 9, false) == 9 &&
	          g.rc == GS_OK,
	      "jsonget pos: a positive number, null optional");
	g = fresh();
	gs_jget_pos(&g, root, "zero", 0, false);
	CHECK(failed(&g, "f.json: field \"zero\": must be a positive number or null (got 0)"), "jsonget pos: 0, optional");
	g = fresh();
	gs_jget_pos(&g, root, "s", 0, true);
	CHECK(failed(&g, "f.json: field \"s\": must be a positive number (got \"text\")"), "jsonget pos: required");
	g = fresh();
	CHECK(gs_jget_num(&g, root, "p", 0, 1, "a probability", 0, true) == 0.5 &&
	          gs_jget_num(&g, root, "zero", 0, 1, "a probability", 9, true) == 0 && g.rc == GS_OK,
	      "jsonget num: in range, bounds inclusive");
	g = fresh();
	gs_jget_num(&g, root, "zero", DBL_TRUE_MIN, 1, "a number above 0 and at most 1", 1, false);
	CHECK(failed(&g, "f.json: field \"zero\": must be a number above 0 and at most 1 (got 0)"),
	      "jsonget num: an open lower bound via DBL_TRUE_MIN");
	g = fresh();
	gs_jget_num(&g, root, "big", 0, 1, "a probability", 0, true);
	CHECK(failed(&g, "f.json: field \"big\": must be a probability (got 1e+300)"), "jsonget num: past hi");

	/* byte counts */
	g = fresh();
	CHECK(gs_jget_bytes(&g, root, "total", true) == 24ULL << 20 && gs_jget_bytes(&g, root, "usable", true) == 1000 &&
	          gs_jget_bytes(&g, root, "none", false) == 0 && g.rc == GS_OK,
	      "jsonget bytes: _mib, _bytes, optional");
	g = fresh();
	gs_jget_bytes(&g, root, "none", true);
	CHECK(failed(&g, "f.json: field \"none_mib\": missing (or give \"none_bytes\"; must be a positive whole number)"),
	      "jsonget bytes: required");
	g = fresh();
	gs_jget_bytes(&g, root, "both", true);
	CHECK(failed(&g, "f.json: field \"both_bytes\": give it or \"both_mib\", not both"), "jsonget bytes: both");
	g = fresh();
	gs_jget_bytes(&g, root, "frac", true);
	CHECK(failed(&g, "f.json: field \"frac_mib\": must be a positive whole number (got 1.5)"),
	      "jsonget bytes: not whole");
	g = fresh();
	gs_jget_bytes(&g, root, "over", true);
	CHECK(failed(&g, "f.json: field \"over_mib\": too large"), "jsonget bytes: MiB past 64 bits");

	/* lenient reads */
	CHECK(strcmp(gs_json_string(gs_jget_item(root, "s")), "text") == 0 && gs_json_string(gs_jget_item(root, "n")) == NULL &&
	          gs_json_string(NULL) == NULL,
	      "jsonget json_string: a string or NULL");
	CHECK(gs_json_u64(gs_jget_item(root, "n"), 9) == 12 && gs_json_u64(gs_jget_item(root, "neg"), 9) == 9 &&
	          gs_json_u64(gs_jget_item(root, "big"), 9) == 9 && gs_json_u64(gs_jget_item(root, "half"), 9) == 2 &&
	          gs_json_u64(NULL, 9) == 9,
	      "jsonget json_u64: counts, else the default");
	cJSON_Delete(root);
	CHECK_DONE();
}
