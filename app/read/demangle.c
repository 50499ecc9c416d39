#include "demangle.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Itanium C++ ABI, "Mangling" (itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling):
 *   <mangled-name> ::= _Z <name> [<template return type>] <parameter types>
 * Pieces are built as strings; every substitutable one (a prefix, a template
 * name, a qualified or pointer type, a class type) is kept in subs[] in the
 * order the ABI numbers them (S_ = first, S0_ = second, ...). */

#define MAX_SUBS 32
#define MAX_TARGS 16
#define PIECE 512

struct demangler {
	const char *p;
	bool ok;
	char subs[MAX_SUBS][PIECE];
	int sub_count;
	char targs[MAX_TARGS][PIECE]; /* the function's template arguments, for T_ */
	int targ_count;
};

static void fail(struct demangler *d)
{
	d->ok = false;
}

static void add_sub(struct demangler *d, const char *s)
{
	if (d->sub_count >= MAX_SUBS) {
		fail(d);
		return;
	}
	snprintf(d->subs[d->sub_count++], PIECE, "%s", s);
}

static void append(struct demangler *d, char *buf, const char *s)
{
	size_t used = strlen(buf), add = strlen(s);
	if (used + add >= PIECE) {
		fail(d);
		return;
	}
	memcpy(buf + used, s, add + 1);
}

static const char *builtin(char c)
{
	switch (c) {
	case 'v':
		return "void";
	case 'b':
		return "bool";
	case 'c':
		return "char";
	case 'a':
		return "signed char";
	case 'h':
		return "unsigned char";
	case 's':
		return "short";
	case 't':
		return "unsigned short";
	case 'i':
		return "int";
	case 'j':
		return "unsigned int";
	case 'l':
		return "long";
	case 'm':
		return "unsigned long";
	case 'x':
		return "long long";
	case 'y':
		return "unsigned long long";
	case 'n':
		return "__int128";
	case 'o':
		return "unsigned __int128";
	case 'f':
		return "float";
	case 'd':
		return "double";
	case 'e':
		return "long double";
	case 'w':
		return "wchar_t";
	default:
		return NULL;
	}
}

/* <source-name> ::= <length> <identifier> */
static void source_name(struct demangler *d, char *out)
{
	if (!isdigit((unsigned char)*d->p)) {
		fail(d);
		return;
	}
	long n = 0;
	while (isdigit((unsigned char)*d->p) && n < PIECE)
		n = n * 10 + (*d->p++ - '0');
	if (n <= 0 || n >= PIECE || strlen(d->p) < (size_t)n) {
		fail(d);
		return;
	}
	for (long i = 0; i < n; i++)
		if (!isalnum((unsigned char)d->p[i]) && d->p[i] != '_') {
			fail(d); /* "_GLOBAL__N_1" and friends are fine; anything else is not ours */
			return;
		}
	char name[PIECE];
	memcpy(name, d->p, (size_t)n);
	name[n] = '\0';
	d->p += n;
	out[0] = '\0';
	append(d, out, strcmp(name, "_GLOBAL__N_1") == 0 ? "(anonymous namespace)" : name);
}

/* <seq-id> _ : S_ is 0, S0_ is 1, S1_ is 2 (base 36, digits and capitals). */
static void substitution(struct demangler *d, char *out)
{
	d->p++;             /* 'S' */
	if (*d->p == 't') { /* St: ::std:: */
		d->p++;
		char name[PIECE];
		source_name(d, name);
		snprintf(out, PIECE, "std::%s", name);
		return;
	}
	int index = 0;
	if (*d->p != '_') {
		int seq = 0;
		while (isdigit((unsigned char)*d->p) || isupper((unsigned char)*d->p)) {
			seq = seq * 36 + (isdigit((unsigned char)*d->p) ? *d->p - '0' : *d->p - 'A' + 10);
			d->p++;
		}
		index = seq + 1;
	}
	if (*d->p != '_' || index >= d->sub_count) {
		fail(d);
		return;
	}
	d->p++;
	snprintf(out, PIECE, "%s", d->subs[index]);
}

