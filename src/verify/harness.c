/* gpusizer: the verify harness: its arguments, what it cannot run, the run
 * (spawn, NVML sampling, timeout) and its JSON result. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "paths.h"
#include "util.h"

/* ------------------------------------------------------------ arguments */

void gs_argv_add(gs_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = gs_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = gs_xstrdup(s);
	a->v[a->n] = NULL;
}

static void argv_addf(gs_argv *a, const char *flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void argv_addf(gs_argv *a, const char *flag, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	gs_argv_add(a, flag);
	gs_argv_add(a, buf);
}

void gs_argv_free(gs_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* The harness's command line: every setting the table marks
 * GS_SF_HARNESS, as --NAME VALUE in table order (one not given and
 * derived, such as kv-dtype, is left to the harness), then the run's. */
void gs_harness_args(const gs_settings *s, const char *python, const char *harness,
                     const char *config, int64_t warmup, int64_t steps, gs_argv *a)
{
	const gs_setting *t = gs_settings_table();

	gs_argv_add(a, python);
	gs_argv_add(a, harness);
	argv_addf(a, "--config", "%s", config);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value v;
		char flag[64];

		if (!(t[i].flags & GS_SF_HARNESS))
			continue;
		gs_setting_get(&t[i], s, &v);
		snprintf(flag, sizeof flag, "--%s", t[i].name);
		if (!v.unset)
			argv_addf(a, flag, "%s", v.text);
	}
	argv_addf(a, "--warmup", "%" PRId64, warmup);
	argv_addf(a, "--steps", "%" PRId64, steps);
}

/* The settings the harness does not reproduce (it runs eager, one GPU,
 * PEFT/bitsandbytes quantization, no amp base under LoRA): a changed value
 * of a GS_SF_NO_HARNESS setting, then the precisions it cannot load. */
const char *gs_harness_refusal(const gs_settings *s)
{
	static char what[GS_LORA_NAMES_MAX + 64];
	const gs_setting *t = gs_settings_table();
	gs_prec vp = gs_settings_precision(s);

	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value v;

		if (!(t[i].flags & GS_SF_NO_HARNESS) || !gs_setting_changed(&t[i], s))
			continue;
		gs_setting_get(&t[i], s, &v);
		if (v.type == GS_ST_BOOL && !v.named)
			snprintf(what, sizeof what, "--%s", t[i].name);
		else
			snprintf(what, sizeof what, "--%s %s", t[i].name, v.text);
		return what;
	}
	return vp == GS_P_NF4_TORCHAO  ? "--precision nf4-torchao"
	       : vp == GS_P_NF4_LITGPT   ? "--precision nf4-litgpt"
	       : vp == GS_P_NF4_DQ_LITGPT ? "--precision nf4-dq-litgpt"
	       : (s->method != GS_FULL && (vp == GS_P_AMP_BF16 || vp == GS_P_AMP_FP16))
	               ? "an amp precision with lora or inference"
	               : NULL;
}

gs_err gs_harness_find(const char *given, char *path, size_t n, gs_error *e)
{
	char root[4096];

	if (given) {
		if (!gs_is_file(given))
			return gs_fail(e, GS_EUSAGE, "--harness %s: no such file", given);
		snprintf(path, n, "%s", given);
		return GS_OK;
	}
	/* Without a data root, gs_data_path names tools/harness.py under the
	 * current directory: a script planted there is never run. */
	if (gs_data_root(root, sizeof root) == GS_ROOT_NONE)
		return gs_fail(e, GS_EHARNESS, "cannot find the harness: no gpusizer data directory "
		               "beside the executable (the current directory is not searched): install "
		               "gpusizer, set GPUSIZER_DATA, or give --harness FILE");
	gs_data_path(GS_DATA_HARNESS, path, n);
	if (gs_is_file(path))
		return GS_OK;
	return gs_fail(e, GS_EHARNESS, "cannot find the harness (%s): install gpusizer, set "
	               "GPUSIZER_DATA, or give --harness FILE", path);
}

