/* gpusizer: NVML loaded at run time (no CUDA headers): GPU name, memory,
 * driver and CUDA versions, and per-process used memory for verify. */
#define _POSIX_C_SOURCE 200809L
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The few NVML types we need, as nvml.h declares them (ABI-stable). */
typedef int nvml_ret;          /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef void *nvml_device;     /* nvmlDevice_t */
#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

typedef struct {
	unsigned long long total, free, used;
} nvml_memory; /* nvmlMemory_t */

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvml_proc; /* nvmlProcessInfo_t (v2 layout), taken by the _v2 and _v3 calls */

#define GS_NVML_MAX_PROCS 256

struct gs_nvml {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*count)(unsigned int *);
	nvml_ret (*handle)(unsigned int, nvml_device *);
	nvml_ret (*name)(nvml_device, char *, unsigned int);
	nvml_ret (*memory)(nvml_device, nvml_memory *);
	nvml_ret (*driver)(char *, unsigned int);
	nvml_ret (*cuda)(int *);
	nvml_ret (*procs)(nvml_device, unsigned int *, nvml_proc *);
	nvml_proc *buf; /* GS_NVML_MAX_PROCS entries, with slack for a larger ABI */
};

static const char *nvml_strerror(const gs_nvml *n, nvml_ret r)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;
	return s ? s : "unknown NVML error";
}

/* dlsym into a function pointer without the object/function cast warning. */
static void sym(void *lib, const char *name, void *fnptr)
{
	void *p = dlsym(lib, name);
	memcpy(fnptr, &p, sizeof p);
}

void gs_nvml_close(gs_nvml *n)
{
	if (n == NULL)
		return;
	if (n->shutdown)
		n->shutdown();
	if (n->lib)
		dlclose(n->lib);
	free(n->buf);
	free(n);
}

gs_err gs_nvml_open(gs_nvml **out, gs_error *e)
{
	const char *path = getenv("GPUSIZER_NVML_LIB");
	gs_nvml *n;
	nvml_ret r;

	*out = NULL;
	if (path == NULL || path[0] == '\0')
		path = "libnvidia-ml.so.1";
	n = gs_xcalloc(1, sizeof *n);
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (n->lib == NULL) {
		const char *why = dlerror();
		free(n);
		if (why != NULL && strstr(why, "No such file") != NULL)
			why = NULL; /* the usual case: say it plainly */
		return gs_fail(e, GS_ENOGPU,
		               "no NVIDIA driver found (%s could not be loaded%s%s): verify needs a "
		               "local NVIDIA GPU",
		               path, why ? ": " : "", why ? why : "");
	}
	sym(n->lib, "nvmlInit_v2", &n->init);
	sym(n->lib, "nvmlShutdown", &n->shutdown);
	sym(n->lib, "nvmlErrorString", &n->error_string);
	sym(n->lib, "nvmlDeviceGetCount_v2", &n->count);
	sym(n->lib, "nvmlDeviceGetHandleByIndex_v2", &n->handle);
	sym(n->lib, "nvmlDeviceGetName", &n->name);
	sym(n->lib, "nvmlDeviceGetMemoryInfo", &n->memory);
	sym(n->lib, "nvmlSystemGetDriverVersion", &n->driver);
	sym(n->lib, "nvmlSystemGetCudaDriverVersion_v2", &n->cuda);
	sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v3", &n->procs);
	if (n->procs == NULL)
		sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v2", &n->procs);
	if (n->init == NULL || n->count == NULL || n->handle == NULL || n->name == NULL ||
	    n->memory == NULL) {
		n->shutdown = NULL; /* never initialised */
		gs_nvml_close(n);
		return gs_fail(e, GS_ENOGPU,
		               "%s lacks nvmlInit_v2/nvmlDeviceGetCount_v2/nvmlDeviceGetMemoryInfo: "
		               "NVIDIA driver too old for verify",
		               path);
	}
	r = n->init();
	if (r != NVML_SUCCESS) {
		gs_fail(e, GS_ENOGPU, "NVIDIA driver found but NVML did not start (%s): verify needs a "
		        "working local NVIDIA GPU", nvml_strerror(n, r));
		n->shutdown = NULL;
		gs_nvml_close(n);
		return GS_ENOGPU;
	}
	n->buf = gs_xcalloc(GS_NVML_MAX_PROCS * 2, sizeof *n->buf);
	*out = n;
	return GS_OK;
}

