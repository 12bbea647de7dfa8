/* JSON checks beyond cJSON: UTF-8 validity and duplicate keys. */
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
	CHECK_DONE();
}
