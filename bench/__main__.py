"""`python -m bench`: run every benchmark of the package, one after the other."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"bench.{info.name}")
        if hasattr(module, "main"):
            print(f"== bench.{info.name} ==", flush=True)
            module.main(args)


if __name__ == "__main__":
    main()
