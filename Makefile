# fserr: tell userspace when a filesystem hits an error. See README.md.
#
#   make demo    build what is missing, boot the guest, damage its SD card
#                and show userspace being told
#   make check   the test suite (tier quick: the heavy scenarios scaled down
#                on the debug kernel); ends with "quick: N passed, N failed, N skipped"
#   make check-full  the same at full size on both kernels
#   make bench   the benchmarks (tests/bench/): the developer loop, then the
#                bench kernel's costs and latencies, saved in docs/runs/bench/
#                and written into docs/benchmarks.md
#   make rootfs  a Debian arm64 root with systemd and udev for the board
#                path (cached in build/rootfs/; minutes the first time)
#   make board   the board card: FAT32 data and that root with fserrd
#                (installed from its arm64 Debian package)
#   make deb     fserrd's and fserrctl's Debian packages for this machine
#                (userspace/debian/; in build/deb/host)
#
# Every target installs what it needs first (make deps, as root).

SHELL := /bin/bash
.DELETE_ON_ERROR:

include qemu/guest.mk

BUILD     := build
HOST_BIN  := $(BUILD)/host
HOST_CC   := gcc
HOST_CFLAGS := -O2 -g -Wall -Wextra -Werror

.PHONY: all deps kernel-tree kernel kernel-debug patches initramfs initramfs-debug images host-tools \
	userspace boot check check-full bench demo install clean distclean rootfs rootfs-stage2 board deb

all: kernel initramfs images

deps:
	@./kernel/deps.sh

kernel-tree: deps
	@./kernel/prepare-tree.sh

kernel: kernel-tree
	@./kernel/build.sh $(GUEST_OBJ) $(GUEST_CONFIGS)

kernel-debug: kernel-tree
	@./kernel/build.sh $(GUEST_DEBUG_OBJ) $(GUEST_DEBUG_CONFIGS)

patches:
	@./kernel/export-patches.sh

host-tools: $(HOST_BIN)/fscorrupt userspace

# fserrd, fserrctl and their unit tests for the host (the guest's copies
# are built by tests/mkinitramfs.sh).
userspace: deps
	@$(MAKE) -s -C userspace O=../$(BUILD)/userspace/host WERROR=1 all \
		../$(BUILD)/userspace/host/uevent_test ../$(BUILD)/userspace/host/fsstate_test \
		../$(BUILD)/userspace/host/config_test ../$(BUILD)/userspace/host/state_test \
		../$(BUILD)/userspace/host/logline_test ../$(BUILD)/userspace/host/mountpoint_test \
		../$(BUILD)/userspace/host/fsck_test ../$(BUILD)/userspace/host/fserrd-rig

$(HOST_BIN)/fscorrupt: tests/fscorrupt/fscorrupt.c | deps
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

images: deps
	@./tests/mkimages.sh

# (+: these scripts run make and share the job server; it also runs them
# under make -n)
initramfs: kernel-tree images
	@+./tests/mkinitramfs.sh $(GUEST_INITRD)

initramfs-debug: kernel-debug initramfs
	@+./tests/mkplanted.sh $(GUEST_DEBUG_OBJ) $(GUEST_INITRD) $(GUEST_DEBUG_INITRD)

# A Debian arm64 root with systemd and udev, for the board path (issue 13):
# build/rootfs/KEY/rootfs.img, cached. tests/mkrootfs.sh runs the first
# stage here and the second in the guest (rootfs-stage2, its helper).
rootfs: kernel initramfs
	@./tests/mkrootfs.sh

rootfs-stage2:
	@./qemu/run.sh --card $(ROOTFS_IMAGE) --virtio --smp 2 --timeout 1800 \
		--append fserr.scenario=rootfs-stage2 --log $(ROOTFS_LOG)

# The board card, build/board/card.img (tests/mkboard.sh): p1 FAT32 data,
# p2 a copy of that root with fserrd and fserrctl installed by dpkg from
# their arm64 packages (in a guest boot), a policy and the board test. The
# board scenario boots it without an initramfs.
board: rootfs images initramfs
	@+./tests/mkboard.sh $(BUILD)/rootfs/latest/rootfs.img $(BUILD)/board/card.img

# The Debian source and binary packages of userspace/ (tests/mkdeb.sh)
deb: deps
	@./tests/mkdeb.sh $$(dpkg --print-architecture) $(BUILD)/deb/host --source

