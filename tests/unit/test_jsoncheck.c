/* JSON checks beyond cJSON: UTF-8 validity and duplicate keys. */
#include <string.h>

#include "check.h"
#include "jsoncheck.h"

static gs_err run(const char *s, gs_error *e)
{
	memset(e, 0, sizeof *e);
	return gs_json_check(s, strlen(s), "f.json", GS_ECONFIG, e);
}

int main(void)
{
	gs_error e;
	CHECK(run("{\"a\": 1, \"b\": {\"a\": 2}, \"c\": [{\"a\": 1}, {\"a\": 2}]}", &e) == GS_OK,
	      "jsoncheck: the same key in different objects is fine");
	CHECK(run("{\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}", &e) == GS_OK, "jsoncheck: valid 2-, 3- and 4-byte UTF-8");
	CHECK(run("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", &e) == GS_ECONFIG && strstr(e.msg, "f.json:3: duplicate key \"a\"") &&
	          strstr(e.msg, "first on line 1"),
	      "jsoncheck: duplicate key named with both lines (%s)", e.msg);
	CHECK(run("{\"hidden\": 1, \"\\u0068idden\": 2}", &e) == GS_ECONFIG && strstr(e.msg, "duplicate key \"hidden\""),
	      "jsoncheck: a duplicate spelled with an escape is caught");
	CHECK(run("{\"x\": {\"k\": 1, \"k\": 2}}", &e) == GS_ECONFIG, "jsoncheck: duplicate in a nested object");
	CHECK(run("{\"v\": \"a\\\"b\", \"w\": \"a\\\"b\"}", &e) == GS_OK, "jsoncheck: equal values are not keys");
	CHECK(run("{\"a\": \"\xc0\xaf\"}", &e) == GS_ECONFIG && strstr(e.msg, "not valid UTF-8") && strstr(e.msg, "0xC0"),
	      "jsoncheck: overlong encoding rejected");
	CHECK(run("{\"a\": \"\xed\xa0\x80\"}", &e) == GS_ECONFIG, "jsoncheck: UTF-16 surrogate rejected");
	CHECK(run("{\"a\": \"\xf4\x90\x80\x80\"}", &e) == GS_ECONFIG, "jsoncheck: above U+10FFFF rejected");
	CHECK(run("{\"a\": \"\xe2\x82\"}", &e) == GS_ECONFIG, "jsoncheck: truncated sequence rejected");
	CHECK(run("{\"a\":\n\n \"\xff\"}", &e) == GS_ECONFIG && strstr(e.msg, "f.json:3:"), "jsoncheck: UTF-8 error names the line");
	/* deep nesting: no recursion, no crash */
	static char deep[200010];
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	deep[200000] = '\0';
	CHECK(run(deep, &e) == GS_OK, "jsoncheck: 100000 nested arrays scanned without recursion");
	CHECK(run("{\"a\": \"unterminated", &e) == GS_OK, "jsoncheck: syntax errors are left to the parser");
	CHECK(run("{\"b\": 1, \"a\": 1,\n \"a\": 2,\n \"b\": 2}", &e) == GS_ECONFIG &&
	          strstr(e.msg, "f.json:2: duplicate key \"a\" (first on line 1)"),
	      "jsoncheck: of two duplicates the one repeated first is named (%s)", e.msg);

	/* gs_json_find_dup: the key, both lines and the dotted path */
	{
		gs_json_dup d;
		const char *t;
		char longkey[400];

		t = "{\"a\": 1}";
		CHECK(!gs_json_find_dup(t, strlen(t), &d), "find_dup: none");
		t = "{\"version\": 1,\n \"axes\": {\n  \"seq\": [1],\n  \"seq\": [2]}}";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && d.line == 4 && d.first_line == 3 &&
		          strcmp(d.key, "seq") == 0 && d.key_len == 3 && strcmp(d.path, "axes.seq") == 0,
		      "find_dup: nested key, lines %zu/%zu, path %s", d.line, d.first_line, d.path);
		t = "{\"x\": {\"k\": 1}, \"y\": [0, {\"z\": {\"q\": 1, \"q\": 2}}]}";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && strcmp(d.path, "y.z.q") == 0,
		      "find_dup: arrays add nothing to the path (%s)", d.path);
		t = "{\"a\": {\"k\": 1, \"k\": 2}, \"a\": 3}";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && strcmp(d.path, "a.k") == 0,
		      "find_dup: the repetition first in the text wins (%s)", d.path);
		t = "[{\"k\": 1}, {\"k\": 2, \"k\": 3}]";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && strcmp(d.path, "k") == 0,
		      "find_dup: objects in a top-level array (%s)", d.path);
		t = "{\"\\u0061\": 1, \"a\": 2}";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && strcmp(d.key, "a") == 0,
		      "find_dup: keys compared after decoding escapes");
		t = "{\"k\": 1, \"k\": 2, \"k\": 3}";
		CHECK(gs_json_find_dup(t, strlen(t), &d) && d.line == 1 && d.first_line == 1,
		      "find_dup: three times: the second occurrence");
		memset(longkey, 'x', sizeof longkey);
		longkey[0] = '{';
		longkey[1] = '"';
		memcpy(longkey + 150, "\": 1, \"", 7);
		/* {"xxx...x": 1, "xxx..." with the same 148-byte key twice */
		memcpy(longkey + 157, longkey + 2, 148);
		memcpy(longkey + 157 + 148, "\": 2}", 6);
		CHECK(gs_json_find_dup(longkey, 157 + 148 + 5, &d) && d.key_len == 148 && strlen(d.key) == 80,
		      "find_dup: a long key is reported cut to 80 bytes, with its full length");
	}
	CHECK_DONE();
}
