# Boot benchmarks (not part of `make test`): anysector against GRUB (BIOS) and systemd-boot
# (UEFI), same kernel/initrd/disk, alternating runs. `make bench BENCH_RUNS=9 BENCH_CASES='bios-*'`.
# Results: $(BUILD)/bench/{results.txt,samples.csv,logs/}.
BENCH_RUNS ?= 5
BENCH_CASES ?= *
BENCH_TIMEOUT ?= 90
BENCH_LABEL ?= gpt

# The installer and the stages are built when their rules exist; the bench still measures the
# peers (and says why anysector is missing) when they do not build yet.
bench::
	@tools/deps.sh ensure
	@t='$(filter $(BUILD)/tools/anysector $(BUILD)/stages/%,$(ALL_TARGETS))'; \
	if [ -n "$$t" ]; then $(MAKE) --no-print-directory -s -k $$t || \
		echo "bench: building anysector failed; benchmarking the peers only"; fi
	@BENCH_RUNS='$(BENCH_RUNS)' BENCH_CASES='$(BENCH_CASES)' BENCH_TIMEOUT='$(BENCH_TIMEOUT)' \
		BENCH_LABEL='$(BENCH_LABEL)' python3 bench/bench.py
