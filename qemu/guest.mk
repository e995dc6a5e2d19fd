# The test guest, in one place: what its kernel is built from, which files
# it boots, and how QEMU runs it. Included by the top-level Makefile, which
# exports these to qemu/run.sh and the test scripts.

# Kernel: allnoconfig + these fragments (kernel/build.sh checks none is dropped)
GUEST_CONFIGS := kernel/configs/guest.config kernel/configs/systemd.config \
                 kernel/configs/fserr.config
GUEST_OBJ     := build/obj
GUEST_KERNEL  := $(GUEST_OBJ)/arch/arm64/boot/Image
GUEST_INITRD  := build/initramfs.cpio.gz

# The debug kernel: the same plus the kernel's bug detectors (lockdep,
# atomic-sleep checks, object debugging, KASAN, kmemleak). make check runs
# every scenario on both kernels.
GUEST_DEBUG_CONFIGS := $(GUEST_CONFIGS) kernel/configs/debug.config
GUEST_DEBUG_OBJ     := build/obj-debug
GUEST_DEBUG_KERNEL  := $(GUEST_DEBUG_OBJ)/arch/arm64/boot/Image
# Its initramfs: the same plus tests/planted/'s module (tests/mkplanted.sh)
GUEST_DEBUG_INITRD  := build/initramfs-debug.cpio.gz

# The bench kernel (make bench): the same plus ext4, whose own
# FAN_FS_ERROR the channel latencies are compared with. tests/bench/devloop
# builds it from scratch each time (the build time is one of the figures).
GUEST_BENCH_CONFIGS := $(GUEST_CONFIGS) kernel/configs/bench.config
GUEST_BENCH_OBJ     := build/obj-bench
GUEST_BENCH_KERNEL  := $(GUEST_BENCH_OBJ)/arch/arm64/boot/Image

# Machine: arm64 "virt" board under TCG, no network, the SD card on an
# sdhci-pci controller (qemu/run.sh adds the card's drive).
GUEST_QEMU    := qemu-system-aarch64 -M virt -cpu cortex-a57 -m 512 -smp 1 \
                 -nographic -no-reboot -nic none -device sdhci-pci
# Console on the PL011; an oops or panic ends the guest at once. Console
# loglevel 1: kernel messages reach the host through dmesg at the end of a
# run, so that they cannot interleave with test output.
GUEST_APPEND  := console=ttyAMA0 panic=-1 oops=panic loglevel=1

export GUEST_CONFIGS GUEST_OBJ GUEST_KERNEL GUEST_INITRD GUEST_QEMU GUEST_APPEND \
	GUEST_DEBUG_KERNEL GUEST_DEBUG_INITRD GUEST_BENCH_CONFIGS GUEST_BENCH_OBJ
