# Config parser and tally tests built against only the objects they need
# (arch, config, err, util), so they run while other areas are in flux:
#   make check-config
CONFIG_TEST_OBJ := $(BUILD)/arch.o $(BUILD)/config.o $(BUILD)/err.o $(BUILD)/util.o
CONFIG_TESTS := test_arch test_config

.PHONY: check-config
check-config: $(CONFIG_TEST_OBJ)
	@mkdir -p $(BUILD)/config-tests
	$(Q)for t in $(CONFIG_TESTS); do \
	  $(CC) $(CPPFLAGS) $(PKG_CFLAGS) -Isrc $(GS_CFLAGS) $(CFLAGS) -o $(BUILD)/config-tests/$$t \
	    tests/unit/$$t.c $(CONFIG_TEST_OBJ) $(PKG_LIBS) -lm || exit 1; \
	done
	$(Q)st=0; for t in $(CONFIG_TESTS); do $(GS_WRAP) $(BUILD)/config-tests/$$t || st=1; done; exit $$st