/* ------------------------------------------------------------ the run */

/* What a run produced, before its JSON is read. */
typedef struct hrun {
	pid_t pid;
	int status;             /* waitpid status */
	bool timed_out;
	int stopped_by;         /* the stop signal caught, 0 none */
	char *out;              /* harness stdout, NUL-terminated */
	size_t out_len, out_cap;
	char err[GS_HARNESS_ERR_KEEP + 1]; /* stderr tail */
	bool marker;            /* saw the measure-begin line */
	bool proc_found;        /* NVML listed the harness process */
	uint64_t proc_peak;     /* max per-process used, from the marker on */
	uint64_t dev_peak;      /* max whole-device used, from the marker on */
	unsigned samples;
} hrun;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keep the last GS_HARNESS_ERR_KEEP bytes of stderr. */
static void keep_err(hrun *r, const char *buf, size_t n, bool verbose)
{
	size_t have = strlen(r->err);

	if (verbose)
		(void)!write(2, buf, n);
	if (have + n > GS_HARNESS_ERR_KEEP) {
		size_t drop = have + n - GS_HARNESS_ERR_KEEP;
		if (drop >= have) {
			buf += drop - have;
			n -= drop - have;
			have = 0;
			r->err[0] = '\0';
		} else {
			memmove(r->err, r->err + drop, have - drop + 1);
			have -= drop;
		}
	}
	memcpy(r->err + have, buf, n);
	r->err[have + n] = '\0';
}

static void sample(const gs_harness_opts *o, hrun *r)
{
	uint64_t proc = 0, dev = 0;
	bool found = false;
	gs_error e = {0};

	if (o->nv == NULL || gs_nvml_sample(o->nv, o->gpu_index, r->pid, &proc, &found, &dev, &e) != GS_OK)
		return;
	r->samples++;
	if (!r->marker)
		return; /* model building: not part of the measured peak */
	if (found) {
		r->proc_found = true;
		if (proc > r->proc_peak)
			r->proc_peak = proc;
	}
	if (dev > r->dev_peak)
		r->dev_peak = dev;
}

static void got_stdout(hrun *r, const char *buf, size_t got)
{
	if (r->out_len + got > GS_HARNESS_OUT_MAX)
		return; /* drop the excess; parsing will fail on it */
	while (r->out_len + got > r->out_cap) {
		r->out_cap *= 2;
		r->out = gs_xrealloc(r->out, r->out_cap + 1);
	}
	memcpy(r->out + r->out_len, buf, got);
	r->out_len += got;
}

static void got_stderr(hrun *r, const char *buf, size_t got, bool verbose)
{
	if (!r->marker) {
		/* search this chunk, with the end of the last one */
		size_t had = strlen(r->err), tail = had < 64 ? had : 64;
		char *scan = gs_xmalloc(tail + got + 1);
		memcpy(scan, r->err + had - tail, tail);
		memcpy(scan + tail, buf, got);
		scan[tail + got] = '\0';
		if (strstr(scan, GS_HARNESS_MARKER) != NULL) {
			r->marker = true;
			r->proc_peak = r->dev_peak = 0;
		}
		free(scan);
	}
	keep_err(r, buf, got, verbose);
}

/* ------------------------------------------------------------ signals */

/* SIGINT, SIGTERM and SIGHUP while the harness runs: the first is kept in
 * caught (the run stops the harness's process group, then verify ends by
 * it); a second one makes the stop a SIGKILL at once. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP (sizeof stop_signals / sizeof stop_signals[0])
static volatile sig_atomic_t caught, caught_again;

static void on_stop_signal(int sig)
{
	if (caught == 0)
		caught = sig;
	else
		caught_again = 1;
}

/* Install the handler for each stop signal not ignored (a run under nohup
 * keeps ignoring SIGHUP, and so does its harness); old[] keeps what was. */
