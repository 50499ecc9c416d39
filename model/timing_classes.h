/* The kernel classes of the time model (timing.h), one line a class: what
 * differs from one class to the next is a column here, and every list that
 * follows a class is generated from this table (model/README.md, "time
 * model"; app/README.md, "Adding a time-model class / a model family"):
 *
 *   enum ridge_time_class (timing.h)        RIDGE_TIME_<NAME>, in this order
 *   timing_class_name() (timing.c)          "name"
 *   timing_kernel_class() (timing.c)        the kernels column
 *   enum ridge_timing_slot (gpu.h)          the slots column, in this order
 *   timing_slot(), timing_slot_key()        the same
 *   timing.<key> maps of an hwdb entry      hwdb/schema.c (loader, writer, hw show)
 *   the probe's fixed-cost fallback         the intercept column (timing_probe_fixed_cost)
 *   ridge calibrate's kernel-name classes   the patterns column (app/calc/calibrate_calc.c)
 *
 *   X(u, NAME, "name", slots, kernels, patterns, intercept)
 *
 *   u          passed through to X unchanged (what the caller needs there)
 *   slots      the entry's timing slots (struct ridge_gpu timing[], the
 *              entry's `timing.<key>` maps): NONE (the floor is the model:
 *              no efficiencies, no fixed cost), ONE (RIDGE_SLOT_<NAME>, key
 *              "name"), PER_IMPL (one a RIDGE_ATTENTION_SLOT_IMPLS
 *              implementation: RIDGE_SLOT_<NAME>_FA2, key "name_fa2", ...;
 *              the implementation is resolved for the class's kernels)
 *   kernels    K(KERNEL) for each enum ridge_kernel (intensity.h) the class
 *              times; every kernel is in exactly one class (timing.c checks
 *              it at compile time)
 *   patterns   P("text") for each piece of a profiled kernel's name that puts
 *              it in the class (case-insensitive): ridge calibrate tries the
 *              PER_IMPL classes first (fused attention kernels carry library
 *              names, cutlass, too), then the others in this order; a class
 *              without patterns is never given to a profiled kernel
 *   intercept  the fixed cost the class falls back on when its own is not
 *              known: GEMM (ridge-probe's launch.gemm_fixed_cost, else
 *              launch.kernel_fixed_cost) or KERNEL (launch.kernel_fixed_cost)
 *
 * Pass RIDGE_TIME_NONE for K or P where they are not needed. */
#ifndef RIDGE_TIMING_CLASSES_H
#define RIDGE_TIMING_CLASSES_H

/* clang-format off */
#define RIDGE_TIME_CLASSES(X, K, P, u)                                                                           \
	/* algorithms ridge models itself: the floor is the model */                                           \
	X(u, OWN, "own", NONE, K(GEMM_NAIVE) K(GEMM_TILED) K(ATTENTION), , KERNEL)                              \
	/* MoE experts' grouped GEMM (torch._grouped_mm, CUTLASS grouped, fused MoE): priced by model/serve.c */\
	X(u, GROUPED_GEMM, "grouped_gemm", ONE, , P("GroupProblemShape") P("grouped_mm") P("fused_moe"), GEMM)     \
	/* library GEMM and GEMV (cuBLAS, hipBLASLt) */                                                         \
	X(u, GEMM, "gemm", ONE, K(GEMM) K(GEMV),                                                                \
	  P("gemm") P("gemv") P("nvjet") P("cutlass") P("xmma") P("splitKreduce"), GEMM)                        \
	/* the same kernels in fp8 (e4m3 in, scaled): timing.c moves a gemm-class kernel of an fp8 shape here; */\
	/* no patterns (a profiled kernel's name does not reliably say fp8)                                 */\
	X(u, GEMM_FP8, "gemm_fp8", ONE, , , GEMM)                                                               \
	/* and in fp4 (NVFP4: e2m1 in, 16-element block scales): timing.c moves a gemm-class kernel of an fp4 */ \
	/* shape here; no patterns, as gemm_fp8                                                              */ \
	X(u, GEMM_FP4, "gemm_fp4", ONE, , , GEMM)                                                               \
	/* FlashAttention-style fused attention */                                                              \
	X(u, ATTENTION, "attention", PER_IMPL, K(FLASH_ATTENTION), P("fmha") P("attention"), KERNEL)            \
	/* rmsnorm, layernorm, residual-rmsnorm, rmsnorm-linear */                                              \
	X(u, NORM, "norm", ONE, K(RMSNORM) K(LAYERNORM) K(RESIDUAL_RMSNORM) K(RMSNORM_LINEAR), P("norm"),       \
	  KERNEL)                                                                                               \
	/* softmax and row reductions */                                                                        \
	X(u, SOFTMAX, "softmax", ONE, K(SOFTMAX) K(REDUCTION), P("softmax") P("reduce_kernel"), KERNEL)        \
	/* vector-add, activation */                                                                            \
	X(u, ELEMENTWISE, "elementwise", ONE, K(VECTOR_ADD) K(ACTIVATION), P("elementwise") P("vectorized"),   \
	  KERNEL)                                                                                               \
	/* PyTorch's element-wise ops on non-contiguous views (its unvectorized elementwise_kernel, its cat): */ \
	/* priced by model/serve.c for --layer-ops pytorch; no patterns (a profiled name cannot tell a view)  */ \
	X(u, ELEMENTWISE_STRIDED, "elementwise_strided", ONE, , , KERNEL)

