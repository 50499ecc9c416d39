/* ridge cost rank (scenario files only): a fleet's projects read from a list, ranked by payback, as JSON and text. */
#include "cost_calc.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "app.h"
#include "calc.h"
#include "cost.h"
#include "eval.h"
#include "json_fields.h"
#include "parallel.h"
#include "cost_model_calc.h"
#include "cost_internal.h"

/* ---- rank (scenario files only) ---- */

#define RANK_PARAMS(X)                                                                                                 \
	X(RANK_BUDGET_PER_MONTH,                                                                                       \
	  PARAM_NUM("budget_per_month", RIDGE_UNIT_USD, 0, INFINITY, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,          \
		    .metavar = "USD", .help = "hardware spend of the fleet per month", .range = "greater than 0 USD")) \
	X(RANK_TRAINING_SHARE, PARAM_FRAC("training_share", 0, 1, .flags = PARAM_REQUIRED, .metavar = "F",             \
					  .help = "share of the spend on training"))                                   \
	X(RANK_INFERENCE_SHARE, PARAM_FRAC("inference_share", 0, 1, .flags = PARAM_REQUIRED, .metavar = "F",           \
					   .help = "share of the spend on inference"))                                 \
	X(RANK_BASELINE_MFU, PARAM_FRAC("baseline_mfu", 0, 1, .flags = PARAM_REQUIRED | PARAM_OPEN_LO, .metavar = "M", \
					.help = "training MFU today", .range = "0 < MFU <= 1"))                        \
	X(RANK_ENGINEER_USD_PER_HOUR,                                                                                  \
	  PARAM_NUM("engineer_usd_per_hour", RIDGE_UNIT_USD, 0, INFINITY, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,     \
		    .metavar = "USD", .help = "fully loaded engineering cost", .range = "greater than 0 USD"))         \
	X(RANK_HOURS_PER_WEEK, PARAM_NUM("hours_per_week", RIDGE_UNIT_COUNT, 0, 168, .flags = PARAM_OPEN_LO,           \
					 .metavar = "H", .help = "working hours (default 40)"))                        \
	X(RANK_HORIZON_MONTHS,                                                                                         \
	  PARAM_NUM("horizon_months", RIDGE_UNIT_COUNT, 0, 1200, .flags = PARAM_REQUIRED | PARAM_OPEN_LO,              \
		    .metavar = "M", .help = "months of savings counted"))                                              \
	X(RANK_PROJECTS, PARAM_LIST_ROW("projects", .flags = PARAM_REQUIRED,                                           \
					.help = "the projects (name, mfu_gain or tpot_reduction, effort)"))            \
	X(RANK_EXPLAIN, EXPLAIN_ROW)
PARAMS_TABLE(rank_params, RANK_PARAMS);

#define PROJECT_PARAMS(X)                                                                                  \
	X(PROJECT_NAME, PARAM_TEXT_ROW("name", .flags = PARAM_REQUIRED, .help = ""))                       \
	X(PROJECT_MFU_GAIN, PARAM_FRAC("mfu_gain", 0, 1, .flags = PARAM_OPEN_LO, .help = "",               \
				       .range = "greater than 0, at most 1 (absolute points)"))            \
	X(PROJECT_TPOT_REDUCTION, PARAM_FRAC("tpot_reduction", 0, 1, .flags = PARAM_OPEN_LO, .help = "",   \
					     .range = "greater than 0, less than 1"))                      \
	X(PROJECT_ENGINEER_WEEKS,                                                                          \
	  PARAM_NUM("engineer_weeks", RIDGE_UNIT_COUNT, 0, 1e6, .flags = PARAM_OPEN_LO, .help = ""))       \
	X(PROJECT_ENGINEER_MONTHS,                                                                         \
	  PARAM_NUM("engineer_months", RIDGE_UNIT_COUNT, 0, 1e6, .flags = PARAM_OPEN_LO, .help = ""))      \
	X(PROJECT_COST, PARAM_NUM("cost", RIDGE_UNIT_USD, 0, INFINITY, .flags = PARAM_OPEN_LO, .help = "", \
				  .range = "greater than 0 USD"))                                          \
	X(PROJECT_APPLIES_TO, PARAM_FRAC("applies_to", 0, 1, .flags = PARAM_OPEN_LO, .help = ""))          \
	X(PROJECT_READY_AFTER_MONTHS, PARAM_NUM("ready_after_months", RIDGE_UNIT_COUNT, 0, 1200, .help = ""))