static void catch_stops(struct sigaction old[N_STOP])
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: poll() returns at once */
	caught = caught_again = 0;
	for (size_t i = 0; i < N_STOP; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

static void restore_stops(const struct sigaction old[N_STOP])
{
	for (size_t i = 0; i < N_STOP; i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

int gs_harness_signal(void)
{
	return (int)caught;
}

/* ------------------------------------------------------------ spawning */

/* Start argv with stdout and stderr on pipes (fd[0], fd[1] read ends), in
 * a session and process group of its own (both ids are r->pid) and, on
 * Linux, killed when verify dies (PR_SET_PDEATHSIG). */
static gs_err spawn(char **argv, unsigned gpu_index, hrun *r, int fd[2], gs_error *e)
{
	int op[2] = {-1, -1}, ep[2] = {-1, -1}, xp[2] = {-1, -1}, null_fd;
	sigset_t stops, prev;
	char cuda_dev[16];
	pid_t parent = getpid();
	int child_errno = 0;
	ssize_t got;

	if (pipe(op) != 0 || pipe(ep) != 0 || pipe(xp) != 0) {
		int err = errno;
		for (int i = 0; i < 2; i++) {
			if (op[i] >= 0)
				close(op[i]);
			if (ep[i] >= 0)
				close(ep[i]);
		}
		return gs_fail(e, GS_EHARNESS, "cannot create pipes: %s", strerror(err));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(op[i], F_SETFD, FD_CLOEXEC);
		fcntl(ep[i], F_SETFD, FD_CLOEXEC);
		fcntl(xp[i], F_SETFD, FD_CLOEXEC);
	}
	snprintf(cuda_dev, sizeof cuda_dev, "%u", gpu_index);
	setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1); /* NVML's order */
	setenv("CUDA_VISIBLE_DEVICES", cuda_dev, 1);
	/* stdin: nothing (in a group of its own, a read of the terminal
	 * would stop it) */
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* The stop signals wait (blocked) until the child has its default
	 * actions back: one sent to its group before the exec is not lost in
	 * the handler it inherited. */
	sigemptyset(&stops);
	for (size_t i = 0; i < N_STOP; i++)
		sigaddset(&stops, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stops, &prev);
	fflush(NULL);
	r->pid = fork();
	if (r->pid == 0) {
		/* The child: async-signal-safe calls only, up to the exec. */
		sigset_t none;
		setsid(); /* a session of its own: no terminal, its own group */
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		if (getppid() != parent)
			_exit(127); /* verify already died */
		for (size_t i = 0; i < N_STOP; i++) {
			struct sigaction cur;
			if (sigaction(stop_signals[i], NULL, &cur) == 0 && cur.sa_handler == on_stop_signal)
				signal(stop_signals[i], SIG_DFL);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if ((null_fd < 0 || dup2(null_fd, 0) >= 0) && dup2(op[1], 1) >= 0 && dup2(ep[1], 2) >= 0)
			execvp(argv[0], argv);
		child_errno = errno;
		(void)!write(xp[1], &child_errno, sizeof child_errno);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &prev, NULL);
	close(op[1]);
	close(ep[1]);
	close(xp[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (r->pid < 0) {
		int err = errno;
		close(op[0]);
		close(ep[0]);
		close(xp[0]);
		return gs_fail(e, GS_EHARNESS, "cannot start the harness: %s", strerror(err));
	}
	/* the exec (or its failure) closes xp: by then setsid has run and the
	 * group exists before any kill */
	do
		got = read(xp[0], &child_errno, sizeof child_errno);
	while (got < 0 && errno == EINTR);
	close(xp[0]);
	if (got == (ssize_t)sizeof child_errno) {
		close(op[0]);
		close(ep[0]);
		while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
			;
		return gs_fail(e, GS_EHARNESS, "cannot run %s: %s (give --python PATH)", argv[0],
		               strerror(child_errno));
	}
	fd[0] = op[0];
	fd[1] = ep[0];
	return GS_OK;
}

/* Every process below verify, the harness's whole tree: verify is their
 * subreaper while the harness runs (PR_SET_CHILD_SUBREAPER), so one that
 * leaves the harness's session or group, or whose parent died, is still
 * below verify; /proc gives each one's parent. Each live one gets sig
 * (a zombie is reaped when it is verify's own child, the harness excepted:
 * its reaping is run_collect's). Returns how many got it; 0 also where
 * /proc cannot be read (off Linux: the group kill alone). */
static int signal_tree(pid_t leader, int sig)
{
	typedef struct { pid_t pid, ppid; char state; bool below; } proc;
	pid_t self = getpid();
	proc *v = NULL;
	size_t n = 0, cap = 0;
	int hit = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[64], buf[512], *rp;
		FILE *fp;
		size_t got;
		proc p = {0};
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		got = fread(buf, 1, sizeof buf - 1, fp);
		fclose(fp);
		buf[got] = '\0';
		/* "pid (comm) state ppid ...": comm may hold blanks and ')' */
		rp = strrchr(buf, ')');
		if (rp == NULL || sscanf(buf, "%d", &p.pid) != 1 || sscanf(rp + 1, " %c %d", &p.state, &p.ppid) != 2)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			v = gs_xrealloc(v, cap * sizeof *v);
		}
		v[n++] = p;
	}
	closedir(d);
	/* below self: the parents' closure, a pass at a time */
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++) {
			if (v[i].below || v[i].pid == self)
				continue;
			for (size_t j = 0; j < n && !v[i].below; j++)
				if (v[i].ppid == self || (v[j].below && v[j].pid == v[i].ppid))
					v[i].below = more = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!v[i].below)
			continue;
		if (v[i].state == 'Z') {
			if (v[i].ppid == self && v[i].pid != leader)
				waitpid(v[i].pid, NULL, WNOHANG);
			continue;
		}
		kill(v[i].pid, sig);
		hit++;
	}
	free(v);
	return hit;
}

/* sig to the harness's group and to every process below verify. */
static int signal_all(pid_t leader, int sig)
{
	kill(-leader, sig);
	return signal_tree(leader, sig);
}

/* Whether the harness (the group's leader) has exited, without reaping it:
 * while it is a zombie its process group id stays reserved for kill(). */
static bool leader_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Read the harness's pipes, once. */
static void read_pipes(const gs_harness_opts *o, hrun *r, int fd[2], bool open_[2])
{
	struct pollfd pf[2];
	int nf = 0, t;

	for (int i = 0; i < 2; i++)
		if (open_[i])
			pf[nf++] = (struct pollfd){.fd = fd[i], .events = POLLIN};
	t = poll(pf, (nfds_t)nf, GS_HARNESS_SAMPLE_MS);
	if (t < 0 && errno != EINTR) {
		open_[0] = open_[1] = false; /* unreadable: wait for the exit alone */
		return;
	}
	for (int i = 0; t > 0 && i < nf; i++) {
		char buf[65536];
		ssize_t got;
		bool is_out = pf[i].fd == fd[0];
		if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = read(pf[i].fd, buf, sizeof buf);
		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			open_[is_out ? 0 : 1] = false;
		} else if (is_out) {
			got_stdout(r, buf, (size_t)got);
		} else {
			got_stderr(r, buf, (size_t)got, o->verbose);
		}
	}
}

