# Canteen: `make run` starts the server, `make test` passes every test. Both install what is missing.
SWIFT ?= swift
APT_PACKAGES := libsqlite3-dev libbluetooth-dev libpcsclite-dev pcscd vsmartcard-vpcd python3
DATA_DIR ?= ./.canteen
HOST ?= 127.0.0.1
PORT ?= 8080

.PHONY: deps build release run test bench format lint clean

# Installs the C libraries the build links against, with sudo when not root.
deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		sudo=""; [ "$$(id -u)" -ne 0 ] && sudo="sudo"; \
		echo "Installing:$$missing"; \
		$$sudo apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build --product canteen

release: deps
	$(SWIFT) build -c release --product canteen

run: build
	"$$($(SWIFT) build --show-bin-path)/canteen" serve --data-dir $(DATA_DIR) --host $(HOST) --port $(PORT) --menus Menus

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	scripts/bench.sh

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build
