#!/usr/bin/env python3
"""The excerpts of docs/board-bringup.md, from the board run saved in
docs/runs/board/.

    tests/board/excerpts.py [--save [RUN-DIR]]

--save first copies a run of the board scenario on the plain kernel that
tests/run.sh left (default build/run: `make check SCENARIOS=board
FSERR_KERNELS=plain FSERR_HOST_TESTS=no`) into docs/runs/board/: the
console as console-plain.log, results-plain.txt, times-plain.tsv and the
runner's run.info as runner.info (not run.info: tests/report.py reads
every docs/runs/*/run.info as a whole-suite run). It refuses a run that
failed or ran anything else. Then, always, the text between
"<!-- excerpt NAME: begin -->" and "<!-- excerpt NAME: end -->" in the
guide is rewritten from the saved files; nothing there is typed by hand.
"""
import argparse
import pathlib
import shutil
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
SAVED = TOP / "docs" / "runs" / "board"
GUIDE = TOP / "docs" / "board-bringup.md"
WIDTH = 160  # journal lines are cut here


def info(path):
    kv = {}
    for line in path.read_text().splitlines():
        k, _, v = line.partition("=")
        kv[k] = v
    return kv


def save(src):
    kv = info(src / "run.info")
    why = []
    if kv.get("kernels") != "plain" or kv.get("scenarios") != "1":
        why.append(f"it ran kernels '{kv.get('kernels')}', {kv.get('scenarios')} scenario(s)")
    if kv.get("failed") != "0" or not (src / "plain" / "board" / "console.log").exists():
        why.append("it is not a passing run of the board scenario")
    if why:
        sys.exit("excerpts.py: not saving " + str(src) + ": " + "; ".join(why))
    SAVED.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "plain" / "board" / "console.log", SAVED / "console-plain.log")
    shutil.copy(src / "results.txt", SAVED / "results-plain.txt")
    shutil.copy(src / "times.tsv", SAVED / "times-plain.tsv")
    shutil.copy(src / "run.info", SAVED / "runner.info")
    print(f"excerpts.py: saved {src} in {SAVED.relative_to(TOP)}")


def after(lines, start, pred):
    """Index of the first line from start on for which pred holds."""
    for i in range(start, len(lines)):
        if pred(lines[i]):
            return i
    sys.exit("excerpts.py: the saved console lacks a line the guide quotes")


def excerpts():
    con = (SAVED / "console-plain.log").read_text().splitlines()
    kv = info(SAVED / "runner.info")
    times = (SAVED / "times-plain.tsv").read_text().splitlines()[1].split("\t")

    mon = [l[len("# monitor: "):] for l in con if l.startswith("# monitor: ")]
    mon = mon[after(mon, 0, lambda l: l.startswith("KERNEL[")):]
    while mon and not mon[-1]:
        mon.pop()

    dmesg = con[con.index("@@FSERR-DMESG") + 1:con.index("@@FSERR-END")]
    i = after(dmesg, 0, lambda l: "tried to HW reset card" in l)
    j = after(dmesg, i, lambda l: "Directory bread" in l)
    k = i
    while k + 1 < len(dmesg) and ("Directory bread" in dmesg[k + 1] or
                                  dmesg[k + 1].startswith("I/O error, dev mmcblk0")):
        k += 1
    dir_lines = dmesg[i:k + 1]
    f = after(dmesg, j, lambda l: "FAT read failed" in l)
    fat_lines = dmesg[f - 1:f + 3] if dmesg[f - 1].startswith("I/O error") else dmesg[f:f + 4]

    jr = [l[len("# journal: "):] for l in con if l.startswith("# journal: ")]
    first = after(jr, 0, lambda l: " first_errno=5 " in l)
    start = max(i for i in range(first) if "the policy is valid" in jr[i])
    second = after(jr, first + 1, lambda l: " first_errno=5 " in l)  # the FAT sector's
    end = after(jr, second, lambda l: " remounted-ro " in l)
    journal = [l if len(l) <= WIDTH else l[:WIDTH - 3] + "..." for l in jr[start:end + 1]]

    board = [l for l in (SAVED / "results-plain.txt").read_text().splitlines()
             if l.startswith("PASS board:")]
    kunit = [l for l in (SAVED / "results-plain.txt").read_text().splitlines()
             if l.startswith("PASS kunit:")]
    commit = kv["commit"].split("+")[0]
    summary = [f"At {commit} ({kv['date']}; `runs/board/runner.info`) the boot took",
               f"{times[2]} s and the run ended with `quick: {kv['passed']} passed, "
               f"{kv['failed']} failed, {kv['skipped']} skipped`:",
               f"the board's {len(board) - 1} checks and its kernel log check, and the",
               f"{len(kunit)} KUnit cases of fserr from the same boot."]

    def block(lines):
        return ["```"] + lines + ["```"]
    return {"monitor": block(mon), "dmesg-dir": block(dir_lines),
            "dmesg-fat": block(fat_lines), "journal": block(journal), "summary": summary}


def rewrite(parts):
    text = GUIDE.read_text().split("\n")
    out, skipping = [], None
    seen = set()
    for line in text:
        if skipping:
            if line == f"<!-- excerpt {skipping}: end -->":
                out.append(line)
                skipping = None
            continue
        out.append(line)
        for name, lines in parts.items():
            if line == f"<!-- excerpt {name}: begin -->":
                out.extend(lines)
                skipping = name
                seen.add(name)
    if skipping or seen != set(parts):
        sys.exit(f"excerpts.py: {GUIDE.relative_to(TOP)} lacks the markers of "
                 + ", ".join(sorted(set(parts) - seen)) + (f" or the end of {skipping}" if skipping else ""))
    GUIDE.write_text("\n".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--save", nargs="?", const=str(TOP / "build" / "run"), metavar="RUN-DIR")
    a = p.parse_args()
    if a.save:
        save(pathlib.Path(a.save))
    rewrite(excerpts())
    print(f"excerpts.py: {GUIDE.relative_to(TOP)} rewritten from {SAVED.relative_to(TOP)}")


if __name__ == "__main__":
    main()
