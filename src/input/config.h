/* gpusizer: Hugging Face config.json (cJSON) -> tallied gs_arch.
 *
 * Ownership: both functions borrow their string arguments and fill the
 * caller's gs_arch by value (it holds no pointers); nothing is left for
 * the caller to free. On failure *out is zeroed and e names the file and
 * the field ("models/x/config.json: field \"hidden_size\": must be a
 * positive integer (got -4)").
 *
 * Families read (model_type; the table families[] in config.c): llama, mistral,
 * mixtral, qwen (Qwen v1), chatglm (ChatGLM2/3, GLM-4), qwen2, qwen2_moe, qwen3,
 * qwen3_moe, qwen3_next, gemma, gemma2, gemma3 (a wrapper: its text_config and its
 * SigLIP tower) and gemma3_text, phi3, phi, gptj, gpt2, gpt_bigcode, gpt_neox,
 * falcon, bloom, stablelm, starcoder2, olmo, olmo2, smollm3, bert, roberta,
 * distilbert, deepseek_v2, deepseek_v3 (and any model_type whose architectures
 * class is DeepseekV2/V3ForCausalLM: kimi_k2), gpt_oss, glm4_moe,
 * granitemoehybrid, nemotron_h, llama4 (a wrapper) and llama4_text, mistral3,
 * qwen2_5_vl, qwen3_vl, qwen3_vl_moe (wrappers: text_config, or the top level,
 * and the vision tower and projector into p_vision). Another model_type is sized
 * as a generic LLaMA-style decoder (generic = true, warning says what was
 * assumed) only when its config is one: experts, state-space or linear-attention
 * fields, layer_types other than full_attention, or a text or vision sub-config
 * (in an unknown family, or in a known one that does not read them) are refused
 * as GS_ECONFIG naming the field. Each layer's mixer and window follow the
 * config's layer_types or its config class's rule (gs_layer_kind). Python's
 * Infinity token is read as an infinite number (jsoncheck.h), so a field sized
 * from it is refused by name. quantization_config: gptq, awq, bitsandbytes, fp8
 * (weight_block_size: fp8 blocks), mxfp4, modelopt (NVFP4, FP8),
 * compressed-tensors (fp8 weights, 4-bit float groups of 16: nvfp4); others ->
 * GS_QUANT_OTHER with a warning.
 *
 * Module names (gs_linear.name) are the family's own module names, or the
 * shortest dotted suffix of the module path that is unique in the layer:
 *   llama, mistral, qwen2, qwen3, gemma*, olmo, olmo2, stablelm, generic:
 *     q_proj k_proj v_proj o_proj gate_proj up_proj down_proj
 *   phi3: qkv_proj o_proj gate_up_proj down_proj
 *   phi: q_proj k_proj v_proj dense fc1 fc2 (all with bias; lm_head too)
 *   gptj: q_proj k_proj v_proj out_proj (no bias) fc_in fc_out (bias)
 *   starcoder2: q_proj k_proj v_proj o_proj c_fc c_proj
 *   mixtral: (attention) + gate (router), w1 w3 w2 (experts)
 *   qwen2_moe: (attention) + gate, gate_proj up_proj down_proj (experts),
 *     shared_expert.gate_proj/.up_proj/.down_proj, shared_expert_gate
 *   qwen3_moe: (attention) + gate, gate_proj up_proj down_proj (experts)
 *   deepseek_v2/v3: q_proj or q_a_proj + q_b_proj, kv_a_proj_with_mqa,
 *     kv_b_proj, o_proj; dense kind gate_proj up_proj down_proj; MoE kind
 *     gate, gate_proj up_proj down_proj (experts),
 *     shared_experts.gate_proj/.up_proj/.down_proj (expert = false)
 *   gpt2, gpt_bigcode: c_attn attn.c_proj c_fc mlp.c_proj
 *   qwen (v1): c_attn attn.c_proj w2 (gate) w1 (up) mlp.c_proj
 *   chatglm: query_key_value dense dense_h_to_4h dense_4h_to_h
 *   gpt_neox, falcon, bloom: query_key_value dense dense_h_to_4h dense_4h_to_h
 *   bert, roberta: query key value attention.output.dense
 *     intermediate.dense output.dense
 *   distilbert: q_lin k_lin v_lin out_lin lin1 lin2 (ffn.lin1, ffn.lin2)
 * Output-head biases (phi, gptj) are in p_head even when the weight is
 * tied. Partial rotary (partial_rotary_factor, rotary_dim) is validated but
 * not recorded: gs_arch has only `rotary`, and rotary adds no parameters.
 * Routed experts have expert = true, count = experts, active = top-k; MoE
 * families whose layers differ get two layer kinds (dense first).
 */
