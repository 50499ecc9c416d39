/* probe/launcher.c: ridge-probe's rank, device, file name, claim and start
 * barrier under srun, mpirun (Open MPI), mpiexec (PMI) and torchrun, from
 * the environments each launcher sets: no GPU, no launcher needed. */
#include "test_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../probe/launcher.h"

struct env_case {
	const char *name;
	const char *env[12];
	enum launcher_kind kind;
	int rank, local_rank, node_rank, world_size;
};

/* What each launcher sets for the 11th process of 16, the 4th on the second
 * host (8 a host), and the mixes seen in practice. */
static const struct env_case env_cases[] = {
	{ "nothing", { "HOME=/root", NULL }, LAUNCHER_NONE, -1, -1, -1, -1 },
	{ "srun -N 2 --ntasks-per-node 8",
	  { "SLURM_PROCID=11", "SLURM_LOCALID=3", "SLURM_NODEID=1", "SLURM_NTASKS=16", "SLURM_JOB_ID=42", NULL },
	  LAUNCHER_SLURM,
	  11,
	  3,
	  1,
	  16 },
	{ "mpirun (Open MPI)",
	  { "OMPI_COMM_WORLD_RANK=11", "OMPI_COMM_WORLD_LOCAL_RANK=3", "OMPI_COMM_WORLD_SIZE=16", NULL },
	  LAUNCHER_OPENMPI,
	  11,
	  3,
	  -1,
	  16 },
	{ "mpiexec (MPICH Hydra)",
	  { "PMI_RANK=11", "PMI_SIZE=16", "MPI_LOCALRANKID=3", NULL },
	  LAUNCHER_PMI,
	  11,
	  3,
	  -1,
	  16 },
	{ "PMI with PMI_LOCAL_RANK (Cray)",
	  { "PMI_RANK=11", "PMI_SIZE=16", "PMI_LOCAL_RANK=3", NULL },
	  LAUNCHER_PMI,
	  11,
	  3,
	  -1,
	  16 },
	{ "torchrun --nnodes 2 --nproc_per_node 8",
	  { "RANK=11", "LOCAL_RANK=3", "GROUP_RANK=1", "WORLD_SIZE=16", "LOCAL_WORLD_SIZE=8", "TORCHELASTIC_RUN_ID=x",
	    NULL },
	  LAUNCHER_TORCHRUN,
	  11,
	  3,
	  1,
	  16 },
	{ "torchrun --nproc_per_node=1",
	  { "RANK=0", "LOCAL_RANK=0", "GROUP_RANK=0", "WORLD_SIZE=1", NULL },
	  LAUNCHER_TORCHRUN,
	  0,
	  0,
	  0,
	  1 },
	/* mpirun inside an sbatch allocation: the batch step's SLURM_PROCID=0 is
	 * not this process's rank; Open MPI's is. */
	{ "mpirun inside sbatch",
	  { "SLURM_PROCID=0", "SLURM_LOCALID=0", "SLURM_NODEID=0", "SLURM_NTASKS=1", "OMPI_COMM_WORLD_RANK=11",
	    "OMPI_COMM_WORLD_LOCAL_RANK=3", "OMPI_COMM_WORLD_SIZE=16", NULL },
	  LAUNCHER_OPENMPI,
	  11,
	  3,
	  -1,
	  16 },
	/* srun --mpi=pmi2 sets PMI_RANK without a local rank: Slurm's fills it. */
	{ "srun --mpi=pmi2",
	  { "PMI_RANK=11", "PMI_SIZE=16", "SLURM_PROCID=11", "SLURM_LOCALID=3", "SLURM_NODEID=1", NULL },
	  LAUNCHER_PMI,
	  11,
	  3,
	  1,
	  16 },
	/* RANK alone (no LOCAL_RANK) is some script's variable, not torchrun's. */
	{ "RANK alone", { "RANK=5", "WORLD_SIZE=8", NULL }, LAUNCHER_NONE, -1, -1, -1, -1 },
};

