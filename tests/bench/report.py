#!/usr/bin/env python3
"""docs/benchmarks.md and its plots, from a saved benchmark run only.

    tests/bench/report.py [--save RUN-DIR] [--allow-dirty]

--save copies what `make bench` left in RUN-DIR (default build/bench) into
docs/runs/bench/ (kept in git): run.info, devloop.tsv (tests/bench/devloop)
and, per benchmark, a TSV of the "# bench NAME key=N ..." lines its guests
printed (latency.tsv holds every trial). It refuses a run that did not
finish, that had a failed result, that lacks a benchmark, or (without
--allow-dirty) came from a tree with uncommitted changes. Then, always,
docs/benchmarks.md and the plots (gnuplot, docs/runs/bench/*.png) are
written from docs/runs/bench/: every figure in them comes from there.
"""
import argparse
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

TOP = pathlib.Path(__file__).resolve().parent.parent.parent
SAVED = TOP / "docs" / "runs" / "bench"
DOC = TOP / "docs" / "benchmarks.md"
# The benchmarks a run must have, by the file each is saved in
TABLES = ["mount-scale", "error-cost", "error-cost-reports", "storm", "cycles",
          "latency", "memory", "multi-sb"]
# The goals of the benchmark issue, checked against the figures
GOAL_COST = 1.05
GOAL_LATENCY = 1.5
GOAL_MEMORY = 2048
CHANNELS = [("fat", "fault", "fs_fault poll (FAT)"),
            ("fat", "mountinfo", "mountinfo poll (FAT)"),
            ("fat", "uevent", "netlink uevent (FAT)"),
            ("fat", "fanotify", "FAN_FS_ERROR (FAT, through fserr)"),
            ("ext4", "fanotify", "FAN_FS_ERROR (ext4's own)")]


def die(msg):
    print(f"bench report: {msg}", file=sys.stderr)
    sys.exit(1)


def read_info(path):
    info = {}
    for line in path.read_text().splitlines():
        key, _, value = line.partition("=")
        info[key] = value
    return info


def bench_lines(tap):
    """The '# bench NAME key=N ...' lines of a guest, as (table, dict)."""
    rows = []
    for line in tap.read_text().splitlines():
        if not line.startswith("# bench "):
            continue
        words = line.split()
        name = words[2]
        row = {}
        if name.startswith("latency-"):
            _, fs, channel = name.split("-", 2)
            name, row = "latency", {"fs": fs, "channel": channel}
        for w in words[3:]:
            key, eq, value = w.partition("=")
            if not eq or not value.isdigit():
                die(f"{tap}: malformed bench line: {line}")
            row[key] = int(value)
        rows.append((name, row))
    return rows


def write_tsv(path, rows):
    keys = list(rows[0])
    with open(path, "w") as out:
        out.write("\t".join(keys) + "\n")
        for row in rows:
            if list(row) != keys:
                die(f"{path.name}: rows with different fields: {keys} and {list(row)}")
            out.write("\t".join(str(row[k]) for k in keys) + "\n")


def read_tsv(name):
    path = SAVED / f"{name}.tsv"
    if not path.exists():
        die(f"{path} is missing: save a complete run (make bench)")
    lines = path.read_text().splitlines()
    keys = lines[0].split("\t")
    return [{k: (int(v) if v.lstrip("-").isdigit() else v) for k, v in zip(keys, l.split("\t"))}
            for l in lines[1:]]


def save(run_dir, allow_dirty, started):
    info_file = run_dir / "run.info"
    if not info_file.exists():
        die(f"{info_file} is missing: the run did not finish")
    info = read_info(info_file)
    if info.get("failed") != "0":
        die(f"the run had {info.get('failed')} failed results: not saved")
    if "+uncommitted" in info.get("commit", "") and not allow_dirty:
        die("the run came from a tree with uncommitted changes (--allow-dirty to save anyway)")
    if not (run_dir / "devloop.tsv").exists():
        die(f"{run_dir}/devloop.tsv is missing (tests/bench/devloop did not finish)")
    tables = {}
    for tap in sorted(run_dir.glob("*/*/tap")):
        for name, row in bench_lines(tap):
            tables.setdefault(name, []).append(row)
    missing = [t for t in TABLES if t not in tables]
    if missing:
        die(f"no '# bench' lines for {', '.join(missing)} under {run_dir}")
    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        die(f"unknown benchmarks {', '.join(unknown)}")
    if SAVED.exists():
        shutil.rmtree(SAVED)
    SAVED.mkdir(parents=True)
    shutil.copy(info_file, SAVED / "run.info")
    if started:
        with open(SAVED / "run.info", "a") as f:
            f.write(f"make_bench_seconds={int(time.time()) - started}\n")
    shutil.copy(run_dir / "devloop.tsv", SAVED / "devloop.tsv")
    for name, rows in tables.items():
        write_tsv(SAVED / f"{name}.tsv", rows)