#ifndef GS_CONFIG_H
#define GS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "err.h"

/* Plausibility bounds on a config's shape fields, far above any released
 * model (largest known: hidden 25600, 126 layers, 128 heads, intermediate
 * 73728, vocab 262144, 512 experts). A larger value is refused as
 * GS_ECONFIG naming the file and the field ("PATH: field \"num_experts\":
 * too large: 1000000000 is implausible (at most 65536, ...)"), never
 * sized; sizes that overflow 64 bits are reported as GS_EOVERFLOW first.
 *   hidden_size n_embd n_embed dim                        GS_CFG_MAX_HIDDEN
 *   num_hidden_layers n_layer n_layers                    GS_CFG_MAX_LAYERS
 *   num_attention_heads n_head n_heads num_key_value_heads GS_CFG_MAX_HEADS
 *   intermediate_size n_inner ffn_hidden_size hidden_dim
 *   moe_intermediate_size shared_expert_intermediate_size GS_CFG_MAX_INTERMEDIATE
 *   vocab_size                                            GS_CFG_MAX_VOCAB
 *   num_experts num_local_experts n_routed_experts
 *   n_shared_experts num_experts_per_tok                  GS_CFG_MAX_EXPERTS */
#define GS_CFG_MAX_HIDDEN ((int64_t)1 << 20)
#define GS_CFG_MAX_LAYERS ((int64_t)1 << 16)
#define GS_CFG_MAX_HEADS ((int64_t)1 << 16)
#define GS_CFG_MAX_INTERMEDIATE ((int64_t)1 << 24)
#define GS_CFG_MAX_VOCAB ((int64_t)1 << 24)
#define GS_CFG_MAX_EXPERTS ((int64_t)1 << 16)

/* Largest config.json gs_config_load reads. */
#define GS_CONFIG_MAX_BYTES (16u * 1024u * 1024u)

/* Parse len bytes of JSON (need not be NUL-terminated) and fill *out
 * completely, then gs_arch_tally it. path is used only in messages and
 * copied into out->source (NULL: "config.json"). GS_ECONFIG for invalid
 * JSON or fields, GS_EOVERFLOW when sizes overflow 64-bit arithmetic. */
gs_err gs_config_parse(const char *json, size_t len, const char *path, gs_arch *out, gs_error *e);

/* Read the file at path (more than GS_CONFIG_MAX_BYTES: GS_ECONFIG "file
 * too large"; missing: GS_ENOFILE; unreadable: GS_EIO), then as
 * gs_config_parse. */
gs_err gs_config_load(const char *path, gs_arch *out, gs_error *e);

/* Whether a context of *seq tokens is within the model's positions
 * (a->max_pos; 0, unknown, always is). Past them: GS_EUSAGE "--seq N is
 * past the model's max_position_embeddings (M, SOURCE) ...; pass
 * --allow-long-context ..." unless allow, when it is GS_OK with a warning
 * for the command to print in warn[n]; a default context (is_default, no
 * --seq given) past them is lowered to M, with a warning saying so. warn
 * is "" otherwise. Borrows everything. */
gs_err gs_config_check_seq(const gs_arch *a, int64_t *seq, bool is_default, bool allow, char *warn,
                           size_t n, gs_error *e);

#endif
