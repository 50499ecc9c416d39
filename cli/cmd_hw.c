/* ridge hw list | show GPU | check [FILE...]: the hardware database. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char usage_text[] = "usage: ridge hw list  [--json] [--hwdb DIR]\n"
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

static double default_peak(const struct ridge_gpu *g, enum ridge_dtype d)
{
	double rate = 0;
	ridge_gpu_peak(g, d, RIDGE_PEAK_DEFAULT, false, &rate, NULL);
	return rate;
}

static int hw_list(const struct app_hw *hw, bool json)
{
	if (json) {
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
		return cli_json_print(array);
	}
	printf("%-16s %-28s %-7s %-10s %5s %10s %10s %9s\n", "ID", "NAME", "VENDOR", "ARCH", "SMs", "BF16 TF/s",
	       "FP32 TF/s", "HBM TB/s");
	for (int i = 0; i < hw->db.count; i++) {
		const struct ridge_gpu *g = &hw->db.entries[i].gpu;
		double fp32 = 0, bf16 = default_peak(g, RIDGE_BF16);
		ridge_gpu_peak(g, RIDGE_FP32, RIDGE_PEAK_VECTOR, false, &fp32, NULL);
		char bf16_text[16] = "-";
		if (bf16 > 0)
			snprintf(bf16_text, sizeof bf16_text, "%.1f", bf16 / 1e12);
		printf("%-16s %-28.28s %-7s %-10s %5d %10s %10.1f %9.3g%s\n", g->id, g->name,
		       g->vendor == RIDGE_VENDOR_AMD ? "amd" : "nvidia", g->arch, g->sm_count, bf16_text, fp32 / 1e12,
		       g->memory_bandwidth / 1e12, g->measured ? "  (measured)" : "");
	}
	printf("%d GPUs. Dense rates; 'ridge hw show ID' for the full entry and its sources.\n", hw->db.count);
	return EXIT_OK;
}

/* The interconnect as the communication model prices it (model/comm.h). */
static void print_fabric(const struct ridge_gpu *g)
{
	const struct ridge_interconnect *ic = &g->ic;
	char a[32], b[32], c[32], d[32], e[32];
	if (ic->has_fabric) {
		fmt_si(ic->per_direction, "B/s", a, sizeof a);
		fmt_si(ic->peer_bandwidth, "B/s", b, sizeof b);
		fmt_seconds(ic->latency, c, sizeof c);
		fmt_seconds(ic->base_latency, d, sizeof d);
		fmt_si(ic->pcie_bandwidth, "B/s", e, sizeof e);
		printf("\nFabric  %s, %d GPUs: %s per direction per GPU", ic->topology_name, ic->domain_gpus, a);
		if (ic->links)
			printf(" (%d links)", ic->links);
		printf(", %s to one peer\n        NVLink SHARP %s; latency %s per step + %s per collective; PCIe %s%s%s per direction\n",
		       b, ic->nvls ? "yes" : "no", c, d, ic->pcie, ic->pcie[0] ? " " : "", e);
		if (ic->has_bus_bandwidth || ic->has_nvls_bus_bandwidth) {
			printf("        published bus bandwidth:");
			if (ic->has_bus_bandwidth) {
				fmt_si(ic->bus_bandwidth, "B/s", a, sizeof a);
				printf(" ring %s", a);
			}
			if (ic->has_nvls_bus_bandwidth) {
				fmt_si(ic->nvls_bus_bandwidth, "B/s", a, sizeof a);
				printf("%s NVLS %s", ic->has_bus_bandwidth ? "," : "", a);
			}
			printf("\n");
		}
	}
	const char *sep = "        measured:";
	for (int op = 0; op < RIDGE_COLLECTIVE_COUNT; op++) {
		const struct ridge_collective_measured *m = &ic->measured[op];
		if (!m->has_bus_bandwidth && !m->has_latency)
			continue;
		printf("%s %s", sep, ridge_collective_name((enum ridge_collective)op));
		if (m->has_bus_bandwidth) {
			fmt_si(m->bus_bandwidth, "B/s", a, sizeof a);
			printf(" %s", a);
		}
		if (m->has_latency) {
			fmt_seconds(m->latency, a, sizeof a);
			printf(" + %s", a);
		}
		sep = ",";
	}
	if (sep[0] == ',')
		printf(" (on %d GPUs)\n", ic->measured_gpus);
}

