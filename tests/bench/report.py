#!/usr/bin/env python3
"""docs/benchmarks.md and its plots, from a saved benchmark run only.

    tests/bench/report.py [--save RUN-DIR] [--allow-dirty] [--started EPOCH]
    tests/bench/report.py --check-clean [--allow-dirty]

--save copies what `make bench` left in RUN-DIR (default build/bench) into
docs/runs/bench/ (kept in git): run.info, devloop.tsv (tests/bench/devloop)
and, per benchmark, a TSV of the "# bench NAME key=N ..." lines its guests
printed (latency.tsv holds every trial). It refuses a run that did not
finish, that had a failed result, that lacks a benchmark, or (without
--allow-dirty) came from a tree with uncommitted changes other than this
script's own output (docs/benchmarks.md, docs/runs/bench/). The new run
replaces the saved one at once (written beside it, then renamed). Then,
always, docs/benchmarks.md and the plots (gnuplot, docs/runs/bench/*.png)
are written from docs/runs/bench/: every figure in them comes from there.
--check-clean only says whether the tree is clean in that sense (make bench
asks before it starts).
"""
import argparse
import math
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

TOP = pathlib.Path(__file__).resolve().parent.parent.parent
SAVED = TOP / "docs" / "runs" / "bench"
DOC = TOP / "docs" / "benchmarks.md"
# What this script writes: a tree that differs only there is clean for it
OWN_OUTPUT = ["docs/benchmarks.md", "docs/runs/bench", "docs/runs/bench.new",
              "docs/runs/bench.old"]
# The kernel tree the bench kernel is built from (gitignored, see
# kernel/prepare-tree.sh): clean only if it is the series as applied
KERNEL_TREE = TOP / "build" / "linux"
# The benchmarks a run must have, by the file each is saved in
TABLES = ["mount-scale", "error-cost", "error-cost-reports", "error-cost-ext4",
          "error-cost-ext4-reports", "storm", "window", "cycles",
          "latency", "memory", "memory-slab", "multi-sb"]
# The keys of a bench line whose value is a name, not an integer
NAME_KEYS = {"cache"}
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
        if len(words) < 4:
            die(f"{tap}: malformed bench line: {line}")
        name = words[2]
        row = {}
        if name.startswith("latency-"):
            if name.count("-") != 2:
                die(f"{tap}: malformed bench name: {line}")
            _, fs, channel = name.split("-", 2)
            name, row = "latency", {"fs": fs, "channel": channel}
        for w in words[3:]:
            key, eq, value = w.partition("=")
            if key in NAME_KEYS and eq and value and not value.removeprefix("-").isdigit() \
                    and all(c.isalnum() or c in "_.:-" for c in value):
                row[key] = value
                continue
            if not eq or not value.removeprefix("-").isdigit():
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


# The fields each saved table must have (a run saved by an older report.py
# lacks some: it must be made again)
FIELDS = {"error-cost": ["fserr", "listener", "ns_per_op", "ops"],
          "error-cost-ext4": ["fserr", "listener", "ops", "ns_per_op"],
          "error-cost-ext4-reports": ["fserr", "listener", "ops", "reports", "fanotify_events",
                                      "fanotify_errors"],
          "error-cost-reports": ["fserr", "listener", "ops", "reports", "fanotify_events",
                                 "fanotify_errors"],
          "latency": ["fs", "channel", "trial", "return_to_wake_ns", "syscall_ns"],
          "window": ["interval_ms", "uevents", "first_delay_us", "held_gap_us",
                     "held_suppressed", "transitions", "suppressed"],
          "cycles": ["seconds", "interval_ms", "cycles", "transitions", "uevents", "suppressed",
                     "span_ms", "min_gap_us", "last_after_end_ms", "bound"],
          "storm": ["errors", "transitions", "uevents"],
          "mount-scale": ["binds", "namespaces", "rounds", "raise_median_ns", "raise_p90_ns",
                          "clear_median_ns", "clear_p90_ns"],
          "memory": ["fserr", "mounts", "slab_before_kb", "slab_after_kb"],
          "memory-slab": ["fserr", "pass", "mounts", "cache", "objsize", "objperslab", "aliases",
                          "objects"],
          "multi-sb": ["fserr", "superblocks", "ops", "ns_per_op"],
          "devloop": ["step", "seconds", "cache_hits", "cache_misses"]}


def read_tsv(name):
    path = SAVED / f"{name}.tsv"
    if not path.exists():
        die(f"{path} is missing: save a complete run (make bench)")
    lines = path.read_text().splitlines()
    if len(lines) < 2:
        die(f"{path} has no rows")
    keys = lines[0].split("\t")
    missing = [k for k in FIELDS.get(name, []) if k not in keys]
    if missing:
        die(f"{path} lacks {', '.join(missing)}: it was saved by an older make bench; run it again")
    rows = []
    for l in lines[1:]:
        vals = l.split("\t")
        if len(vals) != len(keys):
            die(f"{path}: a row with {len(vals)} fields, the header has {len(keys)}")
        rows.append({k: (int(v) if v.lstrip("-").isdigit() else v) for k, v in zip(keys, vals)})
    return rows