# --- figures -------------------------------------------------------------------


def pct(values, p):
    """The p-th percentile, nearest rank on the sorted values."""
    v = sorted(values)
    return v[max(0, min(len(v) - 1, round(p / 100 * len(v) + 0.5) - 1))]


def slope(points):
    """Least-squares slope of (x, y) points."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def growth_words(points):
    """How y grows with x: flat (the last point within 25% of the first),
    linear (a least-squares line a + b*x is within 10% of every point), or
    else growing, but not linearly."""
    points = sorted(points)
    first, last = points[0][1], points[-1][1]
    if first and last / first < 1.25:
        return "flat"
    b = slope(points)
    a = statistics.mean(y for _, y in points) - b * statistics.mean(x for x, _ in points)
    if all(y and abs(a + b * x - y) / y <= 0.10 for x, y in points):
        return "linear"
    return "grows, not linearly"


def us(ns):
    return f"{ns / 1000:.0f}"


def verdict(ok):
    return "met" if ok else "**not met**"


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=SAVED)
    except FileNotFoundError:
        die("gnuplot is missing: run 'make deps' (package gnuplot-nox)")
    except subprocess.CalledProcessError as e:
        die(f"gnuplot failed ({e})")


# --- the document ----------------------------------------------------------------------


def section_uevents(out):
    storm = read_tsv("storm")[0]
    cycles = read_tsv("cycles")[0]
    out += ["## Uevents per transition (`storm`, `cycles`)", "",
            "A filesystem mounted with `notify` sends one uevent per clean-to-error",
            "transition, rate limited. `fserr_bench storm` raises fs_fault once and then",
            "keeps failing; `fserr_bench cycles` clears and raises it every few milliseconds",
            "with `uevent_interval_ms` lowered, and counts what the netlink socket receives.",
            "",
            "| run | errors | transitions | uevents | held and counted in uevents_suppressed |",
            "|---|---:|---:|---:|---:|",
            f"| storm | {storm['errors']} | {storm['transitions']} | {storm['uevents']} | - |",
            f"| cycles for {cycles['seconds']} s, window {cycles['interval_ms']} ms | "
            f"{cycles['cycles']} | {cycles['transitions']} | {cycles['uevents']} | "
            f"{cycles['suppressed']} |", ""]
    windows = cycles["span_ms"] / cycles["interval_ms"]
    out += [f"- Storm: {storm['errors']} errors, {storm['uevents']} uevent.",
            f"- Cycles: {cycles['uevents']} uevents over {cycles['span_ms']} ms, "
            f"{windows:.1f} windows of {cycles['interval_ms']} ms, so at most one per window "
            f"(the closest two were {cycles['min_gap_us'] / 1000:.1f} ms apart; the guest "
            f"allows one jiffy and the receiving loop's delay, 10 ms in all); no transition "
            f"was lost: {cycles['transitions']} transitions, {cycles['uevents']} uevents and "
            f"{cycles['suppressed']} counted in uevents_suppressed (a held transition is "
            f"counted there and then announced by the uevent that opens the next window); "
            f"the last uevent carried the final error count and came "
            f"{cycles['last_after_end_ms']} ms after the last cycle.",
            ""]


def section_cost(out):
    rows = read_tsv("error-cost")
    reports = read_tsv("error-cost-reports")[0]
    on = [r["ns_per_op"] for r in rows if r["fserr"] == 1]
    off = [r["ns_per_op"] for r in rows if r["fserr"] == 0]
    if not on or not off:
        die("error-cost needs a boot with fserr on and one with it off")
    ratio = statistics.median(on) / statistics.median(off)
    out += ["## What a report costs on the error path (`error-cost`)", "",
            "The same kernel booted twice, once as built and once with `fserr.enable=0`",
            "on its command line: `fserr_bench cost` fails an open and read of a FAT file",
            "whose directory entry points past the last cluster, in batches, each batch",
            "on a mount of its own and timed. The operation includes FAT's own error",
            "handling and its rate-limited log line, as a storm on a board would. These",
            "boots have one CPU, which also runs fserr's worker, and a clock that counts",
            "instructions (QEMU's `-icount shift=0`: 1 ns is one guest instruction), so",
            "the figures are work done, not the host's speed that minute.",
            "",
            "| boot | batches | operations per batch | instructions per operation (batches) | median |",
            "|---|---:|---:|---|---:|",
            f"| fserr on | {len(on)} | {rows[0]['ops']} | {', '.join(map(str, on))} | "
            f"{statistics.median(on):.0f} |",
            f"| fserr.enable=0 | {len(off)} | {rows[0]['ops']} | {', '.join(map(str, off))} | "
            f"{statistics.median(off):.0f} |",
            "",
            f"- fserr on costs {ratio:.3f}x the operation without it (goal <= {GOAL_COST}x: "
            f"{verdict(ratio <= GOAL_COST)}).",
            f"- With fserr on, {reports['ops']} operations made {reports['reports']} reports "
            f"({reports['reports'] / reports['ops']:.2f} per operation): "
            f"{(statistics.median(on) - statistics.median(off)) / (reports['reports'] / reports['ops']):.0f} "
            f"instructions per report.", ""]


def section_latency(out):
    rows = read_tsv("latency")
    by = {}
    for r in rows:
        by.setdefault((r["fs"], r["channel"]), []).append(r)
    for fs, ch, _ in CHANNELS:
        if (fs, ch) not in by:
            die(f"latency: no trials for {fs} {ch}")
    base = by[("ext4", "fanotify")]
    base_med = statistics.median(r["call_to_wake_ns"] for r in base)
    base_p99 = pct([r["call_to_wake_ns"] for r in base], 99)
    out += ["## How fast each channel tells userspace (`latency`)", "",
            "`fserr_bench latency`: a thread waits on the channel; the main thread makes",
            "the failing call (open and read of the damaged file) and the time from the",
            "call to the waiting thread's wake-up is taken, over the trials after a tenth",
            "as many untimed ones. Before each trial fs_fault is cleared (the channels",
            "that wake on a change are woken by the clear first, and that wake-up is",
            "waited for). The uevent trials run with `uevent_interval_ms` 0. The channels",
            "take turns, 100 trials each, three rounds. Two vCPUs, so the waiting thread",
            "has its own; the host's clock.",
            "",
            "ext4's own FAN_FS_ERROR comes from `__ext4_error()` inside the call, fserr's",
            "channels from its worker after the report: the time from the return to the",
            "wake-up is negative when the waiter woke before the call returned, which is",
            "why the comparison with ext4 (and the goal) uses the time from the call.",
            "",
            "| channel | trials | call to wake-up, median us | p99 us | after the return, median us | the call itself, median us | median vs ext4 | p99 vs ext4 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    worst = 0.0
    for fs, ch, title in CHANNELS:
        rs = by[(fs, ch)]
        lat = [r["call_to_wake_ns"] for r in rs]
        after = [r["call_to_wake_ns"] - r["syscall_ns"] for r in rs]
        call = [r["syscall_ns"] for r in rs]
        med, p99 = statistics.median(lat), pct(lat, 99)
        rm, rp = med / base_med, p99 / base_p99
        if fs != "ext4":
            worst = max(worst, rm)
        out.append(f"| {title} | {len(rs)} | {us(med)} | {us(p99)} | "
                   f"{statistics.median(after) / 1000:.0f} | {us(statistics.median(call))} | "
                   f"{rm:.2f}x | {rp:.2f}x |")
    out += ["", f"- The slowest fserr channel's median is {worst:.2f}x ext4's native path "
            f"(goal <= {GOAL_LATENCY}x for the median: {verdict(worst <= GOAL_LATENCY)}). The p99 "
            "column is the host's noise as much as the kernel's: a few trials in a hundred "
            "wait milliseconds for the emulator.",
            "", "![latency per channel](runs/bench/latency.png)", ""]
    data = []
    for i, (fs, ch, title) in enumerate(CHANNELS):
        lat = sorted(r["call_to_wake_ns"] / 1000 for r in by[(fs, ch)])
        data.append("\n".join(f"{v:.1f} {(j + 1) / len(lat):.4f}" for j, v in enumerate(lat)))
    (SAVED / "latency-cdf.dat").write_text("\n\n\n".join(data) + "\n")
    plots = ", ".join(f"'latency-cdf.dat' index {i} with steps title \"{t}\""
                      for i, (_, _, t) in enumerate(CHANNELS))
    gnuplot(f"""set terminal pngcairo size 900,520 noenhanced
