/* gpusizer: Hugging Face config.json (cJSON) -> tallied gs_arch.
 *
 * Ownership: both functions borrow their string arguments and fill the
 * caller's gs_arch by value (it holds no pointers); nothing is left for
 * the caller to free. On failure *out is zeroed and e names the file and
 * the field ("models/x/config.json: field \"hidden_size\": must be a
 * positive integer (got -4)").
 *
 * Families read (model_type): llama, mistral, mixtral, qwen2, qwen2_moe,
 * qwen3, qwen3_moe, gemma, gemma2, gemma3 (its text_config) and
 * gemma3_text, phi3, gpt2, gpt_neox, falcon, bloom, bert, deepseek_v2,
 * deepseek_v3. Another model_type that has hidden_size, num_hidden_layers,
 * num_attention_heads, intermediate_size and vocab_size is sized as a
 * generic LLaMA-style decoder (generic = true, warning says what was
 * assumed). quantization_config: gptq, awq, bitsandbytes, fp8,
 * compressed-tensors (fp8 weights); others -> GS_QUANT_OTHER with a warning.
 *
 * Module names (gs_linear.name) are the family's own module names, or the
 * shortest dotted suffix of the module path that is unique within the
 * layer: gpt2 "c_attn", "attn.c_proj", "c_fc", "mlp.c_proj"; bert "query",
 * "key", "value", "attention.output.dense", "intermediate.dense",
 * "output.dense"; qwen2_moe "shared_expert.gate_proj"...; routed experts
 * carry expert = true and the per-expert name ("w1", "gate_proj").
 */
#ifndef GS_CONFIG_H
#define GS_CONFIG_H

#include <stddef.h>

#include "arch.h"
#include "err.h"

/* Largest config.json gs_config_load reads. */
#define GS_CONFIG_MAX_BYTES (16u * 1024u * 1024u)

/* Parse len bytes of JSON (need not be NUL-terminated) and fill *out
 * completely, then gs_arch_tally it. path is used only in messages and
 * copied into out->source (NULL: "config.json"). GS_ECONFIG for invalid
 * JSON or fields, GS_EOVERFLOW when sizes overflow 64-bit arithmetic. */
gs_err gs_config_parse(const char *json, size_t len, const char *path, gs_arch *out, gs_error *e);

/* Read the file at path (more than GS_CONFIG_MAX_BYTES: GS_ECONFIG "file
 * too large"; missing: GS_ENOTFOUND; unreadable: GS_EIO), then as
 * gs_config_parse. */
gs_err gs_config_load(const char *path, gs_arch *out, gs_error *e);

#endif
