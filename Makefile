# The two commands a user needs: `make demo` (the main job) and `make test`.
# Both install the Debian packages they need first (as root; no network but
# Debian's mirror is required).
PY      := /usr/bin/python3
BUILD   := build
DEBS    := cmake g++ make ccache libboost-dev nlohmann-json3-dev libperl-dev libmariadb-dev \
           mariadb-server mariadb-client mariadb-test gdb pybind11-dev \
           python3-pybind11 python3-pytest python3-pytest-xdist python3-setuptools python3-pip python3-venv python3-pandas python3-matplotlib \
           python3-jsonschema python3-nbclient python3-nbformat python3-ipykernel python3-distributed python3-scipy libgtest-dev \
           libbenchmark-dev clang libclang-rt-14-dev python3-jinja2 python3-lxml python3-yaml chromium-headless-shell
export PYTHONPATH := $(CURDIR)/python

.PHONY: deps build check test sanitize tsan asan demo bench fuzz clean

deps:
	@missing=$$(for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "== installing Debian packages:" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# CMakeLists.txt owns the flags (RelWithDebInfo at -g1, through ccache), the same for `pip install .`,
# whose compile then comes from the cache this build filled.
build: deps
	cmake -S . -B $(BUILD) -DPython3_EXECUTABLE=$(PY) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j$$(nproc)

# pytest in several processes, a test file each at a time (a module's server is
# shared by its tests), since most tests wait on servers or on their own time
# budgets (make test runs four on two cores: 12-15 instead of 18.5 minutes; six
# took longer, 14:21 against 12:16, and three tests that count rounds done in a
# fixed budget failed);
# then, alone, the tests marked `timing` (speed comparisons, replayed races).
# -rs: every skip says why.
PYTEST := $(PY) -m pytest tests/python -q -rs -p no:cacheprovider --durations=10

# The fast tier, for every change: GoogleTest and the Python tests not marked
# `slow` or `timing` (at most 5 minutes of testing on 2 cores).
check: build
	cd $(BUILD) && ctest --output-on-failure -j2
	$(PYTEST) -n 2 --dist loadfile -m "not slow and not timing"

# Everything: the sanitizer builds, all of pytest, then the timing tests alone.
test: build sanitize
	cd $(BUILD) && ctest --output-on-failure -j2
	$(PYTEST) -n 4 --dist loadfile -m "not timing"
	$(PYTEST) -m timing

# The C++ suite (the executor and servers under faults included) under
# ThreadSanitizer and AddressSanitizer; any report fails the target. Two tests
# at a time, as in `check`: most of them wait on servers. Built with Clang: in
# half GCC's time, and a second compiler shows that a seed gives the same SQL
# from both (QueryBuilder.TwentyThousandStatementsAreTheSameFromEveryCompiler).
sanitize: tsan asan

tsan asan: deps
	cmake -S . -B build-$@ -DGAUNTLET_SANITIZE=$(if $(filter tsan,$@),thread,address) \
	  -DCMAKE_CXX_COMPILER=clang++ -DGAUNTLET_BUILD_PYTHON=OFF >/dev/null
	cmake --build build-$@ -j$$(nproc) --target gauntlet_tests
	cd build-$@ && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ASAN_OPTIONS="detect_leaks=1" \
	  ctest -j2 --output-on-failure

# The main job: a two-minute hunt (gauntlet hunt) on a MariaDB that Gauntlet
# bootstraps and starts: the stock hunting grammars in turn on random schemas,
# every single-server oracle, root causes as they form (the known bugs of the
# catalogue by name), the new ones' minimal queries checked by mariadb-test-run;
# it ends with the bugs it met, each with its reproducer, and the reports' paths.
# A new cause (exit 1) is what the demo is for, so only bad input or setup
# (exit 2) fails it.
# DEMO_OUT: its folder (tests/python/test_docs_ci.py runs the demo into one of its own).
DEMO_OUT ?= demo-hunt
demo: build
	$(PY) -m gauntlet gensql --grammar grammars/optimizer.yy --queries 3 --seed 1
	$(PY) -m gauntlet hunt --duration 120 --seed 4 --out $(DEMO_OUT) --html $(DEMO_OUT)/report.html \
	  --markdown $(DEMO_OUT)/summary.md --junit $(DEMO_OUT)/junit.xml; test $$? -le 1

bench: build
	@dpkg -s sysbench >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench)
	$(PY) benchmarks/bench_generate.py
	$(PY) benchmarks/bench_sysbench.py
	$(PY) benchmarks/bench_builder.py
	$(PY) benchmarks/bench_reduce.py
	$(PY) benchmarks/bench_combi.py
	$(PY) benchmarks/bench_minimise.py
	$(PY) benchmarks/bench_ab.py
	$(PY) benchmarks/bench_verified.py

fuzz: deps
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DGAUNTLET_BUILD_FUZZERS=ON \
	  -DGAUNTLET_BUILD_PYTHON=OFF -DGAUNTLET_BUILD_TESTS=OFF -DGAUNTLET_SANITIZE=address >/dev/null
	cmake --build build-fuzz -j$$(nproc) --target grammar_fuzzer
	mkdir -p build-fuzz/corpus && cp grammars/*.yy grammars/oltp/*.yy tests/fuzz/regressions/* build-fuzz/corpus/
	build-fuzz/tests/fuzz/grammar_fuzzer build-fuzz/corpus -artifact_prefix=build-fuzz/ \
	  -max_total_time=$${FUZZ_SECONDS:-180} -max_len=4096 -rss_limit_mb=4096

clean:
	rm -rf $(BUILD) build-fuzz build-tsan build-asan build-wheel python/gauntlet/_core*.so