static gs_err get_handle(gs_nvml *n, unsigned index, nvml_device *d, unsigned *count, gs_error *e)
{
	unsigned c = 0;
	nvml_ret r = n->count(&c);

	if (r != NVML_SUCCESS)
		return gs_fail(e, GS_ENOGPU, "NVML could not count GPUs (%s)", nvml_strerror(n, r));
	if (count)
		*count = c;
	if (c == 0)
		return gs_fail(e, GS_ENOGPU, "NVIDIA driver found but no GPU: verify needs a local "
		               "NVIDIA GPU");
	if (index >= c)
		return gs_fail(e, GS_ENOGPU, "--gpu-index %u: NVML sees %u GPU%s (indexes 0-%u)", index, c,
		               c == 1 ? "" : "s", c - 1);
	r = n->handle(index, d);
	if (r != NVML_SUCCESS)
		return gs_fail(e, GS_ENOGPU, "NVML could not open GPU %u (%s)", index, nvml_strerror(n, r));
	return GS_OK;
}

gs_err gs_nvml_gpu(gs_nvml *n, unsigned index, gs_gpu_info *g, gs_error *e)
{
	nvml_device d = NULL;
	nvml_memory m = {0, 0, 0};
	nvml_ret r;
	gs_err err;

	memset(g, 0, sizeof *g);
	g->index = index;
	err = get_handle(n, index, &d, &g->count, e);
	if (err)
		return err;
	r = n->name(d, g->name, sizeof g->name);
	if (r != NVML_SUCCESS)
		snprintf(g->name, sizeof g->name, "unknown NVIDIA GPU");
	g->name[sizeof g->name - 1] = '\0';
	r = n->memory(d, &m);
	if (r != NVML_SUCCESS)
		return gs_fail(e, GS_ENOGPU, "NVML could not read the memory of GPU %u (%s)", index,
		               nvml_strerror(n, r));
	g->total_bytes = m.total;
	g->free_bytes = m.free;
	g->used_bytes = m.used;
	if (n->driver == NULL || n->driver(g->driver, sizeof g->driver) != NVML_SUCCESS)
		snprintf(g->driver, sizeof g->driver, "unknown");
	g->driver[sizeof g->driver - 1] = '\0';
	{
		int v = 0;
		if (n->cuda && n->cuda(&v) == NVML_SUCCESS && v > 0)
			snprintf(g->cuda, sizeof g->cuda, "%d.%d", v / 1000, (v % 1000) / 10);
		else
			snprintf(g->cuda, sizeof g->cuda, "unknown");
	}
	return GS_OK;
}

/* Parent pid of pid from /proc/<pid>/stat; -1 if unknown. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	FILE *fp;
	size_t got;
	char *p;
	long pp;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	fp = fopen(path, "r");
	if (fp == NULL)
		return -1;
	got = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[got] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	if (p == NULL)
		return -1;
	if (sscanf(p + 1, " %*c %ld", &pp) != 1)
		return -1;
	return (pid_t)pp;
}

/* pid is root or a descendant of root (a few levels up, at most). */
static bool in_tree(pid_t pid, pid_t root)
{
	for (int depth = 0; depth < 16 && pid > 1; depth++) {
		if (pid == root)
			return true;
		pid = parent_of(pid);
	}
	return false;
}

gs_err gs_nvml_sample(gs_nvml *n, unsigned index, pid_t pid, uint64_t *proc_used, bool *found,
                      uint64_t *device_used, gs_error *e)
{
	nvml_device d = NULL;
	nvml_memory m = {0, 0, 0};
	unsigned cnt = GS_NVML_MAX_PROCS;
	uint64_t sum = 0;
	gs_err err;

	*proc_used = 0;
	*found = false;
	*device_used = 0;
	err = get_handle(n, index, &d, NULL, e);
	if (err)
		return err;
	if (n->memory(d, &m) == NVML_SUCCESS)
		*device_used = m.used;
	if (n->procs == NULL)
		return GS_OK;
	if (n->procs(d, &cnt, n->buf) != NVML_SUCCESS)
		return GS_OK; /* includes INSUFFICIENT_SIZE: fall back to the device figure */
	if (cnt > GS_NVML_MAX_PROCS)
		cnt = GS_NVML_MAX_PROCS;
	for (unsigned i = 0; i < cnt; i++) {
		const nvml_proc *p = &n->buf[i];
		if (!in_tree((pid_t)p->pid, pid))
			continue;
		*found = true;
		if (p->usedGpuMemory != NVML_VALUE_NOT_AVAILABLE_ULL)
			(void)gs_add_u64(sum, p->usedGpuMemory, &sum);
	}
	*proc_used = sum;
	return GS_OK;
}
