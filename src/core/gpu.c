/* gpusizer: the GPU class type's names and lookup (pure; see gpu.h). */
#include "gpu.h"

#include <string.h>
#include <strings.h>

/* The GPU files' named values: index 0 is "none" (""), names[1..n-1] the
 * values; a lookup of s returns n when it names none. */
static const char *const segment_names[GS_SEG_MAX] = { "", "consumer", "workstation", "datacenter" };
static const char *const uarch_names[GS_UARCH_MAX] = {
	"", "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4",
};

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 1; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return n;
}

const char *gs_segment_name(gs_segment s)
{
	return (unsigned)s < GS_SEG_MAX ? segment_names[s] : "";
}

gs_segment gs_segment_parse(const char *s)
{
	return (gs_segment)name_index(segment_names, GS_SEG_MAX, s);
}

const char *gs_uarch_name(gs_uarch u)
{
	return (unsigned)u < GS_UARCH_MAX ? uarch_names[u] : "";
}

gs_uarch gs_uarch_parse(const char *s)
{
	return (gs_uarch)name_index(uarch_names, GS_UARCH_MAX, s);
}

const gs_gpu *gs_gpu_find(const gs_gpu *g, size_t n, const char *id_or_name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(g[i].id, id_or_name) == 0)
			return &g[i];
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(g[i].name, id_or_name) == 0)
			return &g[i];
	return NULL;
}

int64_t gs_gpu_node_gpus(const gs_gpu *g)
{
	return g->segment == GS_SEG_DATACENTER ? GS_NODE_GPUS_DATACENTER : 1;
}

double gs_gpu_fp16_acc16_tflops(const gs_gpu *g)
{
	bool half_rate = g->segment == GS_SEG_CONSUMER &&
	                 (g->uarch == GS_UARCH_AMPERE || g->uarch == GS_UARCH_ADA || g->uarch == GS_UARCH_BLACKWELL);

	return half_rate ? 2 * g->bf16_tflops : g->bf16_tflops;
}

int64_t gs_node_round(int64_t n, int64_t node)
{
	if (node <= 1 || n <= node)
		return n;
	if (n > INT64_MAX - node)
		return n;
	return (n + node - 1) / node * node;
}
