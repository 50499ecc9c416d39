/* Writes a struct ridge_gpu back as a hwdb entry (ridge-probe's calibrations).
 * Written with stdio rather than libyaml's emitter: the layout is fixed, every
 * string is re-validated by the loader (no control characters), and the only
 * escaping YAML's double-quoted style needs for such strings is \ and ". */
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

#include "hwdb.h"
#include "timing.h"

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* %.17g round-trips a double exactly: a calibration re-read equals what was written. */
#define NUM "%.17g"

static void put_peaks(FILE *f, const struct ridge_gpu *g)
{
	fprintf(f, "peak_flops:\n");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		if (!p->has_vector && !p->has_matrix && !p->has_matrix_sparse)
			continue;
		const char *unit = d == RIDGE_INT8 ? "OP/s" : "FLOP/s";
		fprintf(f, "  %s: {", ridge_dtype_name((enum ridge_dtype)d));
		const char *sep = "";
		if (p->has_vector) {
			fprintf(f, "%svector: " NUM " %s", sep, p->vector, unit);
			sep = ", ";
		}
		if (p->has_matrix) {
			fprintf(f, "%smatrix: " NUM " %s", sep, p->matrix, unit);
			sep = ", ";
		}
		if (p->has_matrix_sparse)
			fprintf(f, "%smatrix_sparse: " NUM " %s", sep, p->matrix_sparse, unit);
		fprintf(f, "}\n");
	}
}

static void put_interconnect(FILE *f, const struct ridge_gpu *g)
{
	const struct ridge_interconnect *ic = &g->ic;
	fprintf(f, "interconnect:\n  name: ");
	put_string(f, g->interconnect);
	fprintf(f, "\n  bandwidth: " NUM " B/s\n", g->interconnect_bandwidth);
	if (ic->has_fabric) {
		fprintf(f, "  topology: ");
		put_string(f, ic->topology_name);
		fputc('\n', f);
		if (ic->links)
			fprintf(f, "  links: %d\n", ic->links);
		fprintf(f, "  per_direction: " NUM " B/s\n  peer_bandwidth: " NUM " B/s\n  domain_gpus: %d\n  nvls: %s\n",
			ic->per_direction, ic->peer_bandwidth, ic->domain_gpus, ic->nvls ? "true" : "false");
		fprintf(f, "  latency: " NUM " s\n  base_latency: " NUM " s\n", ic->latency, ic->base_latency);
		if (ic->has_bus_bandwidth)
			fprintf(f, "  bus_bandwidth: " NUM " B/s\n", ic->bus_bandwidth);
		if (ic->has_nvls_bus_bandwidth)
			fprintf(f, "  nvls_bus_bandwidth: " NUM " B/s\n", ic->nvls_bus_bandwidth);
		if (ic->pcie[0]) {
			fprintf(f, "  pcie: ");
			put_string(f, ic->pcie);
			fputc('\n', f);
		}
		fprintf(f, "  pcie_bandwidth: " NUM " B/s\n", ic->pcie_bandwidth);
	}
	for (int op = 0; op < RIDGE_COLLECTIVE_COUNT; op++) {
		const struct ridge_collective_measured *m = &ic->measured[op];
		const char *key = ridge_collective_key((enum ridge_collective)op);
		if (m->has_bus_bandwidth)
			fprintf(f, "  %s_bus_bandwidth: " NUM " B/s\n", key, m->bus_bandwidth);
		if (m->has_latency)
			fprintf(f, "  %s_latency: " NUM " s\n", key, m->latency);
	}
	if (ic->measured_gpus)
		fprintf(f, "  measured_gpus: %d\n", ic->measured_gpus);
}

static void put_timing(FILE *f, const struct ridge_gpu *g);

