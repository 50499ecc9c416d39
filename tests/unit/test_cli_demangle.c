/* app/read/demangle.c against GNU c++filt (binutils 2.40), the reference: each
 * expected string below is what `echo NAME | c++filt` prints. Names the
 * demangler is unsure of must come back false (the caller keeps them). */
#include "test_util.h"

#include <string.h>

#include "demangle.h"

static void test_against_cxxfilt(void **state)
{
	(void)state;
	static const struct {
		const char *mangled, *cxxfilt;
	} cases[] = {
		{ "_Z4gemmPKfS0_Pf", "gemm(float const*, float const*, float*)" },
		{ "_Z6kernelILi128EEvPf", "void kernel<128>(float*)" },
		{ "_Z6kernelIfEvPT_", "void kernel<float>(float*)" },
		{ "_ZN5flash7computeEPf", "flash::compute(float*)" },
		{ "_ZN5flash6kernelILi64ELb1EEEvPK6__halfPS1_i",
		  "void flash::kernel<64, true>(__half const*, __half*, int)" },
		{ "_Z10vector_addPKfS0_Pfi", "vector_add(float const*, float const*, float*, int)" },
		{ "_Z3barv", "bar()" },
		{ "_Z3bazPVKd", "baz(double const volatile*)" },
		{ "_ZN12_GLOBAL__N_16kernelEPi", "(anonymous namespace)::kernel(int*)" },
		{ "_Z1fIiEvT_S0_", "void f<int>(int, int)" },
		{ "_Z4testRKiOf", "test(int const&, float&&)" },
		{ "_Z6kernelILm4294967296EEvv", "void kernel<4294967296ul>()" },
		{ "_Z6kernelILi128EEvPKfPfi", "void kernel<128>(float const*, float*, int)" },
		{ "_ZN7cutlass4gemm6kernelINS_5ArrayEEEvPf", "void cutlass::gemm::kernel<cutlass::Array>(float*)" },
		{ "_ZN2at6native12_GLOBAL__N_16kernelEPf", "at::native::(anonymous namespace)::kernel(float*)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[512] = "";
		if (!app_demangle(cases[i].mangled, out, sizeof out) || strcmp(out, cases[i].cxxfilt) != 0)
			fail_msg("%s: got '%s', c++filt '%s'", cases[i].mangled, out, cases[i].cxxfilt);
	}
}

static void test_unsure_is_refused(void **state)
{
	(void)state;
	static const char *const names[] = {
		"k0",                                                        /* not mangled: a C kernel */
		"_Z",                                                        /* nothing after the prefix */
		"_Z4gemm",                                                   /* no parameter types */
		"_Z9gemPf",                                                  /* the length runs past the name */
		"_Z3fooPKcRKSs",                                             /* Ss (std::string): not read */
		"_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE", /* T_ inside a nested name */
		"_Z3fooS_",                                                  /* a substitution that does not exist */
		"_Z3fooPFviE",                                               /* a function pointer */
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char out[512] = "untouched";
		if (app_demangle(names[i], out, sizeof out))
			fail_msg("%s: demangled to '%s', expected a refusal", names[i], out);
		assert_string_equal(out, "untouched");
	}
	/* Too small a buffer is a refusal, not a truncation. */
	char tiny[8] = "";
	assert_false(app_demangle("_Z4gemmPKfS0_Pf", tiny, sizeof tiny));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_cxxfilt),
		cmocka_unit_test(test_unsure_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
