/* Regression tests for what the fuzz harnesses (tests/fuzz/) found: each test
 * feeds the input that broke an invariant and checks the fixed behaviour.
 * The crashing inputs themselves are also in tests/fuzz/corpus/<target>/, so
 * every `make fuzz` replays them first. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *text, struct ridge_gpu *gpu, struct hwdb_diags *diags)
{
	return hwdb_parse("f.yaml", text, strlen(text), gpu, diags);
}

/* fuzz_hwdb, crash-f588ec13: "schema: 1\n---\nschema: 2\n". hwdb_parse
 * decided validity by counting diagnostics, so with diags == NULL (allowed:
 * diag_add ignores it) an entry missing every required key was accepted. */
static void test_hwdb_validity_without_diags(void **state)
{
	(void)state;
	struct ridge_gpu gpu;
	assert_int_equal(parse("schema: 1\n", &gpu, NULL), -1);
	assert_int_equal(parse("schema: 1\nid: Not_Valid\n", &gpu, NULL), -1);
	struct hwdb_diags diags = { 0 };
	assert_int_equal(parse("schema: 1\n", &gpu, &diags), -1);
	assert_true(diags.count > 0);
}

/* The same input, second finding: yaml_parser_load reads one document, so a
 * second one after "---" (a valid or a broken one) was silently dropped. */
static void test_hwdb_second_document_rejected(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	char *one = NULL;
	size_t len = 0;
	assert_int_equal(hwdb_format(h100, &one, &len), 0);

	struct ridge_gpu gpu;
	struct hwdb_diags diags = { 0 };
	assert_int_equal(hwdb_parse("f.yaml", one, len, &gpu, &diags), 0);

	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += one[i] == '\n';
	static const char *const tails[] = { "---\nschema: 2\n", "--- [\n", "...\n---\nid: x\n" };
	static const char *const messages[] = { "a second YAML document", "invalid YAML", "a second YAML document" };
	for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
		char *two = malloc(len + strlen(tails[t]) + 1);
		assert_non_null(two);
		memcpy(two, one, len);
		strcpy(two + len, tails[t]);
		memset(&diags, 0, sizeof diags);
		assert_int_equal(parse(two, &gpu, &diags), -1);
		assert_int_equal(diags.count, 1);
		if (!strstr(diags.items[0].message, messages[t]))
			fail_msg("tail %zu: '%s' lacks '%s'", t, diags.items[0].message, messages[t]);
		/* Past the end of the first document. */
		assert_true(diags.items[0].line > (int)lines);
		assert_int_equal(parse(two, &gpu, NULL), -1);
		free(two);
	}
	/* A document end marker alone, or trailing comments, is still one entry. */
	char *ended = malloc(len + 32);
	assert_non_null(ended);
	memcpy(ended, one, len);
	strcpy(ended + len, "...\n# end\n");
	memset(&diags, 0, sizeof diags);
	assert_int_equal(parse(ended, &gpu, &diags), 0);
	free(ended);
	free(one);
}

/* fuzz_hwdb, crash-e7d50e24: name: "Test \"GPU\" \\ \u00b5 \N". The escape
 * \N is NEL (U+0085), which YAML reads as a line break: the loader took it,
 * hwdb_format wrote it raw inside quotes, and reading the calibration back
 * gave a different name. Strings may not contain what YAML would not print
 * as itself; quotes, backslashes and ordinary non-ASCII still round-trip. */
