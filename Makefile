# cuzk - top-level entry points. Each target installs missing Debian
# packages first (scripts/deps.sh) and builds with CMake + Ninja.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local
DESTDIR    ?=
# The installed programs (CMake targets tool_<name>).
PROGRAMS   = tool_cuzk tool_cuzk-daemon tool_cuzk-bench tool_cuzk-seal

.PHONY: all deps build configure test test-unit test-asan bench run install uninstall fuzz fuzz-run soak format clean

all: build

deps:
	@scripts/deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# All tests: the release build's unit and integration tests, then the unit
# tests again under address + undefined-behaviour sanitizers, built at -O1
# as the sanitizers' documentation advises (on this 2-core VM, 2026-12-06:
# the unit tests 280 s against 394 s at -O0, the build 113 s against 51 s).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan

test-asan: deps
	@cmake -S . -B $(BUILD_ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF \
	    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)
	CUZK_TEST_QUICK=1 ctest --test-dir $(BUILD_ASAN) -L unit --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/cuzk-microbench

# The main job on an embedded default (scripts/run.sh says what it does):
# only the programs it runs are built, not the tests.
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target tool_cuzk tool_cuzk-daemon tool_cuzk-bench \
		tool_cuzk-seal cuzk-microbench
	@scripts/run.sh $(BUILD)

# The programs, a commented default cuzk.toml (kept if one is there), the
# systemd unit for cuzk-daemon and docs/curio.md under $(DESTDIR)$(PREFIX)
# (docs/curio.md); uninstall removes what the last install listed.
install: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(PROGRAMS) cuzk_default_config
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	@test -f $(BUILD)/install_manifest.txt || \
		{ echo "uninstall: no $(BUILD)/install_manifest.txt: nothing was installed from $(BUILD)" >&2; exit 1; }
	@while read -r f || [ -n "$$f" ]; do \
		echo "-- Removing: $(DESTDIR)$$f"; rm -f "$(DESTDIR)$$f"; \
		case "$${f%/*}" in */cuzk) rmdir "$(DESTDIR)$${f%/*}" 2>/dev/null || true ;; esac; \
	done <$(BUILD)/install_manifest.txt
	@rm -f $(BUILD)/install_manifest.txt

fuzz: deps
	@cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

# Each fuzz target for SECONDS (default 60) from its committed seed corpus
# (tests/fuzz/corpus/<target>/, new inputs go to build-fuzz/corpus/<target>/),
# one after the other: executions, corpus size and findings (crash files in
# build-fuzz/findings/<target>/) per target; exit 1 when any target found one.
SECONDS ?= 60
fuzz-run: fuzz
	@scripts/fuzz-run.sh build-fuzz $(SECONDS)

# The soak (scripts/soak.sh -h): SOAK_ARGS, e.g. SOAK_ARGS="-d 3600 -o soak-out".
SOAK_ARGS ?= -d 180
soak: build
	CUZK_BUILD=$(BUILD) scripts/soak.sh $(SOAK_ARGS)

format:
	@find include src tests bench tools -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-fuzz

# CUDA kernels (a machine with an NVIDIA GPU; CI only compiles them):
# correctness against the CPU, then the timing table up to 2^27.
.PHONY: test-gpu bench-gpu
test-gpu:
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target test_gpu
	$(BUILD)/tests/gpu/test_gpu

bench-gpu:
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target cuzk-gpu-bench
	$(BUILD)/tests/gpu/cuzk-gpu-bench 27
