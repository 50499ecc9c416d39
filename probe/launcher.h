/* ridge-probe under a cluster launcher (srun, mpirun, mpiexec, torchrun):
 * which rank this process is, which GPU of its host it measures, the file
 * it writes, and an optional start barrier on a shared file system. No MPI
 * library: every launcher says it all in the environment (names and
 * sources: docs/ridge-probe.md, "Under a launcher"). Plain C, no GPU: the
 * unit tests (tests/unit/test_probe_launcher.c) run it anywhere. */
#ifndef RIDGE_PROBE_LAUNCHER_H
#define RIDGE_PROBE_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

enum launcher_kind { LAUNCHER_NONE, LAUNCHER_TORCHRUN, LAUNCHER_OPENMPI, LAUNCHER_PMI, LAUNCHER_SLURM };

struct launcher_place {
	enum launcher_kind kind;
	int rank, local_rank, node_rank, world_size; /* -1: not known */
	char host[64];
};

/* The place from env ("NAME=value" strings, NULL-terminated: environ), the
 * first launcher whose rank is set, in this order (the launcher that started
 * the process is the innermost: mpirun or torchrun inside a Slurm job):
 *   torchrun  RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE (with TORCHELASTIC_RUN_ID or LOCAL_RANK)
 *   Open MPI  OMPI_COMM_WORLD_RANK, _LOCAL_RANK, _SIZE
 *   PMI       PMI_RANK, PMI_SIZE, MPI_LOCALRANKID or PMI_LOCAL_RANK (MPICH Hydra, Intel MPI, Cray)
 *   Slurm     SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS (srun)
 * A missing local rank or node is taken from Slurm's when SLURM_PROCID is
 * the same rank (srun --mpi=pmi2 sets PMI_RANK alone). host is Slurm's
 * SLURMD_NODENAME when Slurm started this rank, else hostname, up to the first '.',
 * with anything but [A-Za-z0-9_.-] replaced by '_' (it names a file).
 * Returns 0, or -1 with err when a variable of the chosen launcher is not a
 * whole number >= 0 (or the rank is not below the world size). */
int launcher_detect(const char *const *env, const char *hostname, struct launcher_place *out, char *err,
		    size_t err_len);

const char *launcher_name(enum launcher_kind kind);

/* The device this rank measures. requested >= 0 (--device) is taken as is.
 * Otherwise, under a launcher: with one device visible (each rank given its
 * own GPU: srun --gpus-per-task, CUDA_VISIBLE_DEVICES per rank) device 0;
 * else the local rank, which must be below device_count. Without a
 * launcher: 0. Returns the device, or -1 with err. */
int launcher_device(const struct launcher_place *p, int requested, int device_count, char *err, size_t err_len);

/* The GPU's index on its host, for the file name: the device's entry in
 * CUDA_VISIBLE_DEVICES (ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES for
 * hip) when that entry is a number, else the local rank under a launcher
 * with one device visible per rank, else the device itself. */
int launcher_gpu_index(const char *const *env, bool hip, const struct launcher_place *p, int device, int device_count);

/* DIR/<host>-gpu<N>.json into buf; -1 when it does not fit. */
int launcher_result_path(const char *dir, const char *host, int gpu_index, const char *ext, char *buf, size_t len);

/* Claims path for this rank: creates it empty with O_CREAT | O_EXCL, so that
 * two ranks (a launch that put two on one GPU, or a directory reused) never
 * write one file: the second gets EEXIST and says so. The result is
 * written later, atomically, over the claim (atomic_file_write: temporary
 * and rename); launcher_release removes a claim that no result filled.
 * Returns 0, or -1 with err. */
int launcher_claim(const char *path, char *err, size_t err_len);
void launcher_release(const char *path);

/* --barrier-file PATH: this rank makes the directory PATH (on a shared file
 * system; made once, by whichever rank comes first), writes PATH/rank-<R> and waits until
 * world_size ranks have (the directory listed every poll_s seconds), or
 * until timeout_s. Returns the ranks seen, world_size when all came; fewer
 * on timeout (the probe then starts unaligned, saying so); -1 with err when
 * the directory cannot be made or written, or the world size is unknown. */
int launcher_barrier(const char *path, const struct launcher_place *p, double timeout_s, double poll_s, char *err,
		     size_t err_len);

/* The "placement" object of a result: launcher, rank, local_rank,
 * node_rank, world_size (null when not known), host, device, gpu_index,
 * uuid ("" when NVML gave none), and the barrier's outcome. */
cJSON *launcher_placement_json(const struct launcher_place *p, int device, int gpu_index, const char *uuid,
			       int barrier_ranks, double barrier_wait_s);

#endif
