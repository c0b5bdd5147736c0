"""Unpack a GitHub snapshot (a bare git directory, such as the tool library's `fetch` gives) into a folder.

    python bench/unpack_snapshot.py GIT_DIR DEST

Writes every blob of HEAD that the snapshot holds and counts those it lacks (snapshots leave out the
largest files). `git archive` stops at the first missing blob, which cut fresh set BF's copies short
(bench/fresh-sets.md); this does not. Symbolic links are skipped. Prints the counts.
"""

from __future__ import annotations

import os
import subprocess
import sys


def unpack(git_dir: str, dest: str) -> tuple[int, int]:
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", "HEAD"],
                             capture_output=True, check=True).stdout
    written = missing = 0
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue
        blob = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "blob", sha.decode()], capture_output=True)
        if blob.returncode != 0:
            missing += 1
            continue
        target = os.path.join(dest, os.fsdecode(path))
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as out:
            out.write(blob.stdout)
        written += 1
    return written, missing


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    done, absent = unpack(sys.argv[1], sys.argv[2])
    print(f"{sys.argv[2]}: {done} files written, {absent} not in the snapshot")
