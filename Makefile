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
# Two test processes: the suites that drive `canteen` and pcscd as child processes hold their
# thread while a child runs (waitUntilExit, sleeps), and in one process with the rest they took
# the cooperative pool (two threads on two cores) from the servers of the async suites for tens
# of seconds, long enough for those to time out.
PROCESS_SUITES := ^(CanteenCLITests|CardReaderTests)\.
test-swift: deps venv
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(PROCESS_SUITES)'
	$(SWIFT) test --skip-build --filter '$(PROCESS_SUITES)'

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

# Part of make test: the code as `make format` leaves it (the checked-in .swift-format), or a
# finding per line that is not.
TEST_SUITES += lint
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
# Traces (issue 31): `canteen serve --otel-endpoint` against an OTLP/HTTP receiver of the test's own
# on loopback (Tests/Tracing/run.py; opentelemetry-proto from requirements-test.txt). Seconds.
TEST_SUITES += test-traces
.PHONY: test-traces
test-traces: deps venv
	$(SWIFT) build --product canteen
	$(VENV)/bin/python Tests/Tracing/run.py --bin "$$($(SWIFT) build --show-bin-path)/canteen"
# The Debian package (issue 31). `make dist`: the release binary with the Swift runtime linked
# statically (built in .build-dist/), packaged by packaging/build-deb.sh as
# dist/canteen_VERSION_ARCH.deb and .tar.gz; VERSION is the latest versioned entry of CHANGELOG.md.
# `make test-install`: that package installed with apt on a Debian 12 system booted under qemu
# (Tests/InstallVM/; the system is debootstrapped once into .build-install/, git-ignored; needs root
# for debootstrap and chroot). `make test` installs the same package made from its own debug build
# instead (INSTALL_BUILD=debug: the debug objects relinked with the runtime static, a minute, where
# a release build takes 15-20 on this machine), so that the whole run stays well under 45 minutes.
APT_PACKAGES += dpkg-dev debootstrap qemu-system-x86 qemu-utils e2fsprogs openssh-client
# SwiftPM 6.3 links the static Foundation libraries without the ones they need after them
# (swiftlang/swift-package-manager#10564: undefined swift_udat_*, kCFBoolean* in a debug build):
# name them again in one group, so that the linker resolves them among themselves.
STATIC_FOUNDATION := FoundationNetworking _CFURLSessionInterface Foundation FoundationInternationalization \
	FoundationEssentials CoreFoundation _FoundationCollections _FoundationCShims _FoundationICU
DIST_SWIFT_FLAGS ?= --static-swift-stdlib -Xlinker --start-group \
	$(foreach library,$(STATIC_FOUNDATION),-Xlinker -l$(library)) -Xlinker --end-group
INSTALL_BUILD ?= release
TEST_SUITES += test-install-debug
.PHONY: dist test-install test-install-debug

dist: deps
	$(SWIFT) build -c release --product canteen --scratch-path .build-dist $(DIST_SWIFT_FLAGS)
	packaging/build-deb.sh "$$($(SWIFT) build -c release --scratch-path .build-dist --show-bin-path)/canteen" dist

ifeq ($(INSTALL_BUILD),release)
test-install: dist
	Tests/InstallVM/run.sh "$$(ls -t dist/canteen_*.deb | head -n 1)"
else
# The debug build the other suites made, linked with the static runtime (SwiftPM compiles a few
# modules again for it: Hummingbird, HummingbirdCore, SwiftProtobuf), copied out with the pages'
# files; then the objects compiled for the static runtime (their autolink entries name
# _FoundationCollections) are removed and the dynamic build is made again, as it was.
test-install: deps
	$(SWIFT) build --product canteen $(DIST_SWIFT_FLAGS)
	rm -rf .build-install/debug-binary && mkdir -p .build-install/debug-binary
	cp -R "$$($(SWIFT) build --show-bin-path)"/canteen "$$($(SWIFT) build --show-bin-path)"/Canteen_CanteenWeb.resources \
		.build-install/debug-binary/
	find .build/ -name '*.o' -print0 | xargs -0 grep -l --null _FoundationCollections | xargs -0 rm -f
	$(SWIFT) build --product canteen
	CANTEEN_DEB_QUICK=1 packaging/build-deb.sh .build-install/debug-binary/canteen .build-install/debug-package
	Tests/InstallVM/run.sh "$$(ls -t .build-install/debug-package/canteen_*.deb | head -n 1)"
endif

test-install-debug:
	@$(MAKE) --no-print-directory test-install INSTALL_BUILD=debug
