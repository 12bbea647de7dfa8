/* gpusizer bench: the floor for `make bench`.
 *   floor_xlsx OUT.xlsx N   a minimal libxlsxwriter program writing N number
 *                           cells (50 per row, a new sheet before Excel's row
 *                           limit) in constant-memory mode, nothing else;
 *   floor_xlsx --run CMD... runs CMD (stdout to /dev/null) and prints
 *                           "wall_seconds peak_rss_kib" of that child alone
 *                           (fork from this small process, then wait4). */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xlsxwriter.h>

#define FLOOR_COLS 50
#define FLOOR_MAX_ROWS 1048576

static int run(char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "floor_xlsx --run: %s failed\n", argv[0]);
		return 1;
	}
	printf("%.3f %ld\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	lxw_workbook_options opt = { .constant_memory = LXW_TRUE, .tmpdir = NULL };
	lxw_workbook *wb;
	lxw_worksheet *ws = NULL;
	long long n, done = 0, row = 0;

	if (argc > 2 && strcmp(argv[1], "--run") == 0)
		return run(argv + 2);
	if (argc != 3 || (n = atoll(argv[2])) <= 0) {
		fprintf(stderr, "usage: floor_xlsx OUT.xlsx NCELLS | floor_xlsx --run CMD...\n");
		return 2;
	}
	wb = workbook_new_opt(argv[1], &opt);
	if (wb == NULL)
		return 1;
	while (done < n) {
		if (ws == NULL || row == FLOOR_MAX_ROWS) {
			ws = workbook_add_worksheet(wb, NULL);
			row = 0;
		}
		for (int c = 0; c < FLOOR_COLS && done < n; c++, done++)
			worksheet_write_number(ws, (lxw_row_t)row, (lxw_col_t)c, (double)(done % 9973) * 0.5, NULL);
		row++;
	}
	return workbook_close(wb) == LXW_NO_ERROR ? 0 : 1;
}