static void test_hwdb_string_round_trip(void **state)
{
	(void)state;
	const struct ridge_gpu *h100 = test_gpu("h100-sxm");
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(hwdb_format(h100, &text, &len), 0);
	const char *name_line = strstr(text, "\nname: ");
	assert_non_null(name_line);
	name_line++;
	size_t head = (size_t)(name_line - text);
	const char *rest = strchr(name_line, '\n');
	assert_non_null(rest);

	static const struct {
		const char *yaml; /* the name as written in the file */
		int ok;
	} cases[] = {
		{ "\"Test \\\"GPU\\\" \\\\ \\u00b5 \\N\"", 0 }, /* the fuzzer's input */
		{ "\"a\\Nb\"", 0 },                             /* NEL */
		{ "\"a\\x85b\"", 0 },                           /* NEL as \x85 */
		{ "\"a\\x7fb\"", 0 },                           /* DEL */
		{ "\"a\\x9fb\"", 0 },                           /* C1 */
		{ "\"a\\Lb\"", 0 },                             /* U+2028 */
		{ "\"a\\Pb\"", 0 },                             /* U+2029 */
		{ "\"a\\ufeffb\"", 0 },                         /* BOM */
		{ "\"a\\uffffb\"", 0 },
		{ "\"a\\tb\"", 0 }, /* tab */
		{ "\"Test \\\"GPU\\\" \\\\ \\u00b5 \\xa0 \\u4e2d\"", 1 },
		{ "'single ''quoted'' \\ name'", 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = head + strlen("name: ") + strlen(cases[i].yaml) + strlen(rest) + 1;
		char *edited = malloc(n);
		assert_non_null(edited);
		snprintf(edited, n, "%.*sname: %s%s", (int)head, text, cases[i].yaml, rest);
		struct ridge_gpu gpu, back;
		struct hwdb_diags diags = { 0 };
		int rc = parse(edited, &gpu, &diags);
		if (!cases[i].ok) {
			assert_int_equal(rc, -1);
			if (diags.count != 1 || !strstr(diags.items[0].message, "'name' contains a control character"))
				fail_msg("%s: expected one control-character error, got %d: %s", cases[i].yaml,
					 diags.count, diags.count ? diags.items[0].message : "");
		} else {
			if (rc != 0)
				fail_msg("%s: rejected: %s", cases[i].yaml, diags.items[0].message);
			char *again = NULL;
			size_t again_len = 0;
			assert_int_equal(hwdb_format(&gpu, &again, &again_len), 0);
			assert_int_equal(hwdb_parse("again.yaml", again, again_len, &back, NULL), 0);
			assert_string_equal(back.name, gpu.name);
			assert_memory_equal(&back, &gpu, sizeof gpu);
			free(again);
		}
		free(edited);
	}
	free(text);
}

/* fuzz_ptxas, crash-43564d6e: "Used 9999999999 registers". The report
 * parser read counts up to 1e15 into a double and converted them to int:
 * undefined behaviour (UBSan), in practice a garbage register count. Counts
 * above INT_MAX are now refused with the line and column, in every format. */
static void test_compiler_report_huge_counts(void **state)
{
	(void)state;
	static const struct {
		enum ridge_usage_format format;
		const char *text;
		const char *error; /* NULL: accepted */
	} cases[] = {
		{ RIDGE_USAGE_PTXAS,
		  "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
		  "ptxas info    : Used 9999999999 registers registers, 1e308 bytes smem\n",
		  "2:17: cannot read" },
		{ RIDGE_USAGE_PTXAS,
		  "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
		  "ptxas info    : Used 2147483648 registers\n",
		  "2:17: cannot read" },
		{ RIDGE_USAGE_PTXAS,
		  "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
		  "ptxas info    : Used 32 registers, used 4294967296 barriers\n",
		  "2:36: cannot read" },
		{ RIDGE_USAGE_PTXAS,
		  "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
		  "ptxas info    : Used 2147483647 registers\n",
		  NULL },
		{ RIDGE_USAGE_CUOBJDUMP,
		  "Resource usage:\n Function k:\n  REG:99999999999 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0\n",
		  "3:7: expected a whole number (0..2147483647) after 'REG:'" },
		{ RIDGE_USAGE_AMD_REMARKS,
		  "k.hip:1:1: remark: Function Name: k [-Rpass-analysis=kernel-resource-usage]\n"
		  "k.hip:1:1: remark:     VGPRs: 99999999999 [-Rpass-analysis=kernel-resource-usage]\n",
		  "expected a whole number (0..2147483647) after 'VGPRs:'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ridge_kernel_usage k;
		int count = 0;
		char err[512] = "";
		int rc = occupancy_parse_usage(cases[i].text, strlen(cases[i].text), cases[i].format, 0, &k, 1, &count,
					       err, sizeof err);
		if (!cases[i].error) {
			if (rc != 0)
				fail_msg("case %zu rejected: %s", i, err);
			assert_int_equal(k.regs, 2147483647);
		} else {
			assert_int_equal(rc, -1);
			if (!strstr(err, cases[i].error))
				fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].error);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hwdb_validity_without_diags),
		cmocka_unit_test(test_hwdb_second_document_rejected),
		cmocka_unit_test(test_hwdb_string_round_trip),
		cmocka_unit_test(test_compiler_report_huge_counts),
	};
	return cmocka_run_group_tests_name("fuzz_regressions", tests, NULL, NULL);
}
