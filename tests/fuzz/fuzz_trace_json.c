/* libFuzzer harness: the PyTorch-trace reader behind `ridge trace FILE.json`
 * and `ridge launch --trace` (trace_parse_pytorch, added: the reader on a
 * buffer), then the summary every command prints (trace_summarize).
 *
 * Invariants beyond "no crash" (issue 31): an accepted trace has kernels,
 * each ending no earlier than it starts and at most a day long, on devices
 * counted once; every kernel and API name is one line of valid UTF-8 (no
 * control byte); every summary time finite and >= 0, busy time at most the
 * summed kernel time and at most span x devices; a rejection is a usage
 * error or out of memory, nothing else. And the stream: the same text read
 * through the window a few bytes at a time (1 to 31, from the first byte),
 * as a file is read, gives the same verdict, message and records, so no
 * refill boundary changes what is read. Ridge's messages are silenced with
 * -close_fd_mask=2. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "read_limits.h"
#include "trace.h"

/* Valid UTF-8 and no byte below 0x20 nor DEL. */
static int clean_line(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; u[i];) {
		if (u[i] < 0x20 || u[i] == 0x7f)
			return 0;
		size_t n = u[i] < 0x80                    ? 1
			   : u[i] >= 0xc2 && u[i] <= 0xdf ? 2
			   : u[i] >= 0xe0 && u[i] <= 0xef ? 3
			   : u[i] >= 0xf0 && u[i] <= 0xf4 ? 4
							  : 0;
		if (!n)
			return 0;
		for (size_t k = 1; k < n; k++)
			if ((u[i + k] & 0xc0) != 0x80)
				return 0;
		i += n;
	}
	return 1;
}

static void check_summary(const struct trace *t)
{
	struct trace_summary s;
	if (trace_summarize(t, &s) != 0)
		return; /* out of memory */
	const double times[] = { s.span_s,    s.busy_s,   s.kernel_s, s.idle_s, s.median_gap_s,
				 s.max_gap_s, s.launch_s, s.malloc_s, s.sync_s };
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
		CHECK(isfinite(times[i]) && times[i] >= 0);
	CHECK(s.busy_s <= s.kernel_s * (1 + 1e-12));
	CHECK(s.busy_s <= s.span_s * t->device_count * (1 + 1e-12));
	for (int i = 0; i < s.group_count; i++) {
		CHECK(s.groups[i].calls >= 1 && isfinite(s.groups[i].total_s) && s.groups[i].total_s >= 0);
		CHECK(clean_line(s.groups[i].name) && clean_line(s.groups[i].op));
	}
	trace_summary_free(&s);
}

static bool same_kernel(const struct trace *a, const struct trace_kernel *x, const struct trace *b,
			const struct trace_kernel *y)
{
	return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->correlation == y->correlation &&
	       x->device == y->device && x->registers == y->registers && !memcmp(x->grid, y->grid, sizeof x->grid) &&
	       !memcmp(x->block, y->block, sizeof x->block) &&
	       !strcmp(trace_kernel_name(a, x), trace_kernel_name(b, y)) &&
	       !strcmp(trace_kernel_op(a, x), trace_kernel_op(b, y));
}

/* The text read in chunks agrees with the text read in place. */
static void check_chunked(const uint8_t *data, size_t size, int rc, const struct trace *t, const struct app_status *st)
{
	struct trace c;
	struct app_status cst;
	app_status_init(&cst);
	size_t chunk = size ? 1 + data[0] % 31 : 1;
	int crc = trace_parse_pytorch("fuzz.json", (const char *)data, size, chunk, &c, &cst);
	CHECK(crc == rc);
	if (rc != 0) {
		CHECK(cst.exit_code == st->exit_code && !strcmp(cst.msgs[0].text, st->msgs[0].text));
		return;
	}
	CHECK(c.kernel_count == t->kernel_count && c.api_count == t->api_count && c.names.count == t->names.count);
	for (int i = 0; i < c.kernel_count; i++)
		CHECK(same_kernel(&c, &c.kernels[i], t, &t->kernels[i]));
	for (int i = 0; i < c.api_count; i++)
		CHECK(!strcmp(c.apis[i].name, t->apis[i].name) && c.apis[i].calls == t->apis[i].calls &&
		      c.apis[i].total_ns == t->apis[i].total_ns);
	trace_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct app_status st;
	app_status_init(&st);
	int rc = trace_parse_pytorch("fuzz.json", (const char *)data, size, 0, &t, &st);
	check_chunked(data, size, rc, &t, &st);
	if (rc != 0) {
		CHECK(st.exit_code == EXIT_USAGE || st.exit_code == EXIT_ENV);
		return 0;
	}
	CHECK(t.kernel_count >= 1 && t.device_count >= 1 && t.device_count <= t.kernel_count);
	for (int i = 0; i < t.kernel_count; i++) {
		const struct trace_kernel *k = &t.kernels[i];
		CHECK(k->end_ns >= k->start_ns && k->end_ns - k->start_ns <= READ_MAX_TRACE_DURATION_NS);
		CHECK(clean_line(trace_kernel_name(&t, k)));
	}
	for (int i = 0; i < t.api_count; i++)
		CHECK(t.apis[i].total_ns >= 0 && t.apis[i].calls >= 1 && clean_line(t.apis[i].name));
	check_summary(&t);
	trace_free(&t);
	return 0;
}