def git(*args, cwd=TOP):
    try:
        return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"git {' '.join(args)} in {cwd} failed ({e})")


def dirty_paths():
    """The tree's uncommitted changes, this script's own output left out, and
    the kernel tree's changes to the series as applied (build/linux)."""
    out = [l[3:] for l in git("status", "--porcelain", "--", ".",
                              *[f":!{p}" for p in OWN_OUTPUT]).splitlines()]
    applied = KERNEL_TREE / ".fserr-applied-head"
    if (KERNEL_TREE / ".git").exists():
        out += [f"build/linux/{l[3:]}" for l in
                git("status", "--porcelain", "--untracked-files=no", cwd=KERNEL_TREE).splitlines()]
        if applied.exists() and git("rev-parse", "HEAD", cwd=KERNEL_TREE).strip() != \
                applied.read_text().strip():
            out.append("build/linux (commits beyond the series in fs-notify-errors/)")
    return out


def check_clean(allow_dirty):
    dirty = dirty_paths()
    if dirty and not allow_dirty:
        die(f"uncommitted changes ({', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}): "
            "commit them (the kernel's through make patches), or BENCH_ALLOW_DIRTY=1 to run and "
            "save anyway (run.info then says '+uncommitted changes')")


def save(run_dir, allow_dirty, started):
    info_file = run_dir / "run.info"
    if not info_file.exists():
        die(f"{info_file} is missing: the run did not finish")
    info = read_info(info_file)
    if info.get("failed") != "0":
        die(f"the run had {info.get('failed')} failed results: not saved")
    check_clean(allow_dirty)
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
    new, old = SAVED.with_name("bench.new"), SAVED.with_name("bench.old")
    for d in (new, old):
        if d.exists():
            shutil.rmtree(d)
    new.mkdir(parents=True)
    lines = info_file.read_text().splitlines()
    if not dirty_paths():
        # run.sh saw only this script's own output of an earlier run
        lines = [l.replace("+uncommitted changes", "") if l.startswith("commit=") else l
                 for l in lines]
    if started:
        lines.append(f"make_bench_seconds={int(time.time()) - started}")
    (new / "run.info").write_text("\n".join(lines) + "\n")
    shutil.copy(run_dir / "devloop.tsv", new / "devloop.tsv")
    for name, rows in tables.items():
        write_tsv(new / f"{name}.tsv", rows)
    if SAVED.exists():
        SAVED.rename(old)
    new.rename(SAVED)
    if old.exists():
        shutil.rmtree(old)


# --- figures -------------------------------------------------------------------


