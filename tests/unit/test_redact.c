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
	CHECK_DONE();
}