static void type(struct demangler *d, char *out);

/* <template-args> ::= I <template-arg>+ E ; keep them for T_ when top is set. */
static void template_args(struct demangler *d, char *out, bool top)
{
	d->p++; /* 'I' */
	snprintf(out, PIECE, "<");
	if (top)
		d->targ_count = 0;
	for (int i = 0; d->ok && *d->p != 'E'; i++) {
		char arg[PIECE];
		if (*d->p == 'L') { /* L <type> <value number> E: an integer literal */
			d->p++;
			const char *kind = builtin(*d->p);
			if (!kind || *d->p == 'v' || *d->p == 'f' || *d->p == 'd' || *d->p == 'e') {
				fail(d);
				return;
			}
			char k = *d->p++;
			bool negative = *d->p == 'n';
			if (negative)
				d->p++;
			const char *digits = d->p;
			while (isdigit((unsigned char)*d->p))
				d->p++;
			if (d->p == digits || *d->p != 'E') {
				fail(d);
				return;
			}
			/* c++filt: 128 for int, 128u, 128l, 128ul; (bool)1 prints true */
			const char *suffix = k == 'j'   ? "u"
					     : k == 'l' ? "l"
					     : k == 'm' ? "ul"
					     : k == 'x' ? "ll"
					     : k == 'y' ? "ull"
							: "";
			if (k == 'b')
				snprintf(arg, PIECE, "%s", *digits == '0' ? "false" : "true");
			else if (k == 'i' || k == 'j' || k == 'l' || k == 'm' || k == 'x' || k == 'y')
				snprintf(arg, PIECE, "%s%.*s%s", negative ? "-" : "", (int)(d->p - digits), digits,
					 suffix);
			else
				snprintf(arg, PIECE, "(%s)%s%.*s", kind, negative ? "-" : "", (int)(d->p - digits),
					 digits);
			d->p++; /* 'E' */
		} else {
			type(d, arg);
		}
		if (top && d->targ_count < MAX_TARGS)
			snprintf(d->targs[d->targ_count++], PIECE, "%s", arg);
		if (i)
			append(d, out, ", ");
		append(d, out, arg);
	}
	if (*d->p != 'E') {
		fail(d);
		return;
	}
	d->p++;
	/* c++filt (libiberty) separates two closing brackets: "a<b<int> >". */
	append(d, out, out[strlen(out) - 1] == '>' ? " >" : ">");
}

/* <nested-name> ::= N <prefix>* <unqualified-name> [<template-args>] E.
 * Every prefix is a substitution candidate, and so is the whole name of a
 * type; a function's own name is not; a component that is itself a
 * substitution is not added again. Returns whether it ends in template
 * arguments (a function's are kept for T_). */
static bool nested_name(struct demangler *d, char *out, bool function)
{
	d->p++; /* 'N' */
	out[0] = '\0';
	bool templated = false;
	while (d->ok && *d->p && *d->p != 'E') {
		char part[PIECE];
		bool substituted = *d->p == 'S' && d->p[1] != 't';
		templated = *d->p == 'I';
		if (templated) {
			template_args(d, part, function);
			append(d, out, part);
		} else {
			if (*d->p == 'S')
				substitution(d, part);
			else
				source_name(d, part);
			if (out[0])
				append(d, out, "::");
			append(d, out, part);
		}
		if (!substituted && (!function || *d->p != 'E'))
			add_sub(d, out);
	}
	if (*d->p != 'E')
		fail(d);
	else
		d->p++;
	return templated;
}

/* <type>: builtin, qualified (K V r), pointer/reference (P R O), class
 * name (source or nested), substitution, template parameter. */