static void test_detect_each_launcher(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof env_cases / sizeof env_cases[0]; i++) {
		const struct env_case *c = &env_cases[i];
		struct launcher_place p;
		char err[300] = "";
		if (launcher_detect(c->env, "gpu-node-07.cluster.example", &p, err, sizeof err) != 0)
			fail_msg("%s: %s", c->name, err);
		if (p.kind != c->kind || p.rank != c->rank || p.local_rank != c->local_rank ||
		    p.node_rank != c->node_rank || p.world_size != c->world_size)
			fail_msg("%s: got %s rank %d local %d node %d size %d", c->name, launcher_name(p.kind), p.rank,
				 p.local_rank, p.node_rank, p.world_size);
		assert_string_equal(p.host, "gpu-node-07");
	}
}

static void test_detect_refuses(void **state)
{
	(void)state;
	static const struct {
		const char *env[6];
		const char *message;
	} cases[] = {
		{ { "SLURM_PROCID=x1", NULL }, "SLURM_PROCID='x1' is not a whole number >= 0" },
		{ { "SLURM_PROCID=-1", NULL }, "SLURM_PROCID='-1' is not a whole number >= 0" },
		{ { "SLURM_PROCID=3", "SLURM_LOCALID=", NULL }, "SLURM_LOCALID='' is not a whole number >= 0" },
		{ { "OMPI_COMM_WORLD_RANK=16", "OMPI_COMM_WORLD_SIZE=16", NULL },
		  "OMPI_COMM_WORLD_RANK=16 is not below OMPI_COMM_WORLD_SIZE=16" },
		{ { "RANK=1", "LOCAL_RANK=99999999999", NULL }, "LOCAL_RANK='99999999999' is not a whole number >= 0" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct launcher_place p;
		char err[300] = "";
		assert_int_equal(launcher_detect(cases[i].env, "h", &p, err, sizeof err), -1);
		assert_string_equal(err, cases[i].message);
	}
}

static void test_host_names(void **state)
{
	(void)state;
	static const struct {
		const char *hostname, *host;
	} cases[] = {
		{ "node001", "node001" },   { "node001.cluster", "node001" },
		{ "a b/c", "a_b_c" },       { "", "localhost" },
		{ NULL, "localhost" },      { "../../etc", "localhost" },
		{ "x;rm -rf", "x_rm_-rf" },
	};
	const char *env[] = { NULL };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct launcher_place p;
		char err[100];
		assert_int_equal(launcher_detect(env, cases[i].hostname, &p, err, sizeof err), 0);
		assert_string_equal(p.host, cases[i].host);
	}
}

static void test_device_choice(void **state)
{
	(void)state;
	struct launcher_place none = { .kind = LAUNCHER_NONE, .rank = -1, .local_rank = -1 };
	struct launcher_place slurm = { .kind = LAUNCHER_SLURM, .rank = 11, .local_rank = 3, .world_size = 16 };
	struct launcher_place pmi = { .kind = LAUNCHER_PMI, .rank = 11, .local_rank = -1, .world_size = 16 };
	char err[300] = "";
	assert_int_equal(launcher_device(&none, -1, 8, err, sizeof err), 0);
	assert_int_equal(launcher_device(&none, 5, 8, err, sizeof err), 5);
	assert_int_equal(launcher_device(&slurm, -1, 8, err, sizeof err), 3); /* all 8 visible: the local rank */
	assert_int_equal(launcher_device(&slurm, -1, 1, err, sizeof err), 0); /* one GPU per rank */
	assert_int_equal(launcher_device(&slurm, 6, 8, err, sizeof err), 6);  /* --device wins */
	assert_int_equal(launcher_device(&slurm, -1, 2, err, sizeof err), -1);
	assert_string_equal(err, "local rank 3 but 2 GPUs visible: more ranks on this host than GPUs (two ranks "
				 "would share one)");
	assert_int_equal(launcher_device(&pmi, -1, 8, err, sizeof err), -1);
	assert_non_null(strstr(err, "pmi started this rank without a local rank, and 8 GPUs are visible"));
	assert_int_equal(launcher_device(&pmi, -1, 1, err, sizeof err), 0);
}