static void put_entry(FILE *f, const struct ridge_gpu *g)
{
	int amd = g->vendor == RIDGE_VENDOR_AMD;
	fprintf(f, "# hwdb entry written by ridge%s\nschema: 1\nid: ", g->measured ? "-probe (a calibration: measured ceilings)" : "");
	put_string(f, g->id);
	fprintf(f, "\nname: ");
	put_string(f, g->name);
	fprintf(f, "\nvendor: %s\narch: ", amd ? "amd" : "nvidia");
	put_string(f, g->arch);
	if (amd) {
		fprintf(f, "\ngfx_target: ");
		put_string(f, g->gfx_target);
	} else {
		fprintf(f, "\ncompute_capability: \"%d.%d\"", g->cc_major, g->cc_minor);
	}
	if (g->alias_count) {
		fprintf(f, "\naliases: [");
		for (int i = 0; i < g->alias_count; i++) {
			if (i)
				fprintf(f, ", ");
			put_string(f, g->aliases[i]);
		}
		fprintf(f, "]");
	}
	fprintf(f, "\nsm_count: %d\nwarp_size: %d\n", g->sm_count, g->warp_size);
	fprintf(f, "clocks:\n  boost: " NUM " Hz\n", g->boost_clock_hz);
	if (g->has_base_clock)
		fprintf(f, "  base: " NUM " Hz\n", g->base_clock_hz);
	fprintf(f, "  matrix_peak: " NUM " Hz\n  vector_peak: " NUM " Hz\n", g->matrix_clock_hz, g->vector_clock_hz);
	put_peaks(f, g);
	fprintf(f, "memory:\n  size: " NUM " B\n  bandwidth: " NUM " B/s\n", g->memory_bytes, g->memory_bandwidth);
	if (g->has_usable_memory)
		fprintf(f, "  usable_size: " NUM " B\n", g->usable_memory_bytes);
	struct ridge_hbm_mix mixes[RIDGE_HBM_MIXES];
	ridge_gpu_hbm_mixes(g, mixes);
	for (int i = 0; i < RIDGE_HBM_MIXES; i++)
		if (mixes[i].has)
			fprintf(f, "  %s: " NUM " B/s\n", mixes[i].key, mixes[i].bandwidth);
	if (g->memory_type[0]) {
		fprintf(f, "  type: ");
		put_string(f, g->memory_type);
		fputc('\n', f);
	}
	fprintf(f, "cache:\n  l2: " NUM " B\n", g->l2_bytes);
	if (g->has_infinity_cache)
		fprintf(f, "  infinity_cache: " NUM " B\n", g->infinity_cache_bytes);
	if (g->has_l2_bandwidth)
		fprintf(f, "  l2_bandwidth: " NUM " B/s\n", g->l2_bandwidth);
	if (g->has_smem_bandwidth)
		fprintf(f, "  smem_bandwidth: " NUM " B/s\n", g->smem_bandwidth);
	fprintf(f,
		"shared_memory:\n  per_sm: " NUM " B\n  per_block: " NUM " B\n  per_block_optin: " NUM
		" B\n  reserved_per_block: " NUM " B\n  alloc_unit: " NUM " B\n",
		g->smem_per_sm, g->smem_per_block, g->smem_per_block_optin, g->nv.smem_reserved_per_block, g->nv.smem_alloc_unit);
	if (!amd && g->nv.carveout_count) {
		fprintf(f, "  carveout_sizes: [");
		for (int i = 0; i < g->nv.carveout_count; i++)
			fprintf(f, "%s" NUM " B", i ? ", " : "", g->nv.carveout_sizes[i]);
		fprintf(f, "]\n");
	}
	fprintf(f, "registers:\n  per_sm: %d\n  per_block: %d\n  per_thread_max: %d\n  alloc_unit: %d\n", g->regs_per_sm,
		g->regs_per_block, g->nv.max_regs_per_thread, g->nv.reg_alloc_unit);
	fprintf(f,
		"limits:\n  threads_per_sm: %d\n  threads_per_block: %d\n  warps_per_sm: %d\n  blocks_per_sm: %d\n"
		"  sub_partitions: %d\n  barriers_per_block_slot: %d\n  virtual_resources_per_sm: %d\n",
		g->max_threads_per_sm, g->max_threads_per_block, g->max_warps_per_sm, g->max_blocks_per_sm, g->nv.sub_partitions,
		g->nv.barriers_per_block_slot, g->nv.virtual_resources_per_sm);
	if (amd)
		fprintf(f,
			"amd:\n  simds_per_cu: %d\n  waves_per_simd: %d\n  vgprs_per_lane: %d\n  vgpr_granule: %d\n"
			"  sgprs_per_simd: %d\n  sgpr_granule: %d\n  max_sgprs_per_wave: %d\n  lds_granule: " NUM
			" B\n  barrier_slots: %d\n",
			g->amd.simds_per_cu, g->amd.waves_per_simd, g->amd.vgprs_per_lane, g->amd.vgpr_granule, g->amd.sgprs_per_simd,
			g->amd.sgpr_granule, g->amd.max_sgprs_per_wave, g->amd.lds_granule, g->amd.barrier_slots);
	fprintf(f, "power:\n  tdp: " NUM " W\n", g->tdp_watts);
	if (g->has_sustained_matrix) {
		fprintf(f, "  sustained_matrix_fraction: " NUM "\n  burst_time: " NUM " s\n", g->sustained_matrix_fraction,
			g->burst_time_s);
		if (g->power_source[0]) {
			fprintf(f, "  source: ");
			put_string(f, g->power_source);
			fputc('\n', f);
		}
	}
	if (g->interconnect[0])
		put_interconnect(f, g);
	fprintf(f, "launch:\n  overhead: " NUM " s\n  graph_node: " NUM " s\n", g->launch_overhead_s, g->graph_node_s);
	if (g->has_kernel_fixed_cost)
		fprintf(f, "  kernel_fixed_cost: " NUM " s\n", g->kernel_fixed_cost_s);
	if (g->has_gemm_fixed_cost)
		fprintf(f, "  gemm_fixed_cost: " NUM " s\n", g->gemm_fixed_cost_s);
	if (g->has_framework_overhead) {
		fprintf(f, "  framework_overhead: " NUM " s\n", g->framework_overhead_s);
		if (g->framework_source[0]) {
			fprintf(f, "  framework_source: ");
			put_string(f, g->framework_source);
			fputc('\n', f);
		}
	}
	put_timing(f, g);
	if (g->has_price)
		fprintf(f, "price: " NUM " USD\n", g->price_usd_per_hour);
	fprintf(f, "sources:\n");
	for (int i = 0; i < g->source_count; i++) {
		fprintf(f, "  - ");
		put_string(f, g->sources[i]);
		fputc('\n', f);
	}
	if (g->note_count) {
		fprintf(f, "notes:\n");
		for (int i = 0; i < g->note_count; i++) {
			fprintf(f, "  - ");
			put_string(f, g->notes[i]);
			fputc('\n', f);
		}
	}
	if (g->measured) {
		fprintf(f, "measured:\n  on: ");
		put_string(f, g->measured_on);
		fputc('\n', f);
	}
}