PARAMS_TABLE(project_params, PROJECT_PARAMS);

#define MAX_PROJECTS 32

struct rank_read {
	struct app_status *st; /* where a project's problem is reported */
	int count;
	struct ridge_project projects[MAX_PROJECTS];
};

/* Reported at the project's position (the item's position would be less
 * precise). */
static int project_error(struct app_status *st, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int project_error(struct app_status *st, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	app_error(st, "%s: %s", where, msg);
	return -1;
}

static int read_project(void *ctx, const struct param_values *v, int index, const char *where)
{
	struct rank_read *rr = ctx;
	if (index >= MAX_PROJECTS)
		return project_error(rr->st, where, "more than %d projects", MAX_PROJECTS);
	struct ridge_project *p = &rr->projects[rr->count];
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", params_text(v, PROJECT_NAME));
	bool mfu = params_has(v, PROJECT_MFU_GAIN), tpot = params_has(v, PROJECT_TPOT_REDUCTION);
	if (mfu == tpot)
		return project_error(rr->st, where,
				     "project '%s' needs one of mfu_gain (training) or tpot_reduction (inference)",
				     p->name);
	p->kind = mfu ? RIDGE_PROJECT_MFU : RIDGE_PROJECT_TPOT;
	p->mfu_gain = mfu ? params_num(v, PROJECT_MFU_GAIN) : 0;
	p->tpot_reduction = tpot ? params_num(v, PROJECT_TPOT_REDUCTION) : 0;
	int efforts = params_has(v, PROJECT_ENGINEER_WEEKS) + params_has(v, PROJECT_ENGINEER_MONTHS) +
		      params_has(v, PROJECT_COST);
	if (efforts != 1)
		return project_error(rr->st, where, "project '%s' needs one of engineer_weeks, engineer_months or cost",
				     p->name);
	if (params_has(v, PROJECT_ENGINEER_WEEKS))
		p->engineer_weeks = params_num(v, PROJECT_ENGINEER_WEEKS);
	if (params_has(v, PROJECT_ENGINEER_MONTHS))
		p->engineer_weeks = params_num(v, PROJECT_ENGINEER_MONTHS) * RIDGE_WEEKS_PER_MONTH;
	if ((p->has_cost = params_has(v, PROJECT_COST)))
		p->cost_usd = params_num(v, PROJECT_COST);
	p->applies_to = params_has(v, PROJECT_APPLIES_TO) ? params_num(v, PROJECT_APPLIES_TO) : 1;
	p->ready_after_months =
		params_has(v, PROJECT_READY_AFTER_MONTHS) ? params_num(v, PROJECT_READY_AFTER_MONTHS) : 0;
	rr->count++;
	return 0;
}

void calc_json_fleet(cJSON *a, const struct ridge_fleet *fleet)
{
	static const struct json_field fleet_fields[] = {
		JSON_FIELDS(struct ridge_fleet, budget_usd_per_month, training_share, inference_share, baseline_mfu,
			    engineer_usd_per_hour, hours_per_week),
	};
	json_put_fields(a, fleet, fleet_fields, JSON_FIELD_COUNT(fleet_fields));
	json_number(a, "weeks_per_month", RIDGE_WEEKS_PER_MONTH);
	json_number(a, "horizon_months", fleet->horizon_months);
}

cJSON *calc_json_rank_entry(const struct ridge_project *p, const struct ridge_project_result *r)
{
	cJSON *e = cJSON_CreateObject();
	json_number(e, "rank", r->rank);
	cJSON_AddStringToObject(e, "name", p->name);
	cJSON_AddStringToObject(e, "kind", p->kind == RIDGE_PROJECT_MFU ? "training_mfu" : "inference_tpot");
	if (p->kind == RIDGE_PROJECT_MFU) {
		json_number(e, "mfu_gain", p->mfu_gain);
		json_number(e, "target_mfu", r->target_mfu);
	} else {
		json_number(e, "tpot_reduction", p->tpot_reduction);
	}
	json_number(e, "applies_to", p->applies_to);
	static const struct json_field project_result_fields[] = {
		JSON_FIELDS(struct ridge_project_result, engineering_usd),
		JSON_FIELD_AS(struct ridge_project_result, "spend_usd_per_month", spend_per_month),
		JSON_FIELDS(struct ridge_project_result, saving_fraction),
		JSON_FIELD_AS(struct ridge_project_result, "savings_usd_per_month", savings_per_month),
		JSON_FIELDS(struct ridge_project_result, months_saving),
		JSON_FIELD_AS(struct ridge_project_result, "horizon_savings_usd", horizon_savings),
		JSON_FIELDS(struct ridge_project_result, net_usd, roi_net, roi_gross, payback_months),
	};
	json_put_fields(e, r, project_result_fields, JSON_FIELD_COUNT(project_result_fields));
	return e;
}

static cJSON *rank_run(struct calc_input *in)
{
	const struct param_values *v = in->values;
	if (!in->item) {
		calc_fail(in, "rank reads its projects from a scenario file: ridge cost rank FILE.yaml");
		return NULL;
	}
	struct rank_read *rr = calloc(1, sizeof *rr);
	if (!rr) {
		calc_fail(in, "out of memory");
		return NULL;
	}
	rr->st = in->st;
	if (eval_item_each(in->item, "projects", project_params, sizeof project_params / sizeof project_params[0],
			   read_project, rr) != 0) {
		free(rr);
		return NULL;
	}
	struct ridge_fleet fleet = {
		.budget_usd_per_month = params_num(v, RANK_BUDGET_PER_MONTH),
		.training_share = params_num(v, RANK_TRAINING_SHARE),
		.inference_share = params_num(v, RANK_INFERENCE_SHARE),
		.baseline_mfu = params_num(v, RANK_BASELINE_MFU),
		.engineer_usd_per_hour = params_num(v, RANK_ENGINEER_USD_PER_HOUR),
		.hours_per_week = params_has(v, RANK_HOURS_PER_WEEK) ? params_num(v, RANK_HOURS_PER_WEEK) : 40,
		.horizon_months = params_num(v, RANK_HORIZON_MONTHS),
	};
	struct ridge_project_result results[MAX_PROJECTS];
	struct ridge_explain *ex = params_flag(v, RANK_EXPLAIN) ? calloc(1, sizeof *ex) : NULL;
	char err[400];
	if (cost_rank(&fleet, rr->projects, rr->count, results, ex, err, sizeof err) != 0) {
		calc_fail(in, "%s", err);
		free(ex);
		free(rr);
		return NULL;
	}
	cJSON *o = cJSON_CreateObject();
	calc_json_fleet(cJSON_AddObjectToObject(o, "assumptions"), &fleet);
	cJSON *ranking = cJSON_AddArrayToObject(o, "ranking");
	for (int i = 0; i < rr->count; i++) {
		const struct ridge_project_result *r = &results[i];
		const struct ridge_project *p = &rr->projects[r->index];
		cJSON *e = calc_json_rank_entry(p, r);
		cJSON_AddItemToArray(ranking, e);
	}
	if (ex) {
		cJSON_AddItemToObject(o, "explain", cost_explain_json(ex));
		free(ex);
	}
	free(rr);
	return o;
}

static void rank_print(FILE *out, const cJSON *r)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "assumptions");
	char budget[64], training[64], inference[64], mfu[64], engineer[64];
	fmt_usd(calc_num(a, "budget_usd_per_month"), budget, sizeof budget);
	fmt_percent(calc_num(a, "training_share"), training, sizeof training);
	fmt_percent(calc_num(a, "inference_share"), inference, sizeof inference);
	fmt_percent(calc_num(a, "baseline_mfu"), mfu, sizeof mfu);
	fprintf(out, "Investment ranking: %s/month fleet, %s training / %s inference; assumed: baseline MFU %s,\n",
		budget, training, inference, mfu);
	fmt_usd(calc_num(a, "engineer_usd_per_hour"), engineer, sizeof engineer);
	fprintf(out, "  engineering %s/hour x %.4g h/week (a month is 52/12 weeks), savings counted over %.4g months\n",
		engineer, calc_num(a, "hours_per_week"), calc_num(a, "horizon_months"));
	fprintf(out, "\n  %-2s %-30s %12s  %-40s %13s %15s %9s %9s\n", "#", "project", "cost", "saving", "per month",
		"over horizon", "net ROI", "payback");
	const cJSON *e;
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(r, "ranking")) {
		char cost[32], how[96], month[32], total[32], pct[32], m0[32], m1[32], roi[32];
		fmt_usd(calc_num(e, "engineering_usd"), cost, sizeof cost);
		fmt_usd(calc_num(e, "savings_usd_per_month"), month, sizeof month);
		fmt_usd(calc_num(e, "horizon_savings_usd"), total, sizeof total);
		fmt_percent(calc_num(e, "saving_fraction"), pct, sizeof pct);
		double spend = calc_num(e, "spend_usd_per_month") / 1e6;
		if (strcmp(calc_str(e, "kind"), "training_mfu") == 0) {
			fmt_percent(calc_num(a, "baseline_mfu"), m0, sizeof m0);
			fmt_percent(calc_num(e, "target_mfu"), m1, sizeof m1);
			snprintf(how, sizeof how, "%s of $%.4gM training (MFU %s->%s)", pct, spend, m0, m1);
		} else {
			snprintf(how, sizeof how, "%s of $%.4gM inference (TPOT -%.4g%%)", pct, spend,
				 calc_num(e, "tpot_reduction") * 100);
		}
		fmt_roi(calc_num(e, "roi_net"), roi, sizeof roi);
		fprintf(out, "  %-2.0f %-30.30s %12s  %-40s %13s %15s %9s %6.3g mo\n", calc_num(e, "rank"),
			calc_str(e, "name"), cost, how, month, total, roi, calc_num(e, "payback_months"));
	}
	fprintf(out, "\n  Saving fractions: an MFU gain m0 -> m1 needs m0/m1 of the GPU time (saves 1 - m0/m1 of\n"
		     "  training spend); a TPOT cut r serves the same tokens in (1 - r) of the time.\n"
		     "  Gains on the same share do not add: two MFU projects together reach m0 + g1 + g2, not\n"
		     "  the sum of their savings.\n");
	cost_print_explain(out, r);
}

static const char rank_synopsis[] = "usage: ridge cost rank FILE.yaml [--json] [--hwdb DIR] [--calibration FILE]";
static const char rank_description[] =
	"Ranks engineering projects by net ROI over a horizon: MFU gains save training spend,\n"
	"TPOT cuts save inference spend; FILE is a scenario with 'rank' items.\n";

const struct calc calc_cost_rank = {
	.name = "rank",
	.command = "cost rank",
	.synopsis = rank_synopsis,
	.description = rank_description,
	CALC_IMPL(rank_params, rank_run, rank_print),
	.takes_no_gpu = true,
};

/* ---- the command line: ridge cost rank FILE ---- */

static const struct param cost_rank_cli_params[] = PARAMS_ROWS(COST_RANK_CLI_PARAMS);

const struct params_command cost_rank_params_command = {
	.name = "cost rank",
	PARAMS_COMMAND_TABLE(cost_rank_cli_params),
	.synopsis = rank_synopsis,
	.description = rank_description,
	.operands = 1,
	.need = "cost rank needs a scenario file with a 'rank' item (see examples/review-q9-rank.yaml)",
};
