"""Fetch one pinned source distribution from the package index's JSON API, without building it.

usage: fetch_sdist.py NAME VERSION DEST_DIR   (exit 1 when the version has no sdist or the hash differs)
"""
import hashlib
import json
import pathlib
import sys
import urllib.parse
import urllib.request


def main(name: str, version: str, dest: str) -> int:
    try:
        listing = f"https://pypi.org/pypi/{name}/json"
        with urllib.request.urlopen(listing, timeout=60) as r:
            files = json.load(r)["releases"][version]
        sdist = next(u for u in files if u["packagetype"] == "sdist")
        # (a mirror of the index may give the file's address relative to the listing's)
        with urllib.request.urlopen(urllib.parse.urljoin(listing, sdist["url"]), timeout=300) as r:
            data = r.read()
    except (OSError, ValueError, StopIteration, KeyError) as exc:
        print(f"{name}=={version}: {exc or 'no sdist'}", file=sys.stderr)
        return 1
    if hashlib.sha256(data).hexdigest() != sdist["digests"]["sha256"]:
        print(f"{name}=={version}: sha256 differs from the index's", file=sys.stderr)
        return 1
    out = pathlib.Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    (out / sdist["filename"]).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
