/* The views of `ridge hw`: the list of GPUs, one entry in full, and the
 * checks of `hw check` (their human text and JSON documents). The human
 * printers write on the stream they are given; errors go into a struct app_status. */
#include "hw_view.h"

#include "schema.h"
#include "calc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double default_peak(const struct ridge_gpu *g, enum ridge_dtype d)
{
	double rate = 0;
	ridge_gpu_peak(g, d, RIDGE_PEAK_DEFAULT, false, &rate, NULL);
	return rate;
}

cJSON *hw_list_json(const struct app_hw *hw)
{
	cJSON *array = cJSON_CreateArray();
	for (int i = 0; i < hw->db.count; i++) {
		const struct ridge_gpu *g = &hw->db.entries[i].gpu;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", g->id);
		cJSON_AddStringToObject(o, "name", g->name);
		cJSON_AddStringToObject(o, "vendor", g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia");
		cJSON_AddStringToObject(o, "arch", g->arch);
		cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
		json_number(o, "memory_bandwidth", g->memory_bandwidth);
		if (default_peak(g, RIDGE_BF16) > 0)
			json_number(o, "bf16_flops", default_peak(g, RIDGE_BF16));
		cJSON_AddStringToObject(o, "origin", hw->db.entries[i].origin);
		cJSON_AddItemToArray(array, o);
	}
	return array;
}

void hw_list_print(FILE *out, const struct app_hw *hw)
{
	fprintf(out, "%-16s %-28s %-7s %-10s %5s %10s %10s %9s\n", "ID", "NAME", "VENDOR", "ARCH", "SMs", "BF16 TF/s",
		"FP32 TF/s", "HBM TB/s");
	for (int i = 0; i < hw->db.count; i++) {
		const struct ridge_gpu *g = &hw->db.entries[i].gpu;
		double fp32 = 0, bf16 = default_peak(g, RIDGE_BF16);
		ridge_gpu_peak(g, RIDGE_FP32, RIDGE_PEAK_VECTOR, false, &fp32, NULL);
		char bf16_text[16] = "-";
		if (bf16 > 0)
			snprintf(bf16_text, sizeof bf16_text, "%.1f", bf16 / 1e12);
		fprintf(out, "%-16s %-28.28s %-7s %-10s %5d %10s %10.1f %9.3g%s\n", g->id, g->name,
			g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia", g->arch, g->sm_count, bf16_text, fp32 / 1e12,
			g->memory_bandwidth / 1e12, g->measured ? "  (measured)" : "");
	}
	fprintf(out, "%d GPUs. Dense rates; 'ridge hw show ID' for the full entry and its sources.\n", hw->db.count);
}

/* The interconnect as the communication model prices it (model/comm.h). */
/* A line of the rates an entry has, "lead label rate<separator> label rate";
 * nothing when it has none of them. */
struct optional_rate {
	bool has;
	const char *label;
	double bytes_per_s;
};

static void print_optional_rates(FILE *out, const char *lead, const struct optional_rate *rates, int count,
				 const char *separator)
{
	const char *sep = NULL;
	for (int i = 0; i < count; i++) {
		if (!rates[i].has)
			continue;
		char rate[32];
		fmt_si(rates[i].bytes_per_s, "B/s", rate, sizeof rate);
		fprintf(out, "%s %s %s", sep ? sep : lead, rates[i].label, rate);
		sep = separator;
	}
	if (sep)
		fprintf(out, "\n");
}

static void print_fabric(FILE *out, const struct ridge_gpu *g)
{
	const struct ridge_interconnect *ic = &g->ic;
	char a[32], b[32], c[32], d[32], e[32];
	if (ic->has_fabric) {
		fmt_si(ic->per_direction, "B/s", a, sizeof a);
		fmt_si(ic->peer_bandwidth, "B/s", b, sizeof b);
		fmt_seconds(ic->latency, c, sizeof c);
		fmt_seconds(ic->base_latency, d, sizeof d);
		fmt_si(ic->pcie_bandwidth, "B/s", e, sizeof e);
		fprintf(out, "\nFabric  %s, %d GPUs: %s per direction per GPU", ic->topology_name, ic->domain_gpus, a);
		if (ic->links)
			fprintf(out, " (%d links)", ic->links);
		fprintf(out,
			", %s to one peer\n        NVLink SHARP %s; latency %s per step + %s per collective; PCIe %s%s%s per direction\n",
			b, ic->nvls ? "yes" : "no", c, d, ic->pcie, ic->pcie[0] ? " " : "", e);
		const struct optional_rate bus[] = { { ic->has_bus_bandwidth, "ring", ic->bus_bandwidth },
						     { ic->has_nvls_bus_bandwidth, "NVLS", ic->nvls_bus_bandwidth } };
		print_optional_rates(out, "        published bus bandwidth:", bus, 2, ",");
		if (ic->nics > 0 && ic->has_nic_bandwidth) {
			fmt_si(ic->nic_bandwidth, "B/s", a, sizeof a);
			fmt_si(comm_network_per_gpu(ic), "B/s", b, sizeof b);
			fprintf(out, "        network: %d NICs x %s per direction per %d-GPU domain, %s per GPU\n",
				ic->nics, a, ic->domain_gpus, b);
		}
	}
	const char *sep = "        measured:";
	for (int op = 0; op < RIDGE_COLLECTIVE_COUNT; op++) {
		const struct ridge_collective_measured *m = &ic->measured[op];
		if (!m->has_bus_bandwidth && !m->has_latency)
			continue;
		fprintf(out, "%s %s", sep, ridge_collective_name((enum ridge_collective)op));
		if (m->has_bus_bandwidth) {
			fmt_si(m->bus_bandwidth, "B/s", a, sizeof a);
			fprintf(out, " %s", a);
		}
		if (m->has_latency) {
			fmt_seconds(m->latency, a, sizeof a);
			fprintf(out, " + %s", a);
		}
		sep = ",";
	}
	if (sep[0] == ',')
		fprintf(out, " (on %d GPUs)\n", ic->measured_gpus);
}

/* The JSON is the schema table walked row by row (app_gpu_json). The text
 * starts as a page of sentences, each joining rows of several maps in its
 * own order and words ("Memory  80 GiB (79.6 GiB usable) HBM3 at 3.35 TB/s;
 * L2 50 MiB" takes memory.size, usable_size, type, bandwidth and cache.l2;
 * "SMs" or "CUs", "warps" or "waves" by vendor), with derived figures (the
 * ridge point) and tables (peak rates) between; hw_show_page_rows lists the
 * rows those sentences state, and every other row the entry holds is then
 * listed from the table ("Also in the entry:", path and value in its
 * unit), so a row added to the schema reaches the page without an edit
 * here (tests/unit/test_app_hw_view.c walks the table to check it). */
const char *const hw_show_page_rows[] = {
	"schema",
	"id",
	"name",
	"vendor",
	"arch",
	"compute_capability",
	"gfx_target",
	"aliases",
	"sm_count",
	"warp_size",
	"clocks.boost",
	"clocks.matrix_peak",
	"clocks.vector_peak",
	"peak_flops",
	"memory.size",
	"memory.usable_size",
	"memory.bandwidth",
	"memory.read_bandwidth",
	"memory.triad_bandwidth",
	"memory.copy_bandwidth",
	"memory.write_bandwidth",
	"memory.type",
	"cache.l2",
	"cache.infinity_cache",
	"cache.l2_bandwidth",
	"cache.smem_bandwidth",
	"shared_memory.per_sm",
	"shared_memory.per_block",
	"shared_memory.per_block_optin",
	"shared_memory.reserved_per_block",
	"registers.per_sm",
	"registers.per_block",
	"registers.per_thread_max",
	"limits.threads_per_sm",
	"limits.warps_per_sm",
	"limits.blocks_per_sm",
	"power.tdp",
	"interconnect.name",
	"interconnect.bandwidth",
	"interconnect.topology",
	"interconnect.links",
	"interconnect.per_direction",
	"interconnect.peer_bandwidth",
	"interconnect.domain_gpus",
	"interconnect.nvls",
	"interconnect.latency",
	"interconnect.base_latency",
	"interconnect.bus_bandwidth",
	"interconnect.nvls_bus_bandwidth",
	"interconnect.pcie",
	"interconnect.pcie_bandwidth",
	"interconnect.nics",
	"interconnect.nic_bandwidth",
	"interconnect.allreduce_bus_bandwidth",
	"interconnect.allreduce_latency",
	"interconnect.allgather_bus_bandwidth",
	"interconnect.allgather_latency",
	"interconnect.reducescatter_bus_bandwidth",
	"interconnect.reducescatter_latency",
	"interconnect.alltoall_bus_bandwidth",
	"interconnect.alltoall_latency",
	"interconnect.sendrecv_bus_bandwidth",
	"interconnect.sendrecv_latency",
	"interconnect.measured_gpus",
	"launch.overhead",
	"launch.graph_node",
	"price",
	"sources",
	"notes",
	"measured",
	NULL,
};

static bool on_page(const char *path)
{
	for (int i = 0; hw_show_page_rows[i]; i++)
		if (strcmp(hw_show_page_rows[i], path) == 0)
			return true;
	return false;
}

/* One number of a row in its unit's words ("256 B", "37.3 ms", "0.8706"):
 * bytes, seconds and dollars in their own formats, the rates in SI. */
static void row_number(enum ridge_unit unit, double v, char *buf, size_t len)
{
	static const char *const si_units[RIDGE_UNIT_KIND_COUNT] = {
		[RIDGE_UNIT_BYTES_PER_S] = "B/s", [RIDGE_UNIT_FLOP] = "FLOP", [RIDGE_UNIT_FLOPS] = "FLOP/s",
		[RIDGE_UNIT_HZ] = "Hz",           [RIDGE_UNIT_WATTS] = "W",
	};
	if (unit == RIDGE_UNIT_BYTES)
		fmt_bytes(v, buf, len);
	else if (unit == RIDGE_UNIT_SECONDS)
		fmt_seconds(v, buf, len);
	else if (unit == RIDGE_UNIT_USD)
		fmt_usd(v, buf, len);
	else if ((unsigned)unit < RIDGE_UNIT_KIND_COUNT && si_units[unit])
		fmt_si(v, si_units[unit], buf, len);
	else
		snprintf(buf, len, "%.6g", v);
}

/* A row's value as text: a list joined, a bool yes/no. */
static void row_text(const struct ridge_gpu *g, const struct hwdb_field *row, char *buf, size_t len)
{
	buf[0] = '\0';
	switch (row->type) {
	case HWDB_STR:
		snprintf(buf, len, "%s", hwdb_field_string(g, row));
		break;
	case HWDB_INT:
		snprintf(buf, len, "%d", hwdb_field_int(g, row));
		break;
	case HWDB_QTY:
		row_number(row->unit, hwdb_field_double(g, row), buf, len);
		break;
	case HWDB_BOOL:
		snprintf(buf, len, "%s", *(const bool *)hwdb_field_member(g, row->offset) ? "yes" : "no");
		break;
	case HWDB_STRLIST:
	case HWDB_QTYLIST: {
		const double *values = hwdb_field_member(g, row->offset);
		size_t used = 0;
		for (int i = 0; i < hwdb_field_count(g, row) && used < len; i++) {
			char item[64];
			if (row->type == HWDB_QTYLIST)
				row_number(row->unit, values[i], item, sizeof item);
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
						 row->type == HWDB_QTYLIST ? item : hwdb_field_item(g, row, i));
		}
		break;
	}
	default: /* maps are walked; vendor, cc, peaks, schema, measured are on the page */
		break;
	}
}

