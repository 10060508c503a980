# Quick start: `make demo` (the main job) and `make test` (the whole suite).
SWIFT ?= swift
DEMO_STORE ?= demo-store/demo.store

.PHONY: deps build test demo bench bench-engine fuzz clean

FUZZ_TARGET ?= FuzzStoreFile
FUZZ_SECONDS ?= 60

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
	.build/release/mrstore import $(DEMO_STORE) demo-store/demo.json --entity Person
	.build/release/mrstore count $(DEMO_STORE) --entity Person --where "age > 40 AND lastName BEGINSWITH 'S'"
	.build/release/mrstore fetch $(DEMO_STORE) --entity Person --where "lastName == 'Sato' AND age < 20" --sort "age:NO,firstName" --limit 5
	.build/release/mrstore aggregate $(DEMO_STORE) --entity Person --op average: --attribute salary --group-by department.departmentID | head -5
	.build/release/mrstore info $(DEMO_STORE)
	.build/release/mrstore check $(DEMO_STORE)

# mrbench: our store against SQLite (GRDB); BENCH_ARGS e.g. "--records 1000000 --json".
bench: deps
	@if ! pkg-config --exists sqlite3 2>/dev/null; then \
		echo "installing libsqlite3-dev"; \
		apt-get update -qq && apt-get install -y -qq libsqlite3-dev; \
	fi
	cd Benchmarks && $(SWIFT) run -c release mrbench $(BENCH_ARGS)

# storebench: the engine alone (pages, trees, commits).
bench-engine: deps
	cd Benchmarks && $(SWIFT) run -c release storebench

# libFuzzer: FUZZ_TARGET=FuzzStoreFile|FuzzKeyDecoding|FuzzJSONReader|FuzzImport, FUZZ_SECONDS of fuzzing from the seed corpus.
fuzz: deps
	cd Fuzz && $(SWIFT) build -c debug --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
		--scratch-path .build-fuzz --product $(FUZZ_TARGET)
	mkdir -p Fuzz/corpus-work/$(FUZZ_TARGET)
	cp -n Fuzz/corpus/$(FUZZ_TARGET)/* Fuzz/corpus-work/$(FUZZ_TARGET)/ 2>/dev/null || true
	cd Fuzz && SWIFT_BACKTRACE=enable=no .build-fuzz/debug/$(FUZZ_TARGET) \
		-max_total_time=$(FUZZ_SECONDS) corpus-work/$(FUZZ_TARGET)

clean:
	rm -rf .build demo-store
