# The time model against measured speeds (issue 17): tests/speed/driver runs
# src/core/timing.c over the records of ../shared/measurements/speed.jsonl that
# tests/speed/cases.py maps to the model's inputs; tests/speed_accuracy.py
# prints median and p90 |error| per task and the unsupported records;
# tests/t_speed_accuracy.py (in make check) fails when it gets worse than
# tests/speed/baseline.json.
#   make speed-accuracy
speed_driver_OBJ = $(CORE) base/fileio base/utf8 base/util input/config input/gpu_file input/jsoncheck input/jsonget
$(BUILD)/speed/driver: tests/speed/driver.c $(call unit_objs,speed_driver)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(call unit_cflags,speed_driver) $(ALL_INC) $(GS_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< \
	  $(call unit_objs,speed_driver) $(call unit_libs,speed_driver)

.PHONY: speed-accuracy
speed-accuracy: $(BUILD)/speed/driver
	python3 tests/speed_accuracy.py --driver $(BUILD)/speed/driver