static void print_other_rows(FILE *out, const struct ridge_gpu *g, const struct hwdb_field *rows, const char *prefix,
			     bool *any)
{
	for (const struct hwdb_field *row = rows; row->key; row++) {
		char path[128];
		snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", row->key);
		if (row->type == HWDB_MAP) {
			print_other_rows(out, g, row->children, path, any);
			continue;
		}
		if (on_page(path) || !hwdb_field_present(g, row))
			continue;
		char text[1024];
		row_text(g, row, text, sizeof text);
		if (!*any)
			fprintf(out, "\n\nAlso in the entry:");
		*any = true;
		fprintf(out, "\n  %-44s %s", path, text);
	}
}

/* The page's head: name, id, vendor, architecture, origin, aliases, clocks. */
static void show_head(FILE *out, const struct hwdb_entry *e)
{
	const struct ridge_gpu *g = &e->gpu;
	fprintf(out, "%s (%s)  %s %s", g->name, g->id, g->vendor == RIDGE_VENDOR_AMD ? "AMD" : "NVIDIA", g->arch);
	if (g->vendor == RIDGE_VENDOR_AMD)
		fprintf(out, " %s\n", g->gfx_target);
	else
		fprintf(out, " sm_%d%d\n", g->cc_major, g->cc_minor);
	fprintf(out, "  from %s%s%s\n", e->origin, g->measured ? ", measured on " : "",
		g->measured ? g->measured_on : "");
	if (g->alias_count) {
		fprintf(out, "  aliases:");
		for (int i = 0; i < g->alias_count; i++)
			fprintf(out, "%s \"%s\"", i ? "," : "", g->aliases[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "\n%s %d, %s %d, boost %.0f MHz (matrix peaks at %.0f MHz, vector at %.0f MHz)\n",
		g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs", g->sm_count,
		g->vendor == RIDGE_VENDOR_AMD ? "wavefront" : "warp", g->warp_size, g->boost_clock_hz / 1e6,
		g->matrix_clock_hz / 1e6, g->vector_clock_hz / 1e6);
}

/* The peak rates by dtype: vector, matrix and sparse matrix. */
static void show_peaks(FILE *out, const struct ridge_gpu *g)
{
	fprintf(out, "\nPeak rates (dense unless marked)      vector     matrix    sparse\n");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		if (!p->has_vector && !p->has_matrix)
			continue;
		const char *unit = d == RIDGE_INT8 ? "OP/s" : "FLOP/s";
		fprintf(out, "  %-6s %-10s", ridge_dtype_name((enum ridge_dtype)d), unit);
		fprintf(out, "%*s", 20, "");
		if (p->has_vector)
			fprintf(out, "%9.1fT", p->vector / 1e12);
		else
			fprintf(out, "%10s", "-");
		if (p->has_matrix)
			fprintf(out, "%10.1fT", p->matrix / 1e12);
		else
			fprintf(out, "%11s", "-");
		if (p->has_matrix_sparse)
			fprintf(out, "%9.1fT", p->matrix_sparse / 1e12);
		else
			fprintf(out, "%10s", "-");
		fprintf(out, "\n");
	}
}

/* Memory: capacity, type, bandwidth (by read:write mix when known), the
 * caches and inner levels, the bf16 ridge point. */
static void show_memory(FILE *out, const struct ridge_gpu *g)
{
	char a[48], b[48], c[48];
	fmt_bytes(g->memory_bytes, a, sizeof a);
	fmt_si(g->memory_bandwidth, "B/s", b, sizeof b);
	fmt_bytes(g->l2_bytes, c, sizeof c);
	if (g->has_usable_memory) {
		char u[32];
		fmt_bytes(g->usable_memory_bytes, u, sizeof u);
		fprintf(out, "\nMemory  %s (%s usable) %s at %s; L2 %s", a, u, g->memory_type, b, c);
	} else {
		fprintf(out, "\nMemory  %s %s at %s; L2 %s", a, g->memory_type, b, c);
	}
	if (g->has_infinity_cache) {
		fmt_bytes(g->infinity_cache_bytes, a, sizeof a);
		fprintf(out, "; Infinity Cache %s", a);
	}
	fprintf(out, "\n");
	if (ridge_gpu_has_hbm_mix(g)) {
		struct ridge_hbm_mix mixes[RIDGE_HBM_MIXES];
		ridge_gpu_hbm_mixes(g, mixes);
		fprintf(out, "        by read:write mix:");
		const char *sep = " ";
		for (int i = 0; i < RIDGE_HBM_MIXES; i++)
			if (mixes[i].has) {
				fmt_si(mixes[i].bandwidth, "B/s", a, sizeof a);
				fprintf(out, "%s%s %s", sep, mixes[i].label, a);
				sep = ", ";
			}
		fprintf(out, "\n");
	}
	const struct optional_rate inner[] = { { g->has_l2_bandwidth, "L2", g->l2_bandwidth },
					       { g->has_smem_bandwidth, "shared memory", g->smem_bandwidth } };
	print_optional_rates(out, "        inner levels:", inner, 2, "");
	double bf16 = default_peak(g, RIDGE_BF16);
	if (bf16 > 0 && g->memory_bandwidth > 0)
		fprintf(out, "        ridge point (bf16 / HBM): %.1f FLOP/byte\n", bf16 / g->memory_bandwidth);
}

/* What one SM (CU) holds: shared memory, registers, threads, warps, blocks. */
static void show_per_sm(FILE *out, const struct ridge_gpu *g)
{
	char a[48], b[48], c[48];
	fmt_bytes(g->smem_per_sm, a, sizeof a);
	fmt_bytes(g->smem_per_block, b, sizeof b);
	fmt_bytes(g->smem_per_block_optin, c, sizeof c);
	fprintf(out, "\nPer %s  %s shared memory (%s per block, %s opt-in", g->vendor == RIDGE_VENDOR_AMD ? "CU" : "SM",
		a, b, c);
	if (g->nv.smem_reserved_per_block > 0) {
		fmt_bytes(g->nv.smem_reserved_per_block, a, sizeof a);
		fprintf(out, ", %s reserved per block", a);
	}
	fprintf(out, ")\n        %d registers (%d per block, %d per thread), %d threads, %d %s, %d blocks\n",
		g->regs_per_sm, g->regs_per_block, g->nv.max_regs_per_thread, g->max_threads_per_sm,
		g->max_warps_per_sm, g->vendor == RIDGE_VENDOR_AMD ? "waves" : "warps", g->max_blocks_per_sm);
}

/* The page: its sentences (hw_show_page_rows names the rows they state),
 * then every other row the entry holds, the sources and notes. */
void hw_show_print(FILE *out, const struct hwdb_entry *e)
{
	const struct ridge_gpu *g = &e->gpu;
	char a[48], b[48], c[48];
	show_head(out, e);
	show_peaks(out, g);
	show_memory(out, g);
	show_per_sm(out, g);
	fmt_seconds(g->launch_overhead_s, a, sizeof a);
	fmt_seconds(g->graph_node_s, b, sizeof b);
	fprintf(out, "\nTDP %.0f W", g->tdp_watts);
	if (g->interconnect[0]) {
		fmt_si(g->interconnect_bandwidth, "B/s", c, sizeof c);
		fprintf(out, "; %s %s", g->interconnect, c);
	}
	fprintf(out, "; launch %s, graph node %s", a, b);
	if (g->has_price)
		fprintf(out, "; $%.2f per GPU-hour", g->price_usd_per_hour);
	print_fabric(out, g);
	bool any = false;
	print_other_rows(out, g, hwdb_schema, "", &any);
	fprintf(out, "\n\nSources:\n");
	for (int i = 0; i < g->source_count; i++)
		fprintf(out, "  [%d] %s\n", i + 1, g->sources[i]);
	if (g->note_count) {
		fprintf(out, "Notes:\n");
		for (int i = 0; i < g->note_count; i++)
			fprintf(out, "  - %s\n", g->notes[i]);
	}
}

static void diags_to_json(cJSON *array, const struct hwdb_diags *diags)
{
	for (int i = 0; i < diags->count; i++) {
		const struct hwdb_diag *d = &diags->items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", d->file);
		cJSON_AddNumberToObject(o, "line", d->line);
		cJSON_AddNumberToObject(o, "column", d->column);
		cJSON_AddStringToObject(o, "message", d->message);
		cJSON_AddItemToArray(array, o);
	}
}

static void report_check(FILE *out, const char *file, const char *id, const struct hwdb_diags *diags, bool json,
			 cJSON *results)
{
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", file);
		if (id && *id)
			cJSON_AddStringToObject(o, "id", id);
		cJSON_AddBoolToObject(o, "ok", diags->count == 0);
		diags_to_json(cJSON_AddArrayToObject(o, "problems"), diags);
		cJSON_AddItemToArray(results, o);
		return;
	}
	if (diags->count == 0) {
		fprintf(out, "ok   %s (%s)\n", file, id);
		return;
	}
	char line[1024];
	fprintf(out, "BAD  %s\n", file);
	for (int i = 0; i < diags->count; i++) {
		hwdb_diag_format(&diags->items[i], line, sizeof line);
		fprintf(out, "     %s\n", line);
	}
	if (diags->dropped)
		fprintf(out, "     ... and %d more problems\n", diags->dropped);
}

