/* atomic_file_write and atomic_file_path_check (atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* write(2) until done; 0, or -1 with errno (EIO for a write that made no progress). */
static int write_all(int fd, const char *data, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/* Symbolic links are followed, deliberately: `--svg plot.svg` where plot.svg
 * links elsewhere writes the file the link names (as `>` in a shell does),
 * and the link stays a link, also when it dangles (its target is created).
 * Returns the final path, malloc'd, or NULL with errno (ELOOP, ENOMEM). */
static char *link_target(const char *path)
{
	char *current = strdup(path);
	for (int depth = 0; current && depth < 40; depth++) {
		struct stat st;
		if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
			return current;
		char name[PATH_MAX];
		ssize_t n = readlink(current, name, sizeof name - 1);
		if (n < 0) {
			free(current);
			return NULL;
		}
		name[n] = '\0';
		char *next;
		const char *slash = strrchr(current, '/');
		if (name[0] == '/' || !slash) {
			next = strdup(name);
		} else {
			/* Relative to the directory that holds the link. */
			size_t dir_len = (size_t)(slash - current) + 1;
			next = malloc(dir_len + (size_t)n + 1);
			if (next) {
				memcpy(next, current, dir_len);
				memcpy(next + dir_len, name, (size_t)n + 1);
			}
		}
		free(current);
		current = next;
	}
	if (current) {
		free(current);
		errno = ELOOP;
	}
	return NULL;
}

/* The temporary file being written, for the signal handler: SIGINT during a
 * large write removes it, then the signal takes its earlier course (the
 * default: exit; the TUI's handler: restore the terminal). */
static char pending_tmp[PATH_MAX + 16];
static volatile sig_atomic_t pending_armed;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define CLEANUP_SIGNALS (int)(sizeof cleanup_signals / sizeof cleanup_signals[0])
static struct sigaction saved_actions[CLEANUP_SIGNALS];

static void remove_pending_tmp(int sig)
{
	if (pending_armed)
		unlink(pending_tmp);
	pending_armed = 0;
	for (int i = 0; i < CLEANUP_SIGNALS; i++)
		if (cleanup_signals[i] == sig)
			sigaction(sig, &saved_actions[i], NULL);
	raise(sig); /* delivered when this handler returns, to the earlier action */
}

static void arm_cleanup(const char *tmp)
{
	if (strlen(tmp) >= sizeof pending_tmp)
		return;
	memcpy(pending_tmp, tmp, strlen(tmp) + 1);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = remove_pending_tmp;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < CLEANUP_SIGNALS; i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (int i = 0; i < CLEANUP_SIGNALS; i++) {
		sigaction(cleanup_signals[i], NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &sa, NULL);
	}
	pending_armed = 1;
}

static void disarm_cleanup(void)
{
	if (!pending_armed)
		return;
	pending_armed = 0;
	for (int i = 0; i < CLEANUP_SIGNALS; i++)
		if (saved_actions[i].sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &saved_actions[i], NULL);
}

/* Writes through what is not a regular file (/dev/null, /dev/stdout, a pipe
 * someone reads). Opened non-blocking: a FIFO that nobody reads is refused at
 * once (ENXIO) instead of waiting forever; sockets cannot be opened. */
static int write_through(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENXIO)
			snprintf(err, err_len, "cannot write '%s': a FIFO that no process reads", path);
		else
			snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	if (write_all(fd, data, len) != 0) {
		int e = errno;
		close(fd);
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(e));
		return -1;
	}
	if (close(fd) != 0) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* What a write to path will do: refuse (-1, err set), write through a
 * device or pipe (*through), or replace the regular file *target (malloc'd:
 * path with its symbolic links followed) by way of a temporary file next to
 * it, keeping *mode. */
