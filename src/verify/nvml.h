/* gpusizer: the local NVIDIA GPU through NVML, loaded at run time with
 * dlopen("libnvidia-ml.so.1") so that building gpusizer needs no CUDA and
 * running it needs no GPU except for `verify`.
 *
 * Environment: GPUSIZER_NVML_LIB names another library file to load (tests
 * point it at a missing file, or at a small fake library built by the
 * test, to exercise the no-driver and sampling paths without a GPU). */
#ifndef GS_NVML_H
#define GS_NVML_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

typedef struct gs_nvml gs_nvml; /* opaque: the loaded library and its functions */

/* What verify records about the GPU it measures on. */
typedef struct gs_gpu_info {
	unsigned index;         /* NVML index (PCI bus order) */
	unsigned count;         /* devices NVML sees */
	char name[96];          /* "NVIDIA GeForce RTX 4090" */
	uint64_t total_bytes;   /* nvmlDeviceGetMemoryInfo total */
	uint64_t free_bytes;    /* free when verify started */
	uint64_t used_bytes;    /* used when verify started (other processes) */
	char driver[80];        /* "550.54.14" */
	char cuda[16];          /* CUDA version the driver supports, "12.4" */
} gs_gpu_info;

/*
 * Load the library and initialise NVML. On success *out is a handle the
 * caller frees with gs_nvml_close. No library: GS_ENOGPU with "no NVIDIA
 * driver found (libnvidia-ml.so.1 could not be loaded): verify needs a
 * local NVIDIA GPU"; a library without a usable driver or device: GS_ENOGPU
 * with NVML's own error text.
 */
gs_err gs_nvml_open(gs_nvml **out, gs_error *e);

/* Unload; accepts NULL. */
void gs_nvml_close(gs_nvml *n);

/* Fill *g for device `index`. No such device: GS_ENOGPU naming the count. */
gs_err gs_nvml_gpu(gs_nvml *n, unsigned index, gs_gpu_info *g, gs_error *e);

/*
 * One sample of the device memory used by `pid` and its descendants (what
 * nvidia-smi lists per process). *found is false when NVML lists none of
 * them (not started on the GPU yet, or a container whose pid namespace
 * differs). *device_used is the whole device's used memory, for the
 * fallback "device used minus used at start". Either figure may be left 0
 * when NVML cannot give it. Returns GS_OK unless NVML fails outright.
 */
gs_err gs_nvml_sample(gs_nvml *n, unsigned index, pid_t pid, uint64_t *proc_used, bool *found,
                      uint64_t *device_used, gs_error *e);

#endif