/* check with files: each is parsed on its own; ids must also be unique among them. */
int hw_check_files(FILE *out, int count, char **files, bool json, cJSON **doc_out, struct app_status *st)
{
	cJSON *results = json ? cJSON_CreateArray() : NULL;
	int bad = 0;
	struct ridge_gpu *gpus = calloc((size_t)count, sizeof *gpus);
	if (!gpus) {
		app_error_env(st, "out of memory");
		return -1;
	}
	/* A file that cannot be opened is a usage error (exit 2) before any
	 * output, not a bad entry (exit 1). */
	for (int i = 0; i < count; i++) {
		if (strcmp(files[i], "-") == 0)
			continue; /* standard input: hwdb_read_file reads it and says what is wrong */
		int fd = open(files[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		struct stat info;
		int e = fd < 0 ? errno : fstat(fd, &info) != 0 ? errno : S_ISDIR(info.st_mode) ? EISDIR : 0;
		if (fd >= 0)
			close(fd);
		if (e || !S_ISREG(info.st_mode)) {
			if (e)
				app_error(st, "cannot open '%s': %s", files[i], strerror(e));
			else
				app_error(st, "cannot open '%s': %s, not a regular file", files[i],
					  hwdb_file_type_name((unsigned)info.st_mode));
			free(gpus);
			if (results)
				cJSON_Delete(results);
			return -1;
		}
	}
	for (int i = 0; i < count; i++) {
		struct hwdb_diags diags = { 0 };
		hwdb_load_file(files[i], &gpus[i], &diags);
		for (int j = 0; j < i && diags.count == 0; j++) {
			if (gpus[i].id[0] && strcmp(gpus[i].id, gpus[j].id) == 0) {
				struct hwdb_diag *d = &diags.items[diags.count++];
				snprintf(d->file, sizeof d->file, "%s", files[i]);
				d->line = d->column = 0;
				snprintf(d->message, sizeof d->message, "duplicate id '%s' (also in %s)", gpus[i].id,
					 files[j]);
			}
		}
		bad += diags.count > 0;
		report_check(out, files[i], gpus[i].id, &diags, json, results);
	}
	free(gpus);
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "ok", bad == 0);
		cJSON_AddItemToObject(doc, "entries", results);
		*doc_out = doc;
	} else {
		fprintf(out, "%d of %d entries ok\n", count - bad, count);
	}
	return bad ? EXIT_PROBLEM : EXIT_OK;
}