boot: kernel initramfs images
	@cp --sparse=always $(BUILD)/images/card-fat32.img $(BUILD)/boot-card.img
	@echo "boot: the SD card is a fresh copy of card-fat32.img; Ctrl-a x quits QEMU"
	@./qemu/run.sh --interactive --card $(BUILD)/boot-card.img

# Which kernels make check boots: plain, debug or both (the default).
FSERR_KERNELS ?= plain debug
export FSERR_KERNELS
# make check FSERR_FUZZ=NAME:SEED replays one fuzzed image (tests/README.md)
export FSERR_FUZZ

# The tier: quick (make check, what CI runs) or full (make check-full).
FSERR_TIER ?= quick
export FSERR_TIER
# How many guests run side by side (one per core by default).
export FSERR_JOBS

# The board card (make rootfs: debootstrap from the Debian mirror, its
# second stage in a guest) only when the board scenario runs: all
# scenarios, or SCENARIOS names it.
CHECK_PREREQS := kernel $(if $(filter debug,$(FSERR_KERNELS)),kernel-debug initramfs-debug) \
	initramfs images host-tools \
	$(if $(or $(if $(SCENARIOS),,all),$(filter board board-powercut,$(SCENARIOS))),board)

# The prerequisites are built side by side (make -j): each kernel build
# runs its own -j<nproc>, and the two kernels' serial steps (configuration,
# linking, kallsyms) and the images, initramfs and host tools fill the
# cores the other leaves idle.
PREREQ_JOBS ?= $(words $(CHECK_PREREQS))

check:
	@$(MAKE) --no-print-directory -j$(PREREQ_JOBS) $(CHECK_PREREQS)
	@./tests/run.sh $(SCENARIOS)

check-full:
	@$(MAKE) --no-print-directory -j$(PREREQ_JOBS) $(CHECK_PREREQS)
	@FSERR_TIER=full ./tests/run.sh $(SCENARIOS)

# The benchmarks (tests/bench/): tests/bench/devloop builds the bench
# kernel (the test guest's configuration plus ext4) from scratch with the
# compiler cache off, again after touching fs/fserr.c, and times a boot;
# then every scenario in tests/bench/ runs on that kernel, one guest at a
# time, without the host tests; report.py saves the run in
# docs/runs/bench/ and writes docs/benchmarks.md and its plots from it.
# It refuses to start in a tree with uncommitted changes (other than its
# own output); BENCH_ALLOW_DIRTY=1 runs and saves anyway. The report says
# how long the whole of make bench took. The host needs only fscorrupt
# (tests/lib/bench.sh), not the userspace tools.
BENCH_DIRTY = $(if $(filter 1,$(BENCH_ALLOW_DIRTY)),--allow-dirty)
bench:
	@./tests/bench/report.py --check-clean $(BENCH_DIRTY)
	@mkdir -p $(BUILD) && date +%s >$(BUILD)/bench-started
	@$(MAKE) --no-print-directory -j3 kernel-tree initramfs images $(HOST_BIN)/fscorrupt
	@rm -rf $(BUILD)/bench
	@mkdir -p $(BUILD)/bench
	@./tests/bench/devloop $(BUILD)/bench/devloop.tsv
	@GUEST_KERNEL=$(GUEST_BENCH_KERNEL) FSERR_RUNS=$(CURDIR)/$(BUILD)/bench \
		FSERR_SCENARIO_DIR=$(CURDIR)/tests/bench FSERR_HOST_TESTS=no \
		FSERR_KERNELS=plain FSERR_JOBS=1 FSERR_TIER=full ./tests/run.sh
	@./tests/bench/report.py --save $(BUILD)/bench --started $$(cat $(BUILD)/bench-started) \
		$(BENCH_DIRTY)

demo: kernel initramfs images host-tools
	@./tests/demo.sh

# Install fserrctl and its man page (DESTDIR, PREFIX as usual).
install: deps
	@$(MAKE) -C userspace O=../$(BUILD)/userspace/host install

clean:
	rm -rf $(BUILD)/run $(BUILD)/host $(BUILD)/initramfs $(GUEST_INITRD) $(GUEST_DEBUG_INITRD) \
		$(BUILD)/planted $(BUILD)/images

# Also drops the kernel tree and its objects (the compiler cache is outside
# the clone: ~/.cache/fserr/ccache, see kernel/build.sh).
distclean:
	rm -rf $(BUILD)