/* Run the harness; stdout collected, stderr tail kept, NVML sampled every
 * GS_HARNESS_SAMPLE_MS. verify is the subreaper of everything the harness
 * starts (Linux), so the whole tree stays below it: past the timeout or on
 * a stop signal the harness's group and every process below verify get
 * SIGTERM, then SIGKILL GS_HARNESS_GRACE_MS later (at once on a second
 * signal); once the harness has exited, whatever is left below verify is
 * killed before it is reaped, so nothing it started outlives verify or
 * keeps it waiting (a descendant that left the group, by setsid or
 * setpgid, included). Pipes still open GS_HARNESS_GRACE_MS after the
 * tree is gone (an outside process holding them) are closed. GS_EHARNESS
 * if it cannot be started. */
static gs_err run_collect(char **argv, const gs_harness_opts *o, hrun *r, gs_error *e)
{
	int fd[2] = {-1, -1};
	bool open_[2] = {true, true}, stopping = false, exited = false;
	int64_t start = now_ms(), last = 0, kill_at = 0, gone_at = 0;
	struct sigaction old[N_STOP];
	gs_err rc;

	memset(r, 0, sizeof *r);
	catch_stops(old);
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	if ((rc = spawn(argv, o->gpu_index, r, fd, e)) != GS_OK) {
#ifdef __linux__
		prctl(PR_SET_CHILD_SUBREAPER, 0);
#endif
		restore_stops(old);
		return rc;
	}
	r->out_cap = 65536;
	r->out = gs_xmalloc(r->out_cap + 1);
	while (open_[0] || open_[1] || !exited) {
		int64_t now;

		read_pipes(o, r, fd, open_); /* with both closed, a 20 ms sleep */
		now = now_ms();
		if (!exited && leader_exited(r->pid))
			exited = true;
		/* what it left, in its group or not: then the pipes close */
		if (exited && signal_all(r->pid, SIGKILL) == 0 && gone_at == 0)
			gone_at = now;
		if (gone_at && now - gone_at > GS_HARNESS_GRACE_MS)
			open_[0] = open_[1] = false;
		if (now - last >= GS_HARNESS_SAMPLE_MS && !exited) {
			sample(o, r);
			last = now;
		}
		if (!stopping && (caught || now - start > o->timeout_s * 1000)) {
			r->timed_out = !caught;
			r->stopped_by = (int)caught;
			signal_all(r->pid, SIGTERM);
			stopping = true;
			kill_at = now + GS_HARNESS_GRACE_MS;
		}
		if (stopping && (kill_at == 0 || now > kill_at || caught_again)) {
			signal_all(r->pid, SIGKILL); /* and again each turn: no fork escapes it */
			kill_at = 0;
		}
	}
	close(fd[0]);
	close(fd[1]);
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		; /* the tree's last zombies, verify's children as their subreaper */
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 0);
#endif
	restore_stops(old);
	r->out[r->out_len] = '\0';
	return GS_OK;
}

