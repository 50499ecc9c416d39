/* Writes a struct ridge_gpu back as a hwdb entry (ridge-probe's calibrations).
 * Written with stdio rather than libyaml's emitter: the layout is fixed, every
 * string is re-validated by the loader (no control characters), and the only
 * escaping YAML's double-quoted style needs for such strings is \ and ". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
	if (g->interconnect[0]) {
		fprintf(f, "interconnect:\n  name: ");
		put_string(f, g->interconnect);
		fprintf(f, "\n  bandwidth: " NUM " B/s\n", g->interconnect_bandwidth);
	}
	fprintf(f, "launch:\n  overhead: " NUM " s\n  graph_node: " NUM " s\n", g->launch_overhead_s, g->graph_node_s);
	if (g->has_kernel_fixed_cost)
		fprintf(f, "  kernel_fixed_cost: " NUM " s\n", g->kernel_fixed_cost_s);
	if (g->has_gemm_fixed_cost)
		fprintf(f, "  gemm_fixed_cost: " NUM " s\n", g->gemm_fixed_cost_s);
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
		any = any || t->has_compute_efficiency || t->has_memory_efficiency || t->has_fixed_cost;
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
		if (!t->has_compute_efficiency && !t->has_memory_efficiency && !t->has_fixed_cost)
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

int hwdb_write_atomic(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
	if (!path[0]) {
		snprintf(err, err_len, "cannot write '': no file name");
		return -1;
	}
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "cannot write '%s': it is a directory", path);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (/dev/null, /dev/stdout, a FIFO): nothing to
		 * replace, and renaming over it would destroy it. Write through it. */
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write_all(fd, data, len) != 0) {
			int e = errno;
			if (fd >= 0)
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
	/* Through a symbolic link, replace the file it names, not the link. */
	char *resolved = NULL;
	struct stat link;
	if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode))
		resolved = realpath(path, NULL);
	const char *target = resolved ? resolved : path;

	size_t n = strlen(target) + sizeof ".tmpXXXXXX";
	char *tmp = malloc(n);
	if (!tmp) {
		free(resolved);
		snprintf(err, err_len, "cannot write '%s': out of memory", path);
		return -1;
	}
	snprintf(tmp, n, "%s.tmpXXXXXX", target);
	/* The temporary file sits next to the target, so rename() is atomic:
	 * readers see the old file or the new one, never a part. */
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, err_len, "cannot create '%s': %s", path, strerror(errno));
		free(tmp);
		free(resolved);
		return -1;
	}
	/* mkstemp makes 0600: keep a replaced file's mode, else the usual 0666 & ~umask. */
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
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
	if (failed) {
		unlink(tmp);
		snprintf(err, err_len, "cannot %s '%s': %s", what, path, strerror(e));
	}
	free(tmp);
	free(resolved);
	return failed ? -1 : 0;
}

int hwdb_output_path_check(const char *path, char *err, size_t err_len)
{
	if (!path[0]) {
		snprintf(err, err_len, "no file name given");
		return -1;
	}
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, err_len, "cannot write '%s': it is a directory", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode))
			return 0; /* /dev/stdout, a pipe: written through */
	} else if (errno != ENOENT) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	/* The temporary file is created in the same directory. */
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir) {
		snprintf(err, err_len, "cannot write '%s': out of memory", path);
		return -1;
	}
	int rc = 0;
	if (stat(dir, &st) != 0) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		rc = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(ENOTDIR));
		rc = -1;
	} else if (access(dir, W_OK) != 0) {
		snprintf(err, err_len, "cannot write '%s': %s", path, strerror(errno));
		rc = -1;
	}
	free(dir);
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