/* The attention implementations (enum ridge_attention_impl, timing.h) that
 * have their own slot in a PER_IMPL class, in slot order: S(u, NAME, IMPL,
 * "key") with NAME the class and "key" its slot's hwdb key. */
#define RIDGE_ATTENTION_SLOT_IMPLS(S, u, NAME, name)                                                             \
	S(u, NAME, FA2, name "_fa2") S(u, NAME, FA3, name "_fa3") S(u, NAME, CUDNN, name "_cudnn")             \
	S(u, NAME, SPLIT_KV, name "_split_kv") S(u, NAME, PER_HEAD, name "_per_head")                     \
	S(u, NAME, EFFICIENT, name "_efficient") S(u, NAME, REPEAT_KV, name "_repeat_kv")             \
	S(u, NAME, REPEAT_KV_FUSED, name "_repeat_kv_fused")

/* Every slot in order: S(u, SLOT, NAME, IMPL, "key"): SLOT the suffix of
 * RIDGE_SLOT_<SLOT> (GEMM, ATTENTION_FA2, ...), NAME its class's, IMPL the
 * implementation a PER_IMPL class's slot is for (DEFAULT in a ONE class: any). */
#define RIDGE_TIMING_SLOT_LIST(S, u) RIDGE_TIME_CLASSES(RIDGE_TIME_SLOTS_OF_, RIDGE_TIME_NONE, RIDGE_TIME_NONE, (S, u))
/* clang-format on */

#define RIDGE_TIME_NONE(...)
#define RIDGE_TIME_FIRST_(a, b) a
#define RIDGE_TIME_SECOND_(a, b) b
#define RIDGE_TIME_SLOTS_OF_(su, NAME, name, slots, kernels, patterns, intercept) \
	RIDGE_TIME_SLOTS_##slots(su, NAME, name)
#define RIDGE_TIME_SLOTS_NONE(su, NAME, name)
#define RIDGE_TIME_SLOTS_ONE(su, NAME, name) RIDGE_TIME_FIRST_ su(RIDGE_TIME_SECOND_ su, NAME, NAME, DEFAULT, name)
#define RIDGE_TIME_SLOTS_PER_IMPL(su, NAME, name) RIDGE_ATTENTION_SLOT_IMPLS(RIDGE_TIME_SLOT_IMPL_, su, NAME, name)
#define RIDGE_TIME_SLOT_IMPL_(su, NAME, IMPL, key) \
	RIDGE_TIME_FIRST_ su(RIDGE_TIME_SECOND_ su, NAME##_##IMPL, NAME, IMPL, key)

#endif