def pct(values, p):
    """The p-th percentile, nearest rank: the ceil(p/100 * n)-th smallest."""
    v = sorted(values)
    if not v:
        die("a percentile of no values")
    return v[max(0, -(-p * len(v) // 100) - 1)]


def slope(points):
    """Least-squares slope of (x, y) points."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


def exponent(points):
    """k of y ~ x^k: the least-squares slope of log y against log x."""
    return slope([(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0])


GROWTH_RULE = ("flat (the largest at most 1.25 times the smallest), decreasing (the last "
               "below the first), else by the part that grows, y - y1 against x - x1 from "
               "the first point (x1, y1): linear if, at every point between the first and "
               "the last, that part's share of the whole rise is within 20% of the share a "
               "straight line gives (x - x1) / (xn - x1) (this needs three points or "
               "more); otherwise by the exponent k of (y - y1) ~ (x - x1)^k (log-log least "
               "squares): slower than linear below 0.8, linear up to 1.2, faster than "
               "linear above. The least-squares line a + b x is given in each case: a is the "
               "fixed part, b the cost of each one more")


def line_fit(points):
    """(a, b) of the least-squares line y = a + b x."""
    b = slope(points)
    return statistics.mean(y for _, y in points) - b * statistics.mean(x for x, _ in points), b


def growth_words(points, what, unit="instructions"):
    """How y grows with x (counted in WHATs), by GROWTH_RULE."""
    points = sorted(points)
    ys = [y for _, y in points]
    if len(points) < 2 or min(ys) <= 0:
        return "not classified (too few or non-positive points)"
    a, b = line_fit(points)
    b = 0.0 if abs(b) < 0.05 else b
    line = f"least-squares line: a = {a:.0f}, b = {b:.1f} {unit} per {what}"
    if max(ys) / min(ys) <= 1.25:
        return f"flat; {line}"
    if ys[-1] < ys[0]:
        return f"decreasing; {line}"
    (x1, y1), (xn, yn) = points[0], points[-1]
    inner = points[1:-1]
    if inner and all(abs((y - y1) / (yn - y1) - (x - x1) / (xn - x1))
                     <= 0.2 * (x - x1) / (xn - x1) for x, y in inner):
        return f"linear; {line}"
    rises = [(x - x1, y - y1) for x, y in points[1:] if y > y1]
    if len(rises) < 2:
        return f"not linear, too few points to say more; {line}"
    k = exponent(rises)
    words = "slower than linear" if k < 0.8 else "linear" if k <= 1.2 else "faster than linear"
    return f"{words}, exponent {k:.2f} of the part that grows; {line}"


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def us(ns):
    return f"{round(ns / 1000) + 0:.0f}"


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
    window = read_tsv("window")[0]
    cycles = read_tsv("cycles")[0]
    out += ["## Uevents per transition (`storm`, `window`, `cycles`)", "",
            "A filesystem mounted with `notify` sends one uevent per clean-to-error",
            "transition, rate limited: at most one per superblock per `uevent_interval_ms`;",
            "a transition that finds the window full is counted in `uevents_suppressed` and",
            "held, and the held ones are announced by one uevent when the window opens, if",
            "fs_fault is still 1 then. `fserr_bench storm` raises fs_fault once and then",
            "keeps failing; `fserr_bench window` runs one fixed sequence in a window and",
            "checks each step's uevents exactly; `fserr_bench cycles` clears and raises",
            "fs_fault as fast as it can with `uevent_interval_ms` lowered, while a thread",
            "receives the uevents from the netlink socket.",
            "",
            "| run | errors or cycles | transitions | uevents | counted in uevents_suppressed |",
            "|---|---:|---:|---:|---:|",
            f"| storm | {storm['errors']} | {storm['transitions']} | {storm['uevents']} | - |",
            f"| window of {window['interval_ms']} ms, fixed sequence | - | "
            f"{window['transitions']} | {window['uevents']} | {window['suppressed']} |",
            f"| cycles for {cycles['seconds']} s, window {cycles['interval_ms']} ms | "
            f"{cycles['cycles']} | {cycles['transitions']} | {cycles['uevents']} | "
            f"{cycles['suppressed']} |", ""]
    windows = cycles["span_ms"] / cycles["interval_ms"]
    bound = cycles["bound"]
    out += [f"- Storm: {storm['errors']} errors, {plural(storm['uevents'], 'uevent')}.",
            f"- Window ({window['interval_ms']} ms): the first transition was announced "
            f"{window['first_delay_us'] / 1000:.1f} ms after the failing call; two more within "
            f"the window were held and announced by one uevent "
            f"{window['held_gap_us'] / 1000:.1f} ms after the first, saying "
            f"{window['held_suppressed']} more suppressed; one more, cleared before its "
            f"window opened, was counted and not announced ({window['transitions']} "
            f"transitions, {plural(window['uevents'], 'uevent')}: each step checked exactly).",
            f"- Cycles: {cycles['uevents']} uevents over {cycles['span_ms']} ms, "
            f"{windows:.1f} windows of {cycles['interval_ms']} ms: at most one per window "
            f"(the guest allows {bound}: the span over a window less one jiffy, as windows "
            "are counted in jiffies, plus the first and one for a receipt that came late; "
            "a single gap is not judged, as the receiving thread can be late by tens of "
            f"milliseconds under the emulator: the closest two were received "
            f"{cycles['min_gap_us'] / 1000:.1f} ms apart). {cycles['transitions']} "
            f"transitions: {cycles['suppressed']} counted in uevents_suppressed, the other "
            f"{cycles['transitions'] - cycles['suppressed']} announced at once, and "
            f"{plural(cycles['uevents'] - (cycles['transitions'] - cycles['suppressed']), 'uevent')} "
            "announced held ones when their window opened. The last uevent carried the final "
            "error count and uevents_suppressed, and came "
            + (f"{cycles['last_after_end_ms']} ms after the last cycle."
               if cycles["last_after_end_ms"] else "before the cycles ended."),
            ""]


# The four runs of a cost table, by (fserr, listener), in the tables' order
COST_KEYS = [(1, 0), (0, 0), (1, 1), (0, 1)]
COST_TITLES = {(1, 0): "fserr on", (0, 0): "fserr.enable=0",
               (1, 1): "fserr on, FAN_FS_ERROR listener",
               (0, 1): "fserr.enable=0, FAN_FS_ERROR listener"}


def cost_runs(name):
    """(rows, per-batch figures, medians, report rows) of the cost table NAME, by COST_KEYS."""
    rows = read_tsv(name)
    reports = {(r["fserr"], r["listener"]): r for r in read_tsv(f"{name}-reports")}
    runs = {}
    for r in rows:
        runs.setdefault((r["fserr"], r["listener"]), []).append(r["ns_per_op"])
    if any(k not in runs or k not in reports for k in COST_KEYS):
        die(f"{name} needs both boots (fserr on, fserr.enable=0), each with and "
            "without a listener")
    return rows, runs, {k: statistics.median(v) for k, v in runs.items()}, reports


def section_cost(out):
    rows, runs, med, reports = cost_runs("error-cost")
    keys, titles = COST_KEYS, COST_TITLES
    bare, listened = med[(1, 0)] / med[(0, 0)], med[(1, 1)] / med[(0, 1)]
    out += ["## What a report costs on the error path (`error-cost`)", "",
            "The same kernel booted twice, once as built and once with `fserr.enable=0`",
            "on its command line: `fserr_bench cost` fails an open and read of a FAT file",
            "whose directory entry points past the last cluster, in batches, each batch",
            "on a mount of its own and timed; once without a listener, and once with a",
            "thread that holds a FAN_FS_ERROR mark on the filesystem and reads its events,",
            "as fserrd does (with fserr on, every report is then forwarded to fanotify).",
            "The operation includes FAT's own error handling and its rate-limited log",
            "line, as a storm on a board would. These boots have one CPU, which also runs",
            "fserr's worker and the listener, and a clock that counts instructions (QEMU's",
            "`-icount shift=0,sleep=off`: 1 ns is one guest instruction, and time the CPU",
            "spends idle is skipped), so the figures are work done, not the host's speed",
            "that minute. The guest checks that every operation failed, that with fserr on",
            "each was reported and fs_fault stayed 1, and that the listener heard every",
            "batch with fserr on and nothing with it off. With a listener, a batch ends when",
            "the listener has read the reports of the batch's untimed warm-up too (a tenth",
            "as many operations before the timed ones): whatever of those it had not read",
            "by then is in the timed figure.",
            "",
            "| boot | batches | operations per batch | instructions per operation (batches) | median |",
            "|---|---:|---:|---|---:|"]
    for k in keys:
        out.append(f"| {titles[k]} | {len(runs[k])} | {rows[0]['ops']} | "
                   f"{', '.join(map(str, runs[k]))} | {med[k]:.0f} |")
    r_on, r_fan = reports[(1, 0)], reports[(1, 1)]
    per_op = r_on["reports"] / r_on["ops"]
    out += ["",
            f"- Without a listener, fserr on costs {bare:.3f}x the operation without it "
            f"(goal <= {GOAL_COST}x: {verdict(bare <= GOAL_COST)}).",
            f"- With a FAN_FS_ERROR listener, fserr on costs {listened:.3f}x the same "
            f"operation and listener without it: shown, not judged against the goal, as the "
            f"two do different work: with fserr off FAT sends the listener nothing, with it on "
            f"the listener read {r_fan['fanotify_events']} events for "
            f"{r_fan['fanotify_errors']} errors (fanotify merges the errors of a filesystem "
            "into the event still queued) on the same CPU, and that reading is in the figure.",
            f"- With fserr on, {r_on['ops']} operations made {r_on['reports']} reports "
            f"({per_op:.2f} per operation). fserr on less fserr off, per report: "
            f"{(med[(1, 0)] - med[(0, 0)]) / per_op:.0f} instructions without a "
            f"listener, {(med[(1, 1)] - med[(0, 1)]) / per_op:.0f} with one.", ""]
    section_cost_ext4(out, med, per_op, r_fan)


def section_cost_ext4(out, fat_med, fat_per_op, fat_fan):
    """The kernel's own FAN_FS_ERROR path, ext4's, as a yardstick for the listener's cost."""
    rows, runs, med, reports = cost_runs("error-cost-ext4")
    keys, titles = COST_KEYS, COST_TITLES
    out += ["The kernel's own path as a yardstick: in the same boots, a loop of failing",
            "`open()`s on ext4 (6.1, which fserr does not touch: `__ext4_error_inode()` calls",
            "`fsnotify_sb_error()` itself) of a file whose inode ext4 refuses, in batches",
            "of its own size, each on a mount of its own, without and with the same",
            "listener. The guest checks that every open failed and that in each batch the",
            "listener heard as many errors as there were operations.",
            "",
            "| ext4, boot | batches | operations per batch | instructions per operation (batches) | median |",
            "|---|---:|---:|---|---:|"]
    ops = rows[0]["ops"]
    for k in keys:
        out.append(f"| {titles[k]} | {len(runs[k])} | {ops} | "
                   f"{', '.join(map(str, runs[k]))} | {med[k]:.0f} |")
    ratios = [med[(b, 1)] / med[(b, 0)] for b in (1, 0)]
    per_report = []
    for b in (1, 0):
        r = reports[(b, 1)]
        if not r["reports"]:
            die("error-cost-ext4: the listener heard no errors")
        per_report.append((med[(b, 1)] - med[(b, 0)]) / (r["reports"] / r["ops"]))
    r = reports[(1, 1)]
    ext4_per_op = r["reports"] / r["ops"]
    fat_added = fat_med[(1, 1)] - fat_med[(1, 0)]
    ext4_added = med[(1, 1)] - med[(1, 0)]
    fat_events_per_op = fat_fan["fanotify_events"] / fat_fan["ops"]
    ext4_events_per_op = r["fanotify_events"] / r["ops"]
    out += ["",
            f"- ext4 with a FAN_FS_ERROR listener costs {ratios[0]:.3f}x ext4 without one "
            f"({ratios[1]:.3f}x in the boot with fserr off); the listener read "
            f"{r['fanotify_events']} events for {r['fanotify_errors']} errors.",
            f"- What the listener adds, its own reading included, with fserr on (with a "
            f"listener less without): {fat_added:.0f} instructions per failing FAT operation "
            f"on {fat_med[(1, 0)]:.0f} ({fat_med[(1, 1)] / fat_med[(1, 0)]:.3f}x), "
            f"{ext4_added:.0f} per failing ext4 operation on {med[(1, 0)]:.0f} "
            f"({ratios[0]:.3f}x). Per report: {fat_added / fat_per_op:.0f} through fserr "
            f"({fat_per_op:.2f} reports per FAT operation), {ext4_added / ext4_per_op:.0f} on "
            f"ext4's path ({ext4_per_op:.2f} per operation). Per event the listener read: "
            f"{fat_added / fat_events_per_op:.0f} through fserr, "
            f"{ext4_added / ext4_events_per_op:.0f} on ext4's path: fserr's reports reach "
            "fanotify in bursts from its worker and are merged into fewer events, each "
            "carrying more errors.",
            ""]


def section_latency(out):
    rows = read_tsv("latency")
    by = {}
    for r in rows:
        by.setdefault((r["fs"], r["channel"]), []).append(r)
    for fs, ch, _ in CHANNELS:
        if (fs, ch) not in by:
            die(f"latency: no trials for {fs} {ch}")
    counts = sorted({len(v) for v in by.values()})

    def call_to_wake(rs):
        return [r["syscall_ns"] + r["return_to_wake_ns"] for r in rs]

    base = call_to_wake(by[("ext4", "fanotify")])
    base_med, base_p99 = statistics.median(base), pct(base, 99)
    if base_med <= 0 or base_p99 <= 0:
        die("latency: ext4's wake-ups came before its calls were made: the data is wrong")
    ext4_ret = statistics.median(r["return_to_wake_ns"] for r in by[("ext4", "fanotify")])
    ext4_before = sum(r["return_to_wake_ns"] < 0 for r in by[("ext4", "fanotify")])
    ext4_call = statistics.median(r["syscall_ns"] for r in by[("ext4", "fanotify")])
    out += ["## How fast each channel tells userspace (`latency`)", "",
            "`fserr_bench latency`: a thread waits on the channel; the main thread makes",
            "the call that fails (a `read()` of the damaged FAT file, FAT's cluster walk",
            "failing; `open()` of the ext4 file whose inode is refused), and takes the time",
            "at which that call was made and returned, and at which the waiting thread",
            "returned from its blocking call (`poll()`, `recvmsg()`, `read()`), after a",
            "tenth as many untimed trials. Every FAT trial starts from clean: fs_fault is",
            "cleared first (the channels that wake on a change are woken by the clear, and",
            "that wake-up is waited for). The uevent trials run with `uevent_interval_ms`",
            "0. The channels take turns in rounds of 100 trials",
            "(`tests/bench/bench-channels.sh`), so that a slow stretch of the emulator does",
            "not fall on one channel alone; how much a channel's rounds differ is in the",
            "table of rounds below. Two vCPUs: the failing calls run on CPU 0 and the",
            "waiting thread on CPU 1, pinned, in every round; the host's clock. A trial is",
            "armed only after",
            "the channel has been quiet for 50 ms, so that a late report of the trial",
            "before (a FAT operation makes several) is not taken for its wake-up.",
            "",
            "The time from the failing call's return to the wake-up is negative when the",
            "waiter woke before the call returned: ext4 reports from inside the call, and",
            f"its listener woke at about the return at the median ({ext4_before} of "
            f"{len(by[('ext4', 'fanotify')])} trials before it). fserr reports from its",
            "worker, a work item queued on the failing call's CPU, which runs when the call",
            "sleeps or once it has returned; the uevent comes from a second work item",
            "(`uevent_work`, queued by the first after it forwarded to fanotify, notified",
            "fs_fault's pollers and woke mountinfo's), which calls `kobject_uevent()`.",
            "ext4 here is 6.1's: `__ext4_error_inode()` calls `fsnotify_sb_error()`",
            "from inside the failing call. A ratio to a negative time means nothing, so the",
            "ratios to ext4 (and the goal) use the time from the failing call's start to the",
            "wake-up, which counts both paths from the same point, but also counts the",
            "failing calls themselves, which are not the same call (FAT's `read()`, ext4's",
            "`open()`): a channel's ratio is below 1 partly because FAT's call is shorter.",
            "The difference from ext4 measured from the return, in microseconds, is given",
            "beside it. All times are in microseconds.",
            "",
            f"Trials per channel: {', '.join(map(str, counts))}.",
            "",
            "| channel | trials | the failing call, median us | return to wake-up, median us | p99 us | vs ext4's, median us | call to wake-up, median us | p99 us | median vs ext4 | p99 vs ext4 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    worst_med = worst_p99 = 0.0
    worst_later = worst_alike = None
    for fs, ch, title in CHANNELS:
        rs = by[(fs, ch)]
        ret = [r["return_to_wake_ns"] for r in rs]
        full = call_to_wake(rs)
        med, p99 = statistics.median(full), pct(full, 99)
        rm, rp = med / base_med, p99 / base_p99
        later = statistics.median(ret) - ext4_ret
        if fs != "ext4":
            worst_med, worst_p99 = max(worst_med, rm), max(worst_p99, rp)
            if worst_later is None or later > worst_later[0]:
                worst_later = (later, title)
            # as if FAT's failing call had taken as long as ext4's
            alike = (statistics.median(ret) + ext4_call) / base_med
            if worst_alike is None or alike > worst_alike[0]:
                worst_alike = (alike, title)
        out.append(f"| {title} | {len(rs)} | {us(statistics.median(r['syscall_ns'] for r in rs))} | "
                   f"{us(statistics.median(ret))} | {us(pct(ret, 99))} | {round(later / 1000) + 0:+d} | "
                   f"{us(med)} | {us(p99)} | {rm:.2f}x | {rp:.2f}x |")
    ok = worst_med <= GOAL_LATENCY
    out += ["", f"- The slowest fserr channel, from the failing call's start: {worst_med:.2f}x "
            f"ext4's native path at the median, {worst_p99:.2f}x at the 99th percentile "
            f"(goal <= {GOAL_LATENCY}x at the median: {verdict(ok)}). The 99th percentile is "
            f"shown but not judged: with {counts[0]} trials it is trial number "
            f"{counts[0] - -(-99 * counts[0] // 100) + 1} counted from the slowest, and a few "
            "of the slowest trials decide it, on either path, differently in each run.",
            f"- The ratio leans on FAT's shorter call: had FAT's failing call taken as long as "
            f"ext4's (its median return-to-wake-up added to ext4's median call), the slowest "
            f"channel, {worst_alike[1]}, would be {worst_alike[0]:.2f}x ext4's at the median.",
            f"- From the failing call's return, the fserr channel that wakes last, "
            f"{worst_later[1]}, wakes its waiter {abs(worst_later[0]) / 1000:.0f} us "
            f"{'after' if worst_later[0] >= 0 else 'before'} ext4's listener at the median.",
            ""]
    section_latency_rounds(out, by)
    out += ["![latency per channel](runs/bench/latency.png)", ""]
    data = []
    for fs, ch, _ in CHANNELS:
        lat = sorted(r["return_to_wake_ns"] / 1000 for r in by[(fs, ch)])
        data.append("\n".join(f"{v:.1f} {(j + 1) / len(lat):.4f}" for j, v in enumerate(lat)))
    (SAVED / "latency-cdf.dat").write_text("\n\n\n".join(data) + "\n")
    plots = ", ".join(f"'latency-cdf.dat' index {i} with steps title \"{t}\""
                      for i, (_, _, t) in enumerate(CHANNELS))
    gnuplot(f"""set terminal pngcairo size 900,520 noenhanced
set output 'latency.png'
set title "From the failing call's return to the wake-up (negative: woken before the return)"
set xlabel 'microseconds'
set ylabel 'fraction of trials'
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
    section_memory_slab(out, {b: len(v) for b, v in per.items()}, diff)


# A cache is listed on its own when the boots differ by this many bytes per
# mount or more; the rest are summed in one row
SLAB_LIST_BYTES = 16


def section_memory_slab(out, passes, slab_diff):
    """Where fserr's share goes: active objects per cache, the boots compared."""
    rows = read_tsv("memory-slab")
    # per boot and cache: the change of each pass (a pass without a line for a
    # cache did not change it), per mount
    changes, info = {}, {}
    for r in rows:
        if r["fserr"] not in passes:
            die(f"memory-slab: a row of a boot without memory rows: {r}")
        if not 0 <= r["pass"] < passes[r["fserr"]]:
            die(f"memory-slab: pass {r['pass']} of a boot with {passes[r['fserr']]} passes")
        by_pass = changes.setdefault((r["fserr"], r["cache"]), [0] * passes[r["fserr"]])
        by_pass[r["pass"]] += r["objects"] / r["mounts"]
        info[r["cache"]] = r
    table, rest, rest_n = [], 0.0, 0
    for cache in sorted(info):
        on = statistics.median(changes.get((1, cache), [0] * passes[1]))
        off = statistics.median(changes.get((0, cache), [0] * passes[0]))
        nbytes = (on - off) * info[cache]["objsize"]
        if abs(nbytes) >= SLAB_LIST_BYTES:
            table.append((cache, on, off, nbytes))
        elif nbytes:
            rest += nbytes
            rest_n += 1
    table.sort(key=lambda t: -abs(t[3]))
    total = sum(t[3] for t in table) + rest
    mounts = rows[0]["mounts"]
    shared = [c for c, *_ in table if info[c]["aliases"] > 0]
    unknown = [c for c, *_ in table if info[c]["aliases"] < 0]
    out += ["Where the bytes go: the active objects of each slab cache in /proc/slabinfo,",
            "read with Slab in the same passes; the change per mount is the median over",
            "the passes (a pass in which a cache did not change counts as 0). A cache is",
            f"listed when the boots differ by {SLAB_LIST_BYTES} bytes per mount or more; the",
            "others are summed in the last row. SLUB counts the free slots of a CPU's",
            "current slab as active, so each count is exact only to one slab: the",
            f"resolution column is a slab's objects over the {mounts} mounts. The objects'",
            "total and Slab are different measures (Slab counts the pages of the slabs) and",
            "are not reconciled here.", "",
            "| slab cache | object size, bytes | objects per mount, fserr on | "
            "fserr.enable=0 | difference | resolution, objects per mount | bytes per mount |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for cache, on, off, nbytes in table:
        r = info[cache]
        out.append(f"| {cache} | {r['objsize']} | {on:.2f} | {off:.2f} | {on - off:+.2f} | "
                   f"{r['objperslab'] / mounts:.2f} | {nbytes:+.0f} |")
    out.append(f"| {plural(rest_n, 'other cache') if rest_n else 'other caches: none'} "
               f"| | | | | | {rest:+.0f} |")
    out += ["", f"- All caches: {total:+.0f} bytes per superblock in objects (Slab: "
            f"{slab_diff:.0f} bytes)."]
    if table and total > 0:
        out[-1] += (f" The largest share is {table[0][0]}'s, {table[0][3]:+.0f} bytes, "
                    f"{table[0][3] / total:.0%} of the objects' total.")
    if shared or unknown:
        out.append("- " + "; ".join(
            ([f"shared with other names (aliases in /sys/kernel/slab): {', '.join(shared)}: "
              "their counts include other objects"] if shared else []) +
            ([f"not known to be caches of their own (no /sys/kernel/slab): "
              f"{', '.join(unknown)}"] if unknown else [])) + ".")
    else:
        out.append("- Each listed cache is a cache of its own in this kernel (its aliases in "
                   "/sys/kernel/slab are 0): no other name's objects are counted in it.")
    out.append("")


def section_multi(out):
    rows = read_tsv("multi-sb")
    on = sorted((r for r in rows if r["fserr"] == 1), key=lambda r: r["superblocks"])
    off = {r["superblocks"]: r for r in rows if r["fserr"] == 0}
    out += ["## The report path with many faulting superblocks (`multi-sb`)", "",
            "`fserr_bench multi`: 1, 10 and 100 damaged FAT12 volumes mounted at once, each",
            "faulted first; then failing operations on each in turn, timed (in the cost",
            f"boots: one CPU, instructions). How it grows: {GROWTH_RULE}.",
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
    share = [(r["superblocks"], r["ns_per_op"] - off[r["superblocks"]]["ns_per_op"]) for r in on]
    off_ratio = off[on[-1]["superblocks"]]["ns_per_op"] / off[on[0]["superblocks"]]["ns_per_op"]
    out += ["", f"- With fserr on, {on[-1]['superblocks']} faulting superblocks cost "
            f"{ratio:.2f}x one per operation, and {off_ratio:.2f}x with fserr off. fserr's "
            "share (on minus off): "
            f"{', '.join(str(v) for _, v in share)} instructions per operation "
            f"({growth_words(share, 'superblock')}).", ""]


def section_latency_rounds(out, by):
    """The return-to-wake-up medians of each round of trials (a round starts at trial 0)."""
    rounds = {}
    for fs, ch, title in CHANNELS:
        rs = []
        for r in by[(fs, ch)]:
            if r["trial"] == 0 or not rs:
                rs.append([])
            rs[-1].append(r["return_to_wake_ns"])
        rounds[title] = rs
    n = max(len(v) for v in rounds.values())
    if n < 2:
        return
    out += ["Each round of each channel, from the return: the median in microseconds, and",
            "how many of the round's trials woke before the call returned.", "",
            "| channel | " + " | ".join(f"round {i + 1}" for i in range(n)) +
            " | spread of the medians, us |",
            "|---|" + "---:|" * (n + 1)]
    spreads = []
    for title, rs in rounds.items():
        meds = [statistics.median(v) for v in rs]
        spread = max(meds) - min(meds)
        spreads.append((spread, title))
        cells = [f"{us(m)} ({sum(x < 0 for x in v)} of {len(v)})" for m, v in zip(meds, rs)]
        cells += [""] * (n - len(cells))
        out.append(f"| {title} | " + " | ".join(cells) + f" | {us(spread)} |")
    wide = max(spreads)
    out += ["", f"- The medians of one channel's rounds differ by up to {us(wide[0])} us "
            f"({wide[1]}): a difference between channels smaller than that is not one this "
            "run can tell.", ""]


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
            "that time. As in the cost boots, the guest has one CPU, which runs the worker",
            "and the poller too, and a clock that counts instructions (QEMU's `-icount",
            "shift=0,sleep=off`): the medians and 90th percentiles are instructions, the work",
            "done for one change. What that leaves out: instructions are not time (the walk",
            "chases pointers under `mount_lock`; TCG models no caches, and on hardware cache",
            "misses will weigh more than the instruction count says); the guest's counter",
            "ticks every 16 instructions; time the CPU spends idle is skipped, not counted",
            "(sleep=off), which the medians do not see and a 90th percentile could. The fixed",
            "part of each figure is not fserr's alone: it is FAT's failing read (or the sysfs",
            "write), the switches to the worker and the poller, and the poller's return; what",
            "fserr adds per mount and per namespace is the growth. Each row in another",
            "namespace also adds one mount of the superblock.",
            "",
            f"How a figure grows: {GROWTH_RULE}.",
            "",
            "| mounts of the superblock | namespaces holding one | rounds | raise median, instructions | raise p90 | clear median, instructions | clear p90 |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in by_binds + by_ns[1:]:
        out.append(f"| {r['binds']} | {r['namespaces']} | {r['rounds']} | {r['raise_median_ns']} | "
                   f"{r['raise_p90_ns']} | {r['clear_median_ns']} | {r['clear_p90_ns']} |")
    out.append("")
    for rs, key, what in ((by_binds, "binds", "mount"), (by_ns, "namespaces", "namespace")):
        if len(rs) < 2:
            continue
        out.append(f"Against the number of {what}s:")
        out.append("")
        for kind in ("raise", "clear"):
            b, l = rs[0][f"{kind}_median_ns"], rs[-1][f"{kind}_median_ns"]
            ratio = l / b if b else float("inf")
            out.append(f"- {kind}: the median is {ratio:.2f}x the one-{what} row's with "
                       f"{rs[-1][key]} {what}s "
                       f"({growth_words([(r[key], r[f'{kind}_median_ns']) for r in rs], what)})")
        out.append("")
    if len(by_binds) >= 2 and len(by_ns) >= 2:
        per = {what: line_fit([(r[key], r["raise_median_ns"]) for r in rs])[1]
               for rs, key, what in ((by_binds, "binds", "mount"),
                                     (by_ns, "namespaces", "namespace"))}
        out += [f"A namespace row adds a namespace and a mount: one more namespace costs about "
                f"{per['namespace'] - per['mount']:.0f} instructions per raise beyond its "
                f"mount ({per['namespace']:.0f} less {per['mount']:.0f}, the slopes above).", ""]
    out += ["![cost against mounts and namespaces](runs/bench/mount-scale.png)", ""]
    (SAVED / "mount-scale.dat").write_text(
        "\n".join(f"{r['binds']} {r['raise_median_ns']} {r['clear_median_ns']}" for r in by_binds)
        + "\n\n\n" +
        "\n".join(f"{r['namespaces']} {r['raise_median_ns']} {r['clear_median_ns']}" for r in by_ns)
        + "\n")
    gnuplot("""set terminal pngcairo size 900,420 noenhanced
set output 'mount-scale.png'
set multiplot layout 1,2 title 'One fs_fault change, call to mountinfo wake-up (median)'
set grid
set ylabel 'instructions'
set yrange [0:*]
set xlabel 'mounts of the superblock'
set xtics 250
plot 'mount-scale.dat' index 0 using 1:2 with linespoints title 'raise', \\
     '' index 0 using 1:3 with linespoints title 'clear'
set xlabel 'mount namespaces holding one'
set xtics 25
plot 'mount-scale.dat' index 1 using 1:2 with linespoints title 'raise', \\
     '' index 1 using 1:3 with linespoints title 'clear'
unset multiplot
""")


def section_devloop(out, info):
    steps = {r["step"]: r for r in read_tsv("devloop")}
    words = {"fresh-build": "kernel build from scratch (empty object folder, compiler cache off)",
             "incremental-build": "build after touching fs/fserr.c (compiler cache off)",
             "boot-to-first-result": "boot, from QEMU's start to the first test result"}
    out += ["## The developer loop (`tests/bench/devloop`)", "",
            f"On the host ({info['machine'].split(',')[0]}, all used): the bench kernel (`kernel/configs/bench.config`",
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
           "and the mount-scale boot count instructions (`-icount shift=0,sleep=off`, 1 ns = one",
           "instruction); the other times (latency, uevent windows) are the host's clock:",
           "compare the rows of one run with each other, not with hardware.", ""]
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
    section_devloop(out, info)
    DOC.write_text("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--save", nargs="?", const=str(TOP / "build" / "bench"), metavar="RUN-DIR")
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--started", type=int, metavar="EPOCH",
                    help="when make bench started (its total time goes into run.info)")
    ap.add_argument("--check-clean", action="store_true")
    args = ap.parse_args()
    if args.check_clean:
        check_clean(args.allow_dirty)
        return
    if args.save:
        save(pathlib.Path(args.save), args.allow_dirty, args.started)
    write_doc()


if __name__ == "__main__":
    main()
