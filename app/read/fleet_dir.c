/* ridge fleet's directory (fleet_read.h): every result of it, read by as
 * many threads as there are cores, then merged in file order so that the
 * run is the one a single reader would make: the same rows, the metrics
 * registered in the same order, the same refusals.
 *
 * The readers share nothing but cJSON, whose parse is safe across threads
 * as long as cJSON_GetErrorPtr is not used (ridge reads the parse end it
 * returns instead), cJSON_InitHooks is not called and no thread calls
 * setlocale meanwhile (cJSON's README, "Thread Safety"). Its one shared
 * write, the unused error position (global_error), is what helgrind
 * reports (cJSON issue #314); valgrind's helgrind reports nothing else
 * here, and memcheck nothing at all (2026-12-06, 128 results). */
#include "fleet_read.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "read_limits.h"

#define FLEET_MAX_READERS 8

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_result_name(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".json") == 0;
}

static void free_names(char **names, int count)
{
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/* The *.json names of dir, sorted. Returns the count, or -1 with st set. */
static int list_results(const char *dir, char ***names_out, struct app_status *st)
{
	*names_out = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		app_error(st, "cannot read the directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	int count = 0, capacity = 0;
	bool failed = false;
	struct dirent *e;
	while (!failed && (e = readdir(d)) != NULL) {
		if (!is_result_name(e->d_name))
			continue;
		if (count == READ_MAX_FLEET_FILES) {
			app_error(st, "'%s' holds more than %d result files", dir, READ_MAX_FLEET_FILES);
			failed = true;
		} else if (count == capacity) {
			capacity = capacity ? 2 * capacity : 256;
			char **grown = realloc(names, (size_t)capacity * sizeof *names);
			failed = !grown;
			names = grown ? grown : names;
		}
		if (!failed && !(names[count] = strdup(e->d_name)))
			failed = true;
		if (!failed)
			count++;
		else if (!app_status_failed(st))
			app_error(st, "out of memory listing '%s'", dir);
	}
	closedir(d);
	if (failed) {
		free_names(names, count);
		return -1;
	}
	if (count)
		qsort(names, (size_t)count, sizeof *names, compare_names);
	*names_out = names;
	return count;
}

static int add_bad(struct fleet_run *run, const char *file, const char *why, char *fatal, size_t fatal_len)
{
	if (run->bad_count == run->bad_capacity) {
		int capacity = run->bad_capacity ? 2 * run->bad_capacity : 16;
		struct fleet_bad_file *grown = realloc(run->bad, (size_t)capacity * sizeof *grown);
		if (!grown)
			return app_fail_text(fatal, fatal_len, "out of memory");
		run->bad = grown;
		run->bad_capacity = capacity;
	}
	struct fleet_bad_file *b = &run->bad[run->bad_count++];
	snprintf(b->file, sizeof b->file, "%s", file);
	snprintf(b->why, sizeof b->why, "%s", why);
	return 0;
}

static int grow_rows(struct fleet_run *run, int need, char *fatal, size_t fatal_len)
{
	if (need <= run->capacity)
		return 0;
	int capacity = run->capacity ? 2 * run->capacity : 64;
	capacity = capacity < need ? need : capacity;
	struct fleet_gpu *grown = realloc(run->gpus, (size_t)capacity * sizeof *grown);
	if (!grown)
		return app_fail_text(fatal, fatal_len, "out of memory");
	run->gpus = grown;
	run->capacity = capacity;
	return 0;
}

/* Reads file index of the directory into the next row of run (its own
 * metric registry); a file that is no result goes to run->bad. Returns -1
 * only when memory runs out (fatal says so). */
static int read_one(struct fleet_run *run, const char *name, int index, char *fatal, size_t fatal_len)
{
	char path[4096 + FLEET_FILE], why[400];
	snprintf(path, sizeof path, "%s/%s", run->dir, name);
	if (strlen(name) >= FLEET_FILE)
		return add_bad(run, name, "the file name is too long", fatal, fatal_len);
	char *text;
	size_t len;
	int e;
	const char *type;
	switch (hwdb_read_file(path, READ_MAX_FLEET_RESULT_BYTES, &text, &len, &e, &type)) {
	case HWDB_READ_OK:
		break;
	case HWDB_READ_OPEN:
	case HWDB_READ_IO:
		snprintf(why, sizeof why, "cannot read it: %s", strerror(e));
		return add_bad(run, name, why, fatal, fatal_len);
	case HWDB_READ_NOT_REGULAR:
		snprintf(why, sizeof why, "%s, not a regular file", type);
		return add_bad(run, name, why, fatal, fatal_len);
	case HWDB_READ_TOO_BIG:
		snprintf(why, sizeof why, "larger than %u bytes: not a ridge-probe result",
			 READ_MAX_FLEET_RESULT_BYTES);
		return add_bad(run, name, why, fatal, fatal_len);
	case HWDB_READ_NOMEM:
		return app_fail_text(fatal, fatal_len, "out of memory reading '%s'", path);
	}
	if (grow_rows(run, run->count + 1, fatal, fatal_len) != 0) {
		free(text);
		return -1;
	}
	struct fleet_gpu *gpu = &run->gpus[run->count];
	int rc = len == 0 ? app_fail_text(why, sizeof why, "empty (a rank that claimed it did not finish?)")
			  : fleet_result_parse(text, len, name, run, gpu, why, sizeof why);
	free(text);
	if (rc != 0)
		return add_bad(run, name, why, fatal, fatal_len);
	gpu->file_index = index;
	run->count++;
	return 0;
}

struct reader {
	pthread_t thread;
	struct fleet_run local; /* its rows, its registry, its refusals */
	char *const *names;
	int count, first, step; /* files first, first + step, ... below count */
	int next;               /* the merge: the next row to take */
	int failed;
	char fatal[400];
};

static void *read_files(void *arg)
{
	struct reader *r = arg;
	for (int i = r->first; i < r->count && !r->failed; i += r->step)
		r->failed = read_one(&r->local, r->names[i], i, r->fatal, sizeof r->fatal) != 0;
	return NULL;
}

/* One reader's row into run, its metrics found or registered in run in the
 * order the file gave them (what one reader would have done); a unit that
 * disagrees with the files before refuses the file, as one reader would. */
static int merge_row(struct fleet_run *run, const struct fleet_run *local, const struct fleet_gpu *row, char *fatal,
		     size_t fatal_len)
{
	struct fleet_gpu *gpu = &run->gpus[run->count];
	*gpu = *row;
	for (int m = 0; m < FLEET_MAX_METRICS; m++)
		gpu->value[m] = gpu->spec[m] = NAN;
	char why[400];
	for (int k = 0; k < row->metric_order_count; k++) {
		const struct fleet_metric *lm = &local->metrics[row->metric_order[k]];
		int g = fleet_metric_register(run, lm->name, lm->unit, lm->direction, why, sizeof why);
		if (g < 0)
			return add_bad(run, row->file, why, fatal, fatal_len);
		gpu->value[g] = row->value[row->metric_order[k]];
		gpu->spec[g] = row->spec[row->metric_order[k]];
		gpu->metric_order[k] = (unsigned char)g;
	}
	run->count++;
	return 0;
}

static int merge_readers(struct fleet_run *run, struct reader *readers, int n, char *fatal, size_t fatal_len)
{
	int rows = 0;
	for (int i = 0; i < n; i++)
		rows += readers[i].local.count;
	if (grow_rows(run, rows, fatal, fatal_len) != 0)
		return -1;
	for (;;) {
		struct reader *pick = NULL;
		for (int i = 0; i < n; i++) {
			struct reader *r = &readers[i];
			if (r->next < r->local.count &&
			    (!pick || r->local.gpus[r->next].file_index < pick->local.gpus[pick->next].file_index))
				pick = r;
		}
		if (!pick)
			break;
		if (merge_row(run, &pick->local, &pick->local.gpus[pick->next++], fatal, fatal_len) != 0)
			return -1;
	}
	for (int i = 0; i < n; i++)
		for (int b = 0; b < readers[i].local.bad_count; b++)
			if (add_bad(run, readers[i].local.bad[b].file, readers[i].local.bad[b].why, fatal, fatal_len) !=
			    0)
				return -1;
	return 0;
}

static int reader_count(int files)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cores < 1 ? 1 : cores > FLEET_MAX_READERS ? FLEET_MAX_READERS : (int)cores;
	int by_files = files / 64 + 1; /* a thread is not worth it for a few files */
	return n < by_files ? n : by_files;
}

/* Reads the count files of names into run, on reader_count() threads. */
static int read_all(struct fleet_run *run, char *const *names, int count, struct app_status *st)
{
	struct reader readers[FLEET_MAX_READERS];
	int n = reader_count(count), started = 0;
	memset(readers, 0, sizeof readers);
	for (int i = 0; i < n; i++) {
		readers[i].local.dir = run->dir;
		readers[i].names = names;
		readers[i].count = count;
		readers[i].first = i;
		readers[i].step = n;
	}
	/* The first reader is this thread; the share of a thread that cannot
	 * start is read here too, after its own. */
	for (int i = 1; i < n; i++) {
		if (pthread_create(&readers[i].thread, NULL, read_files, &readers[i]) != 0)
			break;
		started = i;
	}
	for (int i = 0; i < n; i++)
		if (i == 0 || i > started)
			read_files(&readers[i]);
	for (int i = 1; i <= started; i++)
		pthread_join(readers[i].thread, NULL);
	char fatal[400] = "";
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		if (readers[i].failed) {
			snprintf(fatal, sizeof fatal, "%s", readers[i].fatal);
			rc = -1;
		}
	if (rc == 0)
		rc = merge_readers(run, readers, n, fatal, sizeof fatal);
	for (int i = 0; i < n; i++)
		fleet_run_free(&readers[i].local);
	if (rc != 0)
		app_error(st, "%s", fatal);
	return rc;
}

/* The GPU a result claims: its UUID, else its host and index. */
static void gpu_key(const struct fleet_gpu *g, char *buf, size_t len)
{
	if (g->uuid[0])
		snprintf(buf, len, "uuid %s", g->uuid);
	else if (g->gpu_index >= 0)
		snprintf(buf, len, "host %s gpu %d", g->host, g->gpu_index);
	else
		snprintf(buf, len, "file %s", g->file);
}

#define GPU_KEY 200

/* Orders indices by their GPU's key (keys: GPU_KEY bytes per GPU). */
static int compare_keys(const void *a, const void *b, void *keys)
{
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp((const char *)keys + (size_t)x * GPU_KEY, (const char *)keys + (size_t)y * GPU_KEY);
	return c ? c : x - y;
}

/* Two results claiming one GPU: both are refused (which one is right cannot
 * be told), each naming the other. */
static int refuse_duplicates(struct fleet_run *run, struct app_status *st)
{
	if (run->count < 2)
		return 0;
	int *order = malloc((size_t)run->count * sizeof *order);
	bool *twice = calloc((size_t)run->count, sizeof *twice);
	char *keys = malloc((size_t)run->count * GPU_KEY);
	if (!order || !twice || !keys) {
		free(order);
		free(twice);
		free(keys);
		app_error(st, "out of memory");
		return -1;
	}
	for (int i = 0; i < run->count; i++) {
		order[i] = i;
		gpu_key(&run->gpus[i], keys + (size_t)i * GPU_KEY, GPU_KEY);
	}
	qsort_r(order, (size_t)run->count, sizeof *order, compare_keys, keys);
	int rc = 0;
	char fatal[400] = "";
	for (int i = 1; i < run->count && rc == 0; i++) {
		const char *ka = keys + (size_t)order[i - 1] * GPU_KEY, *kb = keys + (size_t)order[i] * GPU_KEY;
		char why[400];
		if (strcmp(ka, kb) != 0)
			continue;
		const struct fleet_gpu *a = &run->gpus[order[i - 1]], *b = &run->gpus[order[i]];
		snprintf(why, sizeof why, "claims the GPU (%s) that '%s' claims too", kb, b->file);
		rc = twice[order[i - 1]] ? 0 : add_bad(run, a->file, why, fatal, sizeof fatal);
		snprintf(why, sizeof why, "claims the GPU (%s) that '%s' claims too", ka, a->file);
		if (rc == 0)
			rc = add_bad(run, b->file, why, fatal, sizeof fatal);
		twice[order[i - 1]] = twice[order[i]] = true;
	}
	int kept = 0;
	for (int i = 0; i < run->count; i++)
		if (!twice[i])
			run->gpus[kept++] = run->gpus[i];
	run->count = kept;
	free(order);
	free(twice);
	free(keys);
	if (rc != 0)
		app_error(st, "%s", fatal);
	return rc;
}

static int compare_bad(const void *a, const void *b)
{
	return strcmp(((const struct fleet_bad_file *)a)->file, ((const struct fleet_bad_file *)b)->file);
}

int fleet_run_read(const char *dir, struct fleet_run *run, struct app_status *st)
{
	memset(run, 0, sizeof *run);
	run->dir = dir;
	char **names;
	int count = list_results(dir, &names, st);
	if (count < 0)
		return -1;
	run->files = count;
	int rc = read_all(run, names, count, st);
	free_names(names, count);
	if (rc == 0)
		rc = refuse_duplicates(run, st);
	if (run->bad_count > 1)
		qsort(run->bad, (size_t)run->bad_count, sizeof *run->bad, compare_bad);
	return rc;
}

void fleet_run_free(struct fleet_run *run)
{
	free(run->gpus);
	free(run->bad);
	run->gpus = NULL;
	run->bad = NULL;
	run->count = run->bad_count = 0;
}
