# gpusizer: plain GNU make. `make` builds ./gpusizer; `make check` runs the
# tests; `make report` writes out/ from sizing.json. V=1 shows commands.
CC ?= cc
BUILD ?= build
PKGS = libcurl libcjson xlsxwriter libcmark-gfm zlib
CFLAGS ?= -O2 -g
WERROR ?=
SAN ?=
GS_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -D_DEFAULT_SOURCE $(WERROR) $(SAN)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lcmark-gfm-extensions -lm -ldl -lpthread
Q = $(if $(V),,@)

SRC := $(wildcard src/*.c)
OBJ := $(SRC:src/%.c=$(BUILD)/%.o)
LIBOBJ := $(filter-out $(BUILD)/main.o,$(OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check test report sanitize valgrind fuzz bench accuracy clean install uninstall
all: gpusizer

deps:
	$(Q)sh tools/deps.sh

gpusizer: $(BUILD)/gpusizer
	$(Q)if [ "$(BUILD)" = build ]; then cp $(BUILD)/gpusizer gpusizer.new && mv -f gpusizer.new gpusizer; fi

$(BUILD)/gpusizer: $(OBJ)
	$(Q)$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

$(BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(GS_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -Isrc $(GS_CFLAGS) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

units: $(UNIT_BIN)

# The README's test command: installs what is missing, builds, runs every test.
check: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/gpusizer units
	$(Q)GPUSIZER=$(CURDIR)/$(BUILD)/gpusizer UNIT_DIR=$(CURDIR)/$(BUILD)/tests sh tests/run.sh
test: check

# The README's main job: the committed default spec into out/, no network.
report: deps
	$(Q)$(MAKE) --no-print-directory gpusizer
	./gpusizer report --offline

sanitize: deps
	$(Q)sh tools/deps.sh clang fuzz
	$(Q)$(MAKE) --no-print-directory check BUILD=build/asan CC=clang \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" CFLAGS="-O1 -g"

valgrind: deps
	$(Q)sh tools/deps.sh valgrind
	$(Q)$(MAKE) --no-print-directory $(BUILD)/gpusizer units
	$(Q)GPUSIZER=$(CURDIR)/$(BUILD)/gpusizer UNIT_DIR=$(CURDIR)/$(BUILD)/tests \
	  GS_WRAP="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
	  sh tests/run.sh

accuracy: gpusizer
	python3 tests/accuracy.py

bench: gpusizer
	$(Q)sh bench/run.sh

clean:
	rm -rf build gpusizer

# Install: the binary, the man page, and under share/gpusizer the GPU
# classes, the templates, the verify harness and the reference model configs.
# The installed binary finds share/gpusizer from its own location
# (BINDIR/../share/gpusizer; elsewhere set GPUSIZER_DATA). DESTDIR stages.
#   make install PREFIX=$HOME/.local      make uninstall PREFIX=$HOME/.local
# GPUSIZER_BIN names the binary to install (default $(BUILD)/gpusizer, built
# when missing or stale). Uninstall removes what install-manifest lists.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
GS_DATADIR ?= $(DATAROOTDIR)/gpusizer
GPUSIZER_BIN ?= $(BUILD)/gpusizer
INSTALL ?= install
INSTALL_DATA_FILES = $(sort $(wildcard gpus/*.json) \
  $(shell find templates -type f ! -name '.*' 2>/dev/null) \
  $(wildcard models/*/config.json models/*/meta.json))

install: $(GPUSIZER_BIN)
	$(Q)set -e; d="$(DESTDIR)"; s="$(GS_DATADIR)"; m="$$d$$s/install-manifest"; \
	$(INSTALL) -d "$$d$(BINDIR)" "$$d$(MANDIR)/man1" "$$d$$s"; \
	: >"$$m.new"; \
	$(INSTALL) -m 755 "$(GPUSIZER_BIN)" "$$d$(BINDIR)/gpusizer"; echo "$(BINDIR)/gpusizer" >>"$$m.new"; \
	$(INSTALL) -m 644 gpusizer.1 "$$d$(MANDIR)/man1/gpusizer.1"; echo "$(MANDIR)/man1/gpusizer.1" >>"$$m.new"; \
	$(INSTALL) -m 755 tools/harness.py "$$d$$s/harness.py"; echo "$$s/harness.py" >>"$$m.new"; \
	for f in $(INSTALL_DATA_FILES); do \
	  $(INSTALL) -d "$$d$$s/$${f%/*}"; $(INSTALL) -m 644 "$$f" "$$d$$s/$$f"; echo "$$s/$$f" >>"$$m.new"; \
	done; \
	echo "$$s/install-manifest" >>"$$m.new"; mv -f "$$m.new" "$$m"; \
	echo "installed gpusizer in $$d$(PREFIX) ($$(wc -l <"$$m") files, listed in $$m)"
	$(Q)if [ "$(BINDIR)/../share/gpusizer" != "$(PREFIX)/bin/../share/gpusizer" ] || \
	  [ "$(GS_DATADIR)" != "$(PREFIX)/share/gpusizer" ]; then \
	  echo "note: gpusizer looks for its data in BINDIR/../share/gpusizer; set GPUSIZER_DATA=$(GS_DATADIR)"; fi

# Removes the files install-manifest lists (only under BINDIR, MANDIR and
# GS_DATADIR), else the files install would write; then the directories
# under GS_DATADIR left empty.
uninstall:
	$(Q)d="$(DESTDIR)"; s="$(GS_DATADIR)"; m="$$d$$s/install-manifest"; n=0; \
	if [ -f "$$m" ]; then \
	  while IFS= read -r f; do \
	    case "$$f" in *..*) continue ;; \
	      "$(BINDIR)/gpusizer"|"$(MANDIR)/man1/gpusizer.1"|"$$s"/*) ;; *) continue ;; esac; \
	    [ -e "$$d$$f" ] || [ -L "$$d$$f" ] || continue; rm -f "$$d$$f" && n=$$((n + 1)); \
	  done <"$$m"; \
	else \
	  for f in "$(BINDIR)/gpusizer" "$(MANDIR)/man1/gpusizer.1" "$$s/harness.py" \
	           $(addprefix "$$s"/,$(INSTALL_DATA_FILES)); do \
	    [ -e "$$d$$f" ] || continue; rm -f "$$d$$f" && n=$$((n + 1)); \
	  done; \
	fi; \
	if [ -d "$$d$$s" ]; then find "$$d$$s" -depth -type d -empty -delete; fi; \
	echo "removed $$n files from $$d$(PREFIX)"

-include $(OBJ:.o=.d)
# Targets contributed per area (fuzz, bench, ...).
-include $(wildcard mk/*.mk)