set output 'latency.png'
set title 'From the failing call to the wake-up: distribution over the trials'
set xlabel 'microseconds (log scale)'
set ylabel 'fraction of trials'
set logscale x
set key bottom right
set grid
plot {plots}
""")


def section_memory(out):
    rows = read_tsv("memory")
    per = {}
    for r in rows:
        per.setdefault(r["fserr"], []).append((r["slab_after_kb"] - r["slab_before_kb"]) * 1024
                                               / r["mounts"])
    if 0 not in per or 1 not in per:
        die("memory needs a boot with fserr on and one with it off")
    on, off = statistics.median(per[1]), statistics.median(per[0])
    diff = on - off
    n = rows[0]["mounts"]
    out += ["## Memory per registered superblock (`memory`)", "",
            f"`fserr_bench memory`: {n} copies of a small FAT12 volume on loop devices set up",
            "beforehand; Slab in /proc/meminfo after dropping the caches, before and after",
            "mounting them all, in each pass (the volumes are unmounted between passes).",
            "What fserr adds per superblock is the difference between the boots.",
            "",
            "| boot | passes | slab per mount, bytes (passes) | median |",
            "|---|---:|---|---:|",
            f"| fserr on | {len(per[1])} | {', '.join(f'{v:.0f}' for v in per[1])} | {on:.0f} |",
            f"| fserr.enable=0 | {len(per[0])} | {', '.join(f'{v:.0f}' for v in per[0])} | "
            f"{off:.0f} |",
            "",
            f"- fserr's share: {diff:.0f} bytes per superblock (goal <= {GOAL_MEMORY}: "
            f"{verdict(diff <= GOAL_MEMORY)}). Slab is counted in kB: {n} mounts give a "
            f"resolution of {1024 / n:.0f} bytes.", ""]


def section_multi(out):
    rows = read_tsv("multi-sb")
    on = sorted((r for r in rows if r["fserr"] == 1), key=lambda r: r["superblocks"])
    off = {r["superblocks"]: r for r in rows if r["fserr"] == 0}
    out += ["## The report path with many faulting superblocks (`multi-sb`)", "",
            "`fserr_bench multi`: 1, 10 and 100 damaged FAT12 volumes mounted at once, each",
            "faulted first; then failing operations on each in turn, timed (in the cost",
            "boots: one CPU, instructions).",
            "",
            "| faulting superblocks | operations | instructions per operation, fserr on | fserr.enable=0 | on / off |",
            "|---:|---:|---:|---:|---:|"]
    if not on or sorted(off) != [r["superblocks"] for r in on]:
        die("multi-sb needs the same sizes from the boot with fserr on and the one with it off")
    for r in on:
        o = off[r["superblocks"]]
        out.append(f"| {r['superblocks']} | {r['ops']} | {r['ns_per_op']} | {o['ns_per_op']} | "
                   f"{r['ns_per_op'] / o['ns_per_op']:.3f} |")
    ratio = on[-1]["ns_per_op"] / on[0]["ns_per_op"]
    out += ["", f"- With fserr on, {on[-1]['superblocks']} faulting superblocks cost "
            f"{ratio:.2f}x one per operation "
            f"({growth_words([(r['superblocks'], r['ns_per_op']) for r in on])}; least-squares slope "
            f"{slope([(r['superblocks'], r['ns_per_op']) for r in on]):.1f} instructions per superblock).",
            ""]


def section_mount_scale(out):
    rows = read_tsv("mount-scale")
    by_binds = sorted((r for r in rows if r["namespaces"] == 1), key=lambda r: r["binds"])
    by_ns = sorted((r for r in rows if r["binds"] == 1), key=lambda r: r["namespaces"])
    out += ["## What one fs_fault change costs as the mounts grow (`mount-scale`)", "",
            "Each fs_fault change wakes pollers of `/proc/<pid>/mountinfo` from fserr's worker,",
            "which walks every mount of the superblock and touches each mount namespace that",
            "holds one. `tests/guest/mount_scale.c` times, for each row, the raise (a read that",
            "fails on a corrupt FAT directory entry) and the clear (root writes 0 to fs_fault)",
            "from the call to the wake-up of a thread polling mountinfo; the walk is part of",
            "that time. Medians and 90th percentiles in microseconds. How a figure grows:",
            "flat (the largest row within 25% of the smallest), linear (a straight line",
            "fits every row within 10%), or not linearly.",
            "",
            "| mounts of the superblock | namespaces holding one | rounds | raise median | raise p90 | clear median | clear p90 |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in by_binds + by_ns[1:]:
        out.append(f"| {r['binds']} | {r['namespaces']} | {r['rounds']} | {r['raise_median_us']} | "
                   f"{r['raise_p90_us']} | {r['clear_median_us']} | {r['clear_p90_us']} |")
    out.append("")
    for rs, key, what in ((by_binds, "binds", "mount"), (by_ns, "namespaces", "namespace")):
        if len(rs) < 2:
            continue
        out.append(f"Against the number of {what}s:")
        out.append("")
        for kind in ("raise", "clear"):
            b, l = rs[0][f"{kind}_median_us"], rs[-1][f"{kind}_median_us"]
            per = slope([(r[key], r[f"{kind}_median_us"]) for r in rs])
            ratio = l / b if b else float("inf")
            out.append(f"- {kind}: the median is {ratio:.2f}x the one-{what} row's with "
                       f"{rs[-1][key]} {what}s "
                       f"({growth_words([(r[key], r[f'{kind}_median_us']) for r in rs])}, "
                       f"least-squares slope "
                       f"{per:.2f} us per {what})")
        out.append("")
    out += ["![cost against mounts and namespaces](runs/bench/mount-scale.png)", ""]
    (SAVED / "mount-scale.dat").write_text(
        "\n".join(f"{r['binds']} {r['raise_median_us']} {r['clear_median_us']}" for r in by_binds)
        + "\n\n\n" +
        "\n".join(f"{r['namespaces']} {r['raise_median_us']} {r['clear_median_us']}" for r in by_ns)
        + "\n")
    gnuplot("""set terminal pngcairo size 900,420 noenhanced