/* The JSON is the schema table walked row by row (app_gpu_json). The text is
 * not: it is a page of sentences, each joining rows of several maps in its
 * own order and words ("Memory  80 GiB (79.6 GiB usable) HBM3 at 3.35 TB/s;
 * L2 50 MiB" takes memory.size, usable_size, type, bandwidth and cache.l2;
 * "SMs" or "CUs", "warps" or "waves" by vendor), with derived figures (the
 * ridge point) and tables (peak rates) between. A row of the table carries
 * no place in such a sentence, so this page stays written by hand, and a
 * new row reaches it only where a reader of the page needs it
 * (hwdb/README.md, "Adding a field"); --json shows every row. */
static int hw_show(const struct hwdb_entry *e, bool json)
{
	const struct ridge_gpu *g = &e->gpu;
	if (json)
		return cli_json_print(app_gpu_json(g, e->origin));
	char a[48], b[48], c[48];
	printf("%s (%s)  %s %s", g->name, g->id, g->vendor == RIDGE_VENDOR_AMD ? "AMD" : "NVIDIA", g->arch);
	if (g->vendor == RIDGE_VENDOR_AMD)
		printf(" %s\n", g->gfx_target);
	else
		printf(" sm_%d%d\n", g->cc_major, g->cc_minor);
	printf("  from %s%s%s\n", e->origin, g->measured ? ", measured on " : "", g->measured ? g->measured_on : "");
	if (g->alias_count) {
		printf("  aliases:");
		for (int i = 0; i < g->alias_count; i++)
			printf("%s \"%s\"", i ? "," : "", g->aliases[i]);
		printf("\n");
	}
	printf("\n%s %d, %s %d, boost %.0f MHz (matrix peaks at %.0f MHz, vector at %.0f MHz)\n",
	       g->vendor == RIDGE_VENDOR_AMD ? "CUs" : "SMs", g->sm_count,
	       g->vendor == RIDGE_VENDOR_AMD ? "wavefront" : "warp", g->warp_size, g->boost_clock_hz / 1e6,
	       g->matrix_clock_hz / 1e6, g->vector_clock_hz / 1e6);
	printf("\nPeak rates (dense unless marked)      vector     matrix    sparse\n");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct ridge_peak *p = &g->peak[d];
		if (!p->has_vector && !p->has_matrix)
			continue;
		const char *unit = d == RIDGE_INT8 ? "OP/s" : "FLOP/s";
		printf("  %-6s %-10s", ridge_dtype_name((enum ridge_dtype)d), unit);
		printf("%*s", 20, "");
		if (p->has_vector)
			printf("%9.1fT", p->vector / 1e12);
		else
			printf("%10s", "-");
		if (p->has_matrix)
			printf("%10.1fT", p->matrix / 1e12);
		else
			printf("%11s", "-");
		if (p->has_matrix_sparse)
			printf("%9.1fT", p->matrix_sparse / 1e12);
		else
			printf("%10s", "-");
		printf("\n");
	}
	fmt_bytes(g->memory_bytes, a, sizeof a);
	fmt_si(g->memory_bandwidth, "B/s", b, sizeof b);
	fmt_bytes(g->l2_bytes, c, sizeof c);
	if (g->has_usable_memory) {
		char u[32];
		fmt_bytes(g->usable_memory_bytes, u, sizeof u);
		printf("\nMemory  %s (%s usable) %s at %s; L2 %s", a, u, g->memory_type, b, c);
	} else {
		printf("\nMemory  %s %s at %s; L2 %s", a, g->memory_type, b, c);
	}
	if (g->has_infinity_cache) {
		fmt_bytes(g->infinity_cache_bytes, a, sizeof a);
		printf("; Infinity Cache %s", a);
	}
	printf("\n");
	if (ridge_gpu_has_hbm_mix(g)) {
		struct ridge_hbm_mix mixes[RIDGE_HBM_MIXES];
		ridge_gpu_hbm_mixes(g, mixes);
		printf("        by read:write mix:");
		const char *sep = " ";
		for (int i = 0; i < RIDGE_HBM_MIXES; i++)
			if (mixes[i].has) {
				fmt_si(mixes[i].bandwidth, "B/s", a, sizeof a);
				printf("%s%s %s", sep, mixes[i].label, a);
				sep = ", ";
			}
		printf("\n");
	}
	if (g->has_l2_bandwidth || g->has_smem_bandwidth) {
		printf("        inner levels:");
		if (g->has_l2_bandwidth) {
			fmt_si(g->l2_bandwidth, "B/s", a, sizeof a);
			printf(" L2 %s", a);
		}
		if (g->has_smem_bandwidth) {
			fmt_si(g->smem_bandwidth, "B/s", a, sizeof a);
			printf(" shared memory %s", a);
		}
		printf("\n");
	}
	double bf16 = default_peak(g, RIDGE_BF16);
	if (bf16 > 0 && g->memory_bandwidth > 0)
		printf("        ridge point (bf16 / HBM): %.1f FLOP/byte\n", bf16 / g->memory_bandwidth);

	fmt_bytes(g->smem_per_sm, a, sizeof a);
	fmt_bytes(g->smem_per_block, b, sizeof b);
	fmt_bytes(g->smem_per_block_optin, c, sizeof c);
	printf("\nPer %s  %s shared memory (%s per block, %s opt-in", g->vendor == RIDGE_VENDOR_AMD ? "CU" : "SM", a, b,
	       c);
	if (g->nv.smem_reserved_per_block > 0) {
		fmt_bytes(g->nv.smem_reserved_per_block, a, sizeof a);
		printf(", %s reserved per block", a);
	}
	printf(")\n        %d registers (%d per block, %d per thread), %d threads, %d %s, %d blocks\n", g->regs_per_sm,
	       g->regs_per_block, g->nv.max_regs_per_thread, g->max_threads_per_sm, g->max_warps_per_sm,
	       g->vendor == RIDGE_VENDOR_AMD ? "waves" : "warps", g->max_blocks_per_sm);
	fmt_seconds(g->launch_overhead_s, a, sizeof a);
	fmt_seconds(g->graph_node_s, b, sizeof b);
	printf("\nTDP %.0f W", g->tdp_watts);
	if (g->interconnect[0]) {
		fmt_si(g->interconnect_bandwidth, "B/s", c, sizeof c);
		printf("; %s %s", g->interconnect, c);
	}
	printf("; launch %s, graph node %s", a, b);
	if (g->has_price)
		printf("; $%.2f per GPU-hour", g->price_usd_per_hour);
	print_fabric(g);
	printf("\n\nSources:\n");
	for (int i = 0; i < g->source_count; i++)
		printf("  [%d] %s\n", i + 1, g->sources[i]);
	if (g->note_count) {
		printf("Notes:\n");
		for (int i = 0; i < g->note_count; i++)
			printf("  - %s\n", g->notes[i]);
	}
	return EXIT_OK;
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

