# Two entry points (see README):  make demo   and   make check
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: all deps configure build demo check clean

all: build

deps:
	bash scripts/install-deps

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
	  $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only what scripts/demo runs (the CMake target sluice-demo-deps), not every target.
demo: configure
	cmake --build $(BUILD) --target sluice-demo-deps -j $(JOBS)
	bash scripts/demo $(BUILD)

# ctest, then one line per test that did not run here, with the reason
# (scripts/ctest-summary; with CI=true a skipped ci-required test fails).
check: build
	python3 scripts/ctest-summary $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
