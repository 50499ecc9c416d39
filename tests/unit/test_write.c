/* atomic_file_write (util/atomic_file.c), behind every file ridge writes (app_write_atomic: SVG
 * plots, scenarios, calibrations): all or nothing, never a partial file, no
 * temporary file left behind, the old file intact after a failure. */
#include "test_util.h"

#include "atomic_file.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/ridge-test-writeXXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char path[512];
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	return rmdir(dir);
}

static void in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strstr(e->d_name, ".tmp"))
			fail_msg("temporary file left behind: %s", e->d_name);
		n += e->d_name[0] != '.';
	}
	closedir(d);
	return n;
}

static void test_new_and_replaced_files(void **state)
{
	(void)state;
	char path[256], err[600] = "";
	in_dir(path, sizeof path, "plot.svg");
	assert_int_equal(atomic_file_write(path, "first\n", 6, err, sizeof err), 0);
	assert_string_equal(slurp(path), "first\n");
	mode_t mask = umask(0);
	umask(mask);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~mask); /* not mkstemp's 0600 */

	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(atomic_file_write(path, "second\n", 7, err, sizeof err), 0);
	assert_string_equal(slurp(path), "second\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640); /* a replaced file keeps its mode */
	assert_int_equal(entries(), 1);
}

static void test_failures_leave_nothing(void **state)
{
	(void)state;
	char path[256], err[600] = "";
	/* No such directory. */
	in_dir(path, sizeof path, "missing/plot.svg");
	assert_int_equal(atomic_file_write(path, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file or directory"));

	/* A directory where the file should go: refused, left as it was. */
	in_dir(path, sizeof path, "sub");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(atomic_file_write(path, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "is a directory"));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* The same with a trailing slash. */
	char slashed[300];
	snprintf(slashed, sizeof slashed, "%s/", path);
	assert_int_equal(atomic_file_write(slashed, "x", 1, err, sizeof err), -1);
	assert_int_equal(rmdir(path), 0);

	/* A file used as a directory. */
	in_dir(path, sizeof path, "file");
	assert_int_equal(atomic_file_write(path, "keep\n", 5, err, sizeof err), 0);
	in_dir(path, sizeof path, "file/plot.svg");
	assert_int_equal(atomic_file_write(path, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "Not a directory"));

	assert_int_equal(atomic_file_write("", "x", 1, err, sizeof err), -1);
	assert_int_equal(entries(), 1);
}

/* A write that fails half-way (the file-size limit stands in for a full
 * disk): the old file is intact and the temporary file is gone. */
static void test_failed_write_keeps_old_file(void **state)
{
	(void)state;
	char path[256], err[600] = "";
	in_dir(path, sizeof path, "calibration.yaml");
	assert_int_equal(atomic_file_write(path, "old: 1\n", 7, err, sizeof err), 0);

	static char big[1 << 16];
	memset(big, 'x', sizeof big);
	struct rlimit saved, small = { 1024, 0 };
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small.rlim_max = saved.rlim_max;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = atomic_file_write(path, big, sizeof big, err, sizeof err);
	setrlimit(RLIMIT_FSIZE, &saved);
	signal(SIGXFSZ, old_handler);

	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "cannot write"));
	assert_non_null(strstr(err, path));
	assert_string_equal(slurp(path), "old: 1\n");
	assert_int_equal(entries(), 1);
}

