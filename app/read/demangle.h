/* A compact Itanium C++ ABI demangler for kernel names in compiler reports
 * (ptxas -v, cuobjdump): ridge must not need binutils' c++filt at run time.
 * It reads the common kernel signatures: plain and nested (N...E) names,
 * template arguments (types, integer literals, T_ references), builtin
 * parameter types with const/volatile/pointer/reference, class types, and
 * substitutions (S_, S0_, ...; St for std::). Anything else (operators,
 * lambdas, function pointers, ABI tags, ...) is "unsure": the caller keeps the
 * mangled name. The output is c++filt's for what it reads
 * (_Z4gemmPKfS0_Pf -> gemm(float const*, float const*, float*)). */
#ifndef RIDGE_CLI_DEMANGLE_H
#define RIDGE_CLI_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Demangles name into out (len bytes). Returns false, out untouched, when
 * name is not a mangled name this demangler is sure of, or out is too short. */
bool app_demangle(const char *name, char *out, size_t len);

#endif
