/* ridge-probe under a launcher (launcher.h). */
#include "launcher.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *env_get(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* A whole number >= 0 into *out (-1 when name is not set). */
static int env_int(const char *const *env, const char *name, int *out, char *err, size_t err_len)
{
	const char *text = env_get(env, name);
	*out = -1;
	if (!text)
		return 0;
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno || v < 0 || v > INT_MAX) {
		snprintf(err, err_len, "%s='%s' is not a whole number >= 0", name, text);
		return -1;
	}
	*out = (int)v;
	return 0;
}

struct launcher_vars {
	enum launcher_kind kind;
	const char *present; /* set when this launcher started the process */
	const char *rank, *local_rank, *local_rank_alt, *node_rank, *world_size;
};

static const struct launcher_vars launchers[] = {
	{ LAUNCHER_TORCHRUN, "LOCAL_RANK", "RANK", "LOCAL_RANK", NULL, "GROUP_RANK", "WORLD_SIZE" },
	{ LAUNCHER_OPENMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", NULL, NULL,
	  "OMPI_COMM_WORLD_SIZE" },
	{ LAUNCHER_PMI, "PMI_RANK", "PMI_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", NULL, "PMI_SIZE" },
	{ LAUNCHER_SLURM, "SLURM_PROCID", "SLURM_PROCID", "SLURM_LOCALID", NULL, "SLURM_NODEID", "SLURM_NTASKS" },
};

