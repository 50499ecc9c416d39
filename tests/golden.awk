# The one reader of the golden files tests/golden/<command>.test (the format is
# in tests/golden/README.md). Run on every .test file at once (case names are
# unique across files):
#   awk -v dir=DIR -f tests/golden.awk tests/golden/*.test
# writes each case as DIR/<case>.cmd, .code, .err, .out, the layout of one file
# per expectation that suite_golden.sh runs (and the layout before issue 26,
# which tests/golden_verify.sh regenerates byte for byte), and prints one line
# per case: "<case> TAB <file> TAB <line of its ===>". Without dir it only
# checks. A malformed file stops it at the first error, printed as FILE:LINE:
# what is wrong, with exit 1: a file that cannot be read one way only is never run.
function fail(msg) {
	fail_at(FILENAME, FNR, msg)
}

function fail_at(file, line, msg) {
	printf "%s:%d: %s\n", file, line, msg >"/dev/stderr"
	failed = 1
	exit 1
}

# What a file holds: the bytes of one field, "\n" after each line unless the
# line was followed by the no-newline marker.
function put(path, text) {
	printf "%s", text >path
	close(path)
}

function end_case() {
	if (state == "between")
		return
	if (last_rank < 1)
		fail_at(case_file, case_line, "case '" name "' has no 'cmd:' line")
	if (dir != "") {
		put(dir "/" name ".cmd", cmd)
		if (have_code)
			put(dir "/" name ".code", code "\n")
		if (have_err)
			put(dir "/" name ".err", err)
		if (have_out)
			put(dir "/" name ".out", out)
	}
	printf "%s\t%s\t%d\n", name, case_file, case_line
	state = "between"
}

# Each field has a rank: cmd (1), code (2), err (3), out (4, may repeat); a
# field must come after those of lower rank, so each case reads the same way.
function field(rank, what) {
	if (state == "between")
		fail("'" what "' outside a case: a case starts with '=== NAME' (cases are separated by blank lines)")
	if (state == "closed")
		fail("'" what "' after the no-newline marker, which ends the case's stdout")
	if (rank == 1 && last_rank >= 1)
		fail("a second 'cmd:'")
	if (rank > 1 && last_rank < 1)
		fail("'" what "' before 'cmd:': a case's first line after '===' is 'cmd: ARGS'")
	if (rank < 4 && last_rank >= rank)
		fail("'" what "' after " (last_rank == 4 ? "'out:'" : "a later field") ": the order is cmd:, code:, err:, out:")
	last_rank = rank
}

BEGIN {
	state = "between"
	marker = "\\ no newline at end"
}

FNR == 1 {
	end_case()
	stem = FILENAME
	sub(/.*\//, "", stem)
	if (stem !~ /\.test$/)
		fail("not a .test file")
	sub(/\.test$/, "", stem)
}

# A blank line ends a case; between cases only blank lines and comments.
$0 == "" {
	end_case()
	next
}

/^#/ {
	if (state != "between")
		fail("a comment inside a case (a case ends at a blank line; stdout lines start with '|')")
	next
}

/^=== / {
	if (state != "between")
		fail("'===' inside a case: separate cases by a blank line")
	name = substr($0, 5)
	if (name !~ /^[a-z0-9][a-z0-9._+-]*$/)
		fail("case name '" name "': lower-case letters, digits and . _ + - only")
	if (index(name, stem "-") != 1)
		fail("case '" name "' in " stem ".test: its name must start with '" stem "-'")
	if (name in seen)
		fail("case '" name "' again (first at " seen[name] ")")
	seen[name] = FILENAME ":" FNR
	case_file = FILENAME
	case_line = FNR
	state = "case"
	last_rank = 0
	cmd = code = err = out = ""
	have_code = have_err = have_out = 0
	last = ""
	next
}

/^cmd:( |$)/ {
	field(1, "cmd:")
	cmd = substr($0, 6) "\n"
	last = "cmd"
	next
}

/^code:/ {
	field(2, "code:")
	if ($0 !~ /^code: [0-9]+$/)
		fail("'code:' takes one exit code, 'code: N'")
	code = substr($0, 7)
	have_code = 1
	last = "code"
	next
}

/^err:( |$)/ {
	field(3, "err:")
	err = substr($0, 6) "\n"
	have_err = 1
	last = "err"
	next
}

# "out:" or "out: SECTION": stdout, or the next section of it; the sections'
# lines are concatenated, the labels only help a reader find their way.
/^out:( |$)/ {
	field(4, "out:")
	have_out = 1
	last = "out"
	next
}

/^\|( |$)/ {
	if (state == "between")
		fail("a stdout line outside a case")
	if (state == "closed")
		fail("a stdout line after the no-newline marker: only the last line can lack its newline")
	if (last_rank != 4)
		fail("a stdout line before 'out:'")
	out = out substr($0, 3) "\n"
	last = "line"
	next
}

$0 == marker {
	if (state == "between")
		fail("the no-newline marker outside a case")
	if (last == "cmd")
		cmd = substr(cmd, 1, length(cmd) - 1)
	else if (last == "err")
		err = substr(err, 1, length(err) - 1)
	else if (last == "line") {
		out = substr(out, 1, length(out) - 1)
		state = "closed"
	} else
		fail("the no-newline marker follows a 'cmd:', 'err:' or '|' line")
	last = "marker"
	next
}

{
	if (state == "between")
		fail("expected '=== NAME' to start a case, a comment or a blank line")
	fail("not a line of a case: 'cmd:', 'code:', 'err:', 'out:', '| ' (a line of stdout) or '" marker "'")
}

END {
	if (failed)
		exit 1
	end_case()
}
