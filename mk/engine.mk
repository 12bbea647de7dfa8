# Engine benchmark (make bench runs bench/b_*.sh): linked, as test_engine
# is, with the engine and the config parser, and the time model.
engine_bench_OBJ = $(test_engine_OBJ)
$(BUILD)/bench/engine_bench: bench/engine_bench.c $(call unit_objs,engine_bench)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(call unit_cflags,engine_bench) $(ALL_INC) $(GS_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	  $(call unit_objs,engine_bench) $(call unit_libs,engine_bench)

# Plan benchmark: the engine's objects with the planner and the GPU files.
plan_bench_OBJ = $(test_engine_OBJ) input/gpu_file
$(BUILD)/bench/plan_bench: bench/plan_bench.c $(call unit_objs,plan_bench)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(call unit_cflags,plan_bench) $(ALL_INC) $(GS_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	  $(call unit_objs,plan_bench) $(call unit_libs,plan_bench)
