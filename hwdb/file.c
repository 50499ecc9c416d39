/* The one routine every ridge input file is read through (hwdb entries,
 * calibrations, scenarios, model configs, ncu CSVs, ptxas logs, validation
 * and replay JSON): open without blocking, refuse what is not a regular file,
 * then read at most a stated number of bytes ("-": standard input, a pipe
 * or a redirected file). open(2) of a FIFO with no
 * writer blocks forever, and so does reading a terminal or a socket; opened
 * with O_NONBLOCK it returns at once, and fstat says what it is. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwdb.h"

const char *hwdb_file_type_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO (named pipe)";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a regular file";
	}
}

enum hwdb_read hwdb_read_file(const char *path, size_t max_bytes, char **text, size_t *len, int *error_number,
			      const char **type)
{
	*text = NULL;
	*len = 0;
	*error_number = 0;
	*type = NULL;
	/* "-" is standard input, as for every Unix tool: a pipe or a redirected
	 * file, read to its end within max_bytes (so /dev/zero is "too big", not
	 * a hang); a terminal is refused, since nothing would end the read. */
	bool from_stdin = strcmp(path, "-") == 0;
	int fd = from_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*error_number = errno;
		return HWDB_READ_OPEN;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*error_number = errno;
		close(fd);
		return HWDB_READ_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		/* "cannot read: Is a directory", as read(2) would say. */
		close(fd);
		*error_number = EISDIR;
		return HWDB_READ_IO;
	}
	if (from_stdin && isatty(fd)) {
		close(fd);
		*type = "a terminal (pipe or redirect a file into it)";
		return HWDB_READ_NOT_REGULAR;
	}
	if (!from_stdin && !S_ISREG(st.st_mode)) {
		close(fd);
		*type = hwdb_file_type_name((unsigned)st.st_mode);
		return HWDB_READ_NOT_REGULAR;
	}
	/* A regular file never blocks; clear O_NONBLOCK all the same, so that a
	 * file on a network file system reads as usual. (Standard input's flags
	 * are the caller's: left as they are.) */
	int flags = from_stdin ? -1 : fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	/* The size is a hint (the file may grow while read): read until EOF,
	 * at most max_bytes + 1 so that a longer file is seen as too long. */
	size_t cap = st.st_size > 0 && (size_t)st.st_size < max_bytes ? (size_t)st.st_size + 1 : 8192;
	if (cap > max_bytes + 1)
		cap = max_bytes + 1;
	char *buf = malloc(cap + 1);
	size_t used = 0;
	enum hwdb_read status = HWDB_READ_OK;
	while (buf) {
		if (used == cap) {
			if (cap > max_bytes) {
				status = HWDB_READ_TOO_BIG;
				break;
			}
			size_t grown_cap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
			char *grown = realloc(buf, grown_cap + 1);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			cap = grown_cap;
		}
		ssize_t n = read(fd, buf + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*error_number = errno;
			status = HWDB_READ_IO;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > max_bytes) {
			status = HWDB_READ_TOO_BIG;
			break;
		}
	}
	close(fd);
	if (!buf)
		return HWDB_READ_NOMEM;
	if (status != HWDB_READ_OK) {
		free(buf);
		return status;
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return HWDB_READ_OK;
}
