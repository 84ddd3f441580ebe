# OpenBench builds engines with `make EXE=<path>`; `make test` runs every test.
EXE ?=
CARGO ?= cargo
VENV := .venv

.PHONY: all test clean

all:
	$(CARGO) build --release
ifneq ($(EXE),)
	cp target/release/tessera$(if $(filter Windows_NT,$(OS)),.exe,) $(EXE)
endif

$(VENV)/installed: tests/uci/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/uci/requirements.txt
	touch $@

test: $(VENV)/installed
	$(CARGO) build --release
	$(CARGO) test --release --workspace
	$(VENV)/bin/python -m pytest -q tests/uci

clean:
	$(CARGO) clean
	rm -rf $(VENV)