static void test_links_and_devices(void **state)
{
	(void)state;
	char path[256], link_path[256], err[600] = "";
	in_dir(path, sizeof path, "real.svg");
	in_dir(link_path, sizeof link_path, "link.svg");
	assert_int_equal(atomic_file_write(path, "old\n", 4, err, sizeof err), 0);
	assert_int_equal(symlink(path, link_path), 0);
	assert_int_equal(atomic_file_write(link_path, "new\n", 4, err, sizeof err), 0);
	struct stat st;
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode)); /* still a link */
	assert_string_equal(slurp(path), "new\n");
	assert_int_equal(entries(), 2);

	/* A device is written through, not replaced by a regular file. */
	assert_int_equal(atomic_file_write("/dev/null", "x\n", 2, err, sizeof err), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_calibration_write(void **state)
{
	(void)state;
	char path[256], err[600] = "";
	in_dir(path, sizeof path, "cal.yaml");
	const struct ridge_gpu *gpu = test_gpu("h100-sxm");
	assert_int_equal(hwdb_write_file(path, gpu, err, sizeof err), 0);
	struct ridge_gpu back;
	assert_int_equal(hwdb_load_file(path, &back, NULL), 0);
	assert_memory_equal(&back, gpu, sizeof back);
	in_dir(path, sizeof path, "nowhere/cal.yaml");
	assert_int_equal(hwdb_write_file(path, gpu, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	assert_int_equal(entries(), 1);
}

/* Issue 21: a dangling link given as the output is followed (its target is
 * created, the link stays); a read-only file is refused, not replaced
 * behind the user's back (root's access() would allow it: the mode bits
 * decide); a FIFO nobody reads is refused at once, never waited on. */
static void test_dangling_link_read_only_fifo(void **state)
{
	(void)state;
	char link_path[256], target[256], err[600] = "";
	in_dir(link_path, sizeof link_path, "plot.svg");
	in_dir(target, sizeof target, "made.svg");
	assert_int_equal(symlink("made.svg", link_path), 0); /* relative, dangling */
	assert_int_equal(atomic_file_path_check(link_path, err, sizeof err), 0);
	assert_int_equal(atomic_file_write(link_path, "new\n", 4, err, sizeof err), 0);
	struct stat st;
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(slurp(target), "new\n");
	assert_int_equal(entries(), 2);

	char ro[256];
	in_dir(ro, sizeof ro, "readonly.svg");
	assert_int_equal(atomic_file_write(ro, "kept\n", 5, err, sizeof err), 0);
	assert_int_equal(chmod(ro, 0444), 0);
	assert_int_equal(atomic_file_path_check(ro, err, sizeof err), -1);
	assert_non_null(strstr(err, "a read-only file is not replaced"));
	assert_int_equal(atomic_file_write(ro, "lost\n", 5, err, sizeof err), -1);
	assert_string_equal(slurp(ro), "kept\n");
	assert_int_equal(stat(ro, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);

	char fifo[256];
	in_dir(fifo, sizeof fifo, "plot.fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(atomic_file_write(fifo, "x", 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "a FIFO that no process reads"));
	assert_int_equal(entries(), 4);
}

/* SIGINT in the middle of a large write: the temporary file is removed by
 * the handler, then the signal takes its course (here: the default, the
 * child dies of it). The child writes 64 MiB and is interrupted at once;
 * whether the signal lands mid-write or after, no *.tmpXXXXXX may remain. */
static void test_signal_removes_temporary(void **state)
{
	(void)state;
	char path[256];
	in_dir(path, sizeof path, "big.svg");
	for (int attempt = 0; attempt < 3; attempt++) {
		int ready[2];
		assert_int_equal(pipe(ready), 0);
		pid_t child = fork();
		assert_true(child >= 0);
		if (child == 0) {
			size_t len = (size_t)64 << 20;
			char *big = malloc(len);
			if (!big)
				_exit(90);
			memset(big, 'x', len);
			char err[600];
			close(ready[0]);
			(void)!write(ready[1], "go", 2);
			close(ready[1]);
			_exit(atomic_file_write(path, big, len, err, sizeof err) == 0 ? 0 : 91);
		}
		close(ready[1]);
		char go[2];
		assert_int_equal(read(ready[0], go, 2), 2);
		close(ready[0]);
		usleep(20000 * (attempt + 1));
		kill(child, SIGINT);
		int status;
		assert_int_equal(waitpid(child, &status, 0), child);
		assert_true((WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) ||
			    (WIFEXITED(status) && WEXITSTATUS(status) == 0));
		entries(); /* fails on a temporary file left behind */
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_and_replaced_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_leave_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_keeps_old_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_and_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calibration_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_link_read_only_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_removes_temporary, setup, teardown),
	};
	return cmocka_run_group_tests_name("write", tests, NULL, NULL);
}