static int plan_write(const char *path, char **target, bool *through, mode_t *mode, char *err, size_t err_len)
{
	*target = NULL;
	*through = false;
	if (!path[0]) {
		snprintf(err, err_len, "cannot write '': no file name");
		return -1;
	}
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "cannot write '%s': it is a directory", path);
			return -1;
		}
		if (S_ISSOCK(st.st_mode)) {
			snprintf(err, err_len, "cannot write '%s': a socket, not a file", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			/* Nothing to replace, and renaming over it would destroy
			 * it. Opened by its own name: /dev/stdout's link is magic. */
			*through = true;
			*target = strdup(path);
			if (!*target) {
				snprintf(err, err_len, "cannot write '%s': out of memory", path);
				return -1;
			}
			return 0;
		}
		/* A file the user may not write is not replaced behind its back
		 * (rename only needs the directory writable); nor is one without
		 * any write bit, which root's access() would pass. */
		if (access(path, W_OK) != 0 || (st.st_mode & 0222) == 0) {
			snprintf(err, err_len, "cannot write '%s': %s (a read-only file is not replaced)", path,
				 strerror(access(path, W_OK) != 0 ? errno : EACCES));
			return -1;
		}
		*mode = st.st_mode & 07777;
		struct stat link;
		*target = lstat(path, &link) == 0 && S_ISLNK(link.st_mode) ? realpath(path, NULL) : strdup(path);
	} else if (errno != ENOENT) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	} else {
		/* A new file, or a dangling link: its target is created. */
		*target = link_target(path);
		/* New files get the usual 0666 & ~umask (mkstemp makes 0600). */
		mode_t mask = umask(0);
		umask(mask);
		*mode = 0666 & ~mask;
	}
	if (!*target) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A temporary file next to target (same directory, so rename() is atomic:
 * readers see the old file or the new one, never a part). Returns its fd
 * and name (malloc'd), or -1 with errno. */
static int make_temporary(const char *target, char **tmp)
{
	size_t n = strlen(target) + sizeof ".tmpXXXXXX";
	*tmp = malloc(n);
	if (!*tmp) {
		errno = ENOMEM;
		return -1;
	}
	snprintf(*tmp, n, "%s.tmpXXXXXX", target);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		int e = errno;
		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return fd;
}

int atomic_file_write(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
	char *target;
	bool through;
	mode_t mode = 0;
	if (plan_write(path, &target, &through, &mode, err, err_len) != 0)
		return -1;
	if (through) {
		int rc = write_through(target, data, len, err, err_len);
		free(target);
		return rc;
	}
	char *tmp;
	int fd = make_temporary(target, &tmp);
	if (fd < 0) {
		snprintf(err, err_len, "cannot create '%s': %s", path, strerror(errno));
		free(target);
		return -1;
	}
	arm_cleanup(tmp);
	const char *what = "write";
	int failed = write_all(fd, data, len) != 0 || fsync(fd) != 0 || fchmod(fd, mode) != 0;
	int e = errno;
	if (close(fd) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (!failed && rename(tmp, target) != 0) {
		failed = 1;
		e = errno;
		what = "replace";
	}
	if (failed)
		unlink(tmp);
	disarm_cleanup();
	if (failed)
		snprintf(err, err_len, "cannot %s '%s': %s", what, path, strerror(e));
	free(tmp);
	free(target);
	return failed ? -1 : 0;
}

int atomic_file_path_check(const char *path, char *err, size_t err_len)
{
	if (!path[0]) {
		snprintf(err, err_len, "no file name given");
		return -1;
	}
	char *target;
	bool through;
	mode_t mode;
	if (plan_write(path, &target, &through, &mode, err, err_len) != 0)
		return -1;
	int rc = 0;
	if (!through) {
		/* The real test of the place (a missing or read-only directory,
		 * /proc, a read-only file system, a full quota): create the
		 * temporary file the write will create, and remove it. */
		char *tmp;
		int fd = make_temporary(target, &tmp);
		if (fd < 0) {
			snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
			rc = -1;
		} else {
			close(fd);
			unlink(tmp);
			free(tmp);
		}
	}
	free(target);
	return rc;
}

bool atomic_file_same(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char ra[PATH_MAX], rb[PATH_MAX];
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}
