/* Writing an output file atomically: the one writer behind every file ridge
 * writes (calibrations, plots, scenarios, the probe's JSON). Generic file
 * I/O with no ridge types, linked into libridge (hwdb_write_file uses it). */
#ifndef RIDGE_UTIL_ATOMIC_FILE_H
#define RIDGE_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes len bytes to path atomically: a temporary file next to it, fsync,
 * rename. On failure the old file (if any) is intact and no temporary file is
 * left, also when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives mid-write (the
 * temporary is removed, then the signal takes its earlier course). A replaced
 * file keeps its mode (new ones get 0666 & ~umask); a file the user may not
 * write (read-only) is refused, not replaced. Symbolic links are followed:
 * the link stays, the file it names is written (created, for a dangling
 * link). A device or a pipe (/dev/null, /dev/stdout) is written through; a
 * FIFO that no process reads is refused at once, never waited on; a
 * directory or a socket is refused. Returns 0, or -1 with err
 * ("cannot ... 'path': why"). */
int atomic_file_write(const char *path, const char *data, size_t len, char *err, size_t err_len);

/* Whether path can be written by atomic_file_write, checked before any work
 * (a probe run takes minutes) with the same rules, and by creating and
 * removing the temporary file the write will make: a missing or read-only
 * directory, /proc and a read-only file system are all caught here, so that
 * every unusable output path is one usage error (exit 2). Returns 0, or -1
 * with err ("cannot write 'path': why"). */
int atomic_file_path_check(const char *path, char *err, size_t err_len);

/* Whether a and b name one file: the same device and inode when both exist
 * (a hard link, a symbolic link, "./x" and "x" alike), else the same real
 * path. What refuses an output that is an input of the same command (ridge's
 * app_output_not_input, ridge-probe's --out, --validation-json and --out-dir
 * against --replay, the TUI's save against the files it read). */
bool atomic_file_same(const char *a, const char *b);

#endif