static void test_gpu_index(void **state)
{
	(void)state;
	struct launcher_place slurm = { .kind = LAUNCHER_SLURM, .rank = 11, .local_rank = 3, .world_size = 16 };
	struct launcher_place none = { .kind = LAUNCHER_NONE, .rank = -1, .local_rank = -1 };
	const char *all[] = { NULL };
	const char *one_each[] = { "CUDA_VISIBLE_DEVICES=3", NULL };
	const char *listed[] = { "CUDA_VISIBLE_DEVICES=4,5,6,7", NULL };
	const char *uuids[] = { "CUDA_VISIBLE_DEVICES=GPU-8a1c,GPU-77f0", NULL };
	const char *rocr[] = { "ROCR_VISIBLE_DEVICES=2,6", "CUDA_VISIBLE_DEVICES=0", NULL };
	const char *hip[] = { "HIP_VISIBLE_DEVICES=1", NULL };
	assert_int_equal(launcher_gpu_index(all, false, &slurm, 3, 8), 3);
	assert_int_equal(launcher_gpu_index(one_each, false, &slurm, 0, 1), 3);
	assert_int_equal(launcher_gpu_index(listed, false, &none, 2, 4), 6);
	assert_int_equal(launcher_gpu_index(uuids, false, &slurm, 0, 2), 0); /* not numbers: the device */
	assert_int_equal(launcher_gpu_index(uuids, false, &slurm, 0, 1), 3); /* one each: the local rank */
	assert_int_equal(launcher_gpu_index(rocr, true, &none, 1, 2), 6);
	assert_int_equal(launcher_gpu_index(rocr, false, &none, 0, 1), 0);
	assert_int_equal(launcher_gpu_index(hip, true, &none, 0, 1), 1);
	assert_int_equal(launcher_gpu_index(listed, false, &none, 9, 4), 9); /* past the list: the device */
}

static void temp_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/ridge-launcher-XXXXXX");
	assert_non_null(mkdtemp(buf));
}

static void test_result_path_and_claim(void **state)
{
	(void)state;
	char dir[64], path[4096], err[600];
	temp_dir(dir, sizeof dir);
	assert_int_equal(launcher_result_path(dir, "node007", 3, "json", path, sizeof path), 0);
	char expected[128];
	snprintf(expected, sizeof expected, "%s/node007-gpu3.json", dir);
	assert_string_equal(path, expected);
	char tiny[8];
	assert_int_equal(launcher_result_path(dir, "node007", 3, "json", tiny, sizeof tiny), -1);
	assert_int_equal(launcher_claim(path, err, sizeof err), 0);
	/* The second rank on this GPU is refused, and the first claim stays. */
	assert_int_equal(launcher_claim(path, err, sizeof err), -1);
	assert_non_null(strstr(err, "exists: another rank measures this GPU"));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	/* A claim filled with a result is kept by release; an empty one goes. */
	FILE *f = fopen(path, "w");
	fputs("{}\n", f);
	fclose(f);
	launcher_release(path);
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	assert_int_equal(launcher_claim(path, err, sizeof err), 0);
	launcher_release(path);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof path, "%s/no-such-dir/x.json", dir);
	assert_int_equal(launcher_claim(path, err, sizeof err), -1);
	assert_non_null(strstr(err, "No such file or directory"));
	rmdir(dir);
}

/* Many processes claiming one name at once: exactly one wins. */
static void test_claim_race(void **state)
{
	(void)state;
	char dir[64], path[128];
	temp_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/h-gpu0.json", dir);
	enum { RACERS = 16 };
	pid_t pids[RACERS];
	for (int i = 0; i < RACERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char err[600];
			_exit(launcher_claim(path, err, sizeof err) == 0 ? 0 : 1);
		}
	}
	int winners = 0;
	for (int i = 0; i < RACERS; i++) {
		int status;
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		winners += WEXITSTATUS(status) == 0;
	}
	assert_int_equal(winners, 1);
	unlink(path);
	rmdir(dir);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void remove_barrier(const char *path, int ranks)
{
	char f[256];
	for (int r = 0; r < ranks; r++) {
		snprintf(f, sizeof f, "%s/rank-%d", path, r);
		unlink(f);
	}
	rmdir(path);
}