static void report_check(const char *file, const char *id, const struct hwdb_diags *diags, bool json, cJSON *results)
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
		printf("ok   %s (%s)\n", file, id);
		return;
	}
	char line[1024];
	printf("BAD  %s\n", file);
	for (int i = 0; i < diags->count; i++) {
		hwdb_diag_format(&diags->items[i], line, sizeof line);
		printf("     %s\n", line);
	}
	if (diags->dropped)
		printf("     ... and %d more problems\n", diags->dropped);
}

/* check with files: each is parsed on its own; ids must also be unique among them. */
static int hw_check_files(int count, char **files, bool json)
{
	cJSON *results = json ? cJSON_CreateArray() : NULL;
	int bad = 0;
	struct ridge_gpu *gpus = calloc((size_t)count, sizeof *gpus);
	if (!gpus) {
		cli_error("out of memory");
		return EXIT_ENV;
	}
	/* A file that cannot be opened is a usage error (exit 2) before any
	 * output, not a bad entry (exit 1). */
	for (int i = 0; i < count; i++) {
		int fd = open(files[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		struct stat st;
		int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
		if (fd >= 0)
			close(fd);
		if (e || !S_ISREG(st.st_mode)) {
			if (e)
				cli_error("cannot open '%s': %s", files[i], strerror(e));
			else
				cli_error("cannot open '%s': %s, not a regular file", files[i],
					  hwdb_file_type_name((unsigned)st.st_mode));
			free(gpus);
			if (results)
				cJSON_Delete(results);
			return EXIT_USAGE;
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
		report_check(files[i], gpus[i].id, &diags, json, results);
	}
	free(gpus);
	int rc = EXIT_OK;
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "ok", bad == 0);
		cJSON_AddItemToObject(doc, "entries", results);
		rc = cli_json_print(doc);
	} else {
		printf("%d of %d entries ok\n", count - bad, count);
	}
	return bad ? EXIT_PROBLEM : rc;
}

/* check with no files: every layer ridge would load, as it would load it. */
static int hw_check_all(const struct cli_options *opt)
{
	struct hwdb db;
	struct hwdb_diags diags = { 0 };
	int failed = hwdb_open(&db, opt->hwdb_dir, &diags) != 0;
	if (!failed)
		cli_print_diags(&diags); /* the warnings: what was skipped */
	if (opt->json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "ok", !failed);
		cJSON *entries = cJSON_AddArrayToObject(doc, "entries");
		for (int i = 0; !failed && i < db.count; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "file", db.entries[i].origin);
			cJSON_AddStringToObject(o, "id", db.entries[i].gpu.id);
			cJSON_AddBoolToObject(o, "ok", 1);
			cJSON_AddItemToArray(entries, o);
		}
		diags_to_json(cJSON_AddArrayToObject(doc, "problems"), &diags);
		int rc = cli_json_print(doc);
		hwdb_close(&db);
		return failed ? EXIT_PROBLEM : rc;
	}
	if (failed) {
		char line[1024];
		for (int i = 0; i < diags.count; i++) {
			hwdb_diag_format(&diags.items[i], line, sizeof line);
			printf("BAD  %s\n", line);
		}
		printf("hwdb check failed: %d problem%s\n", diags.count + diags.dropped, diags.count == 1 ? "" : "s");
		hwdb_close(&db);
		return EXIT_PROBLEM;
	}
	for (int i = 0; i < db.count; i++)
		printf("ok   %s (%s)\n", db.entries[i].origin, db.entries[i].gpu.id);
	printf("%d of %d entries ok\n", db.count, db.count);
	hwdb_close(&db);
	return EXIT_OK;
}

