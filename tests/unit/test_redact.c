/* gpusizer tests: the one redaction rule (redact.h) on the shapes of secret
 * it removes, and on text it must leave alone. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "redact.h"

/* s redacted in a buffer of n bytes equals want. */
static int red(const char *s, size_t n, const char *want)
{
	char *b = calloc(1, n + 1);
	int ok;

	strncpy(b, s, n);
	gs_redact(b, n);
	ok = strcmp(b, want) == 0;
	if (!ok)
		printf("  got \"%s\", want \"%s\"\n", b, want);
	free(b);
	return ok;
}

int main(void)
{
	CHECK(red("GET http://user:pa55@hub.local:8080/api failed", 256,
	          "GET http://***@hub.local:8080/api failed"),
	      "redact: credentials in a URL become ***@");
	CHECK(red("HTTP 403: you sent Bearer hf_AbCdEfGhIjKlMnOp", 256, "HTTP 403: you sent Bearer ***"),
	      "redact: a Bearer credential");
	CHECK(red("token hf_AbCdEfGhIjKlMnOpQr in the body", 256, "token hf_*** in the body"),
	      "redact: anything shaped like a Hugging Face token");
	CHECK(red("Authorization: Basic dXNlcjpwYXNzd29yZA==", 256, "Authorization: Basic ***"),
	      "redact: a Basic credential");
	gs_redact_secret("s3cr3t-value");
	CHECK(red("the server said s3cr3t-value twice: s3cr3t-value", 256,
	          "the server said *** twice: ***"),
	      "redact: a registered secret, every copy");
	CHECK(red("the server said s3cr3t-valu", 256, "the server said s3cr3t-valu"),
	      "redact: text that is not the registered secret stays");
	CHECK(red("models/org--name: config.json: field \"hf_x\" is short; see https://huggingface.co/x", 256,
	          "models/org--name: config.json: field \"hf_x\" is short; see https://huggingface.co/x"),
	      "redact: ordinary messages, a short hf_ word and a URL without credentials are unchanged");
	/* In a buffer too small for the result the text is cut, never the
	 * secret shown. */
	CHECK(red("x http://a@h/", 14, "x http://***@"),
	      "redact: a result longer than the buffer is cut at its end, the credential still gone");
	{
		size_t n = 20000;
		char *big = malloc(n + 1);
		memset(big, 'a', n);
		memcpy(big + 15000, " Bearer hf_AbCdEfGhIjKlMn ", 26);
		big[n] = '\0';
		gs_redact(big, n + 1);
		CHECK(strstr(big, "hf_AbCd") == NULL && strstr(big, "Bearer ***") != NULL,
		      "redact: a long text (past the stack buffers) is redacted too");
		free(big);
	}
	/* RFC 3986: the userinfo ends at the last '@' before the host, and a
	 * password may hold an unencoded '#', '/' or '?' (issue 34) */
	CHECK(red("GET http://agent:Pz9#Se/cr?et@hub.local:8080/api failed", 256,
	          "GET http://***@hub.local:8080/api failed"),
	      "redact: a password holding '#', '/' and '?' goes whole");
	/* one pass before the cut: a secret at the cut is never half-shown */
	{
		char big[2000], out[300];
		gs_redact_secret("Mq7Tok-Zx81Yw72Vu63Ts54Rq45");
		for (int at = 270; at <= 300; at++) {
			memset(big, 'x', sizeof big);
			memcpy(big + at, "Mq7Tok-Zx81Yw72Vu63Ts54Rq45 hf_Ab3Cd4Ef5Gh6Ij7Kl8", 49);
			memset(big + at + 49, '.', 500);
			big[at + 550] = '\0';
			gs_text_safe(big, out, sizeof out);
			if (strstr(out, "Mq7") != NULL || strstr(out, "Ab3Cd4") != NULL || strlen(out) != sizeof out - 1) {
				CHECK(0, "redact: gs_text_safe cuts after redacting (secret at byte %d: \"%s\")", at,
				      out + 260);
				break;
			}
			if (at == 300)
				CHECK(1, "redact: gs_text_safe redacts whole, then cuts (a secret at bytes 270-300 of a "
				      "299-byte cut)");
		}
	}
	{
		char out[64];
		gs_escape_controls("a\x1b[2Jb\x07" "c\x7f\xc2\x9b" "d\xc3\xa9", out, sizeof out);
		CHECK(strcmp(out, "a\\x1b[2Jb\\x07c\\x7f\\u009bd\xc3\xa9") == 0 &&
		      !gs_has_control(out) && gs_has_control("x\x1b") && gs_has_control("\xc2\x85") &&
		      !gs_has_control("caf\xc3\xa9"),
		      "redact: control characters (C0, DEL, C1) escaped as text, other UTF-8 kept (%s)", out);
		gs_escape_controls("ab\x1b", out, 5);
		CHECK(strcmp(out, "ab") == 0, "redact: an escape is never cut in half (\"%s\")", out);
	}
	CHECK_DONE();
}
