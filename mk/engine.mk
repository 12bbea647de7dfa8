# Engine benchmark (make bench runs bench/b_*.sh): linked, as test_engine
# is, with the engine and the config parser only (engine_bench_OBJ).
engine_bench_OBJ = $(test_engine_OBJ)
$(BUILD)/bench/engine_bench: bench/engine_bench.c $(call unit_objs,engine_bench)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(call unit_cflags,engine_bench) -Isrc $(GS_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	  $(call unit_objs,engine_bench) $(call unit_libs,engine_bench)