static void clean_host(const char *hostname, char *out, size_t len)
{
	size_t j = 0;
	for (size_t i = 0; hostname && hostname[i] && hostname[i] != '.' && j + 1 < len; i++) {
		char c = hostname[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			  c == '-';
		out[j++] = ok ? c : '_';
	}
	out[j] = '\0';
	if (j == 0)
		snprintf(out, len, "localhost");
}

int launcher_detect(const char *const *env, const char *hostname, struct launcher_place *out, char *err, size_t err_len)
{
	memset(out, 0, sizeof *out);
	out->kind = LAUNCHER_NONE;
	out->rank = out->local_rank = out->node_rank = out->world_size = -1;
	clean_host(hostname, out->host, sizeof out->host);
	const struct launcher_vars *v = NULL;
	for (size_t i = 0; i < sizeof launchers / sizeof launchers[0] && !v; i++)
		if (env_get(env, launchers[i].present) && env_get(env, launchers[i].rank))
			v = &launchers[i];
	if (!v)
		return 0;
	out->kind = v->kind;
	if (env_int(env, v->rank, &out->rank, err, err_len) ||
	    env_int(env, v->local_rank, &out->local_rank, err, err_len) ||
	    env_int(env, v->world_size, &out->world_size, err, err_len))
		return -1;
	if (out->local_rank < 0 && v->local_rank_alt && env_int(env, v->local_rank_alt, &out->local_rank, err, err_len))
		return -1;
	if (v->node_rank && env_int(env, v->node_rank, &out->node_rank, err, err_len))
		return -1;
	/* srun --mpi=pmi2 sets PMI_RANK without a local rank: Slurm's are this
	 * process's when its SLURM_PROCID is the same rank (in an sbatch script
	 * the batch step's SLURM_PROCID=0 belongs to no rank of mpirun's). */
	int slurm_rank = -1;
	if (v->kind != LAUNCHER_SLURM && env_int(env, "SLURM_PROCID", &slurm_rank, err, err_len))
		return -1;
	if (v->kind == LAUNCHER_SLURM || (slurm_rank >= 0 && slurm_rank == out->rank)) {
		/* Slurm's name for the node (what squeue and sinfo show). */
		if (env_get(env, "SLURMD_NODENAME"))
			clean_host(env_get(env, "SLURMD_NODENAME"), out->host, sizeof out->host);
	}
	if (slurm_rank >= 0 && slurm_rank == out->rank) {
		if (out->local_rank < 0 && env_int(env, "SLURM_LOCALID", &out->local_rank, err, err_len))
			return -1;
		if (out->node_rank < 0 && env_int(env, "SLURM_NODEID", &out->node_rank, err, err_len))
			return -1;
	}
	if (out->world_size >= 0 && out->rank >= out->world_size) {
		snprintf(err, err_len, "%s=%d is not below %s=%d", v->rank, out->rank, v->world_size, out->world_size);
		return -1;
	}
	return 0;
}

const char *launcher_name(enum launcher_kind kind)
{
	switch (kind) {
	case LAUNCHER_TORCHRUN:
		return "torchrun";
	case LAUNCHER_OPENMPI:
		return "openmpi";
	case LAUNCHER_PMI:
		return "pmi";
	case LAUNCHER_SLURM:
		return "slurm";
	case LAUNCHER_NONE:
		break;
	}
	return "none";
}

int launcher_device(const struct launcher_place *p, int requested, int device_count, char *err, size_t err_len)
{
	if (requested >= 0)
		return requested;
	if (p->kind == LAUNCHER_NONE || device_count == 1)
		return 0;
	if (p->local_rank < 0) {
		snprintf(err, err_len,
			 "%s started this rank without a local rank, and %d GPUs are visible: give --device, or one "
			 "GPU per rank (CUDA_VISIBLE_DEVICES)",
			 launcher_name(p->kind), device_count);
		return -1;
	}
	if (p->local_rank >= device_count) {
		snprintf(err, err_len,
			 "local rank %d but %d GPU%s visible: more ranks on this host than GPUs (two ranks would "
			 "share one)",
			 p->local_rank, device_count, device_count == 1 ? "" : "s");
		return -1;
	}
	return p->local_rank;
}

/* The entry'th element (0-based) of a comma-separated list, or NULL. */
static const char *list_entry(const char *list, int entry, char *buf, size_t len)
{
	for (int i = 0; list; i++) {
		const char *comma = strchr(list, ',');
		size_t n = comma ? (size_t)(comma - list) : strlen(list);
		if (i == entry) {
			if (n == 0 || n >= len)
				return NULL;
			memcpy(buf, list, n);
			buf[n] = '\0';
			return buf;
		}
		list = comma ? comma + 1 : NULL;
	}
	return NULL;
}

int launcher_gpu_index(const char *const *env, bool hip, const struct launcher_place *p, int device, int device_count)
{
	const char *visible = hip ? env_get(env, "ROCR_VISIBLE_DEVICES") : env_get(env, "CUDA_VISIBLE_DEVICES");
	if (hip && !visible)
		visible = env_get(env, "HIP_VISIBLE_DEVICES");
	char entry[64];
	if (visible && list_entry(visible, device, entry, sizeof entry)) {
		char *end;
		long v = strtol(entry, &end, 10);
		if (end != entry && *end == '\0' && v >= 0 && v <= INT_MAX)
			return (int)v;
	}
	if (p->kind != LAUNCHER_NONE && device_count == 1 && p->local_rank >= 0)
		return p->local_rank;
	return device;
}

int launcher_result_path(const char *dir, const char *host, int gpu_index, const char *ext, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s-gpu%d.%s", dir, host, gpu_index, ext);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int launcher_claim(const char *path, char *err, size_t err_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, err_len,
				 "'%s' exists: another rank measures this GPU, or the directory holds an earlier "
				 "run (use a new one)",
				 path);
		else
			snprintf(err, err_len, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

void launcher_release(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The rank-<R> files in dir. */
static int count_arrivals(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, "rank-", 5) == 0;
	closedir(d);
	return n;
}

int launcher_barrier(const char *path, const struct launcher_place *p, double timeout_s, double poll_s, char *err,
		     size_t err_len)
{
	if (p->world_size < 1 || p->rank < 0) {
		snprintf(err, err_len, "--barrier-file needs a launcher that gives the rank and the world size");
		return -1;
	}
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "cannot make the barrier directory '%s': %s", path, strerror(errno));
		return -1;
	}
	char mine[4096];
	if (snprintf(mine, sizeof mine, "%s/rank-%d", path, p->rank) >= (int)sizeof mine) {
		snprintf(err, err_len, "the barrier path '%s' is too long", path);
		return -1;
	}
	int fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		snprintf(err, err_len, "cannot write '%s': %s", mine, strerror(errno));
		return -1;
	}
	close(fd);
	double start = now_s();
	int seen = count_arrivals(path);
	while (seen < p->world_size && now_s() - start < timeout_s) {
		struct timespec nap = { (time_t)poll_s, (long)((poll_s - (double)(time_t)poll_s) * 1e9) };
		nanosleep(&nap, NULL);
		seen = count_arrivals(path);
	}
	return seen < p->world_size ? seen : p->world_size;
}

static void put_int(cJSON *o, const char *key, int v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *launcher_placement_json(const struct launcher_place *p, int device, int gpu_index, const char *uuid,
			       int barrier_ranks, double barrier_wait_s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "launcher", launcher_name(p->kind));
	put_int(o, "rank", p->rank);
	put_int(o, "local_rank", p->local_rank);
	put_int(o, "node_rank", p->node_rank);
	put_int(o, "world_size", p->world_size);
	cJSON_AddStringToObject(o, "host", p->host);
	cJSON_AddNumberToObject(o, "device", device);
	cJSON_AddNumberToObject(o, "gpu_index", gpu_index);
	cJSON_AddStringToObject(o, "uuid", uuid ? uuid : "");
	if (barrier_ranks >= 0) {
		cJSON *b = cJSON_AddObjectToObject(o, "barrier");
		cJSON_AddNumberToObject(b, "ranks_seen", barrier_ranks);
		cJSON_AddBoolToObject(b, "aligned", p->world_size > 0 && barrier_ranks >= p->world_size);
		cJSON_AddNumberToObject(b, "wait_s", barrier_wait_s);
	}
	return o;
}