/* timing: the kernel classes' efficiencies and fixed costs (model/timing.h). */
static void put_timing(FILE *f, const struct ridge_gpu *g)
{
	bool any = g->attention_default[0] != '\0';
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		const struct ridge_timing_terms *t = &g->timing[i];
		any = any || t->has_compute_efficiency || t->has_memory_efficiency || t->has_fixed_cost ||
		      t->has_cta_bandwidth;
	}
	if (!any)
		return;
	fprintf(f, "timing:\n");
	if (g->attention_default[0]) {
		fprintf(f, "  attention_default: ");
		put_string(f, g->attention_default);
		fputc('\n', f);
	}
	for (int i = 0; i < RIDGE_TIMING_SLOTS; i++) {
		const struct ridge_timing_terms *t = &g->timing[i];
		if (!t->has_compute_efficiency && !t->has_memory_efficiency && !t->has_fixed_cost && !t->has_cta_bandwidth)
			continue;
		fprintf(f, "  %s:\n", timing_slot_key(i));
		if (t->has_compute_efficiency)
			fprintf(f, "    compute_efficiency: " NUM "\n", t->compute_efficiency);
		if (t->has_memory_efficiency)
			fprintf(f, "    memory_efficiency: " NUM "\n", t->memory_efficiency);
		if (t->has_fixed_cost)
			fprintf(f, "    fixed_cost: " NUM " s\n", t->fixed_cost_s);
		if (t->source[0]) {
			fprintf(f, "    source: ");
			put_string(f, t->source);
			fputc('\n', f);
		}
		if (t->has_cta_bandwidth) {
			fprintf(f, "    cta_bandwidth: " NUM " B/s\n", t->cta_bandwidth);
			if (t->cta_bandwidth_source[0]) {
				fprintf(f, "    cta_bandwidth_source: ");
				put_string(f, t->cta_bandwidth_source);
				fputc('\n', f);
			}
		}
	}
}

int hwdb_format(const struct ridge_gpu *gpu, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	FILE *f = open_memstream(text, len);
	if (!f)
		return -1;
	put_entry(f, gpu);
	int failed = ferror(f) != 0;
	failed |= fclose(f) != 0;
	if (failed) {
		free(*text);
		*text = NULL;
		*len = 0;
		return -1;
	}
	return 0;
}

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

int hwdb_write_atomic(const char *path, const char *data, size_t len, char *err, size_t err_len)
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

int hwdb_output_path_check(const char *path, char *err, size_t err_len)
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

int hwdb_write_file(const char *path, const struct ridge_gpu *gpu, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	if (hwdb_format(gpu, &text, &len) != 0) {
		snprintf(err, err_len, "cannot write '%s': out of memory", path);
		return -1;
	}
	int rc = hwdb_write_atomic(path, text, len, err, err_len);
	free(text);
	return rc;
}
