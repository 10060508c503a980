# Quick start: `make demo` (the main job) and `make test` (the whole suite).
SWIFT ?= swift
DEMO_STORE ?= demo-store/demo.store

.PHONY: deps build test demo bench fuzz clean

# Installs what the build needs, only when missing: liblz4's headers and pkg-config.
deps:
	@if ! pkg-config --exists liblz4 2>/dev/null; then \
		echo "installing liblz4-dev and pkg-config"; \
		apt-get update -qq && apt-get install -y -qq liblz4-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: deps
	$(SWIFT) build -c release --product mrstore
	rm -rf demo-store && mkdir -p demo-store
	.build/release/mrstore demo $(DEMO_STORE)
	.build/release/mrstore info $(DEMO_STORE)
	.build/release/mrstore check $(DEMO_STORE)

bench: deps
	cd Benchmarks && $(SWIFT) run -c release storebench

clean:
	rm -rf .build demo-store