/* ------------------------------------------------------------ the result */

/* A byte count in the result: a number in [0, 1.8e19], else 0. */
static uint64_t jbytes(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 1.8e19)
		return 0;
	return (uint64_t)v->valuedouble;
}

/* The one JSON object: the whole stdout, else its last line (trailing
 * blanks are cut off r->out). NULL when neither is an object. */
static cJSON *parse_result(hrun *r)
{
	cJSON *res = cJSON_Parse(r->out);
	char *last;

	if (cJSON_IsObject(res))
		return res;
	cJSON_Delete(res);
	if (r->out_len == 0)
		return NULL;
	last = r->out + r->out_len;
	while (last > r->out && (last[-1] == '\n' || last[-1] == '\r' || last[-1] == ' '))
		*--last = '\0';
	while (last > r->out && last[-1] != '\n')
		last--;
	res = cJSON_Parse(last);
	if (cJSON_IsObject(res))
		return res;
	cJSON_Delete(res);
	return NULL;
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What went wrong, if anything, with a run and the result it printed
 * (res may be NULL); the status is "ok" or "oom" when GS_OK. */
static gs_err check_result(char **argv, const gs_harness_opts *o, const hrun *r, const cJSON *res,
                           gs_error *e)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "status");
	const char *status = cJSON_IsString(st) ? st->valuestring : "";
	const cJSON *peak = cJSON_GetObjectItemCaseSensitive(res, "peak");

	if (r->stopped_by)
		return gs_fail(e, GS_EHARNESS, "stopped by %s: the harness and its processes were "
		               "stopped too; nothing measured", r->stopped_by == SIGINT ? "SIGINT"
		               : r->stopped_by == SIGHUP ? "SIGHUP" : "SIGTERM");
	if (r->timed_out)
		return gs_fail(e, GS_EHARNESS, "harness stopped after --timeout %" PRId64 " s", o->timeout_s);
	if (res == NULL && r->out_len == 0 && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 127)
		return gs_fail(e, GS_EHARNESS, "cannot run %s %s (exit status 127: command not found; "
		               "give --python PATH)", argv[0], argv[1]);
	if (res == NULL) {
		char head[301];
		size_t elen = strlen(r->err);
		snprintf(head, sizeof head, "%s", r->out);
		for (char *p = head; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		return gs_fail(e, GS_EHARNESS,
		               "harness printed no JSON result (exit status %d%s); stdout: \"%s\"; stderr "
		               "ends: %s",
		               exit_status(r->status), WIFSIGNALED(r->status) ? ", killed by a signal" : "",
		               head, r->err[0] ? r->err + (elen > 600 ? elen - 600 : 0) : "(nothing)");
	}
	if (!strcmp(status, "skipped")) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(res, "reason");
		return gs_fail(e, GS_EHARNESS, "harness skipped this row: %s",
		               cJSON_IsString(why) ? why->valuestring : "(no reason given)");
	}
	if (strcmp(status, "ok") != 0 && strcmp(status, "oom") != 0)
		return gs_fail(e, GS_EHARNESS, "harness result has status \"%s\" (expected ok, oom or "
		               "skipped)", status);
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0)
		return gs_fail(e, GS_EHARNESS, "harness exited with status %d after printing a result",
		               exit_status(r->status));
	if (!strcmp(status, "ok") && (!cJSON_IsObject(peak) || jbytes(peak, "allocated") == 0))
		return gs_fail(e, GS_EHARNESS, "harness result \"ok\" without \"peak\".\"allocated\"");
	return GS_OK;
}