/* check with no files: every layer ridge would load, as it would load it. */
int hw_check_all_open(struct hw_check_all *c, const char *hwdb_dir, struct app_status *st)
{
	memset(&c->diags, 0, sizeof c->diags);
	c->failed = hwdb_open(&c->db, hwdb_dir, &c->diags) != 0;
	if (!c->failed)
		app_status_add_hwdb(st, &c->diags); /* the warnings: what was skipped */
	return c->failed ? EXIT_PROBLEM : EXIT_OK;
}

cJSON *hw_check_all_json(const struct hw_check_all *c)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddBoolToObject(doc, "ok", !c->failed);
	cJSON *entries = cJSON_AddArrayToObject(doc, "entries");
	for (int i = 0; !c->failed && i < c->db.count; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", c->db.entries[i].origin);
		cJSON_AddStringToObject(o, "id", c->db.entries[i].gpu.id);
		cJSON_AddBoolToObject(o, "ok", 1);
		cJSON_AddItemToArray(entries, o);
	}
	diags_to_json(cJSON_AddArrayToObject(doc, "problems"), &c->diags);
	return doc;
}

void hw_check_all_print(FILE *out, const struct hw_check_all *c)
{
	if (c->failed) {
		char line[1024];
		for (int i = 0; i < c->diags.count; i++) {
			hwdb_diag_format(&c->diags.items[i], line, sizeof line);
			fprintf(out, "BAD  %s\n", line);
		}
		fprintf(out, "hwdb check failed: %d problem%s\n", c->diags.count + c->diags.dropped,
			c->diags.count == 1 ? "" : "s");
		return;
	}
	for (int i = 0; i < c->db.count; i++)
		fprintf(out, "ok   %s (%s)\n", c->db.entries[i].origin, c->db.entries[i].gpu.id);
	fprintf(out, "%d of %d entries ok\n", c->db.count, c->db.count);
}