static int run_hw(int argc, char **argv)
{
	if (argc < 2) {
		cli_error("hw needs a subcommand: list, show or check (see 'ridge hw --help')");
		return EXIT_USAGE;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "list") != 0 && strcmp(sub, "show") != 0 && strcmp(sub, "check") != 0) {
		cli_error("unknown hw subcommand '%s' (known: list, show, check)", sub);
		return EXIT_USAGE;
	}
	struct cli_options opt = { 0 };
	int rc = cli_parse_options("hw", argc - 1, argv + 1, CLI_OPT_JSON, &opt);
	if (rc != 0)
		return rc;
	if (opt.help) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	char **args = argv + 1 + optind;
	int nargs = argc - 1 - optind;

	if (strcmp(sub, "check") == 0)
		return nargs > 0 ? hw_check_files(nargs, args, opt.json) : hw_check_all(&opt);

	if (strcmp(sub, "list") == 0 && nargs > 0) {
		cli_error("hw list takes no arguments, got '%s'", args[0]);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "show") == 0 && nargs != 1) {
		cli_error(nargs == 0 ? "hw show needs a GPU id (see 'ridge hw list')" : "hw show takes one GPU, got %d",
			  nargs);
		return EXIT_USAGE;
	}
	struct app_hw hw;
	struct app_status st;
	app_status_init(&st);
	if (app_hw_open(&hw, opt.hwdb_dir, opt.calibration, &st) != 0) {
		cli_report(&st);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") == 0) {
		cli_report(&st);
		rc = hw_list(&hw, opt.json);
	} else {
		const struct hwdb_entry *e = app_hw_find(&hw, args[0], &st);
		cli_report(&st);
		rc = e ? hw_show(e, opt.json) : EXIT_USAGE;
	}
	app_hw_close(&hw);
	return rc;
}

const struct cli_command cli_cmd_hw = { "hw", run_hw, "the hardware database: list, show, check" };
