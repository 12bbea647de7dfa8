/* gpusizer: stack profiles (`--stack NAME[@VERSION],...`). A profile sets
 * the row's settings as one framework does, at the versions where its
 * behaviour changed, each choice with the source file and release it
 * follows; profiles combine in order, later ones winning, and a setting
 * given beside the stack (a flag, a spec's axis or fixed setting) wins
 * over every profile. The table is the one list of what each stack does:
 * `gpusizer list stacks` prints it, tests/t_stacks.py holds it against its
 * own table of sources. Pure: no I/O. */
#ifndef GS_STACKS_H
#define GS_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "err.h"
#include "settings.h"

/* When a choice holds, beside its version range: a condition on the row
 * (and, for the families' own code, on the model). */
typedef enum gs_stack_when {
	GS_SW_ALWAYS = 0,
	GS_SW_TRAIN,        /* training: full, LoRA, QLoRA */
	GS_SW_FULL,         /* full fine-tuning */
	GS_SW_FULL_BF16,    /* full fine-tuning, compute dtype not fp16 */
	GS_SW_FULL_FP16,    /* full fine-tuning, --compute-dtype fp16 */
	GS_SW_NOT_QLORA,    /* full or LoRA (or inference) */
	GS_SW_ADAPTER,      /* LoRA or QLoRA */
	GS_SW_QLORA,        /* QLoRA */
	GS_SW_QUANT_BASE,   /* LoRA or QLoRA over a quantized base */
	GS_SW_BASE16,       /* LoRA over a 16-bit base (bf16 or fp16 storage) */
	GS_SW_KBIT,         /* PEFT's k-bit preparation runs (gs_settings_kbit_prep) */
	GS_SW_ZERO,         /* training under DeepSpeed ZeRO (zero1, zero2, zero3) */
	GS_SW_MULTI,        /* training on several GPUs */
	GS_SW_MULTI_FULL,   /* full fine-tuning on several GPUs */
	GS_SW_MULTI_ADAPTER, /* LoRA or QLoRA on several GPUs */
	GS_SW_CKPT_512,     /* training, checkpointing on, --seq 512 or more */
	GS_SW_INFER,        /* inference */
	GS_SW_HF_HEAD,      /* the model runs transformers' own modeling code (not remote code) */
	GS_SW_FLOAT_HEAD,   /* remote code whose head returns logits.float() (ChatGLM) */
	GS_SW_TUPLE_CACHE,  /* remote code that caches keys and values in tuples (Qwen v1, ChatGLM, Baichuan) */
	GS_SW_ALL_LOGITS,   /* remote code whose head projects every position in generate (Qwen v1, Baichuan) */
	GS_SW_SOFTCAP,      /* the config caps attention scores (Gemma 2) */
	GS_SW_TRAIN16,      /* full or LoRA (not QLoRA, not inference) */
	GS_SW_ZERO3_LORA,   /* LoRA over a 16-bit base under zero3 */
	GS_SW_FULL_HEAD16,  /* full fine-tuning of a family whose head hands 16-bit logits on (Qwen v1) */
	GS_SW_MAX
} gs_stack_when;

/* One choice a profile makes. setting is a settings-table name, or
 * "runtime" / "train-runtime": the time model's inference runtime and
 * training stack (gs_stack_runtimes). A weak choice is a default of the
 * profile's own that an earlier profile's choice of the same setting
 * keeps (DeepSpeed's bucket size under the HF Trainer's "auto"). */
typedef struct gs_stack_set {
	const char *setting;
	const char *value;
	const char *since, *until; /* the versions it holds for: since <= v < until; NULL: open */
	gs_stack_when when;
	bool weak;
	const char *source;        /* the code it follows: file, release */
} gs_stack_set;

typedef struct gs_stack {
	const char *name;
	const char *what;          /* one line for `list stacks` and the README */
	bool modifier;             /* over another stack: alone it goes over the default */
	const char *base;          /* profiles applied before it unless named ("hf,peft"); NULL: none */
	const char *version;       /* the version read when none is named (the newest read) */
	const gs_stack_set *sets;
	size_t n_sets;
} gs_stack;

/* The profiles (*n of them, static, in `list stacks` order). */
const gs_stack *gs_stacks(size_t *n);
/* A profile by name; NULL if none. */
const gs_stack *gs_stack_find(const char *name);
/* What a condition means, for readers ("QLoRA", ...). Static. */
const char *gs_stack_when_text(gs_stack_when w);
/* Whether version v (dotted numbers) lies in [since, until). */
bool gs_stack_version_in(const char *v, const char *since, const char *until);

/* Check a stack text, NAME[@VERSION][,NAME[@VERSION]...]: known names,
 * versions of dotted numbers, no name twice; copy it into out (n bytes).
 * GS_EUSAGE naming the bad part and the known names. */
gs_err gs_stack_check(const char *text, char *out, size_t n, gs_error *e);

/* Apply s->stack to s: each named profile in order, its base profiles
 * first (those the text does not name, at their own versions), every
 * choice whose versions hold and whose condition holds at that moment,
 * except the settings in s->given (those given beside the stack) and weak
 * choices of settings an earlier profile chose. A stack of modifiers only
 * goes over the default ("hf"). a may be NULL: then the conditions on
 * the model's family do not hold. GS_EUSAGE when the stack text is bad,
 * GS_EINTERNAL when a choice does not parse (a table error the tests
 * catch). */
gs_err gs_stack_apply(gs_settings *s, const gs_arch *a, gs_error *e);
/* The same after a change to given settings (a planner's layout or step):
 * every setting not given back to its default, then the stack again, so
 * that its choices follow the change (a DeepSpeed bucket under a ZeRO
 * layout, Unsloth's offload at 512 tokens). */
gs_err gs_stack_reapply(gs_settings *s, const gs_arch *a, gs_error *e);

/* The time model's inference runtime and training stack that a stack text
 * names (the last choice in its order), as gs_runtime_parse and
 * gs_train_runtime_parse take them (static); NULL where it names none. */
void gs_stack_runtimes(const char *stack, const char **runtime, const char **train_runtime);

#endif
