/* SHA-256 against FIPS 180-4's examples (and a million a's, fed in uneven
 * pieces across block boundaries). */
#include <string.h>

#include "check.h"
#include "sha256.h"

static void hex_of(const char *s, size_t n, size_t piece, char out[65])
{
	gs_sha256 c;

	gs_sha256_init(&c);
	for (size_t i = 0; i < n; i += piece)
		gs_sha256_update(&c, s + i, n - i < piece ? n - i : piece);
	gs_sha256_hex(&c, out);
}

int main(void)
{
	static char million[1000000];
	char h[65];

	hex_of("abc", 3, 3, h);
	CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
	      "sha256: \"abc\" (FIPS 180-4 example) %s", h);
	hex_of("", 0, 1, h);
	CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
	      "sha256: the empty message %s", h);
	hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 7, h);
	CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0,
	      "sha256: the 448-bit message (two blocks of padding) %s", h);
	memset(million, 'a', sizeof million);
	hex_of(million, sizeof million, 777, h);
	CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
	      "sha256: a million 'a's in 777-byte pieces %s", h);
	CHECK_DONE();
}
