/* gpusizer tests: tiny assertion helpers printing PASS/FAIL lines. */
#ifndef GS_CHECK_H
#define GS_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failed;
#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond) {                                                \
			printf("PASS ");                                   \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
		} else {                                                   \
			check_failed++;                                    \
			printf("FAIL ");                                   \
			printf(__VA_ARGS__);                               \
			printf(" (%s:%d: %s)\n", __FILE__, __LINE__, #cond);\
		}                                                          \
	} while (0)
#define CHECK_EQ_U64(a, b, ...)                                            \
	do {                                                               \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);           \
		CHECK(a_ == b_, __VA_ARGS__);                              \
		if (a_ != b_)                                              \
			printf("  got %" PRIu64 ", want %" PRIu64 "\n", a_, b_); \
	} while (0)
#define CHECK_DONE() return check_failed ? 1 : 0
#endif