/* Three ranks arriving 0, 0.2 and 0.4 s apart all leave after the last came. */
static void test_barrier_aligns(void **state)
{
	(void)state;
	char dir[64], path[128];
	temp_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/start", dir);
	enum { RANKS = 3 };
	int pipes[RANKS][2];
	pid_t pids[RANKS];
	double start = now_s();
	for (int r = 0; r < RANKS; r++) {
		assert_int_equal(pipe(pipes[r]), 0);
		pids[r] = fork();
		assert_true(pids[r] >= 0);
		if (pids[r] == 0) {
			struct timespec nap = { 0, 200000000L * r };
			nanosleep(&nap, NULL);
			struct launcher_place p = {
				.kind = LAUNCHER_SLURM, .rank = r, .local_rank = r, .world_size = RANKS
			};
			char err[600];
			int seen = launcher_barrier(path, &p, 10, 0.02, err, sizeof err);
			double left = now_s();
			if (write(pipes[r][1], &left, sizeof left) != sizeof left)
				_exit(3);
			_exit(seen == RANKS ? 0 : 1);
		}
	}
	double left[RANKS];
	for (int r = 0; r < RANKS; r++) {
		int status;
		assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_int_equal(read(pipes[r][0], &left[r], sizeof left[r]), (int)sizeof left[r]);
		close(pipes[r][0]);
		close(pipes[r][1]);
	}
	for (int r = 0; r < RANKS; r++) {
		assert_true(left[r] - start >= 0.39); /* none left before the last arrived */
		assert_true(left[r] - start < 5);
	}
	remove_barrier(path, RANKS);
	rmdir(dir);
}

/* One rank of two: it waits for the timeout, then reports the one it saw. */
static void test_barrier_times_out(void **state)
{
	(void)state;
	char dir[64], path[128], err[600] = "";
	temp_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/start", dir);
	struct launcher_place p = { .kind = LAUNCHER_TORCHRUN, .rank = 1, .local_rank = 1, .world_size = 2 };
	double start = now_s();
	assert_int_equal(launcher_barrier(path, &p, 0.3, 0.05, err, sizeof err), 1);
	double waited = now_s() - start;
	assert_true(waited >= 0.3 && waited < 3);
	struct stat st;
	char mine[160];
	snprintf(mine, sizeof mine, "%s/rank-1", path);
	assert_int_equal(stat(mine, &st), 0);
	/* No world size: no barrier. */
	struct launcher_place none = { .kind = LAUNCHER_NONE, .rank = -1, .world_size = -1 };
	assert_int_equal(launcher_barrier(path, &none, 1, 0.05, err, sizeof err), -1);
	assert_string_equal(err, "--barrier-file needs a launcher that gives the rank and the world size");
	/* A barrier under a file is an error, not a wait. */
	snprintf(mine, sizeof mine, "%s/rank-1/sub", path);
	assert_int_equal(launcher_barrier(mine, &p, 1, 0.05, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot make the barrier directory"));
	remove_barrier(path, 2);
	rmdir(dir);
}

static void test_placement_json(void **state)
{
	(void)state;
	struct launcher_place p = {
		.kind = LAUNCHER_SLURM, .rank = 11, .local_rank = 3, .node_rank = 1, .world_size = 16
	};
	snprintf(p.host, sizeof p.host, "node007");
	cJSON *o = launcher_placement_json(&p, 3, 3, "GPU-5d6e", 16, 1.25);
	char *text = cJSON_PrintUnformatted(o);
	assert_string_equal(text,
			    "{\"launcher\":\"slurm\",\"rank\":11,\"local_rank\":3,\"node_rank\":1,\"world_size\":16,"
			    "\"host\":\"node007\",\"device\":3,\"gpu_index\":3,\"uuid\":\"GPU-5d6e\","
			    "\"barrier\":{\"ranks_seen\":16,\"aligned\":true,\"wait_s\":1.25}}");
	free(text);
	cJSON_Delete(o);
	struct launcher_place none = {
		.kind = LAUNCHER_NONE, .rank = -1, .local_rank = -1, .node_rank = -1, .world_size = -1
	};
	snprintf(none.host, sizeof none.host, "h");
	o = launcher_placement_json(&none, 0, 0, NULL, -1, 0);
	text = cJSON_PrintUnformatted(o);
	assert_string_equal(text, "{\"launcher\":\"none\",\"rank\":null,\"local_rank\":null,\"node_rank\":null,"
				  "\"world_size\":null,\"host\":\"h\",\"device\":0,\"gpu_index\":0,\"uuid\":\"\"}");
	free(text);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_each_launcher),
		cmocka_unit_test(test_detect_refuses),
		cmocka_unit_test(test_host_names),
		cmocka_unit_test(test_device_choice),
		cmocka_unit_test(test_gpu_index),
		cmocka_unit_test(test_result_path_and_claim),
		cmocka_unit_test(test_claim_race),
		cmocka_unit_test(test_barrier_aligns),
		cmocka_unit_test(test_barrier_times_out),
		cmocka_unit_test(test_placement_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
