# Engine benchmark (make bench runs bench/b_*.sh).
$(BUILD)/bench/engine_bench: bench/engine_bench.c $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -Isrc $(GS_CFLAGS) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)