set output 'mount-scale.png'
set multiplot layout 1,2 title 'One fs_fault change, call to mountinfo wake-up (median)'
set logscale x
set grid
set ylabel 'microseconds'
set yrange [0:*]
set xlabel 'mounts of the superblock'
plot 'mount-scale.dat' index 0 using 1:2 with linespoints title 'raise', \\
     '' index 0 using 1:3 with linespoints title 'clear'
set xlabel 'mount namespaces holding one'
plot 'mount-scale.dat' index 1 using 1:2 with linespoints title 'raise', \\
     '' index 1 using 1:3 with linespoints title 'clear'
unset multiplot
""")


def section_devloop(out):
    steps = {r["step"]: r for r in read_tsv("devloop")}
    words = {"fresh-build": "kernel build from scratch (empty object folder, compiler cache off)",
             "incremental-build": "build after touching fs/fserr.c (compiler cache off)",
             "boot-to-first-result": "boot, from QEMU's start to the first test result"}
    out += ["## The developer loop (`tests/bench/devloop`)", "",
            "On the host, with both cores: the bench kernel (`kernel/configs/bench.config`",
            "on top of the test guest's) and its boot. The compiler cache's hits and",
            "misses during each build show that it was off (`make check` uses it).", "",
            "| step | seconds | compiler cache hits | misses |", "|---|---:|---:|---:|"]
    for key, title in words.items():
        if key not in steps:
            die(f"devloop.tsv has no {key}")
        r = steps[key]
        cache = (f"{r['cache_hits']} | {r['cache_misses']}" if key != "boot-to-first-result"
                 else "- | -")
        out.append(f"| {title} | {float(r['seconds']):.1f} | {cache} |")
    out.append("")


def write_doc():
    info_file = SAVED / "run.info"
    if not info_file.exists():
        die(f"no saved benchmark run in {SAVED}")
    info = read_info(info_file)
    out = ["# Benchmarks", "",
           "Generated by `tests/bench/report.py` from the run saved in `docs/runs/bench/`",
           f"(commit {info['commit']}, {info['date']}, {info['machine']}; the bench kernel:",
           "the test guest's configuration plus ext4). Regenerate with `make bench`; the raw",
           "numbers are the TSV files beside the run. Nothing here is typed by hand.",
           "",
           "The guests run under QEMU's TCG (no hardware acceleration). The cost boots",
           "count instructions (`-icount shift=0`, 1 ns = one instruction); the other",
           "times are the host's clock: compare the rows of one run with each other, not",
           "with hardware.", ""]
    if "make_bench_seconds" in info:
        sec = int(info["make_bench_seconds"])
        out[-1:-1] = ["", f"This run of `make bench` took {sec // 60} min {sec % 60:02d} s in all, "
                      "the developer loop's builds and boot included (its table is at the end)."]
    section_cost(out)
    section_latency(out)
    section_uevents(out)
    section_memory(out)
    section_multi(out)
    section_mount_scale(out)
    section_devloop(out)
    DOC.write_text("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--save", nargs="?", const=str(TOP / "build" / "bench"), metavar="RUN-DIR")
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--started", type=int, metavar="EPOCH",
                    help="when make bench started (its total time goes into run.info)")
    args = ap.parse_args()
    if args.save:
        save(pathlib.Path(args.save), args.allow_dirty, args.started)
    write_doc()


if __name__ == "__main__":
    main()