void hw_check_all_close(struct hw_check_all *c)
{
	hwdb_close(&c->db);
}

/* ---- the command line: ridge hw ---- */

static const char hw_usage[] = "usage: ridge hw list  [--json] [--hwdb DIR]\n"
			       "       ridge hw show  GPU [--json] [--hwdb DIR] [--calibration FILE]\n"
			       "       ridge hw check [FILE...] [--json] [--hwdb DIR]\n"
			       "\n"
			       "  list    every known GPU: id, name, vendor, architecture, headline rates\n"
			       "  show    one entry in full, with the sources of its numbers (GPU: id or alias,\n"
			       "          e.g. h100-sxm or \"NVIDIA H100 80GB HBM3\")\n"
			       "  check   validate entries (schema, units, ranges, plausibility); with no FILE,\n"
			       "          every entry ridge would load. Exit 1 if any entry is bad.\n"
			       "\n"
			       "  --json              one JSON document on stdout (SI units)\n"
			       "  --hwdb DIR          also load every *.yaml in DIR (overrides by id)\n"
			       "  --calibration FILE  also load FILE (a ridge-probe calibration)\n"
			       "\n"
			       "Entries load from the built-in database, then $XDG_CONFIG_HOME/ridge/hwdb\n"
			       "(~/.config/ridge/hwdb), then each directory in $RIDGE_HWDB (colon-separated).\n";

static const struct param hw_params[] = PARAMS_ROWS(HW_PARAMS);

const struct params_command hw_params_command = {
	.name = "hw",
	PARAMS_COMMAND_TABLE(hw_params),
	.usage = hw_usage,
	.operands = PARAMS_OPERANDS_ANY,
};
