# Config parser and tally tests, linked with only the objects they need
# (test_arch_OBJ, test_config_OBJ in the Makefile), so they run while other
# areas are in flux:
#   make check-config
CONFIG_TESTS := test_arch test_config

.PHONY: check-config
check-config: $(CONFIG_TESTS:%=$(BUILD)/tests/%)
	$(Q)st=0; for t in $(CONFIG_TESTS); do $(GS_WRAP) $(BUILD)/tests/$$t || st=1; done; exit $$st
