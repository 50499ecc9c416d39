/* ridge tui --dump: the values the panels show, as JSON, without a terminal. */
#include "cli.h"
#include "tui.h"

static void add_inputs(cJSON *obj, const struct tui_state *s, enum tui_panel_id panel)
{
	const struct tui_field *fields[32];
	int n = tui_panel_fields(s, panel, fields, 32);
	for (int i = 0; i < n && i < 32; i++) {
		const struct tui_field *f = fields[i];
		const char *base = (const char *)&s->in + f->offset;
		switch (f->kind) {
		case TUI_FIELD_NUMBER:
		case TUI_FIELD_INTEGER: {
			double v = *(const double *)base;
			if (f->has_unset && v == f->unset_value)
				cJSON_AddNullToObject(obj, f->key);
			else
				cli_json_number(obj, f->key, v);
			break;
		}
		default: {
			char text[TUI_PATH];
			tui_field_format(s, f, text, sizeof text);
			cJSON_AddStringToObject(obj, f->key, text);
			break;
		}
		}
	}
}

static cJSON *hw_json(const struct tui_state *s, int which)
{
	const struct ridge_gpu *gpu = which ? tui_state_compare_gpu(s) : tui_state_gpu(s);
	if (!gpu)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", gpu->id);
	cJSON_AddStringToObject(o, "ceilings", cli_ceiling_source(gpu));
	cli_json_number(o, "memory_bandwidth", gpu->memory_bandwidth);
	cJSON *peaks = cJSON_AddObjectToObject(o, "peak_flops");
	for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
		const struct tui_hw_row *r = &s->out.hw[which][d];
		if (r->has)
			cli_json_number(peaks, ridge_dtype_name((enum ridge_dtype)d), r->peak);
	}
	return o;
}

int tui_dump(const struct tui_state *s)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "gpu", tui_state_gpu(s) ? tui_state_gpu(s)->id : "");
	cJSON *hw = cJSON_AddObjectToObject(doc, "hardware");
	cJSON_AddItemToObject(hw, "gpu", hw_json(s, 0));
	cJSON_AddItemToObject(hw, "compare", hw_json(s, 1));
	for (int p = TUI_PANEL_ROOFLINE; p < TUI_PANEL_COUNT; p++) {
		cJSON *panel = cJSON_AddObjectToObject(doc, tui_panel_name((enum tui_panel_id)p));
		add_inputs(cJSON_AddObjectToObject(panel, "inputs"), s, (enum tui_panel_id)p);
	}
	return cli_json_print(doc);
}
