# Canteen: `make run` starts the server, `make test` passes every test. Both install what is missing.
SWIFT ?= swift
# Debian packages the build and the tests need; each area appends its own line.
APT_PACKAGES := libsqlite3-dev libbluetooth-dev libpcsclite-dev pcscd vsmartcard-vpcd python3 python3-venv
DATA_DIR ?= ./.canteen
HOST ?= 127.0.0.1
PORT ?= 8080
# The tests' Python packages (pinned in requirements-test.txt) live in this git-ignored virtualenv.
VENV := .build-venv

# The suites `make test` runs, in order; each area appends its own target.
TEST_SUITES := test-swift

.PHONY: deps venv build release run test test-swift bench format lint clean

# Installs the Debian packages the build and tests need, with sudo when not root.
deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" -ne 0 ] && sudo="sudo"; \
		echo "Installing:$$missing"; \
		$$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; \
	fi

# The tests' Python packages, installed from PyPI into $(VENV) when requirements-test.txt changed.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-test.txt | deps
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-test.txt
	touch $@

build: deps
	$(SWIFT) build --product canteen

release: deps
	$(SWIFT) build -c release --product canteen

run: build
	"$$($(SWIFT) build --show-bin-path)/canteen" serve --data-dir $(DATA_DIR) --host $(HOST) --port $(PORT) --menus Menus

test: deps venv
	@for suite in $(TEST_SUITES); do $(MAKE) --no-print-directory $$suite || exit 1; done

# The Swift Testing suites (SQLite, the HTTP layer in-process and live, pcscd with a virtual reader).
# (venv: the sign-in tests run the test identity provider, Tests/IdentityProvider, on its Python.)
test-swift: deps venv
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Every module a target imports is declared in its own dependencies in Package.swift (issue 28):
# SwiftPM's own check accepts modules that arrive through another dependency.
TEST_SUITES += check-imports
.PHONY: check-imports
check-imports: deps
	$(SWIFT) package resolve
	python3 scripts/check-imports.py

bench: deps
	scripts/bench.sh

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build

# PostgreSQL (issue 15): the store suite on both engines and several servers on one database,
# against a private server started and stopped by scripts/test-postgres.sh (about 2–3 minutes).
APT_PACKAGES += postgresql-15 postgresql-client-15
TEST_SUITES += test-postgres
.PHONY: test-postgres
test-postgres: deps
	$(SWIFT) build --build-tests
	scripts/test-postgres.sh
# The live scanner against BlueZ's controller emulator in a qemu VM (Tests/BlueZVM/; installs qemu,
# busybox-static, bluez, bluez-test-tools, strace and cpio, caches Debian's kernel in .build-bluez/).
TEST_SUITES += test-bluez
.PHONY: test-bluez
test-bluez: deps
	$(SWIFT) build --product canteen
	Tests/BlueZVM/run.sh "$$($(SWIFT) build --show-bin-path)/canteen"
# MARK: - Hardening (issue 16): contract fuzzing, fuzzers, the benchmark report
# schemathesis --checks all against a live server with a token of each role (about 10 minutes here).
TEST_SUITES += test-contract
CONTRACT_EXAMPLES ?= 8
FUZZ_SECONDS ?= 120
.PHONY: test-contract fuzz bench-check

test-contract: deps venv
	$(SWIFT) build --product canteen
	$(VENV)/bin/python scripts/contract-test.py --bin "$$($(SWIFT) build --show-bin-path)/canteen" --examples $(CONTRACT_EXAMPLES)

# libFuzzer targets (btsnoop, hci, nfc, menu, order), FUZZ_SECONDS each; see scripts/fuzz.sh.
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

# A benchmark run compared with the committed bench/results.json: any figure 20 % worse fails.
bench-check: deps
	BENCH_OUT=.build-bench scripts/bench.sh
	python3 scripts/bench-report.py check bench/results.json .build-bench/results.json
# The pages (/kds, /kiosk, /board, /ops; issues 12, 17 and 33) in a real browser: Debian's Chromium headless,
# driven by selenium through Debian's chromedriver (nothing downloaded); CJK fonts for the
# screenshots. Each test starts its own `canteen serve` on a free loopback port and stops it.
# About 3 minutes here; screenshots of every screen land in .build-screenshots/ (git-ignored).
APT_PACKAGES += chromium chromium-driver fonts-ipafont-gothic fonts-wqy-microhei
# The console's provisioning QR codes are decoded from screenshots by zbarimg (issue 33).
APT_PACKAGES += zbar-tools
TEST_SUITES += test-browser
.PHONY: test-browser
test-browser: deps venv
	$(SWIFT) build --product canteen
	CANTEEN_BIN="$$($(SWIFT) build --show-bin-path)/canteen" $(VENV)/bin/python Tests/Browser/run.py