static void type(struct demangler *d, char *out)
{
	char c = *d->p;
	const char *b = builtin(c);
	if (b) {
		d->p++;
		snprintf(out, PIECE, "%s", b);
		return;
	}
	char inner[PIECE];
	switch (c) {
	case 'K':
	case 'V':
	case 'r': {
		/* CV-qualifiers bind to the type that follows: "float const". */
		char quals[32] = "";
		while (*d->p == 'r' || *d->p == 'V' || *d->p == 'K') {
			const char *q = *d->p == 'K' ? " const" : *d->p == 'V' ? " volatile" : " __restrict";
			/* The ABI orders r V K; c++filt prints "const volatile". */
			char next[32];
			snprintf(next, sizeof next, "%s%s", q, quals);
			snprintf(quals, sizeof quals, "%s", next);
			d->p++;
		}
		type(d, inner);
		snprintf(out, PIECE, "%s%s", inner, quals);
		add_sub(d, out);
		return;
	}
	case 'P':
	case 'R':
	case 'O':
		d->p++;
		type(d, inner);
		snprintf(out, PIECE, "%s%s", inner, c == 'P' ? "*" : c == 'R' ? "&" : "&&");
		add_sub(d, out);
		return;
	case 'S':
		substitution(d, out);
		if (d->ok && *d->p == 'I') { /* a substituted template name with arguments */
			char args[PIECE];
			template_args(d, args, false);
			append(d, out, args);
			add_sub(d, out);
		}
		return;
	case 'T': {
		d->p++;
		int index = 0;
		if (*d->p != '_') {
			while (isdigit((unsigned char)*d->p))
				index = index * 10 + (*d->p++ - '0');
			index++;
		}
		if (*d->p != '_' || index >= d->targ_count) {
			fail(d);
			return;
		}
		d->p++;
		snprintf(out, PIECE, "%s", d->targs[index]);
		add_sub(d, out);
		return;
	}
	case 'N':
		nested_name(d, out, false);
		return;
	default:
		if (isdigit((unsigned char)c)) {
			source_name(d, out);
			if (d->ok && *d->p == 'I') {
				add_sub(d, out);
				char args[PIECE];
				template_args(d, args, false);
				append(d, out, args);
			}
			add_sub(d, out);
			return;
		}
		fail(d);
	}
}

/* The function's <name>: returns whether it ends in template arguments (then
 * a return type follows before the parameters). */
static bool function_name(struct demangler *d, char *out)
{
	out[0] = '\0';
	if (*d->p == 'N')
		return nested_name(d, out, true);
	if (*d->p == 'S' && d->p[1] == 't') {
		substitution(d, out);
	} else {
		source_name(d, out);
	}
	if (d->ok && *d->p == 'I') {
		add_sub(d, out); /* <unscoped-template-name> */
		char args[PIECE];
		template_args(d, args, true);
		append(d, out, args);
		return true;
	}
	return false;
}

bool app_demangle(const char *name, char *out, size_t len)
{
	if (!name || strncmp(name, "_Z", 2) != 0)
		return false;
	struct demangler d = { .p = name + 2, .ok = true };
	char fname[PIECE], ret[PIECE] = "", params[PIECE] = "";
	bool templated = function_name(&d, fname);
	if (!*d.p)
		return false; /* a variable, not a function: "_Z4gemm" is c++filt's "gemm" */
	if (d.ok && templated)
		type(&d, ret);
	int n = 0;
	while (d.ok && *d.p) {
		char t[PIECE];
		type(&d, t);
		if (!d.ok)
			break;
		if (n == 0 && strcmp(t, "void") == 0 && !*d.p)
			break; /* f(void) is f() */
		if (n++)
			append(&d, params, ", ");
		append(&d, params, t);
	}
	if (!d.ok || *d.p)
		return false;
	int w = snprintf(out, len, "%s%s%s(%s)", ret, ret[0] ? " " : "", fname, params);
	return w > 0 && (size_t)w < len;
}