/* Harness phases in the order they run; others follow, in the result's order. */
static const char *const phase_order[] = {"forward", "backward", "optimizer", "prefill", "decode"};
#define N_PHASES (sizeof phase_order / sizeof phase_order[0])

static size_t phase_rank(const char *name)
{
	for (size_t i = 0; i < N_PHASES; i++)
		if (strcmp(name, phase_order[i]) == 0)
			return i;
	return N_PHASES;
}

/* Every step's "phases" (the harness writes their keys sorted) into
 * r->phases, in the order they run. */
static void read_phases(const cJSON *steps, gs_harness_result *r)
{
	const cJSON *it, *p;
	size_t cap = 0;

	cJSON_ArrayForEach(it, steps)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(it, "phases");
		const cJSON *sn = cJSON_GetObjectItemCaseSensitive(it, "step");
		int stepno = cJSON_IsNumber(sn) && sn->valuedouble > INT_MIN && sn->valuedouble < INT_MAX
		                     ? (int)sn->valuedouble
		                     : 0;
		bool warm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "warmup"));

		if (!cJSON_IsObject(ph))
			continue;
		for (size_t rank = 0; rank <= N_PHASES; rank++)
			cJSON_ArrayForEach(p, ph)
			{
				gs_harness_phase *x;
				if (phase_rank(p->string) != rank)
					continue;
				if (r->nphases == cap) {
					cap = cap ? cap * 2 : 16;
					r->phases = gs_xrealloc(r->phases, cap * sizeof *r->phases);
				}
				x = &r->phases[r->nphases++];
				x->step = stepno;
				x->warmup = warm;
				x->name = gs_xstrdup(p->string);
				x->allocated = jbytes(p, "allocated");
				x->reserved = jbytes(p, "reserved");
			}
	}
}

