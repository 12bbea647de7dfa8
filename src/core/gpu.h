/* gpusizer: a GPU class as the sizing core sees it (pure): its memory,
 * flags, speeds, links and price, and the names of its segments and
 * architectures. input/gpu_file.h reads them from gpus/. */
#ifndef GS_GPU_H
#define GS_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The product line a class is sold in, for a spec's "eligible" (a buyer
 * who rents datacenter GPUs only). GS_SEG_NONE: the file names none. */
typedef enum gs_segment {
	GS_SEG_NONE = 0,
	GS_SEG_CONSUMER,
	GS_SEG_WORKSTATION,
	GS_SEG_DATACENTER,
	GS_SEG_MAX
} gs_segment;

/* "consumer", "workstation", "datacenter" ("" for GS_SEG_NONE). Static.
 */
const char *gs_segment_name(gs_segment s);
/* The segment named s; GS_SEG_MAX when s names none. */
gs_segment gs_segment_parse(const char *s);

/* The GPU's architecture (optional "architecture"), for the time model:
 * the stacks' kernels reach a different share of each one's datasheet peak
 * (docs/time.md). GS_UARCH_NONE: the file names none. */
typedef enum gs_uarch {
	GS_UARCH_NONE = 0,
	GS_UARCH_VOLTA,
	GS_UARCH_TURING,
	GS_UARCH_AMPERE,
	GS_UARCH_ADA,
	GS_UARCH_HOPPER,
	GS_UARCH_BLACKWELL,
	GS_UARCH_CDNA3,
	GS_UARCH_CDNA4,
	GS_UARCH_MAX
} gs_uarch;

/* "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3",
 * "cdna4" ("" for GS_UARCH_NONE). Static. */
const char *gs_uarch_name(gs_uarch u);
/* The architecture named s; GS_UARCH_MAX when s names none. */
gs_uarch gs_uarch_parse(const char *s);

typedef struct gs_gpu {
	char id[48];            /* file stem, e.g. "rtx-4090" */
	char name[96];          /* "NVIDIA GeForce RTX 4090" */
	char klass[24];         /* capacity class label, e.g. "24 GB" */
	uint64_t total_bytes;   /* total memory as the driver reports it */
	uint64_t usable_bytes;  /* what one process can actually allocate */
	bool bf16, fp8;
	gs_segment segment;     /* optional "segment" */
	gs_uarch uarch;         /* optional "architecture" */
	double bandwidth_gbs;   /* memory bandwidth, GB/s */
	double bf16_tflops;     /* dense bf16 (fp16 where no bf16) TFLOPS */
	/* For the time model (src/timing.h); each optional in a file. */
	double fp8_tflops;      /* dense fp8, FP32 accumulate, TFLOPS; 0: none */
	bool fp4;               /* optional "fp4": FP4 tensor math (NVFP4/MXFP4) */
	double fp4_tflops;      /* dense fp4 (NVFP4/MXFP4) tensor TFLOPS; 0: none (only with
	                         * fp4; the time model falls back to fp8) */
	bool unified_memory;    /* optional: memory shared with the CPU (GB10); usable
	                         * leaves the OS its share, not the process's host use */
	char interconnect[24];  /* GPU-to-GPU link: "nvlink4", "none", ...; "": not given */
	double link_gbs;        /* that link's bandwidth per GPU, one direction, GB/s; 0: none */
	int pcie_gen, pcie_lanes; /* host link; 0: not given */
	/* Cost (optional): the rent of one GPU for an hour, USD, with the day
	 * it was quoted; 0: no price. price_cli: set by --price, not the file. */
	double price_usd_hour;
	char price_date[11];    /* "YYYY-MM-DD"; "" with price_cli */
	bool price_cli;
	char source[512];       /* where the figures come from */
} gs_gpu;

/* GPUs one server of class g holds, for `plan`'s counts: 8 for the
 * data-centre segment (HGX, DGX and OAM boards carry 8 GPUs; so do the
 * PCIe servers of the cloud offers that rent 8), 1 for every other
 * segment and for a file that names none (a desktop or workstation holds
 * what it holds: its counts are not rounded). Read from the file's
 * "segment", never from a list of ids. */
#define GS_NODE_GPUS_DATACENTER 8
int64_t gs_gpu_node_gpus(const gs_gpu *g);
/* A count of n GPUs bought in servers of node GPUs: past one server, whole
 * servers (9 of 8: 16); within one, n itself (one, two or four GPUs of a
 * server are rented as such). node <= 1: n. */
int64_t gs_node_round(int64_t n, int64_t node);

/* Dense FP16 tensor TFLOPS with FP16 accumulate (cuBLAS
 * CUBLAS_COMPUTE_16F, cublasHgemm): twice bf16_tflops on a consumer
 * (GeForce) Ampere, Ada or Blackwell card, which runs FP32 accumulate at
 * half the FP16-accumulate rate (Ada whitepaper, RTX 4090: 330.3 against
 * 165.2; GA102 whitepaper, RTX 3090: 142 against 71); bf16_tflops on every
 * other part, which runs both at one rate. From the file's "segment" and
 * "architecture", never from a list of ids. */
double gs_gpu_fp16_acc16_tflops(const gs_gpu *g);

/* Find by id or by name (case-insensitive); NULL if none. */
const gs_gpu *gs_gpu_find(const gs_gpu *g, size_t n, const char *id_or_name);

#endif
