# `make docs`: rewrite the option lists of gpusizer.1 and README.md from the
# option tables compiled into gpusizer (tests/t_cli_docs.py checks them).
.PHONY: docs
docs: gpusizer
	$(Q)python3 tools/doc-options.py --gpusizer ./gpusizer