/* The string members of "versions". */
static void read_versions(const cJSON *vers, gs_harness_result *r)
{
	const cJSON *it;

	r->has_versions = cJSON_IsObject(vers);
	if (!r->has_versions)
		return;
	r->versions = gs_xcalloc((size_t)cJSON_GetArraySize(vers) + 1, sizeof *r->versions);
	cJSON_ArrayForEach(it, vers)
	{
		if (!cJSON_IsString(it))
			continue;
		r->versions[r->nversions].name = gs_xstrdup(it->string);
		r->versions[r->nversions].value = gs_xstrdup(it->valuestring);
		r->nversions++;
	}
}

/* The checked result object into plain figures. */
static void read_result(const cJSON *res, gs_harness_result *r)
{
	const cJSON *tag = cJSON_GetObjectItemCaseSensitive(res, "harness");
	const cJSON *peak = cJSON_GetObjectItemCaseSensitive(res, "peak");
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(res, "steps");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "status");

	r->json = cJSON_PrintUnformatted(res);
	if (r->json == NULL) { /* cJSON's allocation failed: give up as gs_xmalloc does */
		fputs("gpusizer: host memory exhausted (this machine's RAM, not the GPU's)\n", stderr);
		exit(gs_exit_code(GS_ENOMEM));
	}
	r->tag = cJSON_IsString(tag) ? gs_xstrdup(tag->valuestring) : NULL;
	r->oom = !strcmp(st->valuestring, "oom");
	snprintf(r->status, sizeof r->status, "%s", r->oom ? "oom" : "ok");
	if (!r->oom) {
		r->peak_allocated = jbytes(peak, "allocated");
		r->peak_reserved = jbytes(peak, "reserved");
	}
	r->load_allocated = jbytes(cJSON_GetObjectItemCaseSensitive(res, "load"), "allocated");
	r->has_steps = cJSON_IsArray(steps);
	if (r->has_steps) {
		r->nsteps = (size_t)cJSON_GetArraySize(steps);
		r->step1_end_allocated = jbytes(cJSON_GetArrayItem(steps, 0), "end_allocated");
		read_phases(steps, r);
	}
	read_versions(cJSON_GetObjectItemCaseSensitive(res, "versions"), r);
}

/* The harness's device memory: NVML's figure for its process, else the
 * whole device's peak less what was in use at the start. */
static void read_device(const gs_harness_opts *o, const hrun *run, gs_harness_result *r)
{
	r->samples = run->samples;
	r->device_peak = run->dev_peak;
	if (run->proc_found && run->proc_peak) {
		r->device = run->proc_peak;
		r->device_method = "nvml-process";
	} else if (run->dev_peak > o->used_at_start && o->nv != NULL) {
		r->device = run->dev_peak - o->used_at_start;
		r->device_method = "nvml-device-minus-start";
	}
}

gs_err gs_harness_run(char **argv, const gs_harness_opts *o, gs_harness_result *r, gs_error *e)
{
	hrun run;
	cJSON *res = NULL;
	gs_err rc;

	memset(r, 0, sizeof *r);
	rc = run_collect(argv, o, &run, e);
	if (rc == GS_OK) {
		res = parse_result(&run);
		rc = check_result(argv, o, &run, res, e);
	}
	if (rc == GS_OK) {
		read_result(res, r);
		read_device(o, &run, r);
	}
	cJSON_Delete(res);
	free(run.out);
	return rc;
}

void gs_harness_result_free(gs_harness_result *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nphases; i++)
		free(r->phases[i].name);
	for (size_t i = 0; i < r->nversions; i++) {
		free(r->versions[i].name);
		free(r->versions[i].value);
	}
	free(r->phases);
	free(r->versions);
	free(r->json);
	free(r->tag);
	memset(r, 0, sizeof *r);
}
